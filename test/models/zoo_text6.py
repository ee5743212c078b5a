"""The model zoo's sixth set of transformers models (export_zoo.py, round 6): state-space hybrid and
mixture-of-experts decoders, a Whisper and a Moonshine decoder step, CLAP's audio tower, patch-based
and decomposition time-series models and a vision-language connector the first five rounds lack, tiny
configs with random weights, nothing downloaded. The decoders export with a symbolic sequence length
too (SEQ_RANGE)."""
import torch
import transformers as T

from zoo_spec import Spec
from zoo_text import V, Hidden, text
from zoo_text2 import TimeSeries, series
from zoo_text5 import Field, lm

lm_small = dict(vocab_size=V, max_position_embeddings=64, hidden_size=64, num_hidden_layers=2,
                num_attention_heads=4, num_key_value_heads=2, intermediate_size=128)
mamba = dict(mamba_n_heads=4, mamba_d_head=32, mamba_n_groups=1, mamba_d_state=8, mamba_d_conv=4, mamba_expand=2,
             mamba_chunk_size=8)


def whisper_decoder():
    """Whisper's encoder over log-mel features and one decoder pass over a few tokens."""
    cfg = T.WhisperConfig(vocab_size=V, num_mel_bins=16, d_model=64, encoder_layers=1, decoder_layers=2,
                          encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
                          decoder_ffn_dim=128, max_source_positions=16, max_target_positions=32,
                          pad_token_id=0, bos_token_id=0, eos_token_id=0, decoder_start_token_id=0)
    return Hidden(T.WhisperModel(cfg), ["input_features", "decoder_input_ids"], use_cache=False)


def moonshine():
    cfg = T.MoonshineConfig(vocab_size=V, hidden_size=32, intermediate_size=64, encoder_num_hidden_layers=1,
                            decoder_num_hidden_layers=2, encoder_num_attention_heads=2, decoder_num_attention_heads=2,
                            max_position_embeddings=64, pad_token_id=0, bos_token_id=1, eos_token_id=2,
                            decoder_start_token_id=1)
    return Hidden(T.MoonshineModel(cfg), ["input_values", "decoder_input_ids"], use_cache=False)


def speech_and_tokens(n):
    return lambda g, b: ((torch.randn(b, 16, 32, generator=g) if n is None else torch.randn(b, n, generator=g)),
                         torch.randint(2, V, (b, 6), generator=g))


def clap_audio():
    cfg = T.ClapAudioConfig(window_size=4, num_mel_bins=16, spec_size=32, patch_size=4, patch_stride=(4, 4),
                            hidden_size=32, projection_dim=16, depths=[1, 1], num_attention_heads=[2, 2],
                            patch_embeds_hidden_size=16, enable_fusion=False)
    return Field(T.ClapAudioModel(cfg), "pooler_output", ["input_features"])


def patchtst():
    cfg = T.PatchTSTConfig(num_input_channels=3, context_length=32, patch_length=8, patch_stride=4,
                           num_hidden_layers=2, d_model=32, num_attention_heads=2, ffn_dim=64, scaling="std")
    return Field(T.PatchTSTModel(cfg), "last_hidden_state", ["past_values"])


def patchtsmixer():
    cfg = T.PatchTSMixerConfig(context_length=32, patch_length=8, patch_stride=8, num_input_channels=3, d_model=16,
                               num_layers=2, self_attn=True, self_attn_heads=2, gated_attn=True, mode="mix_channel",
                               scaling="mean")
    return Field(T.PatchTSMixerModel(cfg), "last_hidden_state", ["past_values"])


def past_values(g, b):
    return (torch.randn(b, 32, 3, generator=g),)


class Autoformer(TimeSeries):
    """transformers' Autoformer called with past and future values, time features and the observed mask."""

    def __init__(self):
        super().__init__(T.AutoformerModel(T.AutoformerConfig(
            prediction_length=4, context_length=8, lags_sequence=[1, 2], num_time_features=1, d_model=16,
            encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
            encoder_ffn_dim=32, decoder_ffn_dim=32, moving_average=3, autocorrelation_factor=1, label_length=4)))


class Idefics3Vision(torch.nn.Module):
    """Idefics3's SigLIP-style image tower and its connector (pixel shuffle by 2, then a projection to the
    language model's width): the image tokens a vision-language model feeds its decoder."""

    def __init__(self):
        super().__init__()
        from transformers.models.idefics3.modeling_idefics3 import Idefics3Connector, Idefics3VisionTransformer
        vision = T.Idefics3VisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                        num_attention_heads=2, image_size=32, patch_size=4)
        cfg = T.Idefics3Config(vision_config=vision, text_config=T.LlamaConfig(hidden_size=48, **{
            k: v for k, v in lm_small.items() if k != "hidden_size"}), scale_factor=2)
        self.vision = Idefics3VisionTransformer(cfg.vision_config)
        self.connector = Idefics3Connector(cfg)

    def forward(self, pixel_values):
        return self.connector(self.vision(pixel_values=pixel_values).last_hidden_state)


SPECS = [
    # state-space hybrids (symbolic batch and sequence length)
    Spec("zamba2", "transformers Zamba2Model (Mamba-2 layers with a shared attention block reused by "
         "hybrid layers)", *lm(T.Zamba2Model, lambda: T.Zamba2Config(
             vocab_size=V, max_position_embeddings=64, hidden_size=32, num_hidden_layers=3,
             layers_block_type=["mamba", "hybrid", "mamba"], mamba_d_state=8, n_mamba_heads=4, chunk_size=8,
             num_attention_heads=2, intermediate_size=64, use_mamba_kernels=False)), seq=False),
    Spec("falcon_h1", "transformers FalconH1Model (attention and Mamba-2 side by side in every layer, "
         "muP multipliers)", *lm(T.FalconH1Model, lambda: T.FalconH1Config(mamba_d_ssm=128, **lm_small, **mamba)), seq=False),
    Spec("bamba", "transformers BambaModel (Mamba-2 layers with one attention layer)",
         *lm(T.BambaModel, lambda: T.BambaConfig(attn_layer_indices=[1], **lm_small, **mamba)), seq=False),
    Spec("granitemoehybrid", "transformers GraniteMoeHybridModel (Mamba-2 and attention layers, top-2 MoE "
         "with a shared expert)", *lm(T.GraniteMoeHybridModel, lambda: T.GraniteMoeHybridConfig(
             layer_types=["mamba", "attention"], num_local_experts=4, num_experts_per_tok=2,
             shared_intermediate_size=64, **lm_small, **mamba)), seq=False),
    # mixtures of experts
    Spec("glm4_moe", "transformers Glm4MoeModel (sigmoid-scored grouped top-k routing, shared expert, "
         "partial rotary, q/k norms)", *lm(T.Glm4MoeModel, lambda: T.Glm4MoeConfig(
             moe_intermediate_size=32, num_experts_per_tok=2, n_shared_experts=1, n_routed_experts=4, n_group=2,
             topk_group=1, first_k_dense_replace=1, use_qk_norm=True, **lm_small)), seq=True),
    Spec("ernie4_5_moe", "transformers Ernie4_5_MoeModel (top-2 MoE with a shared expert and a routing "
         "correction bias, interleaved rotary)", *lm(T.Ernie4_5_MoeModel, lambda: T.Ernie4_5_MoeConfig(
             moe_intermediate_size=32, moe_k=2, moe_num_experts=4, moe_num_shared_experts=1,
             moe_layer_start_index=1, **lm_small)), seq=True),
    Spec("deepseek_v2", "transformers DeepseekV2Model (multi-head latent attention, greedy top-k routing, "
         "shared experts, complex-valued rotary)", *lm(T.DeepseekV2Model, lambda: T.DeepseekV2Config(
             moe_intermediate_size=32, n_routed_experts=4, n_shared_experts=1, num_experts_per_tok=2,
             first_k_dense_replace=1, kv_lora_rank=16, q_lora_rank=32, qk_rope_head_dim=8, qk_nope_head_dim=8,
             v_head_dim=16, **{**lm_small, "num_key_value_heads": 4})), seq=True),
    Spec("hunyuan_v1_moe", "transformers HunYuanMoEV1Model (top-2 MoE with a shared MLP, q/k norms)",
         *lm(T.HunYuanMoEV1Model, lambda: T.HunYuanMoEV1Config(num_experts=4, moe_topk=2, head_dim=16, **lm_small)),
         seq=True),
    # speech and audio
    Spec("whisper_decoder", "transformers WhisperModel (encoder over log-mel features, a decoder pass with "
         "cross-attention)", whisper_decoder, speech_and_tokens(None)),
    Spec("moonshine", "transformers MoonshineModel (conv stem over the raw waveform, rotary encoder, "
         "SwiGLU decoder with cross-attention)", moonshine, speech_and_tokens(2000)),
    Spec("clap_audio", "transformers ClapAudioModel (HTS-AT: Swin windows over a log-mel spectrogram "
         "folded into an image)", clap_audio, lambda g, b: (torch.randn(b, 1, 64, 16, generator=g),)),
    # time series
    Spec("patchtst", "transformers PatchTSTModel (patches per channel, std scaling, channel-independent "
         "attention)", patchtst, past_values, grad=True),
    Spec("patchtsmixer", "transformers PatchTSMixerModel (MLP-Mixer over patches and channels, gated "
         "attention)", patchtsmixer, past_values),
    Spec("autoformer", "transformers AutoformerModel (series decomposition by moving average, "
         "FFT autocorrelation attention)", Autoformer, series),
    # vision-language
    Spec("idefics3_vision", "transformers Idefics3 image tower and connector (pixel shuffle, projection)",
         Idefics3Vision, lambda g, b: (torch.randn(b, 3, 32, 32, generator=g),)),
]

"""The model zoo's second set of transformers models (export_zoo.py): decoders, encoders, a seq2seq
model, speech, vision and time-series models whose patterns the first set lacks, tiny configs with
random weights, nothing downloaded."""
import torch
import transformers as T

from zoo_spec import Spec
from zoo_text import V, Hidden, dec, decoder, encoder, seq2seq, small, text


def ids_only(model_cls, cfg, **kw):
    """A model called with token ids alone (no attention mask)."""
    return (lambda: Hidden(model_cls(cfg(), **kw), ["input_ids"]), lambda g, b: text(g, b)[:1])


def audio(model_cls, cfg):
    """A speech encoder called with a raw waveform of 400 samples."""
    return (lambda: Hidden(model_cls(cfg()), ["input_values"]),
            lambda g, b: (torch.randn(b, 400, generator=g),))


def pixels(hw):
    return lambda g, b: (torch.randn(b, 3, hw, hw, generator=g),)


wav = dict(vocab_size=32, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
           conv_dim=(16, 16, 16), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
           num_conv_pos_embedding_groups=4)
ts = dict(prediction_length=4, context_length=8, lags_sequence=[1, 2], num_time_features=1, d_model=16,
          encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
          encoder_ffn_dim=32, decoder_ffn_dim=32)
vit_small = dict(patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                 intermediate_size=64)


class TimeSeries(torch.nn.Module):
    """A transformers time-series model called with past and future values, time features and the
    observed mask; the decoder's last hidden state."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, past_values, past_time_features, past_observed_mask, future_values, future_time_features):
        return self.m(past_values=past_values, past_time_features=past_time_features,
                      past_observed_mask=past_observed_mask, future_values=future_values,
                      future_time_features=future_time_features).last_hidden_state


def series(g, b):
    past = 10  # context 8 + the largest lag 2
    return (torch.randn(b, past, generator=g), torch.randn(b, past, 1, generator=g), torch.ones(b, past),
            torch.randn(b, 4, generator=g), torch.randn(b, 4, 1, generator=g))


SPECS = [
    Spec("falcon", "transformers FalconModel (parallel attention and MLP, multi-query, ALiBi)", *decoder(
        T.FalconModel, lambda: T.FalconConfig(vocab_size=V, hidden_size=64, num_hidden_layers=2,
                                              num_attention_heads=4, parallel_attn=True, alibi=True,
                                              new_decoder_architecture=False, multi_query=True)), grad=True),
    Spec("gptj", "transformers GPTJModel (interleaved rotary on 8 of 16 dims, parallel residual)", *decoder(
        T.GPTJModel, lambda: T.GPTJConfig(vocab_size=V, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                                          rotary_dim=8, bos_token_id=0, eos_token_id=0))),
    Spec("olmo2", "transformers Olmo2Model (RMSNorm on whole q and k projections, post-norms)", *decoder(
        T.Olmo2Model, lambda: T.Olmo2Config(num_key_value_heads=2, eos_token_id=0, pad_token_id=1, **dec))),
    Spec("cohere", "transformers CohereModel (interleaved RoPE, bias-free LayerNorm, logit scale)", *decoder(
        T.CohereModel, lambda: T.CohereConfig(num_key_value_heads=2, eos_token_id=0, bos_token_id=0,
                                              pad_token_id=1, **dec))),
    Spec("phi3", "transformers Phi3Model (fused qkv and gate-up projections, GQA)", *decoder(
        T.Phi3Model, lambda: T.Phi3Config(num_key_value_heads=2, pad_token_id=0, eos_token_id=0,
                                          bos_token_id=0, **dec))),
    Spec("starcoder2", "transformers Starcoder2Model (sliding window of 8, GQA, biased LayerNorm MLP)", *decoder(
        T.Starcoder2Model, lambda: T.Starcoder2Config(num_key_value_heads=2, sliding_window=8, bos_token_id=0,
                                                      eos_token_id=0, **dec))),
    Spec("mamba", "transformers MambaModel (causal depthwise conv1d, selective scan over the sequence)", *ids_only(
        T.MambaModel, lambda: T.MambaConfig(vocab_size=V, hidden_size=32, state_size=8, num_hidden_layers=2,
                                            expand=2, conv_kernel=4, use_mambapy=False), ), grad=True),
    Spec("xlnet", "transformers XLNetModel (two-stream relative attention, relative shift)", *encoder(
        T.XLNetModel, lambda: T.XLNetConfig(vocab_size=V, d_model=64, n_layer=2, n_head=4, d_inner=128,
                                            use_mems_eval=False))),
    Spec("roformer", "transformers RoFormerModel (rotary positions in an encoder, interleaved sin/cos)", *encoder(
        T.RoFormerModel, lambda: T.RoFormerConfig(vocab_size=V, embedding_size=64, max_position_embeddings=64,
                                                  **small))),
    Spec("mpnet", "transformers MPNetModel (relative position buckets shared by all layers)", *encoder(
        T.MPNetModel, lambda: T.MPNetConfig(vocab_size=V, max_position_embeddings=64, **small), False)),
    Spec("convbert", "transformers ConvBertModel (span-based dynamic convolution heads, unfold)", *encoder(
        T.ConvBertModel, lambda: T.ConvBertConfig(vocab_size=V, max_position_embeddings=64, embedding_size=64,
                                                  **small))),
    Spec("squeezebert", "transformers SqueezeBertModel (grouped conv1d projections)", *encoder(
        T.SqueezeBertModel, lambda: T.SqueezeBertConfig(
            vocab_size=V, max_position_embeddings=64, embedding_size=64, q_groups=2, k_groups=2, v_groups=2,
            post_attention_groups=2, intermediate_groups=4, output_groups=4, **small))),
    Spec("mobilebert", "transformers MobileBertModel (bottlenecks, NoNorm, stacked FFNs)", *encoder(
        T.MobileBertModel, lambda: T.MobileBertConfig(
            vocab_size=V, max_position_embeddings=64, hidden_size=64, embedding_size=32, intra_bottleneck_size=32,
            num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, num_feedforward_networks=2),
        False)),
    Spec("fnet", "transformers FNetModel (token mixing by a 2-d FFT, real part)", *ids_only(
        T.FNetModel, lambda: T.FNetConfig(vocab_size=V, max_position_embeddings=64, hidden_size=64,
                                          num_hidden_layers=2, intermediate_size=128,
                                          use_tpu_fourier_optimizations=False), add_pooling_layer=False),
         grad=True),
    Spec("marian", "transformers MarianModel (sinusoidal positions, encoder-decoder)", *seq2seq(
        T.MarianModel, lambda: T.MarianConfig(vocab_size=V, d_model=64, encoder_layers=1, decoder_layers=1,
                                              encoder_attention_heads=4, decoder_attention_heads=4,
                                              encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=64,
                                              pad_token_id=1, decoder_start_token_id=1))),
    Spec("segformer", "transformers SegformerModel (overlapping patch merging, efficient self-attention)",
         lambda: Hidden(T.SegformerModel(T.SegformerConfig(
             num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32], num_attention_heads=[1, 2],
             patch_sizes=[7, 3], strides=[4, 2], mlp_ratios=[2, 2])), ["pixel_values"]), pixels(64)),
    Spec("dinov2", "transformers Dinov2Model (position embeddings interpolated bicubically, layer scale)",
         lambda: Hidden(T.Dinov2Model(T.Dinov2Config(image_size=32, **vit_small)), ["pixel_values"]), pixels(48)),
    Spec("wav2vec2", "transformers Wav2Vec2Model (conv feature extractor, GroupNorm, weight-normed positional conv)",
         *audio(T.Wav2Vec2Model, lambda: T.Wav2Vec2Config(feat_extract_norm="group", **wav)), grad=True),
    Spec("wavlm", "transformers WavLMModel (gated relative position bias, stable LayerNorm)",
         *audio(T.WavLMModel, lambda: T.WavLMConfig(num_buckets=32, max_bucket_distance=64,
                                                    feat_extract_norm="layer", do_stable_layer_norm=True, **wav))),
    Spec("ast", "transformers ASTModel (spectrogram patches, class and distillation tokens)",
         lambda: Hidden(T.ASTModel(T.ASTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                               intermediate_size=64, patch_size=8, frequency_stride=8,
                                               time_stride=8, max_length=32, num_mel_bins=16)),
                        ["input_values"]),
         lambda g, b: (torch.randn(b, 32, 16, generator=g),)),
    Spec("informer", "transformers InformerModel, full attention (mean scaling, lagged subsequences, "
         "value embedding by conv1d, encoder-decoder)",
         lambda: TimeSeries(T.InformerModel(T.InformerConfig(attention_type="full", **ts))), series),
]

"""The model zoo's fifth set of transformers models (export_zoo.py, round 5): decoders, recurrences,
audio codecs, speech, video and vision families the first four rounds lack, tiny configs with random
weights, nothing downloaded. The decoders export with a symbolic sequence length too (SEQ_RANGE)."""
import torch
import transformers as T

from zoo_spec import Spec
from zoo_text import V, Hidden, dec, small, text, vision
from zoo_text2 import pixels, vit_small

gqa = dict(num_key_value_heads=2, **dec)


def lm(model_cls, cfg, names=("input_ids", "attention_mask"), **kw):
    """A decoder called with ids (and a padding mask), without a KV cache; inputs(g, b, s) at sequence length s."""
    return (lambda: Hidden(model_cls(cfg()), list(names), use_cache=False, **kw),
            lambda g, b, s=16: text(g, b, s)[:len(names)])


class Field(torch.nn.Module):
    """One field of a transformers model's output (the depth map, the heatmaps, a codec's latents)."""

    def __init__(self, m, field, names, call=None):
        super().__init__()
        self.m, self.field, self.names, self.call = m, field, names, call

    def forward(self, *args):
        f = getattr(self.m, self.call) if self.call else self.m
        out = f(**dict(zip(self.names, args)))
        return out if self.field is None else getattr(out, self.field)


def waveform(n):
    return lambda g, b: (torch.randn(b, 1, n, generator=g),)


def dac():
    cfg = T.DacConfig(encoder_hidden_size=8, downsampling_ratios=[2, 4], decoder_hidden_size=16, n_codebooks=2,
                      codebook_size=16, codebook_dim=4, hidden_size=32)
    return Field(T.DacModel(cfg).encoder, None, ["hidden_state"])


def depth_anything():
    backbone = T.Dinov2Config(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=4, num_attention_heads=2,
                              intermediate_size=64, out_features=["stage1", "stage2", "stage3", "stage4"],
                              reshape_hidden_states=False)
    cfg = T.DepthAnythingConfig(backbone_config=backbone, reassemble_hidden_size=32, neck_hidden_sizes=[8, 16, 32, 32],
                                fusion_hidden_size=16, head_hidden_size=8, patch_size=8)
    return Field(T.DepthAnythingForDepthEstimation(cfg), "predicted_depth", ["pixel_values"])


def vitpose():
    backbone = T.VitPoseBackboneConfig(image_size=[64, 48], patch_size=[8, 8], hidden_size=32, num_hidden_layers=2,
                                       num_attention_heads=2, mlp_ratio=2, out_indices=[2])
    cfg = T.VitPoseConfig(backbone_config=backbone, use_simple_decoder=True, num_labels=5)
    return Field(T.VitPoseForPoseEstimation(cfg), "heatmaps", ["pixel_values"])


SPECS = [
    # decoders (symbolic batch and sequence length)
    Spec("gpt_oss", "transformers GptOssModel (top-2 of 4 experts with clamped SwiGLU, attention sinks, "
         "sliding and full layers)", *lm(T.GptOssModel, lambda: T.GptOssConfig(
             num_local_experts=4, num_experts_per_tok=2, head_dim=16, sliding_window=8,
             layer_types=["sliding_attention", "full_attention"], **{**gqa, "intermediate_size": 32})), seq=True),
    Spec("lfm2", "transformers Lfm2Model (gated short-convolution layers interleaved with GQA attention)",
         *lm(T.Lfm2Model, lambda: T.Lfm2Config(layer_types=["conv", "full_attention"], conv_L_cache=3, **gqa)),
         seq=True),
    Spec("smollm3", "transformers SmolLM3Model (GQA decoder with RoPE left out of some layers)",
         *lm(T.SmolLM3Model, lambda: T.SmolLM3Config(no_rope_layers=[1, 0], pad_token_id=0, bos_token_id=1,
                                                         eos_token_id=2, **gqa)), grad=True, seq=True),
    Spec("apertus", "transformers ApertusModel (xIELU activation, q/k RMSNorm)",
         *lm(T.ApertusModel, lambda: T.ApertusConfig(**gqa)), seq=True),
    Spec("exaone4", "transformers Exaone4Model (post-norm layers, q/k RMSNorm, sliding and global layers)",
         *lm(T.Exaone4Model, lambda: T.Exaone4Config(sliding_window=8, **gqa)), seq=True),
    Spec("olmo3", "transformers Olmo3Model (post-norms, q/k norms over all heads, sliding-window layers)",
         *lm(T.Olmo3Model, lambda: T.Olmo3Config(sliding_window=8, **gqa)), seq=True),
    Spec("rwkv", "transformers RwkvModel (RWKV-4 time mixing: a linear-attention recurrence over tokens)",
         *lm(T.RwkvModel, lambda: T.RwkvConfig(vocab_size=V, context_length=64, hidden_size=64, num_hidden_layers=2,
                                               attention_hidden_size=64, intermediate_size=128, rescale_every=0),
             names=("input_ids",))),
    # audio codecs and speech
    Spec("dac", "transformers DacModel encoder (Snake activations, weight-normed strided convs)",
         dac, waveform(256)),
    Spec("wav2vec2_bert", "transformers Wav2Vec2BertModel (conformer over log-mel features, relative-key "
         "attention, depthwise conv module)", lambda: Hidden(T.Wav2Vec2BertModel(T.Wav2Vec2BertConfig(
             hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
             feature_projection_input_dim=40, conv_depthwise_kernel_size=3, left_max_position_embeddings=16,
             right_max_position_embeddings=8)), ["input_features"]),
         lambda g, b: (torch.randn(b, 20, 40, generator=g),)),
    # vision and video
    Spec("dinov3", "transformers DINOv3ViTModel (2-d rotary positions, register tokens, LayerScale)",
         vision(T.DINOv3ViTModel, lambda: T.DINOv3ViTConfig(image_size=32, patch_size=8, hidden_size=32,
                                                             intermediate_size=64, num_hidden_layers=2,
                                                             num_attention_heads=2, num_register_tokens=2)),
         pixels(32), grad=True),
    Spec("depth_anything", "transformers DepthAnythingForDepthEstimation (DINOv2 features, DPT-style "
         "reassemble and fusion, bilinear upsampling)", depth_anything, pixels(32)),
    Spec("vitpose", "transformers VitPoseForPoseEstimation (ViT backbone, simple deconvolution-free heatmap "
         "decoder)", vitpose, lambda g, b: (torch.randn(b, 3, 64, 48, generator=g),)),
    Spec("timesformer", "transformers TimesformerModel (divided space-time attention over video frames)",
         vision(T.TimesformerModel, lambda: T.TimesformerConfig(image_size=32, patch_size=8, num_frames=2,
                                                                hidden_size=32, num_hidden_layers=2,
                                                                num_attention_heads=2, intermediate_size=64)),
         lambda g, b: (torch.randn(b, 2, 3, 32, 32, generator=g),)),
    Spec("blip_vision", "transformers BlipVisionModel (the BLIP image tower: ViT with a post-LayerNorm)",
         vision(T.BlipVisionModel, lambda: T.BlipVisionConfig(image_size=32, **{k: v for k, v in vit_small.items()
                                                                                  if k != "num_channels"})),
         pixels(32)),
    Spec("align_vision", "transformers AlignVisionModel (the ALIGN image tower: EfficientNet blocks)",
         vision(T.AlignVisionModel, lambda: T.AlignVisionConfig(image_size=32, width_coefficient=0.25,
                                                                depth_coefficient=0.25, hidden_dim=64)),
         pixels(32)),
]

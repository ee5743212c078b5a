"""The model zoo's fourth set of transformers models (export_zoo.py, round 4): decoders, encoders,
vision and speech families the first three sets lack, tiny configs with random weights, nothing
downloaded."""
import torch
import transformers as T

from zoo_spec import Spec
from zoo_text import V, Hidden, dec, decoder, encoder, small, text, vision
from zoo_text2 import audio, pixels, vit_small, wav

gqa = dict(num_key_value_heads=2, **dec)


def layout(model_cls, cfg):
    """A document encoder called with ids, a padding mask and one box (x0, y0, x1, y1) per token."""
    def inputs(g, b):
        ids, mask = text(g, b)
        lo = torch.randint(0, 500, (b, ids.shape[1], 2), generator=g)
        return ids, mask, torch.cat([lo, lo + torch.randint(0, 500, (b, ids.shape[1], 2), generator=g)], -1)
    return lambda: Hidden(model_cls(cfg()), ["input_ids", "attention_mask", "bbox"]), inputs


SPECS = [
    # decoders
    Spec("gemma3", "transformers Gemma3TextModel (q/k RMSNorm, local sliding and global layers, dual RoPE bases)",
         *decoder(T.Gemma3TextModel, lambda: T.Gemma3TextConfig(
             sliding_window=8, layer_types=["sliding_attention", "full_attention"], head_dim=16, **gqa))),
    Spec("cohere2", "transformers Cohere2Model (sliding-window layers with RoPE, global layers without)",
         *decoder(T.Cohere2Model, lambda: T.Cohere2Config(sliding_window=8, layer_types=[
             "sliding_attention", "full_attention"], **gqa))),
    Spec("glm4", "transformers Glm4Model (interleaved partial rotary, post-attention and post-MLP norms)",
         *decoder(T.Glm4Model, lambda: T.Glm4Config(head_dim=16, pad_token_id=0, **gqa))),
    Spec("helium", "transformers HeliumModel (GQA decoder, RMSNorm, SiLU-gated MLP)",
         *decoder(T.HeliumModel, lambda: T.HeliumConfig(head_dim=16, **gqa))),
    Spec("nemotron", "transformers NemotronModel (LayerNorm1p, squared-ReLU MLP, partial rotary)",
         *decoder(T.NemotronModel, lambda: T.NemotronConfig(partial_rotary_factor=0.5, head_dim=16, **gqa))),
    Spec("olmo", "transformers OlmoModel (non-parametric LayerNorm, clipped qkv)",
         *decoder(T.OlmoModel, lambda: T.OlmoConfig(clip_qkv=4.0, **dec))),
    Spec("biogpt", "transformers BioGptModel (scaled embeddings, learned positions from the mask)",
         *decoder(T.BioGptModel, lambda: T.BioGptConfig(vocab_size=V, max_position_embeddings=64, **small))),
    Spec("xglm", "transformers XGLMModel (sinusoidal positions offset by the padding, pre-LayerNorm)",
         *decoder(T.XGLMModel, lambda: T.XGLMConfig(vocab_size=V, max_position_embeddings=64, d_model=64,
                                                    num_layers=2, attention_heads=4, ffn_dim=128))),
    Spec("qwen3_moe", "transformers Qwen3MoeModel (top-2 of 4 experts, q/k RMSNorm, GQA)",
         *decoder(T.Qwen3MoeModel, lambda: T.Qwen3MoeConfig(num_experts=4, num_experts_per_tok=2,
                                                            moe_intermediate_size=32, head_dim=16, **gqa))),
    Spec("granitemoe", "transformers GraniteMoeModel (top-2 of 4 experts, multipliers on residuals and logits)",
         *decoder(T.GraniteMoeModel, lambda: T.GraniteMoeConfig(num_local_experts=4, num_experts_per_tok=2,
                                                                embedding_multiplier=2.0, residual_multiplier=0.5,
                                                                **gqa))),
    # encoders
    Spec("xlm_roberta", "transformers XLMRobertaModel (RoBERTa layout, positions from the padding)", *encoder(
        T.XLMRobertaModel, lambda: T.XLMRobertaConfig(vocab_size=V, max_position_embeddings=80, pad_token_id=1,
                                                      **small), False, pad=1)),
    Spec("ernie", "transformers ErnieModel (task-type embeddings added to token, position and segment ones)",
         *encoder(T.ErnieModel, lambda: T.ErnieConfig(vocab_size=V, max_position_embeddings=64, use_task_id=True,
                                                      **small), False)),
    Spec("rembert", "transformers RemBertModel (decoupled input and output embeddings, projected up)", *encoder(
        T.RemBertModel, lambda: T.RemBertConfig(vocab_size=V, max_position_embeddings=64, input_embedding_size=32,
                                                output_embedding_size=32, **small), False)),
    Spec("layoutlm", "transformers LayoutLMModel (2-d position embeddings of token boxes)", *layout(
        T.LayoutLMModel, lambda: T.LayoutLMConfig(vocab_size=V, max_position_embeddings=64, **small))),
    Spec("lilt", "transformers LiltModel (separate layout stream, bi-directional attention complementation)",
         *layout(T.LiltModel, lambda: T.LiltConfig(vocab_size=V, max_position_embeddings=64, channel_shrink_ratio=4,
                                                  **{**small, "hidden_size": 48}))),
    # vision
    Spec("cvt", "transformers CvtModel (convolutional token embeddings and projections)", vision(
        T.CvtModel, lambda: T.CvtConfig(embed_dim=[16, 32, 48], num_heads=[1, 2, 3], depth=[1, 2, 3])),
         pixels(64)),
    Spec("swiftformer", "transformers SwiftFormerModel (efficient additive attention)", vision(
        T.SwiftFormerModel, lambda: T.SwiftFormerConfig(depths=[1, 1, 1, 1], embed_dims=[16, 32, 48, 64])),
         pixels(64)),
    Spec("data2vec_vision", "transformers Data2VecVisionModel (BEiT layout: shared relative position bias)", vision(
        T.Data2VecVisionModel, lambda: T.Data2VecVisionConfig(image_size=32, use_shared_relative_position_bias=True,
                                                              **vit_small)), pixels(32)),
    Spec("siglip_vision", "transformers SiglipVisionModel (attention-pooling head, tanh GELU)", vision(
        T.SiglipVisionModel, lambda: T.SiglipVisionConfig(image_size=32, **vit_small)), pixels(32)),
    # speech
    Spec("wav2vec2_conformer", "transformers Wav2Vec2ConformerModel (rotary self-attention, depthwise conv module)",
         *audio(T.Wav2Vec2ConformerModel, lambda: T.Wav2Vec2ConformerConfig(position_embeddings_type="rotary",
                                                                            conv_depthwise_kernel_size=7, **wav))),
    Spec("unispeech", "transformers UniSpeechModel (group-normed conv features, positional conv)", *audio(
        T.UniSpeechModel, lambda: T.UniSpeechConfig(**wav))),
]

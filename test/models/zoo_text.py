"""The model zoo's transformers models (export_zoo.py): encoders, decoders, encoder-decoders,
vision transformers and a mixture-of-experts decoder, tiny configs with random weights."""
import torch
import torch.nn as nn
import transformers as T

from zoo_spec import Spec

V = 256  # vocabulary of every text model


class Hidden(nn.Module):
    """The last hidden state of a transformers model; `kwargs` are fixed call arguments."""

    def __init__(self, m, names, **kwargs):
        super().__init__()
        self.m, self.names, self.kwargs = m, names, kwargs

    def forward(self, *args):
        return self.m(**dict(zip(self.names, args)), **self.kwargs).last_hidden_state


def text(g, b, s=16, pad=None):
    """Token ids and a padding mask whose last sequence is padded from 2/3 of its length."""
    ids = torch.randint(2, V, (b, s), generator=g)
    mask = torch.ones(b, s, dtype=torch.int64)
    mask[-1, s - s // 3:] = 0
    if pad is not None:
        ids[-1, s - s // 3:] = pad
    return ids, mask


def pixels(g, b):
    return (torch.randn(b, 3, 32, 32, generator=g),)


def encoder(model_cls, cfg, pooling=None, pad=None, **kw):
    """An encoder called with ids and a padding mask."""
    def make():
        extra = {} if pooling is None else {"add_pooling_layer": pooling}
        return Hidden(model_cls(cfg(), **extra), ["input_ids", "attention_mask"])
    return make, lambda g, b: text(g, b, pad=pad)


def decoder(model_cls, cfg):
    """A decoder called with ids and a padding mask, without a KV cache."""
    return (lambda: Hidden(model_cls(cfg()), ["input_ids", "attention_mask"], use_cache=False),
            lambda g, b: text(g, b))


def seq2seq(model_cls, cfg):
    """An encoder-decoder called with ids, a padding mask and decoder ids (last decoder state)."""
    def inputs(g, b):
        ids, mask = text(g, b)
        return ids, mask, torch.randint(2, V, (b, 8), generator=g)
    return (lambda: Hidden(model_cls(cfg()), ["input_ids", "attention_mask", "decoder_input_ids"],
                           use_cache=False), inputs)


small = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
dec = dict(vocab_size=V, max_position_embeddings=64, **small)


def whisper():
    from transformers.models.whisper.modeling_whisper import WhisperEncoder
    cfg = T.WhisperConfig(vocab_size=V, num_mel_bins=16, d_model=64, encoder_layers=2,
                          encoder_attention_heads=4, encoder_ffn_dim=128, max_source_positions=32,
                          pad_token_id=0, bos_token_id=0, eos_token_id=0, decoder_start_token_id=0)
    return Hidden(WhisperEncoder(cfg), ["input_features"])


def mixtral(experts=None):
    """Mixtral with transformers' default experts (grouped_mm) or another experts_implementation."""
    extra = {} if experts is None else {"experts_implementation": experts}
    cfg = T.MixtralConfig(vocab_size=V, hidden_size=64, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, num_local_experts=4,
                          num_experts_per_tok=2, max_position_embeddings=64, **extra)
    return Hidden(T.MixtralModel(cfg), ["input_ids", "attention_mask"], use_cache=False)


def vision(model_cls, cfg, **kw):
    return lambda: Hidden(model_cls(cfg(), **kw), ["pixel_values"])


vit_small = dict(image_size=32, patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=2,
                 num_attention_heads=2, intermediate_size=64)


SPECS = [
    Spec("bert", "transformers BertModel (padding mask, GELU)", *encoder(
        T.BertModel, lambda: T.BertConfig(vocab_size=V, max_position_embeddings=64, **small), False),
        grad=True),
    Spec("distilbert", "transformers DistilBertModel", *encoder(
        T.DistilBertModel, lambda: T.DistilBertConfig(vocab_size=V, dim=64, n_layers=2, n_heads=4,
                                                      hidden_dim=128, max_position_embeddings=64)),
        grad=True),
    Spec("roberta", "transformers RobertaModel (positions by cumsum over the padding)", *encoder(
        T.RobertaModel, lambda: T.RobertaConfig(vocab_size=V, max_position_embeddings=80, pad_token_id=1,
                                                **small), False, pad=1)),
    Spec("albert", "transformers AlbertModel (factorized embeddings, one layer shared twice)", *encoder(
        T.AlbertModel, lambda: T.AlbertConfig(vocab_size=V, embedding_size=32, max_position_embeddings=64,
                                              **small), False)),
    Spec("electra", "transformers ElectraModel (embedding projection)", *encoder(
        T.ElectraModel, lambda: T.ElectraConfig(vocab_size=V, embedding_size=32, max_position_embeddings=64,
                                                **small))),
    Spec("gpt2", "transformers GPT2Model (learned positions, tanh GELU, causal mask)", *decoder(
        T.GPT2Model, lambda: T.GPT2Config(vocab_size=V, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                                          bos_token_id=0, eos_token_id=0)), grad=True),
    Spec("llama", "transformers LlamaModel (RMSNorm, RoPE, GQA, SiLU-gated MLP, causal mask)", *decoder(
        T.LlamaModel, lambda: T.LlamaConfig(num_key_value_heads=2, rms_norm_eps=1e-6, **dec)), grad=True),
    Spec("mistral", "transformers MistralModel (GQA, sliding-window causal mask of 8)", *decoder(
        T.MistralModel, lambda: T.MistralConfig(num_key_value_heads=2, sliding_window=8, **dec)), grad=True),
    Spec("qwen2", "transformers Qwen2Model (q/k/v biases, GQA, RoPE)", *decoder(
        T.Qwen2Model, lambda: T.Qwen2Config(num_key_value_heads=2, **dec)), grad=True),
    Spec("gemma", "transformers GemmaModel (multi-query, GeGLU, scaled embeddings, 1+w RMSNorm)", *decoder(
        T.GemmaModel, lambda: T.GemmaConfig(num_key_value_heads=1, head_dim=16, **dec))),
    Spec("phi", "transformers PhiModel (partial rotary, parallel attention and MLP)", *decoder(
        T.PhiModel, lambda: T.PhiConfig(partial_rotary_factor=0.5, **dec))),
    Spec("gpt_neox", "transformers GPTNeoXModel (rotary on 1/4 of the head, parallel residual)", *decoder(
        T.GPTNeoXModel, lambda: T.GPTNeoXConfig(rotary_pct=0.25, **dec))),
    Spec("opt", "transformers OPTModel (learned positions offset by 2, ReLU)", *decoder(
        T.OPTModel, lambda: T.OPTConfig(vocab_size=V, hidden_size=64, num_hidden_layers=2, ffn_dim=128,
                                        num_attention_heads=4, max_position_embeddings=64,
                                        word_embed_proj_dim=64))),
    Spec("bloom", "transformers BloomModel (ALiBi position biases)", *decoder(
        T.BloomModel, lambda: T.BloomConfig(vocab_size=V, hidden_size=64, n_layer=2, n_head=4))),
    Spec("qwen3", "transformers Qwen3Model (RMSNorm on queries and keys per head, GQA, RoPE)", *decoder(
        T.Qwen3Model, lambda: T.Qwen3Config(num_key_value_heads=2, head_dim=16, **dec))),
    Spec("gemma2", "transformers Gemma2Model (attention and final logit soft-capping, alternating sliding "
         "windows of 8, pre- and post-norms)", *decoder(
        T.Gemma2Model, lambda: T.Gemma2Config(num_key_value_heads=2, head_dim=16, sliding_window=8, **dec))),
    Spec("deberta_v2", "transformers DebertaV2Model (disentangled relative attention: log buckets, gathers)",
         *encoder(T.DebertaV2Model, lambda: T.DebertaV2Config(vocab_size=V, max_position_embeddings=64,
                                                              relative_attention=True, position_buckets=8,
                                                              pos_att_type=["p2c", "c2p"], **small))),
    Spec("mixtral", "transformers MixtralModel (top-2 of 4 experts, sparse MoE)", mixtral,
         lambda g, b: text(g, b)),
    Spec("mixtral_batched_mm", "transformers MixtralModel, experts_implementation=\"batched_mm\" "
         "(expert weights gathered per token, batched matmuls)", lambda: mixtral("batched_mm"),
         lambda g, b: text(g, b)),
    Spec("t5", "transformers T5Model (relative position buckets, encoder-decoder cross-attention)", *seq2seq(
        T.T5Model, lambda: T.T5Config(vocab_size=V, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                                      num_decoder_layers=2, num_heads=4, relative_attention_num_buckets=32,
                                      relative_attention_max_distance=64, decoder_start_token_id=0)),
         grad=True),
    Spec("bart", "transformers BartModel (learned positions, encoder-decoder)", *seq2seq(
        T.BartModel, lambda: T.BartConfig(vocab_size=V, d_model=64, encoder_layers=1, decoder_layers=1,
                                          encoder_attention_heads=4, decoder_attention_heads=4,
                                          encoder_ffn_dim=128, decoder_ffn_dim=128,
                                          max_position_embeddings=64))),
    Spec("whisper_encoder", "transformers WhisperEncoder (conv1d stem, GELU, sinusoidal positions)", whisper,
         lambda g, b: (torch.randn(b, 16, 64, generator=g),), grad=True),
    Spec("deit", "transformers DeiTModel (class and distillation tokens)",
         vision(T.DeiTModel, lambda: T.DeiTConfig(**vit_small), add_pooling_layer=False), pixels),
    Spec("clip_vision", "transformers CLIPVisionModel (quick GELU, pre-LayerNorm)",
         vision(T.CLIPVisionModel, lambda: T.CLIPVisionConfig(**vit_small)), pixels),
]

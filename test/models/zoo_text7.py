"""The model zoo's seventh set of transformers models (export_zoo.py, round 7): decoders with
dynamic-mask attention, ternary (BitNet) weights, gated delta-rule linear attention and lightning
attention, the original GPT, CTRL, XLM and X-MOD encoders, FSMT translation, a time-series
transformer and a decision transformer, tiny configs with random weights, nothing downloaded. The
decoders export with a symbolic sequence length too (SEQ_RANGE; MiniMax with a static one)."""
import torch
import transformers as T

from zoo_spec import Spec
from zoo_text import V, Hidden, encoder
from zoo_text2 import TimeSeries, series
from zoo_text5 import Field, lm

small = dict(vocab_size=V, max_position_embeddings=64, hidden_size=64, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, intermediate_size=128)


def fsmt():
    cfg = T.FSMTConfig(langs=["en", "de"], src_vocab_size=V, tgt_vocab_size=V, d_model=32, encoder_layers=1,
                       decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                       decoder_ffn_dim=64, max_position_embeddings=64, pad_token_id=1, bos_token_id=0,
                       eos_token_id=2, decoder_start_token_id=2)
    return Hidden(T.FSMTModel(cfg), ["input_ids", "decoder_input_ids"], use_cache=False)


def two_texts(g, b):
    return torch.randint(3, V, (b, 12), generator=g), torch.randint(3, V, (b, 7), generator=g)


class TimeSeriesTransformer(TimeSeries):
    """transformers' vanilla time-series transformer (lags, scaling, a Student-t head's decoder input)."""

    def __init__(self):
        super().__init__(T.TimeSeriesTransformerModel(T.TimeSeriesTransformerConfig(
            prediction_length=4, context_length=8, lags_sequence=[1, 2], num_time_features=1, d_model=16,
            encoder_layers=1, decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
            encoder_ffn_dim=32, decoder_ffn_dim=32)))


def decision_transformer():
    cfg = T.DecisionTransformerConfig(state_dim=5, act_dim=3, hidden_size=32, max_ep_len=64, n_layer=2, n_head=2,
                                      n_inner=64, n_positions=64)
    return Field(T.DecisionTransformerModel(cfg), "action_preds",
                 ["states", "actions", "rewards", "returns_to_go", "timesteps", "attention_mask"])


def trajectories(g, b, t=6):
    return (torch.randn(b, t, 5, generator=g), torch.randn(b, t, 3, generator=g), torch.randn(b, t, 1, generator=g),
            torch.randn(b, t, 1, generator=g), torch.arange(t).repeat(b, 1), torch.ones(b, t, dtype=torch.int64))


SPECS = [
    # decoders (symbolic batch and sequence length)
    Spec("doge", "transformers DogeModel (dynamic-mask attention from value projections, SiLU MLP)",
         *lm(T.DogeModel, lambda: T.DogeConfig(**small)), seq=True),
    Spec("bitnet", "transformers BitNetModel (ternary weights and 8-bit activations, fake-quantized, "
         "sub-layer norms, squared-ReLU MLP)", *lm(T.BitNetModel, lambda: T.BitNetConfig(**small)), seq=True),
    Spec("qwen3_next", "transformers Qwen3NextModel (gated delta-rule linear attention beside gated full "
         "attention, top-2 MoE with a shared expert)", *lm(T.Qwen3NextModel, lambda: T.Qwen3NextConfig(
             layer_types=["linear_attention", "full_attention"], linear_num_value_heads=4, linear_num_key_heads=2,
             linear_key_head_dim=16, linear_value_head_dim=16, linear_conv_kernel_dim=4, head_dim=16,
             num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=32,
             **small)), seq=True),
    Spec("minimax", "transformers MiniMaxModel (lightning linear attention blocks and softmax attention, "
         "top-2 MoE)", *lm(T.MiniMaxModel, lambda: T.MiniMaxConfig(
             layer_types=["linear_attention", "full_attention"], block_size=8, num_local_experts=4,
             num_experts_per_tok=2, head_dim=16, **small)), seq=False),
    Spec("ctrl", "transformers CTRLModel (sinusoidal positions scaled embeddings, pre-norm blocks)",
         *lm(T.CTRLModel, lambda: T.CTRLConfig(vocab_size=V, n_positions=64, n_embd=64, dff=128, n_layer=2,
                                                n_head=4)), seq=True),
    # encoders
    Spec("openai_gpt", "transformers OpenAIGPTModel (the original GPT: learned positions, post-norm blocks)",
         *encoder(T.OpenAIGPTModel, lambda: T.OpenAIGPTConfig(vocab_size=V, n_positions=64, n_embd=64, n_layer=2,
                                                                n_head=4)), grad=True),
    Spec("xlm", "transformers XLMModel (sinusoidal positions, language embeddings)",
         *encoder(T.XLMModel, lambda: T.XLMConfig(vocab_size=V, emb_dim=64, n_layers=2, n_heads=4,
                                                  max_position_embeddings=64, sinusoidal_embeddings=True,
                                                  n_langs=2, use_lang_emb=True))),
    Spec("xmod", "transformers XmodModel (RoBERTa with per-language adapters)",
         *encoder(T.XmodModel, lambda: T.XmodConfig(vocab_size=V, hidden_size=32, num_hidden_layers=2,
                                                    num_attention_heads=2, intermediate_size=64,
                                                    max_position_embeddings=64, languages=["en_XX", "de_DE"],
                                                    default_language="en_XX"), pooling=False, pad=1)),
    Spec("fsmt", "transformers FSMTModel (FairSeq translation: sinusoidal positions, separate vocabularies)",
         fsmt, two_texts),
    # time series and decisions
    Spec("time_series_transformer", "transformers TimeSeriesTransformerModel (lagged inputs, mean scaling, "
         "encoder-decoder)", TimeSeriesTransformer, series),
    Spec("decision_transformer", "transformers DecisionTransformerModel (returns, states and actions "
         "interleaved into a GPT-2)", decision_transformer, trajectories, grad=True),
]

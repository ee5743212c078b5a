"""Training graphs with randomness through torch.compile(backend="kiln"): dropout is
compiled (a counter-based generator in the compiled code), the backward replays the
forward's generator state so its masks are the forward's, and a small Hugging Face
encoder trains with dropout and a cross-entropy loss, every graph compiled by kiln."""
import copy

import numpy as np
import pytest
import torch

import kiln.dynamo


class _DropoutScale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(64))

    def forward(self, x):
        return torch.nn.functional.dropout(x * self.w, 0.4, self.training)


def test_backward_uses_the_forwards_mask():
    m = _DropoutScale().train()
    compiled = torch.compile(m, backend="kiln")
    before = len(kiln.dynamo.explanations())
    x = torch.ones(32, 64, requires_grad=True)
    masks = []
    for _ in range(3):
        y = compiled(x)
        c = torch.randn(32, 64)
        gx, gw = torch.autograd.grad((y * c).sum(), [x, m.w])
        kept = (y != 0).float()
        assert torch.all((y == 0) | torch.isclose(y, torch.tensor(1 / 0.6)))
        assert abs(kept.mean().item() - 0.6) < 0.05
        torch.testing.assert_close(gx, c * kept / 0.6)
        torch.testing.assert_close(gw, (c * kept / 0.6).sum(0))
        masks.append(kept)
    assert not torch.equal(masks[0], masks[1])  # each call draws a new mask
    entries = kiln.dynamo.explanations()[before:]
    assert entries and all(e["compiled"] and e["kind"] == "training" for e in entries), entries
    # The split halves: the mask is a residual of the forward, drawn once.
    assert all(e["split"] and e["residuals"] > 0 for e in entries), entries


def _bert(dropout, attention="eager"):
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(vocab_size=96, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                     intermediate_size=64, max_position_embeddings=32, num_labels=3,
                                     hidden_dropout_prob=dropout, attention_probs_dropout_prob=dropout,
                                     attn_implementation=attention)
    torch.manual_seed(0)
    return transformers.BertForSequenceClassification(config).train()


def _data():
    g = torch.Generator().manual_seed(1)
    return [(torch.randint(0, 96, (4, 12), generator=g), torch.randint(0, 3, (4,), generator=g))
            for _ in range(10)]


def _train(model, data):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    for ids, labels in data:
        loss = model(input_ids=ids, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _all_compiled(before):
    entries = kiln.dynamo.explanations()[before:]
    assert entries, "Dynamo handed kiln no graph"
    # Under KILN_STRICT=1 nothing may run in eager; every training graph is
    # differentiated by kiln itself (no AOTAutograd fallback).
    assert all(e["compiled"] for e in entries), [e for e in entries if not e["compiled"]]
    return entries


def test_bert_training_matches_eager_without_dropout():
    eager = _bert(0.0)
    compiled_model = copy.deepcopy(eager)
    compiled = torch.compile(compiled_model, backend="kiln")
    data = _data()
    before = len(kiln.dynamo.explanations())
    losses_c = _train(compiled, data)
    _all_compiled(before)
    losses_e = _train(eager, data)
    torch.testing.assert_close(torch.tensor(losses_c), torch.tensor(losses_e), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
def test_bert_trains_with_dropout(attention):
    # "sdpa": scaled_dot_product_attention with dropout_p = 0.1, decomposed.
    model = _bert(0.1, attention)
    compiled = torch.compile(model, backend="kiln")
    data = _data()[:1] * 10  # one batch, 10 AdamW steps: the loss must fall
    before = len(kiln.dynamo.explanations())
    losses = _train(compiled, data)
    entries = _all_compiled(before)
    assert any(e["kind"] == "training" for e in entries)
    assert all(np.isfinite(losses)), losses
    assert np.mean(losses[-3:]) < np.mean(losses[:3]), losses


def test_generator_state_replays_and_advances():
    import os
    import kiln
    here = os.path.dirname(os.path.abspath(__file__))
    m = kiln.compile(os.path.join(here, "..", "data", "random", "dropout_grad", "model.pt2"))
    assert m.is_random
    x = np.ones((16, 64), np.float32)
    used = np.zeros(2, np.int64)
    a = m.run([x], rng_state_used=used)[0].copy()
    b = m.run([x])[0].copy()
    assert used[1] == 0 and not np.array_equal(a, b)  # the offset advances per run
    again = m.run([x], rng_state=used)[0]
    np.testing.assert_array_equal(again, a)  # a recorded state replays its numbers
    other = m.run([x], rng_state=np.array([used[0] + 1, 0], np.int64))[0]
    assert not np.array_equal(other, a)  # another seed draws others
    with pytest.raises(kiln.KilnError, match="generator state"):
        m.run([x], rng_state=np.array([-1, 0], np.int64))

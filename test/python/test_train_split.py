"""Training through torch.compile(backend="kiln") with the value and gradient cut
in two (kiln-compile --grad --split): the forward module returns the residuals,
the backward module takes them, and nothing of the forward runs again. Losses
match eager's over SGD and AdamW steps, the running statistics advance once per
step, dropout masks cross as residuals, and the backward's program holds none
of the forward's convolutions, softmaxes or random draws."""
import copy
import glob
import os
import re

import pytest
import torch

import kiln.dynamo


class _ConvBN(torch.nn.Module):
    """Two convolutions with training-mode batch norms, pooling and a classifier."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.c1, self.b1 = torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8)
        self.c2, self.b2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1), torch.nn.BatchNorm2d(16)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        x = torch.relu(self.b1(self.c1(x)))
        x = torch.relu(self.b2(self.c2(x)))
        return self.fc(x.mean((2, 3)))


class _Encoder(torch.nn.Module):
    """A two-layer transformer encoder (attention, layer norm, GELU, dropout)."""

    def __init__(self, dropout):
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Linear(16, 32)
        layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=dropout, activation="gelu",
                                                 batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = torch.nn.Linear(32, 3)

    def forward(self, x):
        return self.head(self.enc(self.emb(x)).mean(1))


def _train(make, data, make_opt, loss_fn):
    eager = make()
    compiled_model = copy.deepcopy(eager)
    compiled = torch.compile(compiled_model, backend="kiln")
    opt_e, opt_c = make_opt(eager.parameters()), make_opt(compiled_model.parameters())
    before = len(kiln.dynamo.explanations())
    losses_e, losses_c = [], []
    for x, t in data:
        for model, opt, losses in ((eager, opt_e, losses_e), (compiled, opt_c, losses_c)):
            loss = loss_fn(model(x), t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    entries = kiln.dynamo.explanations()[before:]
    return eager, compiled_model, losses_e, losses_c, entries


def _split_entries(entries):
    assert entries and all(e["kind"] == "training" and e["compiled"] for e in entries), entries
    # Every graph went through the split, not the value-and-gradient fallback.
    assert all(e["split"] for e in entries), entries
    return entries


_OPTS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9),
    "adamw": lambda p: torch.optim.AdamW(p, lr=3e-3, weight_decay=0.01),
}


@pytest.mark.parametrize("opt", sorted(_OPTS))
def test_convnet_with_batch_norm_trains_like_eager(opt, monkeypatch):
    monkeypatch.setenv("KILN_STRICT", "1")
    torch.manual_seed(1)
    data = [(torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))) for _ in range(5)]
    eager, compiled, le, lc, entries = _train(_ConvBN, data, _OPTS[opt],
                                              torch.nn.functional.cross_entropy)
    torch.testing.assert_close(torch.tensor(lc), torch.tensor(le), rtol=1e-4, atol=1e-5)
    _split_entries(entries)
    # The running statistics advance once per step, as in eager. AdamW moves
    # each weight by about lr whatever the size of its gradient, so float32
    # rounding of a gradient near zero moves the later batches' statistics by
    # up to about lr; SGD's follow eager's closely.
    tol = dict(rtol=1e-4, atol=1e-5) if opt == "sgd" else dict(rtol=1e-2, atol=1e-2)
    for bn in ("b1", "b2"):
        assert getattr(compiled, bn).num_batches_tracked.item() == len(data)
        for name in ("running_mean", "running_var"):
            torch.testing.assert_close(getattr(getattr(compiled, bn), name),
                                       getattr(getattr(eager, bn), name), **tol)


def test_transformer_with_dropout_trains_like_eager(monkeypatch):
    """The encoder's losses are eager's over five AdamW steps (dropout off, so
    there is something to compare with; test_transformer_trains_with_dropout
    and test_backward_does_not_recompute_the_forward train it with dropout, and
    test_train_random.py checks the gradients against the forward's masks)."""
    monkeypatch.setenv("KILN_STRICT", "1")
    torch.manual_seed(1)
    data = [(torch.randn(4, 10, 16), torch.randint(0, 3, (4,))) for _ in range(5)]
    _, _, le, lc, entries = _train(lambda: _Encoder(0.0).train(), data, _OPTS["adamw"],
                                   torch.nn.functional.cross_entropy)
    torch.testing.assert_close(torch.tensor(lc), torch.tensor(le), rtol=1e-3, atol=1e-4)
    _split_entries(entries)


def test_transformer_trains_with_dropout(monkeypatch):
    monkeypatch.setenv("KILN_STRICT", "1")
    model = _Encoder(0.1).train()
    compiled = torch.compile(model, backend="kiln")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    torch.manual_seed(1)
    x, t = torch.randn(8, 10, 16), torch.randint(0, 3, (8,))
    before = len(kiln.dynamo.explanations())
    losses = []
    for _ in range(10):  # one batch, 10 steps: the loss must fall
        loss = torch.nn.functional.cross_entropy(compiled(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    entries = _split_entries(kiln.dynamo.explanations()[before:])
    assert all(torch.isfinite(torch.tensor(losses))), losses
    assert sum(losses[-3:]) < sum(losses[:3]), losses
    assert any(e["residuals"] > 0 for e in entries), entries


def _program(folder):
    """The aten-dialect program a kiln compile dumped after differentiation."""
    (path,) = glob.glob(os.path.join(folder, "*grad.mlir"))
    with open(path) as f:
        return f.read()


def _count(program, op):
    return len(re.findall(r"= " + re.escape(op) + r"[ {(]", program))


def test_backward_does_not_recompute_the_forward(tmp_path, monkeypatch):
    """The backward module's program (KILN_DEBUG's IR dump) holds the reverse
    sweep only: convolution_backward but no convolution, no batch norm of the
    forward for the convnet; no softmax, no random draw for the encoder with
    dropout, whose forward draws them."""
    monkeypatch.setenv("KILN_DEBUG", "1")
    monkeypatch.setenv("KILN_DEBUG_DIR", str(tmp_path))
    monkeypatch.setattr(kiln.dynamo, "_DEBUG_RUN", None)
    for make, x in ((_ConvBN, torch.randn(2, 3, 8, 8)), (lambda: _Encoder(0.1).train(), torch.randn(2, 6, 16))):
        model = make()
        torch.compile(model, backend="kiln")(x).sum().backward()
    graphs = sorted(glob.glob(os.path.join(str(tmp_path), "run_*", "training_graph_*")),
                    key=lambda d: int(d.rsplit("_", 1)[1]))
    assert len(graphs) == 2, graphs
    conv_fwd, conv_bwd = (_program(os.path.join(graphs[0], d)) for d in ("kiln_ir", "kiln_ir_backward"))
    assert _count(conv_fwd, "aten.convolution") == 2
    assert _count(conv_bwd, "aten.convolution") == 0
    assert _count(conv_bwd, "aten.convolution_backward") == 2
    assert "_native_batch_norm_legit" not in conv_bwd
    enc_fwd, enc_bwd = (_program(os.path.join(graphs[1], d)) for d in ("kiln_ir", "kiln_ir_backward"))
    softmax = ("aten._softmax", "aten.softmax_int")
    assert sum(_count(enc_fwd, op) for op in softmax) == 2  # one per layer
    assert sum(_count(enc_bwd, op) for op in softmax) == 0
    assert _count(enc_fwd, "aten.random") > 0 and _count(enc_bwd, "aten.random") == 0
    assert '"residuals/' in enc_bwd and '"cotangent0"' in enc_bwd


def test_dynamic_batch_gradients_match_eager(monkeypatch):
    """A second batch size makes Dynamo mark the batch dynamic: the halves then
    take any batch (the third size reuses them), and sizes the forward
    computed from its own values cross the cut (as the encoder's do)."""
    monkeypatch.setenv("KILN_STRICT", "1")
    for make, shape in ((lambda: _Encoder(0.0).train(), (6, 16)),):
        eager = make()
        compiled_model = copy.deepcopy(eager)
        compiled = torch.compile(compiled_model, backend="kiln")
        before = len(kiln.dynamo.explanations())
        for batch in (2, 3, 5):
            x = torch.randn(batch, *shape)
            ge = torch.autograd.grad(eager(x).square().sum(), list(eager.parameters()))
            gc = torch.autograd.grad(compiled(x).square().sum(), list(compiled_model.parameters()))
            for a, b in zip(gc, ge):
                torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
        _split_entries(kiln.dynamo.explanations()[before:])

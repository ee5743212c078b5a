"""torch.compile(model, backend="kiln"): numerics against eager, graph breaks,
dynamic shapes, and that kiln (not an eager fallback) ran what it supports."""
import subprocess
import sys

import pytest
import torch

import kiln
import kiln.dynamo


def _compiled_graphs():
    return [e for e in kiln.dynamo.explanations() if e["compiled"]]


def _count():
    return len(kiln.dynamo.explanations())


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(),
                                       torch.nn.Linear(64, 64), torch.nn.GELU(),
                                       torch.nn.Linear(64, 10))

    def forward(self, x):
        return self.net(x)


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
            torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1))
        self.head = torch.nn.Linear(16, 5)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


def _check(model, *inputs, rtol=1e-4, atol=1e-5):
    model.eval()
    compiled = torch.compile(model, backend="kiln")
    with torch.no_grad():
        torch.testing.assert_close(compiled(*inputs), model(*inputs), rtol=rtol, atol=atol)


def test_mlp_is_compiled_by_kiln():
    torch.manual_seed(0)
    before = len(_compiled_graphs())
    _check(MLP(), torch.randn(4, 32))
    assert len(_compiled_graphs()) == before + 1


def test_cnn_is_compiled_by_kiln():
    torch.manual_seed(0)
    before = len(_compiled_graphs())
    _check(CNN(), torch.randn(2, 3, 16, 16))
    assert len(_compiled_graphs()) == before + 1


class Attention(torch.nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.out = torch.nn.Linear(dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln(x)).chunk(3, dim=-1)
        split = lambda z: z.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        y = torch.nn.functional.scaled_dot_product_attention(split(q), split(k), split(v),
                                                             is_causal=True)
        return x + self.out(y.transpose(1, 2).reshape(b, t, d))


def test_attention_matches_eager():
    torch.manual_seed(0)
    _check(Attention(), torch.randn(2, 8, 32))


def test_huggingface_encoder_matches_eager():
    from transformers import BertConfig, BertModel
    torch.manual_seed(0)
    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=32)
    model = BertModel(config).eval()
    ids = torch.randint(0, 100, (2, 12))
    mask = torch.ones(2, 12, dtype=torch.long)
    mask[1, 8:] = 0

    def run(m):
        return m(input_ids=ids, attention_mask=mask).last_hidden_state

    compiled = torch.compile(model, backend="kiln")
    with torch.no_grad():
        torch.testing.assert_close(run(compiled), run(model), rtol=1e-4, atol=1e-5)


def test_graph_break_on_print_still_correct(capsys):
    def f(x):
        y = torch.relu(x) * 2
        print("between graphs")
        return torch.tanh(y) + 1

    x = torch.randn(6, 7)
    before = _count()
    out = torch.compile(f, backend="kiln")(x)
    torch.testing.assert_close(out, f(x), rtol=1e-5, atol=1e-6)
    assert "between graphs" in capsys.readouterr().out
    assert _count() - before >= 2  # one graph before the break, one after


def test_data_dependent_control_flow():
    def f(x):
        if x.sum() > 0:
            return x * 3 + 1
        return x - 5

    cf = torch.compile(f, backend="kiln")
    for x in (torch.ones(4, 4), -torch.ones(4, 4)):
        torch.testing.assert_close(cf(x), f(x))


def test_dynamic_batch_recompiles_at_most_once():
    torch.manual_seed(0)
    model = MLP().eval()
    compiled = torch.compile(model, backend="kiln")
    before = _count()
    with torch.no_grad():
        for batch in (2, 3, 5, 8, 13, 21):
            x = torch.randn(batch, 32)
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)
    graphs = kiln.dynamo.explanations()[before:]
    assert len(graphs) <= 2, graphs  # the first shape, then one dynamic graph
    assert all(g["compiled"] for g in graphs), graphs


def test_dynamic_true_compiles_once():
    torch.manual_seed(0)
    model = MLP().eval()
    compiled = torch.compile(model, backend="kiln", dynamic=True)
    before = _count()
    with torch.no_grad():
        for batch in (2, 7, 30):
            x = torch.randn(batch, 32)
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-4, atol=1e-5)
    graphs = kiln.dynamo.explanations()[before:]
    assert len(graphs) == 1 and graphs[0]["compiled"], graphs


def test_backend_found_through_entry_point_without_import():
    code = ("import torch\n"
            "f = torch.compile(lambda x: torch.relu(x) + 1, backend='kiln')\n"
            "x = torch.randn(3, 3)\n"
            "assert torch.allclose(f(x), torch.relu(x) + 1)\n"
            "import sys; assert 'kiln' in sys.modules\n")
    env = dict(__import__("os").environ)
    env["PYTHONPATH"] = ":".join(p for p in sys.path if p)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


class _ScaledNorm(torch.nn.Module):
    """Float attributes (eps, a scale) that Dynamo passes as tensors under dynamic=True."""

    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(16)
        self.scale = 0.5

    def forward(self, x):
        return self.ln(x) * self.scale + self.scale ** 2


def test_dynamic_true_specializes_python_floats():
    torch.manual_seed(0)
    model = _ScaledNorm().eval()
    compiled = torch.compile(model, backend="kiln", dynamic=True)
    before = _count()
    with torch.no_grad():
        for batch in (2, 5):
            x = torch.randn(batch, 16)
            torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-5)
        graphs = kiln.dynamo.explanations()[before:]
        assert len(graphs) == 1 and graphs[0]["compiled"], graphs
        # Dynamo does not guard on the float: kiln checks it per call and
        # compiles the graph again for a value it has not seen.
        model.scale = 2.0
        x = torch.randn(3, 16)
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-5)
        model.scale = 0.5
        torch.testing.assert_close(compiled(x), model(x), rtol=1e-5, atol=1e-5)
    graphs = kiln.dynamo.explanations()[before:]
    assert len(graphs) == 2 and all(g["compiled"] for g in graphs), graphs


def test_size_of_a_tensor_the_graph_does_not_take_is_specialized():
    # x is read for its size only, so the graph takes the size as a symbolic
    # int that no tensor input carries: kiln compiles it for each value it is
    # called with.
    def f(x, y):
        return torch.arange(x.shape[1], dtype=torch.float32)[:, None] * y

    compiled = torch.compile(f, backend="kiln", dynamic=True)
    before = _count()
    y = torch.randn(1, 4)
    for n in (3, 5, 3, 7):
        x = torch.randn(2, n)
        torch.testing.assert_close(compiled(x, y), f(x, y))
    graphs = kiln.dynamo.explanations()[before:]
    assert len(graphs) == 3 and all(g["compiled"] for g in graphs), graphs  # 3 reused


class _BuildsATensor(torch.nn.Module):
    """A tensor made in forward (as ALiBi's slopes are): a lifted constant of the program."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.lin(x) * torch.tensor(2 ** -0.5, dtype=torch.float32)


def test_lifted_constant_is_given_with_the_held_weights():
    torch.manual_seed(0)
    model = _BuildsATensor().eval()
    compiled = torch.compile(model, backend="kiln")
    before = _count()
    x = torch.randn(3, 8)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x))
        model.lin.weight.mul_(3)  # a write reloads the held weights, the constant with them
        torch.testing.assert_close(compiled(x), model(x))
    graphs = kiln.dynamo.explanations()[before:]
    assert len(graphs) == 1 and graphs[0]["compiled"] and graphs[0]["held_weights"] > 0, graphs


def test_padded_length_read_back_is_compiled():
    # Padding a sequence to a multiple of a chunk (as Mamba mixers do) and
    # reading the padded length back: torch.export writes that length as a
    # torch.sym_sum node, which its serializer cannot save; kiln writes it as
    # adds. One compile serves every length, each padded differently.
    def f(x):
        pad = (4 - x.shape[1] % 4) % 4
        y = torch.nn.functional.pad(x, (0, 0, 0, pad))
        return y.reshape(x.shape[0], y.shape[1] // 4, 4, x.shape[2]).sum(2)

    compiled = torch.compile(f, backend="kiln", dynamic=True)
    before = _count()
    for n in (5, 6, 8, 9):
        x = torch.randn(2, n, 3)
        torch.testing.assert_close(compiled(x), f(x))
    graphs = kiln.dynamo.explanations()[before:]
    assert len(graphs) == 1 and graphs[0]["compiled"], graphs


def test_sizes_handed_on_past_a_graph_break():
    # The graph before the break returns the sizes read with x.size() with its
    # tensor (Dynamo hands them to the code after the break), and the graph
    # after it takes them and hands them back: kiln works them out from the
    # input shapes (or passes them on) on each call, with one compile each.
    def f(x):
        b, s, h = x.size()
        y = torch.relu(x) * 2
        torch._dynamo.graph_break()
        return y + 1, b, s

    compiled = torch.compile(f, backend="kiln", dynamic=True)
    before = _count()
    for shape in ((2, 5, 3), (3, 4, 3), (2, 7, 3)):
        x = torch.randn(*shape)
        got, want = compiled(x), f(x)
        torch.testing.assert_close(got[0], want[0])
        assert got[1:] == want[1:] == shape[:2]
    graphs = kiln.dynamo.explanations()[before:]
    assert len(graphs) == 2 and all(g["compiled"] for g in graphs), graphs


def test_chunks_counted_with_a_tensor_division():
    # torch.div of a size gives a tensor that .view() reads back with item()
    # (Longformer-style chunking). With static sizes export folds the item()
    # into the view's sizes and records no value for it; with dynamic ones it
    # is the view's symbolic size. Both compile.
    def f(x):
        chunks = x.view(x.size(0), torch.div(x.size(1), 4, rounding_mode="trunc"), 4, x.size(2))
        return chunks.sum(2) * 2

    compiled = torch.compile(f, backend="kiln")
    before = _count()
    for n in (8, 12, 16):
        x = torch.randn(2, n, 3)
        torch.testing.assert_close(compiled(x), f(x))
    graphs = kiln.dynamo.explanations()[before:]
    assert graphs and all(g["compiled"] for g in graphs), graphs

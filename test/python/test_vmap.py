"""vmap from Python: torch.compile(torch.func.vmap(...)) and vmap(grad(...)) through
the kiln backend against torch.func in eager, and batching rules of kiln ops
(a plugin's C++ rule, kiln.library.register_vmap, opcheck's test_vmap)."""
import os

import pytest
import torch

import kiln
import kiln.dynamo
import kiln.library
from conftest import BUILD_DIR

BAD_VMAP_PLUGIN = os.path.join(BUILD_DIR, "test", "unittests", "runtime", "dispatch", "plugins",
                               "libkiln_bad_vmap_ops.so")


def _compiled_graphs(before):
    return [e for e in kiln.dynamo.explanations()[before:] if e["compiled"]]


def _mlp():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))


class _ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.ln = torch.nn.LayerNorm(4 * 6 * 6)
        self.fc = torch.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        h = torch.relu(self.conv(x)).flatten(1)
        return torch.log_softmax(self.fc(torch.sigmoid(self.ln(h))), -1)


def test_compile_vmap():
    model = _mlp()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def f(x):
        return torch.func.functional_call(model, params, (x,)).sin()

    before = len(kiln.dynamo.explanations())
    compiled = torch.compile(torch.func.vmap(f, in_dims=1), backend="kiln")
    xs = torch.randn(3, 5, 8)
    torch.testing.assert_close(compiled(xs), torch.func.vmap(f, in_dims=1)(xs), rtol=1e-4, atol=1e-5)
    assert _compiled_graphs(before), kiln.dynamo.explanations()[before:]


@pytest.mark.parametrize("make_model,shape", [(_mlp, (8,)), (_ConvNet, (3, 8, 8))])
def test_compile_per_sample_grads(make_model, shape):
    model = make_model()
    params = {k: v.detach() for k, v in model.named_parameters()}
    classes = 4 if make_model is _mlp else 5

    def loss(p, x, t):
        out = torch.func.functional_call(model, p, (x.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(out, t.unsqueeze(0))

    per_sample = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))
    compiled = torch.compile(per_sample, backend="kiln")
    before = len(kiln.dynamo.explanations())
    for batch in (4, 6):
        xs, ts = torch.randn(batch, *shape), torch.randint(0, classes, (batch,))
        got, want = compiled(params, xs, ts), per_sample(params, xs, ts)
        assert got.keys() == want.keys()
        for k in want:
            assert got[k].shape == (batch, *params[k].shape)
            torch.testing.assert_close(got[k], want[k], rtol=1e-4, atol=1e-5)
    assert _compiled_graphs(before), kiln.dynamo.explanations()[before:]


@pytest.fixture(scope="module")
def plugins(example_plugin):
    kiln.library.load_plugin(example_plugin)
    kiln.library.load_plugin(BAD_VMAP_PLUGIN)


def test_plugin_rule_serves_torch_func_vmap(plugins):
    gelu = torch.ops.kilntest.scaled_gelu
    x = torch.randn(4, 3, 5)
    want = (torch.nn.functional.gelu(x) * 2.0).movedim(1, 0)
    torch.testing.assert_close(torch.func.vmap(lambda t: gelu(t, 2.0), in_dims=1)(x), want)
    torch.testing.assert_close(kiln.library.vmap("kilntest::scaled_gelu", [1, None], x, 2.0), want)
    torch.testing.assert_close(
        kiln.library.vmap("kilntest::scaled_gelu", [1, None], x, 2.0, use_rule=False), want)
    assert kiln.library.opcheck("kilntest::scaled_gelu")["test_vmap"] == "SUCCESS"


def test_custom_op_inside_compiled_vmap(plugins):
    gelu = torch.ops.kilntest.scaled_gelu

    def f(x):
        return gelu(x.sin(), 2.0).sum(0)

    before = len(kiln.dynamo.explanations())
    xs = torch.randn(4, 3, 5)
    got = torch.compile(torch.func.vmap(f), backend="kiln")(xs)
    torch.testing.assert_close(got, torch.func.vmap(f)(xs))
    assert _compiled_graphs(before)


def test_register_vmap_from_python(plugins):
    calls = []

    @kiln.library.register_vmap("kilnbad::rowsum")
    def rowsum_vmap(info, in_dims, x):
        calls.append(info.batch_size)
        return torch.ops.kilnbad.rowsum(x.movedim(in_dims[0], 0)), 0

    x = torch.randn(4, 3, 6)
    torch.testing.assert_close(kiln.library.vmap("kilnbad::rowsum", [1], x), x.sum(-1).T)
    assert calls == [3]  # kiln's dispatcher ran the Python rule
    torch.testing.assert_close(torch.func.vmap(torch.ops.kilnbad.rowsum, in_dims=1)(x), x.sum(-1).T)
    assert calls == [3, 3]  # and so did torch.func.vmap
    assert kiln.library.opcheck("kilnbad::rowsum")["test_vmap"] == "SUCCESS"
    with pytest.raises(kiln.KilnError, match="already has a batching rule"):
        kiln.library.register_vmap("kilnbad::rowsum", rowsum_vmap)


def test_opcheck_catches_a_wrong_rule(plugins):
    with pytest.raises(kiln.library.OpCheckError, match="test_vmap.*disagrees with running the op once per sample"):
        kiln.library.opcheck("kilnbad::cumsum0")
    report = kiln.library.opcheck("kilnbad::cumsum0", raise_exception=False)
    assert report["test_dispatch"] == "SUCCESS"
    assert "the batching rule disagrees" in report["test_vmap"]

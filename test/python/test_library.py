"""kiln.library: a kiln plugin's C++ op used from eager PyTorch (kernel, fake
function, autograd formula) and inside torch.compile'd graphs; opcheck."""
import pytest
import torch

import kiln
import kiln.dynamo


@pytest.fixture(scope="module")
def scaled_gelu(example_plugin):
    kiln.library.load_plugin(example_plugin)  # a second load of the same plugin adds nothing
    return torch.ops.kilntest.scaled_gelu


def _reference(x, scale):
    return torch.nn.functional.gelu(x) * scale


def test_load_plugin_lists_ops(example_plugin):
    added = kiln.library.load_plugin(example_plugin)  # loading twice adds nothing new
    assert isinstance(added, list)
    assert kiln.library.plugins() and kiln.library.plugins()[0].endswith("libkiln_example_ops.so")
    assert hasattr(torch.ops.kilntest, "scaled_gelu")


def test_eager_call_and_gradient(scaled_gelu):
    x = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    y = scaled_gelu(x, 2.5)
    torch.testing.assert_close(y, _reference(x, 2.5))
    (g,) = torch.autograd.grad(y.sum(), x)
    (g_ref,) = torch.autograd.grad(_reference(x, 2.5).sum(), x)
    torch.testing.assert_close(g, g_ref)
    assert torch.autograd.gradcheck(lambda t: scaled_gelu(t, 1.5), (x,))


def test_fake_function_gives_shapes(scaled_gelu):
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        y = scaled_gelu(torch.empty(3, 7), 2.0)
    assert y.shape == (3, 7) and y.dtype == torch.float32


def test_opcheck_kiln_and_torch(scaled_gelu):
    report = kiln.library.opcheck("kilntest::scaled_gelu", [[torch.randn(3, 4), 1.5]])
    assert report["test_faketensor"] == "SUCCESS" and report["test_autograd"] == "SUCCESS"
    torch.library.opcheck(scaled_gelu.default, (torch.randn(3, 4, dtype=torch.float64), 1.5))


def test_torch_opcheck_with_requires_grad(scaled_gelu):
    # test_aot_dispatch_dynamic traces the autograd formula with fake and
    # functional tensors: it must be a traceable op, not a direct kernel call.
    for dtype in (torch.float64, torch.float32):
        x = torch.randn(3, 4, dtype=dtype, requires_grad=True)
        report = torch.library.opcheck(scaled_gelu.default, (x, 1.5))
        assert set(report.values()) == {"SUCCESS"}, report
        assert "test_aot_dispatch_dynamic" in report


def test_gradient_inside_compiled_graph(scaled_gelu):
    def f(x):
        return (scaled_gelu(x, 2.0) * x).sum()

    x = torch.randn(5, 6, requires_grad=True)
    (g,) = torch.autograd.grad(torch.compile(f, backend="aot_eager")(x), x)
    x_ref = x.detach().requires_grad_(True)
    (g_ref,) = torch.autograd.grad((_reference(x_ref, 2.0) * x_ref).sum(), x_ref)
    torch.testing.assert_close(g, g_ref)


def test_opcheck_reports_a_failure():
    with pytest.raises(kiln.KilnError):
        kiln.library.opcheck("kilntest::no_such_op")


def test_custom_op_inside_compiled_graph(scaled_gelu):
    def f(x):
        return scaled_gelu(torch.relu(x) + 1.0, 3.0) - x

    before = len(kiln.dynamo.explanations())
    x = torch.randn(6, 7)
    torch.testing.assert_close(torch.compile(f, backend="kiln")(x), f(x))
    assert kiln.dynamo.explanations()[before]["compiled"]

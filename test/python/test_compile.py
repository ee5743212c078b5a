"""kiln.compile / kiln.load from Python: paths, ExportedPrograms, modules; metadata;
zero-copy inputs and outputs; compile errors that name the op and the line."""
import os

import numpy as np
import pytest
import torch

import kiln


def test_compile_pt2_path_matches_pytorch(corpus):
    d = os.path.join(corpus, "mlp")
    m = kiln.compile(os.path.join(d, "model.pt2"))
    x = np.load(os.path.join(d, "input0.npy"))
    y = m(x)
    assert isinstance(y, np.ndarray)
    np.testing.assert_allclose(y, np.load(os.path.join(d, "output0.npy")), rtol=1e-4, atol=1e-5)
    assert [i.name for i in m.inputs] == ["x"]
    assert m.inputs[0].dtype == "float32" and list(m.inputs[0].dims) == list(x.shape)
    assert len(m.outputs) == 1 and m.outputs[0].dtype == "float32"


def test_dynamic_dims_in_metadata(corpus):
    m = kiln.compile(os.path.join(corpus, "mlp_dynamic", "model.pt2"))
    info = m.inputs[0]
    assert info.dims[0] == -1 and info.dim_min[0] == 1 and info.dim_max[0] == 1024
    for batch in (1, 3, 17):
        x = np.random.rand(batch, info.dims[1]).astype(np.float32)
        assert m(x).shape[0] == batch
    with pytest.raises(kiln.KilnError, match="outside the range"):
        m(np.zeros((1025, info.dims[1]), np.float32))


class Small(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(12, 24)
        self.fc2 = torch.nn.Linear(24, 3)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


def test_compile_module_and_exported_program_with_torch_tensors():
    torch.manual_seed(0)
    model = Small().eval()
    x = torch.randn(5, 12)
    expected = model(x).detach()
    for program in (model, torch.export.export(model, (x,))):
        m = kiln.compile(program, example_inputs=(x,))
        y = m(x)
        assert isinstance(y, torch.Tensor)
        torch.testing.assert_close(y, expected, rtol=1e-4, atol=1e-5)


def test_inputs_cross_without_copies_and_outputs_share_runtime_buffers():
    model = Small().eval()
    x = torch.randn(2, 12)
    m = kiln.compile(model, example_inputs=(x,))
    y1 = m(x)
    # A non-contiguous input is made contiguous, giving the same numbers.
    xt = torch.randn(12, 2).t()
    torch.testing.assert_close(m(xt), model(xt).detach(), rtol=1e-4, atol=1e-5)
    # The output tensor wraps the runtime's buffer: writable, and stays valid after
    # the module is gone.
    del m
    y1.add_(1.0)
    torch.testing.assert_close(y1, model(x).detach() + 1.0, rtol=1e-4, atol=1e-5)


def test_external_weights(tmp_path):
    model = Small().eval()
    x = torch.randn(4, 12)
    m = kiln.compile(model, example_inputs=(x,), weights="external")
    torch.testing.assert_close(m(x), model(x).detach(), rtol=1e-4, atol=1e-5)
    assert {p.name for p in m.params} >= {"fc1.weight", "fc2.bias"}


def test_output_path_and_load(tmp_path):
    model = Small().eval()
    x = torch.randn(3, 12)
    out = tmp_path / "small.so"
    kiln.compile(model, example_inputs=(x,), output=str(out))
    assert out.exists()
    m = kiln.load(str(out))
    torch.testing.assert_close(m(x), model(x).detach(), rtol=1e-4, atol=1e-5)


def _unsupported_op(x):
    return torch.gradient(x, dim=-1)[0]


def test_compile_error_names_op_and_python_line():
    with pytest.raises(kiln.CompileError) as e:
        kiln.compile(_unsupported_op, example_inputs=(torch.randn(1, 2, 8, 8),))
    err = e.value
    assert err.op == "aten.gradient.scalarint"
    code = _unsupported_op.__code__
    assert err.location == f"{code.co_filename}:{code.co_firstlineno}"
    assert "aten.gradient" in str(err) and err.diagnostics


def test_bad_inputs_raise_clear_errors(corpus):
    m = kiln.compile(os.path.join(corpus, "mlp", "model.pt2"))
    with pytest.raises(kiln.KilnError, match="dtype"):
        m(np.zeros(tuple(m.inputs[0].dims), np.float64))
    with pytest.raises(kiln.KilnError):
        m(np.zeros((3,), np.float32))
    with pytest.raises(FileNotFoundError):
        kiln.compile("/nonexistent/model.pt2")
    with pytest.raises(kiln.KilnError):
        kiln.load("/nonexistent/model.so")


def test_compile_times_are_broken_down_per_stage(corpus):
    kiln.compile(os.path.join(corpus, "convnet", "model.pt2"), use_cache=False)
    times = kiln.compile_times()
    for stage in ("import", "pipeline", "llvm-opt-and-codegen", "link"):
        assert times.get(stage, 0) > 0, (stage, times)


def test_bfloat16_outputs_are_tensors():
    # NumPy has no bfloat16: such outputs come back as torch tensors, through
    # kiln.compile's module and through the Dynamo backend.
    class Linear(torch.nn.Module):
        def forward(self, t, w):
            return torch.nn.functional.linear(t, w).relu()

    t = torch.randn(4, 8, dtype=torch.bfloat16)
    w = torch.randn(16, 8, dtype=torch.bfloat16)
    want = Linear()(t, w)
    m = kiln.compile(Linear(), example_inputs=(t, w))
    got = m(t, w)
    assert got.dtype == torch.bfloat16 and got.shape == (4, 16)
    torch.testing.assert_close(got, want, rtol=1.6e-2, atol=1e-2)
    torch._dynamo.reset()
    got = torch.compile(Linear(), backend="kiln")(t, w)
    assert got.dtype == torch.bfloat16
    torch.testing.assert_close(got, want, rtol=1.6e-2, atol=1e-2)

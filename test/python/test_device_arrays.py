"""How the extension reads an array's DLPack device: GPU arrays are wrapped as
device tensors (never read on the host) and refused with a clear message where
the model cannot take them. The arrays here are DLPack capsules built by hand
that claim a GPU address, so this runs without one."""
import ctypes
import os

import numpy as np
import pytest

import kiln

KDL_CPU, KDL_CUDA, KDL_ROCM = 1, 2, 10


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]


_deleted = []
_on_delete = _DELETER(lambda p: _deleted.append(p))


class FakeDeviceArray:
    """A float32 array claiming to live at a GPU address (never dereferenced)."""

    def __init__(self, shape, device_type=KDL_CUDA, device_id=0):
        self.shape_buf = (ctypes.c_int64 * len(shape))(*shape)
        self.managed = _DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = 0x7F0000001000
        t.device = _DLDevice(device_type, device_id)
        t.ndim = len(shape)
        t.dtype = _DLDataType(2, 32, 1)  # float32
        t.shape = self.shape_buf
        t.strides = None
        self.managed.deleter = _on_delete
        self.device = (device_type, device_id)

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self.managed), b"dltensor", None)


@pytest.fixture
def mlp(corpus):
    return kiln.compile(os.path.join(corpus, "mlp", "model.pt2"))


def test_cpu_model_refuses_a_cuda_array(mlp):
    shape = [abs(d) if d > 0 else 2 for d in mlp.inputs[0].dims]
    with pytest.raises(kiln.KilnError) as e:
        mlp._model.run([FakeDeviceArray(shape)])
    assert str(e.value) == ('input 0: a cuda array, but the model runs on the CPU '
                            '(compile it with target="cuda")')


def test_cpu_model_refuses_a_rocm_array(mlp):
    shape = [abs(d) if d > 0 else 2 for d in mlp.inputs[0].dims]
    with pytest.raises(kiln.KilnError, match='a rocm array, but the model runs on the CPU'):
        mlp._model.run([FakeDeviceArray(shape, KDL_ROCM)])


def test_device_outputs_need_a_gpu_model(mlp):
    shape = [abs(d) if d > 0 else 2 for d in mlp.inputs[0].dims]
    with pytest.raises(kiln.KilnError, match="device_outputs: this model runs on the CPU"):
        mlp._model.run([np.zeros(shape, np.float32)], device_outputs=True)
    assert mlp.device == "cpu"


def test_module_refuses_torch_tensors_on_another_device_for_a_cpu_model(mlp):
    import torch
    x = torch.empty(2, 4, device="meta")
    with pytest.raises(kiln.KilnError, match='got one on meta .compile with target="cuda"'):
        mlp.run([x])


def test_backend_target_follows_the_tensors():
    import torch
    from kiln import dynamo
    assert dynamo._target_of([torch.zeros(2), 3]) == "cpu"
    with pytest.raises(dynamo._Unsupported, match="all on the CPU or all on the GPU"):
        dynamo._target_of([torch.zeros(2), torch.empty(2, device="meta")])


def test_graph_device_constants_are_exported_on_the_cpu():
    """Dynamo bakes a GPU graph's devices into it (`torch.arange(n, device=x.device)`
    becomes `device=cuda:0`); the backend exports the graph on the CPU, so those
    constants are rewritten to the CPU first. Traced without running, so no GPU."""
    import torch
    from kiln import dynamo

    # Built node by node: tracing would run the factory calls on the GPU.
    g = torch.fx.Graph()
    x = g.placeholder("x")
    pos = g.call_function(torch.arange, (4,), {"device": torch.device("cuda", 0)})
    ones = g.call_method("cuda", (g.call_function(torch.ones, (4,), {"device": "cuda:0"}),))
    moved = g.call_method("to", (x, "cuda"))
    out = g.call_function(torch.add, (g.call_function(torch.add, (moved, pos)),
                                      g.call_method("to", (ones,), {"device": "cuda"})))
    g.output(out)
    gm = torch.fx.GraphModule(torch.nn.Module(), g)
    cpu = dynamo._graph_on_cpu(gm)
    assert cpu is not gm
    for n in cpu.graph.nodes:
        flat = list(n.args) + list(n.kwargs.values())
        assert not any(dynamo._is_gpu_device(v) for v in flat), n.format_node()
        assert not (n.op == "call_method" and n.target == "cuda"), n.format_node()
    x = torch.randn(4)
    torch.testing.assert_close(cpu(x), x + torch.arange(4) + 1)
    # A CPU graph is used as it is.
    plain = torch.fx.symbolic_trace(torch.nn.Linear(4, 2))
    assert dynamo._graph_on_cpu(plain) is plain


def test_run_pointers_matches_run(mlp):
    """run_pointers: tensors as data addresses, shapes and dtype names (the GPU path's
    way of passing a graph's many inputs), checked on the CPU with CPU tensors."""
    import torch
    from kiln.compiler import _dtype_name
    shape = [abs(d) if d > 0 else 3 for d in mlp.inputs[0].dims]
    x = torch.randn(shape)
    want = mlp.run([x])[0]
    got = mlp._model.run_pointers([x.data_ptr()], [list(x.shape)], [_dtype_name(x.dtype)], "cpu")[0]
    np.testing.assert_array_equal(np.asarray(got), want.numpy())
    assert _dtype_name(torch.bfloat16) == "bfloat16" and _dtype_name(torch.bool) == "bool"
    with pytest.raises(kiln.KilnError, match="run_pointers: 1 pointers, 2 shapes and 1 dtypes"):
        mlp._model.run_pointers([x.data_ptr()], [list(x.shape)] * 2, ["float32"], "cpu")
    with pytest.raises(kiln.KilnError, match="unknown dtype 'float128'"):
        mlp._model.run_pointers([x.data_ptr()], [list(x.shape)], ["float128"], "cpu")
    with pytest.raises(kiln.KilnError, match="run_pointers: cuda tensors, but the model runs on cpu"):
        mlp._model.run_pointers([x.data_ptr()], [list(x.shape)], ["float32"], "cuda")
    with pytest.raises(kiln.KilnError, match="unknown device 'tpu'"):
        mlp._model.run_pointers([x.data_ptr()], [list(x.shape)], ["float32"], "tpu")
    with pytest.raises(kiln.KilnError, match="dtype is f64, expected f32"):
        y = x.double()
        mlp._model.run_pointers([y.data_ptr()], [list(y.shape)], ["float64"], "cpu")

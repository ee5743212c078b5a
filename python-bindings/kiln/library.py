"""kiln.library: kiln plugins (C++ ops registered with KILN_LIBRARY) seen from PyTorch.

    kiln.library.load_plugin("libmy_ops.so")
    torch.ops.myns.my_op(x, 2.0)          # runs the plugin's CPU kernel, eagerly
    torch.compile(f, backend="kiln")     # compiled graphs call the same kernel

load_plugin registers each op of the plugin with torch.library: its schema, a CPU
kernel that calls the plugin's kernel through kiln's dispatcher (tensors cross
without copies), a fake function backed by the plugin's Meta kernel, and, when the
plugin registered one, its autograd formula. opcheck runs kiln's own opcheck
(schema, fake function, gradient, dispatch) on an op.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence

from . import _kiln

_torch_libraries: List[Any] = []  # keep torch.library.Library objects alive
_plugins: List[str] = []


def plugins() -> List[str]:
    """Absolute paths of the plugins loaded so far (kiln.compile passes them on)."""
    return list(_plugins)


def _split(name: str):
    ns, rest = name.split("::", 1)
    base, _, overload = rest.partition(".")
    return ns, base, overload if overload and overload != "default" else ""


def _to_kiln(x):
    import torch
    if isinstance(x, torch.Tensor):
        if x.device.type != "cpu":
            raise _kiln.KilnError(f"kiln plugin kernels run on the CPU; got a tensor on {x.device}")
        return x.detach().contiguous()
    if isinstance(x, (list, tuple)):
        return [_to_kiln(v) for v in x]
    if isinstance(x, torch.dtype):
        raise _kiln.KilnError("dtype arguments are not supported by kiln.library yet")
    return x


def _to_torch(x):
    import numpy as np
    import torch
    if isinstance(x, np.ndarray):
        return torch.from_numpy(x)
    if isinstance(x, list):
        return [_to_torch(v) for v in x]
    return x


_TORCH_DTYPES = None


def _dtype_name(dt) -> str:
    return str(dt).replace("torch.", "")


def _torch_dtype(name: str):
    import torch
    return getattr(torch, name)


def _fake_arg(x, hints):
    import torch
    if isinstance(x, torch.Tensor):
        shape = []
        for s in x.shape:
            if isinstance(s, torch.SymInt):
                node = s.node
                h = int(node.hint) if getattr(node, "hint", None) is not None else None
                if h is None:
                    raise _kiln.KilnError("kiln fake functions need size hints for symbolic sizes")
                hints.setdefault(h, s)
                shape.append(h)
            else:
                shape.append(int(s))
        return ("__tensor__", shape, _dtype_name(x.dtype))
    if isinstance(x, (list, tuple)):
        return [_fake_arg(v, hints) for v in x]
    return x


class _OpInfo:
    def __init__(self, name: str, schema: str, has_fake: bool, has_backward: bool):
        self.name, self.schema, self.has_fake, self.has_backward = name, schema, has_fake, has_backward


def _register(name: str) -> None:
    import torch
    raw = _kiln.op_info(name)
    info = _OpInfo(raw.name, raw.schema, raw.has_fake, raw.has_backward)
    ns, base, overload = _split(info.name)
    schema = info.schema.split("::", 1)[1]
    qualname = f"{ns}::{base}" + (f".{overload}" if overload else "")
    packet = getattr(getattr(torch.ops, ns), base, None) if hasattr(torch.ops, ns) else None
    lib = torch.library.Library(ns, "FRAGMENT")
    _torch_libraries.append(lib)
    try:
        lib.define(schema)
    except RuntimeError as e:
        if "already" not in str(e) and packet is None:
            raise

    def cpu_kernel(*args):
        outs = _kiln.call_op(info.name, [_to_kiln(a) for a in args])
        outs = [_to_torch(o) for o in outs]
        return outs[0] if len(outs) == 1 else tuple(outs)

    lib.impl(base + (f".{overload}" if overload else ""), cpu_kernel, "CPU")

    if info.has_fake:
        def fake(*args):
            hints: Dict[int, Any] = {}
            results = _kiln.fake_op(info.name, [_fake_arg(a, hints) for a in args])
            device = next((a.device for a in args if isinstance(a, torch.Tensor)), "cpu")
            outs = []
            for shape, dtype in results:
                # A result dim equal to a symbolic input dim's hint is taken to be that dim.
                sizes = [hints.get(s, s) for s in shape]
                outs.append(torch.empty(sizes, dtype=_torch_dtype(dtype), device=device))
            return outs[0] if len(outs) == 1 else tuple(outs)

        torch.library.register_fake(qualname, fake, lib=lib)

    if info.has_backward:
        def setup_context(ctx, inputs, output):
            ctx.kiln_inputs = inputs
            ctx.kiln_outputs = output if isinstance(output, tuple) else (output,)

        def backward(ctx, *grads):
            res = _kiln.backward_op(info.name, [_to_kiln(a) for a in ctx.kiln_inputs],
                                    [_to_kiln(o) for o in ctx.kiln_outputs],
                                    [_to_kiln(g) if g is not None else None for g in grads])
            res = [_to_torch(r) for r in res]
            res += [None] * (len(ctx.kiln_inputs) - len(res))
            return tuple(res[:len(ctx.kiln_inputs)])

        torch.library.register_autograd(qualname, backward, setup_context=setup_context, lib=lib)


def load_plugin(path: str, register_with_torch: bool = True) -> List[str]:
    """Loads a kiln plugin; its ops become callable as torch.ops.<ns>.<op> (unless
    register_with_torch is False) and kiln.compile / the kiln backend pass the
    plugin to the compiler. Returns the qualified names of the ops it defined."""
    path = os.path.abspath(path)
    added = _kiln.load_plugin(path)
    if path not in _plugins:
        _plugins.append(path)
    if register_with_torch:
        for name in added:
            _register(name)
    return added


class OpCheckError(AssertionError):
    pass


def opcheck(op: Any, samples: Optional[Sequence[Sequence[Any]]] = None, *, num_samples: int = 3,
            raise_exception: bool = True) -> Dict[str, str]:
    """Runs kiln's opcheck (test_schema, test_faketensor, test_autograd,
    test_dispatch) on `op` (a name "ns::op" or a torch.ops overload/packet) with the
    given sample argument lists (torch tensors or arrays, numbers, lists), or with
    samples generated from the schema. Returns {test: "SUCCESS" | "SKIPPED" | reason}
    and raises OpCheckError on a failure when raise_exception is True."""
    name = op if isinstance(op, str) else getattr(op, "_qualified_op_name", None) or op.name()
    name = name.replace(".default", "")
    kiln_samples = None if samples is None else [[_to_kiln(a) for a in s] for s in samples]
    ok, results, text = _kiln.opcheck(name, kiln_samples, num_samples)
    summary: Dict[str, str] = {}
    for test, sample, passed, skipped, message in results:
        if not passed:
            summary[test] = message or "failed"
        elif test not in summary:
            summary[test] = "SKIPPED" if skipped else "SUCCESS"
    if raise_exception and not ok:
        raise OpCheckError(f"opcheck failed for {name}:\n{text}")
    return summary

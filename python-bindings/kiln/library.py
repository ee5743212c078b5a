"""kiln.library: kiln plugins (C++ ops registered with KILN_LIBRARY) seen from PyTorch.

    kiln.library.load_plugin("libmy_ops.so")
    torch.ops.myns.my_op(x, 2.0)          # runs the plugin's CPU kernel, eagerly
    torch.compile(f, backend="kiln")     # compiled graphs call the same kernel

load_plugin registers each op of the plugin with torch.library: its schema, a CPU
kernel that calls the plugin's kernel through kiln's dispatcher (tensors cross
without copies), a fake function backed by the plugin's Meta kernel, and, when the
plugin registered them, its autograd formula and its batching rule (so
torch.func.vmap uses it too). register_vmap gives an op a batching rule from Python
(torch.library.register_vmap's signature); kiln's dispatcher and torch.func.vmap
then use it. opcheck runs
kiln's own opcheck (schema, fake function, gradient, dispatch, batching rule) on an op.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Dict, List, Optional, Sequence

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
    def __init__(self, name: str, schema: str, has_fake: bool, has_backward: bool,
                 has_vmap: bool = False):
        self.name, self.schema, self.has_fake, self.has_backward = name, schema, has_fake, has_backward
        self.has_vmap = has_vmap


def _register(name: str) -> None:
    import torch
    raw = _kiln.op_info(name)
    info = _OpInfo(raw.name, raw.schema, raw.has_fake, raw.has_backward, raw.has_vmap)
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
        _register_backward(lib, ns, base, overload, qualname, info)

    if info.has_vmap:
        packet = getattr(getattr(torch.ops, ns), base)
        overload_packet = getattr(packet, overload or "default")

        def vmap_rule(vinfo, in_dims, *args):
            if _tracing(args):
                # Traced (torch.compile, make_fx): the plugin's rule cannot run on
                # fake tensors, so the graph gets the op once per sample.
                outs = _per_sample(overload_packet, vinfo.batch_size, in_dims, args)
            else:
                outs = _kiln.vmap_op(info.name, list(in_dims), [_to_kiln(a) for a in args])
                outs = [_to_torch(o) for o in outs]  # the batch first
            if len(outs) == 1:
                return outs[0], 0
            return tuple(outs), (0,) * len(outs)

        torch.library.register_vmap(qualname, vmap_rule, lib=lib)


def _flatten_args(args):
    """The tensors of `args` (top level and inside lists) and a JSON-able spec
    that rebuilds `args` from them: {"t": i}, {"tl": [i, ...]} or {"v": value}."""
    import torch
    tensors, spec = [], []
    for a in args:
        if isinstance(a, torch.Tensor):
            spec.append({"t": len(tensors)})
            tensors.append(a)
        elif isinstance(a, (list, tuple)) and a and all(isinstance(v, torch.Tensor) for v in a):
            spec.append({"tl": list(range(len(tensors), len(tensors) + len(a)))})
            tensors.extend(a)
        elif a is None or isinstance(a, (bool, int, float, str)) or (
                isinstance(a, (list, tuple)) and all(isinstance(v, (bool, int, float)) for v in a)):
            spec.append({"v": list(a) if isinstance(a, tuple) else a})
        else:
            raise _kiln.KilnError(f"kiln.library: an argument of type {type(a).__name__} cannot reach "
                                  "a kiln op's autograd formula (symbolic sizes and dtypes are not "
                                  "supported there yet)")
    return tensors, spec


def _unflatten_args(spec, tensors):
    return [tensors[e["t"]] if "t" in e else [tensors[i] for i in e["tl"]] if "tl" in e else e["v"]
            for e in spec]


def _register_backward(lib, ns: str, base: str, overload: str, qualname: str, info: _OpInfo) -> None:
    """The op's autograd formula as a torch op of its own,
    <ns>::<op>[_<overload>]_kiln_backward(Tensor?[] tensors, Tensor[] outputs,
    Tensor?[] grads, str spec) -> Tensor[] (one gradient per tensor argument),
    with a fake function, so that tracers (AOT autograd, torch.compile,
    opcheck's test_aot_dispatch_*) record a call instead of running the plugin's
    formula on fake or functional tensors."""
    import json
    import torch
    bname = f"{base}_{overload}_kiln_backward" if overload else f"{base}_kiln_backward"
    try:
        lib.define(f"{bname}(Tensor?[] tensors, Tensor[] outputs, Tensor?[] grads, str spec) -> Tensor[]")
    except RuntimeError as e:
        if "already" not in str(e):
            raise

    def kernel(tensors, outputs, grads, spec):
        spec = json.loads(spec)
        args = _unflatten_args(spec, tensors)
        res = _kiln.backward_op(info.name, [_to_kiln(a) for a in args], [_to_kiln(o) for o in outputs],
                                [_to_kiln(g) if g is not None else None for g in grads])
        res = [_to_torch(r) for r in res]
        out = [None] * len(tensors)
        for pos, e in enumerate(spec):
            r = res[pos] if pos < len(res) else None
            if "t" in e:
                out[e["t"]] = r
            elif "tl" in e:
                for k, i in enumerate(e["tl"]):
                    out[i] = r[k] if isinstance(r, list) and k < len(r) else None
        return [o if o is not None else torch.zeros_like(t) if t is not None else torch.empty(0)
                for o, t in zip(out, tensors)]

    def fake(tensors, outputs, grads, spec):
        return [torch.empty_like(t) if t is not None else torch.empty(0) for t in tensors]

    lib.impl(bname, kernel, "CPU")
    torch.library.register_fake(f"{ns}::{bname}", fake, lib=lib)
    backward_op = getattr(getattr(torch.ops, ns), bname).default

    def setup_context(ctx, inputs, output):
        ctx.kiln_inputs = inputs
        ctx.kiln_outputs = output if isinstance(output, tuple) else (output,)

    def backward(ctx, *grads):
        tensors, spec = _flatten_args(ctx.kiln_inputs)
        gs = backward_op(tensors, list(ctx.kiln_outputs), list(grads), json.dumps(spec))
        res = []
        for e in spec:
            if "t" in e:
                res.append(gs[e["t"]])
            elif "tl" in e:
                res.append([gs[i] for i in e["tl"]])
            else:
                res.append(None)
        return tuple(res)

    torch.library.register_autograd(qualname, backward, setup_context=setup_context, lib=lib)


def _tracing(args) -> bool:
    """Whether the call is being traced rather than run: fake tensors, or a proxy tracer."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor
    from torch.fx.experimental.proxy_tensor import get_proxy_mode
    return get_proxy_mode() is not None or any(isinstance(a, FakeTensor) for a in args)


def _per_sample(op, batch_size: int, in_dims, args) -> List[Any]:
    """`op` once per sample, its results stacked along a new dim 0."""
    import torch
    moved = [a.movedim(d, 0) if d is not None else a for a, d in zip(args, in_dims)]
    results = []
    for i in range(batch_size):
        r = op(*[m[i] if d is not None else m for m, d in zip(moved, in_dims)])
        results.append(r if isinstance(r, (tuple, list)) else (r,))
    return [torch.stack([r[j] for r in results]) for j in range(len(results[0]))]


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


def _op_name(op: Any) -> str:
    name = op if isinstance(op, str) else getattr(op, "_qualified_op_name", None) or op.name()
    return name.replace(".default", "")


class VmapInfo:
    """What a batching rule is told besides its arguments (torch's VmapInfo)."""

    def __init__(self, batch_size: int, randomness: str = "error"):
        self.batch_size, self.randomness = batch_size, randomness


def register_vmap(op: Any, func: Optional[Callable] = None, /):
    """Registers func(info, in_dims, *args) -> (output, out_dims) as the batching
    rule of a kiln op (a name "ns::op" or a torch.ops overload/packet), as
    torch.library.register_vmap does: in_dims has one entry per argument (the batch
    dim of a batched tensor, None otherwise), output is a tensor or a tuple of them
    and out_dims says where the batch is in each (None: the same for every sample).
    kiln's dispatcher uses it (kiln.library.vmap, opcheck), and so does
    torch.func.vmap when the op is registered with torch. kiln-compile runs in a
    process of its own and does not see it: models compiled with --vmap use the
    rules of the plugins they load. Usable as a decorator."""
    if func is None:
        return lambda f: register_vmap(op, f)
    name = _op_name(op)

    def rule(batch_size, in_dims, args):
        out, out_dims = func(VmapInfo(batch_size), tuple(in_dims), *[_to_torch(a) for a in args])
        single = not isinstance(out, (tuple, list))
        outs = (out,) if single else tuple(out)
        dims = (out_dims,) if single or not isinstance(out_dims, (tuple, list)) else tuple(out_dims)
        if len(dims) == 1 and len(outs) > 1:
            dims = dims * len(outs)
        return [_to_kiln(o) for o in outs], list(dims)

    _kiln.register_vmap(name, rule)
    import torch
    ns, base, overload = _split(name)
    if hasattr(torch.ops, ns) and hasattr(getattr(torch.ops, ns), base):
        lib = torch.library.Library(ns, "FRAGMENT")
        _torch_libraries.append(lib)
        torch.library.register_vmap(f"{ns}::{base}" + (f".{overload}" if overload else ""),
                                    func, lib=lib)
    return func


def vmap(op: Any, in_dims: Sequence[Optional[int]], *args, use_rule: bool = True):
    """Runs a kiln op over a batch in kiln's dispatcher: with its batching rule
    (or once per sample when it has none, or when use_rule is False). Returns
    the results with the batch first (a tensor, or a list of them)."""
    outs = _kiln.vmap_op(_op_name(op), list(in_dims), [_to_kiln(a) for a in args], not use_rule)
    outs = [_to_torch(o) for o in outs]
    return outs[0] if len(outs) == 1 else outs


class OpCheckError(AssertionError):
    pass


def opcheck(op: Any, samples: Optional[Sequence[Sequence[Any]]] = None, *, num_samples: int = 3,
            raise_exception: bool = True) -> Dict[str, str]:
    """Runs kiln's opcheck (test_schema, test_faketensor, test_autograd,
    test_dispatch, test_vmap) on `op` (a name "ns::op" or a torch.ops overload/packet) with the
    given sample argument lists (torch tensors or arrays, numbers, lists), or with
    samples generated from the schema. Returns {test: "SUCCESS" | "SKIPPED" | reason}
    and raises OpCheckError on a failure when raise_exception is True."""
    name = _op_name(op)
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

"""torch.compile(model, backend="kiln"): the Dynamo backend.

Each graph Dynamo captures is exported to the ATen IR with torch.export (symbolic
sizes Dynamo marked dynamic stay dynamic, so one compile serves a range of
shapes), saved as a .pt2 and compiled by kiln. Graph breaks, guards and
recompilation are Dynamo's own. When a graph needs gradients, kiln differentiates
it itself (its autograd dialect) and cuts the value and gradient in two
(kiln-compile --grad --split): the forward module returns the outputs and the
residuals the backward reads, which autograd saves, and the backward module
takes the residuals and the cotangents, so nothing of the forward runs twice;
dropout masks are residuals, and state updates such as a training batch
norm's running statistics are applied once, by the forward. Should the split
fail, the backward is the whole value-and-gradient module instead, which
recomputes the forward from the saved inputs with the forward's generator
state. A graph kiln cannot differentiate (an op with no reverse rule, a gradient a parameter of the graph
itself would need) goes through AOTAutograd instead, which hands kiln separate forward
and backward graphs (docs/python.md).

A graph whose tensors are on an NVIDIA GPU is compiled with target="cuda" and
runs there on PyTorch's current stream, its inputs and outputs passed as device
pointers without copies (compiler.Module).

A graph kiln cannot compile (an op or dtype it does not support, tensors on two
devices, a non-tensor output) runs in PyTorch eager instead, with the reason kept
in `explanations()` and printed once as a warning; KILN_STRICT=1 makes it an error.
"""
from __future__ import annotations

import atexit
import itertools
import json
import os
import sys
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import compiler, float_inputs, offline, training_graphs, weight_binding

_graph_ids = itertools.count()
_explanations: List[Dict[str, Any]] = []


def explanations() -> List[Dict[str, Any]]:
    """One entry per graph handed to kiln: {'graph', 'compiled': bool, 'reason', 'kind'}
    (and 'outputs', the compiled module's output count, for a graph kiln compiled as one)."""
    return list(_explanations)


def _debug_root() -> Optional[str]:
    if os.environ.get("KILN_DEBUG", "") in ("", "0"):
        return None
    root = os.environ.get("KILN_DEBUG_DIR") or os.path.join(os.getcwd(), "kiln_debug")
    run = os.path.join(root, f"run_{time.strftime('%Y%m%d_%H%M%S')}-pid_{os.getpid()}")
    os.makedirs(run, exist_ok=True)
    print(f"kiln: KILN_DEBUG is set: writing each graph's FX code, exported program, IR and "
          f"timings under {run}", file=sys.stderr)
    return run


_DEBUG_RUN: Optional[str] = None


def _debug_dir(kind: str, gid: int) -> Optional[str]:
    global _DEBUG_RUN
    if os.environ.get("KILN_DEBUG", "") in ("", "0"):
        return None
    if _DEBUG_RUN is None:
        _DEBUG_RUN = _debug_root()
    d = os.path.join(_DEBUG_RUN, f"{kind}_graph_{gid}")
    os.makedirs(d, exist_ok=True)
    return d


def _is_tensor(x) -> bool:
    import torch
    return isinstance(x, torch.Tensor)


def _hint(s) -> int:
    if isinstance(s, int):
        return s
    node = getattr(s, "node", None)
    if node is not None and getattr(node, "hint", None) is not None:
        return int(node.hint)
    return int(s)


def _concrete(t):
    """A real CPU tensor like `t` (which may be a FakeTensor with symbolic sizes, or
    on a GPU): the graph is exported on the CPU whatever the device it runs on, so
    the program kiln compiles, and its cache key, do not depend on the device
    (the target says where it runs)."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor
    if (not isinstance(t, FakeTensor) and t.device.type == "cpu"
            and not any(not isinstance(s, int) for s in t.shape)):
        return t.detach()
    sizes = [_hint(s) for s in t.shape]
    with torch._subclasses.fake_tensor.unset_fake_temporarily():
        if t.dtype.is_floating_point:
            return torch.randn(sizes, dtype=t.dtype)
        if t.dtype == torch.bool:
            return torch.ones(sizes, dtype=torch.bool)
        return torch.zeros(sizes, dtype=t.dtype)


class _Plan:
    """How to rebuild the graph's placeholders from its tensor inputs: each
    placeholder is a tensor input, or a symbolic size read off one of them."""

    def __init__(self, gm, example_inputs: Sequence[Any]):
        import torch
        self.slots: List[Tuple[str, int, int]] = []  # ("tensor", k, -) | ("size", k, dim)
        self.tensor_positions: List[int] = []
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        fakes = [p.meta.get("example_value", p.meta.get("val")) for p in placeholders]
        for i, x in enumerate(example_inputs):
            if _is_tensor(x):
                self.tensor_positions.append(i)
        # Symbolic dims per tensor input (from the traced fake values).
        self.dynamic: List[Dict[int, str]] = []
        sym_of: Dict[str, Tuple[int, int]] = {}
        for k, i in enumerate(self.tensor_positions):
            fake = fakes[i] if i < len(fakes) else None
            dims: Dict[int, str] = {}
            if fake is not None and _is_tensor(fake):
                for d, s in enumerate(fake.shape):
                    if isinstance(s, torch.SymInt):
                        expr = str(s.node.expr)
                        dims[d] = expr
                        sym_of.setdefault(expr, (k, d))
            self.dynamic.append(dims)
        for i, x in enumerate(example_inputs):
            if _is_tensor(x):
                self.slots.append(("tensor", self.tensor_positions.index(i), 0))
            else:
                fake = fakes[i] if i < len(fakes) else None
                expr = str(fake.node.expr) if isinstance(fake, torch.SymInt) else None
                if expr is not None and expr not in sym_of and all(
                        u.op == "output" for u in placeholders[i].users):
                    # A number the graph only hands on (an output): plan.outputs
                    # reads it from the call's arguments; any value traces.
                    self.slots.append(("hint", _hint(fake), 0))
                    continue
                if expr is None or expr not in sym_of:
                    raise _Unsupported(f"graph input {i} is a non-tensor value kiln cannot derive "
                                       f"from the tensor inputs ({type(x).__name__})")
                self.slots.append(("size", *sym_of[expr]))

        # What each graph output is: a tensor kiln computes, None (no gradient
        # for an input), or a number Dynamo hands on past a graph break (a
        # size, `bsz, length, _ = x.size()`): a constant, or a symbolic size
        # kiln works out from the input shapes on each call.
        sources = {}  # symbol -> ("dim", argument, d): its size d | ("arg", argument, -): itself
        for k, dims in enumerate(self.dynamic):
            fake = fakes[self.tensor_positions[k]]
            for d in dims:
                expr = fake.shape[d].node.expr
                if expr.is_Symbol:
                    sources.setdefault(expr, ("dim", self.tensor_positions[k], d))
        for i, (kind, value, _) in enumerate(self.slots):
            if kind == "hint" and fakes[i].node.expr.is_Symbol:
                sources.setdefault(fakes[i].node.expr, ("arg", i, 0))
        out_node = next(n for n in gm.graph.nodes if n.op == "output")
        outs = out_node.args[0]
        outs = outs if isinstance(outs, (list, tuple)) else (outs,)
        self.num_outputs = len(outs)
        self.out_kinds: List[Tuple[Any, ...]] = []
        for i, o in enumerate(outs):
            v = o.meta.get("example_value", o.meta.get("val")) if isinstance(o, torch.fx.Node) else o
            if o is None:
                self.out_kinds.append(("none",))
            elif _is_tensor(v):
                self.out_kinds.append(("tensor",))
            elif isinstance(v, (int, float, bool)):
                self.out_kinds.append(("const", v))
            elif isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool)):
                expr = v.node.expr
                missing = [str(f) for f in expr.free_symbols if f not in sources]
                if missing:
                    raise _Unsupported(f"graph output {i} is the number {expr}, which kiln cannot work "
                                       f"out from the input shapes ({', '.join(sorted(missing))})")
                free = sorted(expr.free_symbols, key=str)
                self.out_kinds.append(("sym", expr, free, [sources[f] for f in free], type(v)))
            else:
                raise _Unsupported(f"graph output {i} is a {type(v).__name__}, not a tensor or a number")
        self.none_outputs = [i for i, kind in enumerate(self.out_kinds) if kind[0] == "none"]
        self.tensor_outputs = sum(kind[0] == "tensor" for kind in self.out_kinds)
        self._plain = all(kind[0] == "tensor" for kind in self.out_kinds)

    def outputs(self, values: Sequence[Any], args: Sequence[Any]) -> List[Any]:
        """kiln's outputs (the graph's tensor outputs) with its other outputs
        put back in place: None, constants, and sizes worked out from `args`
        (the graph's inputs as Dynamo passes them)."""
        if self._plain:
            return list(values)
        it = iter(values)
        out = []
        for kind in self.out_kinds:
            if kind[0] == "tensor":
                out.append(next(it))
            elif kind[0] == "none":
                out.append(None)
            elif kind[0] == "const":
                out.append(kind[1])
            else:
                out.append(self._number(kind, args))
        return out

    def _number(self, kind, args: Sequence[Any]):
        import sympy
        _, expr, free, where, typ = kind
        dims = {f: sympy.Integer(int(args[i].shape[d] if how == "dim" else args[i]))
                for f, (how, i, d) in zip(free, where)}
        value = expr.xreplace(dims)
        if typ.__name__ == "SymInt":
            return int(value)
        if typ.__name__ == "SymFloat":
            return float(value)
        return bool(value)

    def args(self, tensors: Sequence[Any]) -> List[Any]:
        return [tensors[k] if kind == "tensor" else k if kind == "hint" else tensors[k].shape[d]
                for kind, k, d in self.slots]


class _Unsupported(Exception):
    pass


def _is_gpu_device(v) -> bool:
    import torch
    if isinstance(v, torch.device):
        return v.type != "cpu"
    return isinstance(v, str) and v.split(":")[0] in ("cuda", "hip")


def _graph_on_cpu(gm):
    """`gm`, or a copy of it whose device constants (`device=cuda:0` arguments
    Dynamo baked in, `.to("cuda")`, `.cuda()`) name the CPU and whose tensor
    attributes are on the CPU: the graph is exported on CPU stand-ins wherever it
    runs (_concrete), and the compiled program's device is the target's."""
    import copy
    import torch
    from torch.fx.node import map_aggregate

    def needs(n) -> bool:
        if n.op == "call_method" and n.target == "cuda":
            return True
        if n.op == "get_attr":
            v = getattr(gm, n.target, None) if "." not in n.target else None
            return isinstance(v, torch.Tensor) and v.device.type != "cpu"
        found = []
        map_aggregate((n.args, n.kwargs), lambda v: found.append(v) if _is_gpu_device(v) else None)
        return bool(found)

    if not any(needs(n) for n in gm.graph.nodes) and not any(
            t.device.type != "cpu" for t in list(gm.parameters()) + list(gm.buffers())):
        return gm
    cpu = copy.deepcopy(gm)
    for n in cpu.graph.nodes:
        if n.op == "call_method" and n.target == "cuda":
            n.target = "cpu"
            n.args, n.kwargs = n.args[:1], {}
            continue
        fix = (lambda v: torch.device("cpu") if isinstance(v, torch.device) and _is_gpu_device(v)
               else "cpu" if _is_gpu_device(v) else v)
        n.args = map_aggregate(n.args, fix)
        n.kwargs = map_aggregate(n.kwargs, fix)
    cpu = cpu.to("cpu")
    for n in cpu.graph.nodes:  # tensor attributes that are not parameters or buffers
        if n.op == "get_attr" and "." not in n.target:
            v = getattr(cpu, n.target, None)
            if isinstance(v, torch.Tensor) and v.device.type != "cpu":
                setattr(cpu, n.target, v.cpu())
    cpu.recompile()
    return cpu


def _uses_functorch(gm) -> bool:
    """The graph applies torch.func transforms (vmap, grad, jvp, ...): Dynamo
    keeps them as calls that enter and leave each transform level."""
    for n in gm.graph.nodes:
        if n.op == "call_function":
            mod = getattr(n.target, "__module__", None) or ""
            if mod.startswith(("torch._functorch", "torch._C._functorch")):
                return True
    return False


# The backward ops kiln lowers itself (docs/autograd.md); the others that a
# torch.func.grad inside the graph emits are decomposed by PyTorch's own rules.
_KILN_BACKWARD_OPS = {"convolution_backward", "threshold_backward", "gelu_backward",
                      "native_batch_norm_backward", "max_pool2d_with_indices_backward",
                      "avg_pool2d_backward", "_adaptive_avg_pool2d_backward"}


def _backward_decompositions():
    import torch._decomp
    table = torch._decomp.core_aten_decompositions()
    return {op: fn for op, fn in table.items()
            if "backward" in op.name() and op.name().split("::")[-1].split(".")[0]
            not in _KILN_BACKWARD_OPS}


def _lower_functorch(gm, example_inputs):
    """`gm` with its torch.func transforms applied: traced to ATen ops by
    make_fx on Dynamo's fake inputs (symbolic sizes stay symbolic), so vmap's
    batching rules and grad's backward become plain ops that export takes.
    torch.export cannot take the transforms' level calls itself: its tracer
    meets the functorch-wrapped tensors ("Expected FakeTensor")."""
    import torch
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.proxy_tensor import make_fx

    decomps = _backward_decompositions()
    fake_mode = detect_fake_mode(example_inputs)
    if fake_mode is None:
        return make_fx(gm, decomposition_table=decomps, tracing_mode="real")(*example_inputs)
    with fake_mode:
        inputs = [fake_mode.from_tensor(x) if _is_tensor(x) and not isinstance(
            x, torch._subclasses.fake_tensor.FakeTensor) else x for x in example_inputs]
        return make_fx(gm, decomposition_table=decomps, tracing_mode="real")(*inputs)


def _export(gm, example_inputs, plan: _Plan, frozen: Sequence[int] = (), placeholders: bool = False):
    """The graph as an ExportedProgram taking its tensor inputs; those in
    `frozen` (indices into plan.tensor_positions) are not inputs but buffers of
    the exported module, holding their values now (constants to the compiler),
    or with `placeholders`, tensors of their shapes that kiln binds at load
    (weight_binding)."""
    import torch
    from torch.export import Dim

    if _uses_functorch(gm):
        gm = _lower_functorch(gm, example_inputs)
    gm = _graph_on_cpu(gm)
    frozen_set = set(frozen)
    count = len(plan.tensor_positions)

    class GraphWrapper(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gm = gm
            for k in frozen:
                x = example_inputs[plan.tensor_positions[k]]
                value = weight_binding.placeholder(x) if placeholders else x.detach().to("cpu", copy=True)
                self.register_buffer(weight_binding.held_name(k), value)

        def forward(self, *free):
            it = iter(free)
            tensors = [getattr(self, weight_binding.held_name(k)) if k in frozen_set else next(it)
                       for k in range(count)]
            # Run node by node with each Dynamo node's metadata current, so the
            # exported nodes keep the user's stack traces (kiln's errors then name
            # the user's line, not Dynamo's generated code).
            with torch.fx.traceback.preserve_node_meta():
                out = torch.fx.Interpreter(self.gm).run(*plan.args(tensors))
            out = tuple(out) if isinstance(out, (list, tuple)) else (out,)
            # Only the tensors: None and numbers are put back by plan.outputs.
            return tuple(o for o in out if isinstance(o, torch.Tensor))

    tensors = tuple(_concrete(example_inputs[i]) for k, i in enumerate(plan.tensor_positions)
                    if k not in frozen_set)
    dynamic_shapes = tuple({d: Dim.AUTO for d in dims} if dims else None
                           for k, dims in enumerate(plan.dynamic) if k not in frozen_set)
    # forward(*tensors): the specs of the varargs form one entry.
    dynamic_shapes = None if all(ds is None for ds in dynamic_shapes) else (dynamic_shapes,)
    # A fresh tracing context: export's own guards must not join those of the
    # frame Dynamo is compiling.
    with torch._guards.tracing(None), torch._subclasses.fake_tensor.unset_fake_temporarily():
        return torch.export.export(GraphWrapper(), tensors, dynamic_shapes=dynamic_shapes,
                                   strict=False)


def _target_of(example_inputs) -> str:
    """Where the graph runs: "cuda" when its tensors are on an NVIDIA GPU, "cpu"
    when on the CPU (or the target KILN_RECORD_TARGET records for);
    _Unsupported for a mix or another device."""
    devices = {x.device.type for x in example_inputs if _is_tensor(x)}
    if devices <= {"cpu"}:
        return offline.record_target() or "cpu"
    if devices == {"cuda"}:
        import torch
        if getattr(torch.version, "hip", None):
            raise _Unsupported("a tensor on a ROCm GPU: the kiln backend runs on the CPU and NVIDIA GPUs")
        return offline.record_target() or "cuda"
    raise _Unsupported(f"tensors on {', '.join(sorted(devices))}: the kiln backend takes a graph "
                       "whose tensors are all on the CPU or all on the GPU")


def _compile_kw(example_inputs) -> Dict[str, Any]:
    """The target and, on CUDA, the TF32 policy PyTorch's flags set for this
    process (torch.backends.cudnn.allow_tf32 for convolutions,
    torch.backends.cuda.matmul.allow_tf32 for matmuls), as eager and Inductor
    follow them: kiln's float32 convolutions and matmuls multiply in TF32 only
    where PyTorch's would. kiln-compile cannot allow matmuls alone: that case
    keeps both in float32."""
    target = _target_of(example_inputs)
    if target != "cuda":
        return {"target": target}
    import torch
    conv, mm = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    return {"target": target, "cuda_tf32": "all" if conv and mm else "conv" if conv else "none"}


def _writes_frozen(ep) -> bool:
    """Whether the program writes one of its frozen buffers: a buffer mutation
    in its signature, or an op that writes an argument in place (batch norm's
    running statistics in training mode, kept as such in the default IR)."""
    import torch
    sig = ep.graph_signature
    if any(b.startswith("kiln_frozen_") for b in sig.buffers_to_mutate.values()):
        return True
    frozen = {ph for ph, b in sig.inputs_to_buffers.items() if b.startswith("kiln_frozen_")}
    for n in ep.graph.nodes:
        schema = getattr(n.target, "_schema", None) if n.op == "call_function" else None
        for i, a in enumerate(schema.arguments if schema is not None else ()):
            if a.alias_info is None or not a.alias_info.is_write:
                continue
            v = n.args[i] if i < len(n.args) else n.kwargs.get(a.name)
            if isinstance(v, torch.fx.Node) and v.name in frozen:
                return True
    return False


def _export_checked(gm, example_inputs, debug: Optional[str], kind: str = ""):
    """The graph's plan, ExportedProgram, the inputs that are buffers of the
    program instead (indices into the plan's tensor positions: an inference
    graph's static inputs that it does not write) and whether those are held
    (bound at load, weight_binding) rather than frozen; raises _Unsupported for
    what the backend cannot take (tensors on two devices, a non-tensor output)."""
    _target_of(example_inputs)
    plan = _Plan(gm, example_inputs)
    t0 = time.perf_counter()
    import torch._dynamo
    export = torch._dynamo.disable(_export)
    frozen = weight_binding.static_inputs(gm, example_inputs, plan.tensor_positions) \
        if kind == "inference" else []
    held = bool(frozen) and not _freezing() and _options.get("bind_weights", True) and \
        weight_binding.can_hold([example_inputs[plan.tensor_positions[k]] for k in frozen])
    if not held and not _freezing():
        frozen = []
    try:
        ep = export(gm, example_inputs, plan, frozen, held)
    except Exception as e:  # noqa: BLE001 - a graph the placeholders' strides do not suit
        if not held:
            raise
        warnings.warn(f"kiln: the graph's parameters are bound as inputs, not held as weights: exporting "
                      f"it with placeholders failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
        frozen, held = [], False
        ep = export(gm, example_inputs, plan)
    if frozen and _writes_frozen(ep):
        # The graph writes one of them (batch norm's running statistics in
        # training mode): nothing is frozen or held, every input stays an input.
        frozen, held = [], False
        ep = export(gm, example_inputs, plan)
    compiler._record("export", time.perf_counter() - t0)
    for spec in ep.graph_signature.output_specs:
        if not hasattr(spec.arg, "name") or spec.arg.__class__.__name__ != "TensorArgument":
            raise _Unsupported("the graph returns a non-tensor value")
    if debug:
        with open(os.path.join(debug, "exported_program.txt"), "w") as f:
            f.write(str(ep))
    return plan, ep, frozen, held


def _new_entry(gm, kind: str):
    gid = next(_graph_ids)
    debug = _debug_dir(kind, gid)
    entry = {"graph": gid, "kind": kind, "compiled": False, "reason": ""}
    _explanations.append(entry)
    if debug:
        with open(os.path.join(debug, "fx_graph.py"), "w") as f:
            f.write(gm.code)
    return gid, debug, entry


def _write_timings(debug: str, before: Dict[str, float]) -> None:
    """This graph's compile times (the process totals minus those before it)."""
    after = compiler.compile_times()
    mine = {k: round(v - before.get(k, 0.0), 6) for k, v in after.items() if v - before.get(k, 0.0) > 0}
    with open(os.path.join(debug, "timings.json"), "w") as f:
        json.dump(mine, f, indent=1)


def _fallback(entry: Dict[str, Any], kind: str, gid: int, e: BaseException) -> str:
    """Records why a graph runs in eager and says so: the first fallback of the
    process is always printed on stderr, the others as warnings."""
    reason = str(e).splitlines()[0] if str(e) else type(e).__name__
    entry["reason"] = reason
    msg = f"kiln: {kind} graph {gid} runs in PyTorch eager: {reason}"
    if not any(_ran_eager(x) and x is not entry for x in _explanations):
        print(msg + " (KILN_STRICT=1 makes this an error; kiln.dynamo.summary() lists every "
              "graph)", file=sys.stderr)
    else:
        warnings.warn(msg, stacklevel=3)
    return reason


def _compile_graph(gm, example_inputs, kind: str) -> Callable:
    """Compiles one FX graph with kiln, or returns its eager forward with the reason recorded."""
    gid, debug, entry = _new_entry(gm, kind)
    before = compiler.compile_times()
    try:
        plan, ep, frozen, held = _export_checked(gm, example_inputs, debug, kind)
        if not ep.graph_signature.output_specs:
            # No tensor to compute and none to write: the graph only hands
            # sizes on past a graph break, which plan.outputs works out.
            entry["compiled"] = True
            entry["reason"] = "no tensor computation: its outputs are numbers from the input shapes"
            entry["outputs"] = 0

            def sizes_only(*args):
                return plan.outputs([], args)
            return sizes_only
        # The program's lifted constants (tensors the model builds in forward)
        # are weights of a held module too: they are given at load with the rest.
        constants = {n: t.detach() for n, t in ep.constants.items() if hasattr(t, "detach")} if held else {}
        weights = {**{weight_binding.held_name(k): example_inputs[plan.tensor_positions[k]].detach()
                      for k in frozen}, **constants} if held else "embed"
        module = compiler.compile(ep, **_compile_kw(example_inputs), use_cache=debug is None,
                                  debug_dir=os.path.join(debug, "kiln_ir") if debug else None,
                                  weights=weights)
    except (compiler.CompileError, _Unsupported, Exception) as e:  # noqa: B014
        if _strict() and not _recorded(e):
            raise
        reason = _fallback(entry, kind, gid, e)
        if debug:
            with open(os.path.join(debug, "fallback.txt"), "w") as f:
                f.write(reason + "\n")
        return gm.forward
    entry["compiled"] = True
    entry["reason"] = "compiled by kiln"
    entry["outputs"] = len(module.outputs)
    if debug:
        _write_timings(debug, before)

    entry["frozen_inputs"] = 0 if held else len(frozen)
    entry["held_weights"] = len(frozen) if held else 0
    entry["module_inputs"] = len(module.inputs)
    entry["so"] = module.path
    if held:
        entry["bound_inputs"] = 0
        run = weight_binding.held_runner(module, plan, frozen, example_inputs, constants)
        run._kiln_module = module
        return run
    if frozen:
        taken = set(frozen)
        free = [i for k, i in enumerate(plan.tensor_positions) if k not in taken]

        def run(*args):
            return plan.outputs(module.run([args[i] for i in free]), args)
        entry["bound_inputs"] = 0
        run._kiln_module = module
        return run

    positions = plan.tensor_positions
    static = weight_binding.static_inputs(gm, example_inputs, positions) if kind == "inference" else []
    entry["bound_inputs"] = len(static)
    if static:
        run = weight_binding.bound_runner(module, plan, static)
    else:
        def run(*args):
            return plan.outputs(module.run([args[i] for i in positions]), args)

    run._kiln_module = module  # for tests and debugging
    return run


def _recorded(e: BaseException) -> bool:
    """A graph recorded for kiln.offline: it runs in eager for this run even under
    KILN_STRICT, which is about graphs kiln cannot compile."""
    return isinstance(e, compiler.NotCompiled) and e.recorded is not None


def _needs_grad(gm, example_inputs) -> bool:
    import torch
    return torch.is_grad_enabled() and any(_is_tensor(x) and x.requires_grad
                                           for x in example_inputs)


def _residual_sources(fwd, bwd, num_outputs: int) -> List[Tuple[str, int]]:
    """Where each argument of the backward half comes from: ("input", k) the
    forward's input k, ("output", k) its output k, ("result", i) its residual
    result i, ("cotangent", i). _Unsupported if the halves do not fit together
    (they come from one cut, so this guards against mixing two compiles)."""
    import re
    results = {o.name: (i, o.dtype) for i, o in enumerate(fwd.outputs[num_outputs:])}
    if any(not n.startswith("residuals/") for n in results):
        raise _Unsupported("the forward half returns more than its outputs and residuals")
    sources: List[Tuple[str, int]] = []
    seen = set()
    for v in bwd.inputs:
        m = re.fullmatch(r"residuals/(input|output)?(\d+)|cotangent(\d+)", v.name)
        if m is None:
            raise _Unsupported(f"the backward half takes '{v.name}', no residual or cotangent")
        if m.group(3) is not None:
            sources.append(("cotangent", int(m.group(3))))
            continue
        if sources and sources[-1][0] == "cotangent":
            raise _Unsupported("the backward half takes a residual after a cotangent")
        k = int(m.group(2))
        if m.group(1) == "input":
            sources.append(("input", k))
        elif m.group(1) == "output":
            if k >= num_outputs:
                raise _Unsupported(f"the backward half reads output {k} of {num_outputs}")
            sources.append(("output", k))
        else:
            if v.name not in results or results[v.name][1] != v.dtype:
                raise _Unsupported(f"the halves disagree on residual '{v.name}'")
            seen.add(v.name)
            sources.append(("result", results[v.name][0]))
    if seen != set(results):
        raise _Unsupported("the backward half does not read every residual the forward returns")
    return sources


def _compile_halves(ep, debug: Optional[str], kw: Dict[str, Any]):
    """The forward and backward halves of the graph's value and gradient
    (kiln-compile --grad --split). Both are asked for even when the first is
    not compiled yet, so a recording run (KILN_RECORD_DIR) records both."""
    fwd = bwd = None
    pending = None
    try:
        fwd = compiler.compile(ep, grad=True, split="forward",
                               debug_dir=os.path.join(debug, "kiln_ir") if debug else None, **kw)
    except compiler.NotCompiled as e:
        pending = e
    try:
        bwd = compiler.compile(ep, grad=True, split="backward",
                               debug_dir=os.path.join(debug, "kiln_ir_backward") if debug else None, **kw)
    except compiler.NotCompiled as e:
        pending = pending or e
    if pending is not None:
        raise pending
    return fwd, bwd


def _compile_training(gm, example_inputs) -> Optional[Callable]:
    """Forward and backward of a graph that needs gradients, both by kiln with its
    own differentiation (kiln-compile --grad); None, with the reason recorded,
    if kiln cannot differentiate the graph."""
    gid, debug, entry = _new_entry(gm, "training")
    try:
        plan, ep, _, _ = _export_checked(gm, example_inputs, debug)
        # Gradients reach Dynamo's graph inputs only: a parameter the graph holds
        # itself (not lifted to an input) would silently get none.
        import torch
        sig = ep.graph_signature
        for name in sig.parameters:
            p = ep.state_dict.get(name)
            if p is not None and p.requires_grad:
                raise _Unsupported(f"parameter '{name}' is held by the graph, not passed in")
        kw = dict(use_cache=debug is None, **_compile_kw(example_inputs))
        split = None
        try:
            if not _options.get("split", True):
                raise _Unsupported("options={'split': False}")
            fwd, bwd = _compile_halves(ep, debug, kw)
            sources = _residual_sources(fwd, bwd, sum(not o.name.startswith("residuals/")
                                                      for o in fwd.outputs))
            split = (fwd, bwd, sources)
        except compiler.NotCompiled:
            raise
        except (compiler.CompileError, _Unsupported) as e:
            # A failure of the cut itself takes the old road (the backward
            # recomputes the forward); any other (kiln cannot differentiate
            # the graph) would fail there too, and goes through AOTAutograd.
            if not isinstance(e, _Unsupported) and "autograd-split-grad" not in str(e):
                raise
            entry["split_error"] = str(e).splitlines()[0] if str(e) else type(e).__name__
        if split is None:
            fwd = grad = None
            pending = None
            # Both are asked for even when the first is not compiled yet, so a
            # recording run (KILN_RECORD_DIR) records both.
            try:
                fwd = compiler.compile(ep, debug_dir=os.path.join(debug, "kiln_ir") if debug else None, **kw)
            except compiler.NotCompiled as e:
                pending = e
            try:
                grad = compiler.compile(ep, grad=True, **kw)
            except compiler.NotCompiled as e:
                pending = pending or e
            if pending is not None:
                raise pending
    except compiler.NotCompiled as e:
        if not _recorded(e) and _strict():
            raise
        # Recorded for kiln.offline: this run trains the graph in PyTorch eager.
        entry["eager"] = True
        reason = _fallback(entry, "training", gid, e)
        if debug:
            with open(os.path.join(debug, "fallback.txt"), "w") as f:
                f.write(reason + "\n")
        return gm.forward
    except (compiler.CompileError, _Unsupported, Exception) as e:  # noqa: B014
        # Not an eager fallback (so not an error under KILN_STRICT): AOTAutograd
        # hands kiln the forward and backward graphs instead.
        entry["reason"] = str(e).splitlines()[0] if str(e) else type(e).__name__
        if debug:
            with open(os.path.join(debug, "fallback.txt"), "w") as f:
                f.write("AOTAutograd: " + entry["reason"] + "\n")
        return None
    positions = plan.tensor_positions
    if split is not None:
        fwd, bwd, sources = split
        num_outputs = len(fwd.outputs) - sum(o.name.startswith("residuals/") for o in fwd.outputs)
        grad_names = [o.name for o in bwd.outputs]
        grad_slot = {k: grad_names.index(f"grads/input{k}")
                     for k in range(len(positions)) if f"grads/input{k}" in grad_names}
        fn = training_graphs.split_function(fwd, bwd, grad_slot, num_outputs, sources)
        entry["compiled"] = True
        entry["split"] = True
        entry["residuals"] = len(fwd.outputs) - num_outputs
        entry["reason"] = ("compiled by kiln: forward and backward halves of kiln's value and "
                           "gradient (kiln-compile --grad --split)")

        def run_split(*args):
            return plan.outputs(fn.apply(*[args[i] for i in positions]), args)

        run_split._kiln_module = fwd
        run_split._kiln_grad_module = bwd
        return run_split
    num_outputs = len(fwd.outputs)
    # grads/input<i>: i counts the user inputs; map each to its place among the
    # gradient outputs.
    grad_names = [o.name for o in grad.outputs[num_outputs:]]
    grad_slot = {k: grad_names.index(f"grads/input{k}")
                 for k in range(len(plan.tensor_positions)) if f"grads/input{k}" in grad_names}
    # The inputs the graph writes into (Dynamo lifts buffers to inputs).
    mutated = [k for k, v in enumerate(grad.inputs[:len(plan.tensor_positions)]) if v.mutated]
    fn = training_graphs.whole_function(fwd, grad, grad_slot, num_outputs, mutated)
    entry["compiled"] = True
    entry["split"] = False
    entry["reason"] = ("compiled by kiln: forward, and backward by kiln's value and gradient, "
                       "which recomputes the forward (not split: "
                       f"{entry.get('split_error', '?')})")

    def run(*args):
        return plan.outputs(fn.apply(*[args[i] for i in positions]), args)

    run._kiln_module = fwd
    run._kiln_grad_module = grad
    return run


# torch.compile(..., backend="kiln", options={...}): what each key does.
OPTIONS = {
    "strict": "bool: a graph kiln cannot compile is an error instead of running in eager "
              "(as KILN_STRICT=1)",
    "save_activations": "bool: training graphs go through AOTAutograd, whose partitioner "
                        "chooses the activations the forward saves for the backward, and kiln "
                        "compiles both graphs (default: kiln differentiates the graph itself and "
                        "cuts the value and gradient into a forward that returns residuals and a "
                        "backward that takes them)",
    "freezing": "bool (default False; also KILN_FREEZING=1): an inference graph's parameters and "
                "buffers become constants of the compiled model, as with Inductor's freezing, so "
                "kiln folds batch norms into convolutions and lays weights out at load; a "
                "parameter changed after compiling is not seen (compile again). A graph that "
                "writes one of them (batch norm in training mode) freezes nothing",
    "bind_weights": "bool (default True): an inference graph's parameters and buffers are held as "
                    "weights of the compiled model, bound in place at load (batch norms fold, "
                    "weights are laid out), loaded again when one is written or moved; False: "
                    "passed as inputs (bound once, nothing derived from them)",
    "split": "bool (default True): kiln's value and gradient cut into a forward that returns "
             "residuals and a backward that takes them; False: the backward runs the whole value "
             "and gradient, recomputing the forward (for comparison)",
}
_options: Dict[str, Any] = {}


def _strict() -> bool:
    if "strict" in _options:
        return bool(_options["strict"])
    return os.environ.get("KILN_STRICT", "") not in ("", "0")


def _freezing() -> bool:
    if "freezing" in _options:
        return bool(_options["freezing"])
    return os.environ.get("KILN_FREEZING", "") not in ("", "0")


def _check_options(kwargs: Dict[str, Any]) -> None:
    if kwargs.get("mode") in (None, "default"):
        kwargs = {k: v for k, v in kwargs.items() if k != "mode"}
    unknown_kw = [k for k in kwargs if k != "options"]
    options = kwargs.get("options") or {}
    if unknown_kw or not isinstance(options, dict):
        raise TypeError("the kiln backend takes only options={...} (it has no modes), got "
                        + ", ".join(f"{k}={kwargs[k]!r}" for k in unknown_kw or ["options"]))
    unknown = [k for k in options if k not in OPTIONS]
    if unknown:
        known = "; ".join(f"{k}: {v}" for k, v in OPTIONS.items())
        raise ValueError(f"unknown kiln backend option(s) {', '.join(map(repr, unknown))}; "
                         f"kiln knows {known}")
    _options.clear()
    _options.update(options)


def summary() -> Dict[str, Any]:
    """What kiln did with the graphs Dynamo handed it in this process: how many it
    compiled, how many ran in eager and why (the first reason; a training graph
    that went through AOTAutograd is counted by its forward and backward graphs),
    and Dynamo's own
    graph breaks (code Dynamo never handed to any backend)."""
    eager = [e for e in _explanations if _ran_eager(e)]
    breaks = _graph_breaks()
    return {
        "graphs": len(_explanations) - len([e for e in _explanations
                                            if e["kind"] == "training" and not e["compiled"]
                                            and not e.get("eager")]),
        "compiled": len([e for e in _explanations if e["compiled"]]),
        "eager": len(eager),
        "first_eager_reason": eager[0]["reason"] if eager else None,
        "graph_breaks": sum(breaks.values()),
        "first_graph_break": next(iter(breaks), None),
    }


def _ran_eager(entry: Dict[str, Any]) -> bool:
    """Whether a graph ran in PyTorch eager. A training graph kiln could not
    differentiate itself did not: AOTAutograd handed kiln its forward and backward
    graphs, which have entries of their own."""
    return entry.get("eager", False) or (not entry["compiled"] and entry["kind"] != "training")


def _graph_breaks() -> Dict[str, int]:
    try:
        from torch._dynamo.utils import counters
        return dict(counters["graph_break"])
    except Exception:  # noqa: BLE001 - an older or newer Dynamo without the counter
        return {}


def _summary_at_exit() -> None:
    """At the end of a run that used the backend: a line when anything ran in eager,
    or when Dynamo never handed kiln a graph."""
    s = summary()
    if s["eager"]:
        print(f"kiln: {s['compiled']} of {s['graphs']} graphs ran compiled by kiln, {s['eager']} "
              f"in PyTorch eager (first reason: {s['first_eager_reason']})", file=sys.stderr)
    elif s["graphs"] == 0 and s["graph_breaks"]:
        print(f"kiln: Dynamo handed kiln no graph; its first graph break: "
              f"{s['first_graph_break']}", file=sys.stderr)


atexit.register(_summary_at_exit)


def kiln_backend(gm, example_inputs, **kwargs):
    """The Dynamo backend registered as "kiln" (entry point torch_dynamo_backends)."""
    _check_options(kwargs)
    floats = float_inputs.float_inputs(gm)
    if floats:  # Python floats Dynamo left unspecialized (dynamic=True): see float_inputs.py
        return float_inputs.specialized(gm, example_inputs, floats, _backend)
    return _backend(gm, example_inputs)


def _backend(gm, example_inputs):
    if _needs_grad(gm, example_inputs):
        if not _options.get("save_activations"):
            trained = _compile_training(gm, example_inputs)
            if trained is not None:
                return trained
        from functorch.compile import make_boxed_func
        from torch._dynamo.backends.common import aot_autograd

        def fw(g, ins):
            return make_boxed_func(_compile_graph(g, ins, "forward"))

        def bw(g, ins):
            return make_boxed_func(_compile_graph(g, ins, "backward"))

        return aot_autograd(fw_compiler=fw, bw_compiler=bw)(gm, example_inputs)
    return _compile_graph(gm, example_inputs, "inference")

"""kiln.compile / kiln.load: .pt2 (or an ExportedProgram) to a loaded compiled model.

Compilation runs the kiln-compile tool in a child process: LLVM's process-wide
state (command-line options, signal handlers, target registries) stays out of the
Python process, a crash in the compiler cannot take the interpreter down, and the
result is the same .so the CLI would write. Compiled models are cached on disk
(see cache.py); the model is loaded and run in-process through the runtime's C ABI.
"""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
import threading
import time
from collections import defaultdict
from typing import Any, Dict, Iterable, List, Optional, Sequence

import numpy as np

from . import _kiln, _paths, cache, offline
from .callspec import CallSpec

_timings_lock = threading.Lock()
_timings: Dict[str, float] = defaultdict(float)
_stats: Dict[str, int] = defaultdict(int)


class CompileError(_kiln.KilnError):
    """kiln-compile rejected the program. `op`, `location` (file:line of the user's
    Python code) and `diagnostics` (every error line) say where and why."""

    def __init__(self, message: str, diagnostics: List[str], op: Optional[str] = None,
                 location: Optional[str] = None):
        super().__init__(message)
        self.diagnostics = diagnostics
        self.op = op
        self.location = location


class NotCompiled(CompileError):
    """The program is not in the cache and this installation has no kiln-compile
    (a runtime-only copy, as on a GPU machine without LLVM). `recorded` is the
    folder under KILN_RECORD_DIR where the program waits for
    `python -m kiln.offline compile`, or None."""

    def __init__(self, message: str, recorded: Optional[str] = None):
        super().__init__(message, [message])
        self.recorded = recorded


_DIAG = re.compile(r"^(?P<loc>\S.*?):(?P<line>\d+)(?::(?P<col>\d+))?: error: (?P<msg>.*)$")
_OP = re.compile(r"operator '([^']+)'|op '([^']+)'|'(aten\.[A-Za-z0-9_.]+)'")


def _compile_error(stderr: str) -> CompileError:
    lines = [l for l in stderr.splitlines() if l.strip()]
    errors = [l for l in lines if ": error:" in l or l.startswith("error:")] or lines[-1:]
    first = errors[0] if errors else "kiln-compile failed"
    op = location = None
    m = _DIAG.match(first)
    if m:
        location = f"{m.group('loc')}:{m.group('line')}"
    o = _OP.search(first)
    if o:
        op = next(g for g in o.groups() if g)
    return CompileError(first, errors, op=op, location=location)


def _parse_timing(text: str) -> Dict[str, float]:
    """Top-level stages of kiln-compile --timing (import, pipeline, link, ...):
    their wall seconds (the last column; a user-time column comes first when
    passes ran on several threads)."""
    out: Dict[str, float] = {}
    for line in text.splitlines():
        m = re.match(r"^\s+(?:[0-9.]+ \(\s*[0-9.]+%\)\s+)?([0-9.]+) \(\s*[0-9.]+%\)  (\S.*)$", line)
        if m and m.group(2) not in ("Total", "Rest"):
            out[m.group(2)] = float(m.group(1))
    return out


def compile_times() -> Dict[str, float]:
    """Seconds spent in each compile stage (import, pipeline, translate, codegen,
    link, and 'export' for torch.export inside kiln), summed over every compile of
    this process."""
    with _timings_lock:
        return dict(_timings)


def stats() -> Dict[str, int]:
    """Counters of this process: 'compiles' (kiln-compile runs), 'cache_hits'."""
    with _timings_lock:
        return dict(_stats)


def _record(stage: str, seconds: float) -> None:
    with _timings_lock:
        _timings[stage] += seconds


def _count(name: str) -> None:
    with _timings_lock:
        _stats[name] += 1


def compile_file(pt2: str, output: str, *, target: str = "cpu", weights: str = "embed",
                 plugins: Sequence[str] = (), extra_args: Sequence[str] = (),
                 dump_dir: Optional[str] = None) -> Dict[str, float]:
    """Runs kiln-compile on `pt2`, writing `output`; returns its stage timings.
    Raises CompileError with kiln's diagnostics on failure."""
    cmd = [_paths.KILN_COMPILE, os.fspath(pt2), f"--target={target}", f"--weights={weights}",
           "-o", os.fspath(output), "--timing", "--mlir-print-debuginfo"]
    cmd += [f"--plugin={p}" for p in plugins]
    if dump_dir:
        cmd.append(f"--dump-dir={dump_dir}")
    cmd += list(extra_args)
    _count("compiles")
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise _compile_error(r.stderr)
    times = _parse_timing(r.stderr)
    for k, v in times.items():
        _record(k, v)
    return times


def derivative_args(options: Dict[str, Any]) -> List[str]:
    """The kiln-compile flags of a request's options beyond target, weights and
    plugins: the derivative ones (grad, split) and cuda_tf32."""
    args = ["--grad"] if options.get("grad") else []
    if options.get("split"):
        args.append(f"--split={options['split']}")
    if options.get("cuda_tf32"):
        args.append(f"--cuda-tf32={options['cuda_tf32']}")
    return args


class Module:
    """A loaded compiled model. Call it with torch tensors or NumPy arrays;
    inputs are passed without copies when C-contiguous, outputs come back as
    tensors (torch in, torch out) or arrays sharing the runtime's buffers.

    A model compiled with target="cuda" takes torch tensors on the GPU in place
    (their device pointers cross the C ABI, no copy), queues its work on
    PyTorch's current stream and returns torch tensors on the GPU; CPU inputs
    are copied to the GPU and CPU outputs come back.

    A module compiled from an exported program (or a .pt2 that records its call
    structure) is called like `ExportedProgram.module()`: the same positional and
    keyword arguments, and the same result structure (tuples, lists, dicts) back.
    `run` always takes and returns flat lists."""

    def __init__(self, path: str, weights: Any = None, plugins: Sequence[str] = (),
                 call_spec: Optional[CallSpec] = None):
        self.path = os.fspath(path)
        self._plugins = list(plugins)
        self._held: Dict[str, Any] = {}
        self._model = self._load(weights)
        self.call_spec = call_spec
        self.device = self._model.device
        # CUDA graphs (the runtime's default): off with KILN_CUDA_GRAPHS=0.
        self.cuda_graphs = os.environ.get("KILN_CUDA_GRAPHS", "1") not in ("0", "")

    def _load(self, weights: Any):
        """The runtime's model of self.path: weights embedded, read from a .pt2
        path, or a dict of the caller's torch tensors by state-dict name."""
        if not isinstance(weights, dict):
            return _kiln.Model(self.path, weights, self._plugins)
        devices = {t.device.type for t in weights.values()}
        if len(devices) > 1:
            raise _kiln.KilnError(f"kiln.load: weights on {', '.join(sorted(devices))}; give them on one device")
        device = devices.pop() if devices else "cpu"
        for name, t in weights.items():
            if not t.is_contiguous():
                raise _kiln.KilnError(f"kiln.load: weight '{name}' is not contiguous")
        if device != "cpu":
            import torch
            torch.cuda.current_stream().synchronize()  # the load reads them on the runtime's stream
        names = list(weights)
        model = _kiln.Model(self.path, None, self._plugins, names,
                            [weights[n].data_ptr() for n in names],
                            [list(weights[n].shape) for n in names],
                            [_dtype_name(weights[n].dtype) for n in names], device)
        self._held = dict(weights)  # the model reads them in place
        return model

    def reload_weights(self, weights: Dict[str, Any]) -> None:
        """Loads the model again over the caller's tensors `weights` (as
        kiln.load takes them), so that what it derives from them at load (batch
        norms folded into convolutions, stacked linear weights, permuted
        layouts) is computed from their values now. The previous model is
        freed first, after the GPU work queued on PyTorch's stream."""
        if self.device != "cpu":
            import torch
            torch.cuda.current_stream().synchronize()
        self._model = None
        self._held = {}
        self._model = self._load(weights)

    @property
    def inputs(self):
        """Metadata of each user input (name, dtype, dims, dynamic ranges)."""
        return self._model.inputs

    @property
    def outputs(self):
        return self._model.outputs

    @property
    def params(self):
        return self._model.params

    @property
    def is_random(self) -> bool:
        """Whether the program draws random numbers (dropout in training, rand, ...)."""
        return self._model.is_random

    def run(self, inputs: Sequence[Any], rng_state=None, rng_state_used=None) -> List[Any]:
        """Runs on a sequence of inputs; always returns a list of outputs.
        rng_state (an int64 NumPy array [seed, offset]) replays the random
        numbers of the run that used it; rng_state_used (the same kind of
        array) receives the state this run used."""
        torch_in = on_gpu = False
        arrays = []
        for x in inputs:
            if hasattr(x, "detach") and hasattr(x, "is_contiguous"):  # a torch.Tensor
                torch_in = True
                if x.device.type != "cpu":
                    if self.device == "cpu":
                        raise _kiln.KilnError(f"kiln CPU models take CPU tensors, got one on {x.device} "
                                              "(compile with target=\"cuda\" for GPU tensors)")
                    on_gpu = True
                x = x.detach()
                if not x.is_contiguous():
                    x = x.contiguous()
                arrays.append(x)
            else:
                arrays.append(np.ascontiguousarray(x))
        if self.device != "cpu" and torch_in:
            return _run_on_torch_stream(self, arrays, on_gpu, rng_state, rng_state_used)
        outs = self._model.run(arrays, rng_state=rng_state, rng_state_used=rng_state_used)
        if torch_in:
            import torch
            # NumPy arrays (bool ones through from_numpy: DLPack has no bool
            # before NumPy 2), and bfloat16 outputs, which arrive as tensors.
            return [o if isinstance(o, torch.Tensor) else
                    torch.from_dlpack(o) if o.dtype != np.bool_ else torch.from_numpy(o) for o in outs]
        return list(outs)

    def bind(self, positions: Sequence[int], tensors: Sequence[Any]) -> bool:
        """Binds the torch tensors `tensors` as the inputs at `positions` for
        run_bound: values that stay at one address from call to call, such as
        the parameters and buffers Dynamo passes to a graph. They cross the C
        ABI once, not on every call, and a GPU model's CUDA graph reads them
        in place instead of copying them on each replay; in-place updates of
        them are seen by the next call. False (nothing bound) when one is not
        C-contiguous or not on the model's device (the CPU for a CPU model)."""
        device = "cpu" if self.device == "cpu" else self.device
        for t in tensors:
            if t.device.type != device or not t.is_contiguous():
                self._model.unbind()
                return False
        self._model.bind(list(positions), [t.data_ptr() for t in tensors],
                         [list(t.shape) for t in tensors], [_dtype_name(t.dtype) for t in tensors],
                         device)
        return True

    def run_bound(self, tensors: Sequence[Any]) -> List[Any]:
        """Runs with the bound inputs (bind) and the other inputs, torch
        tensors in order, as `run` would; returns torch tensors."""
        device = self.device
        ptrs, shapes, dtypes = [], [], []
        for t in tensors:
            if t.device.type != device:
                raise _kiln.KilnError(f"run_bound: a tensor on {t.device} for a model on {device}")
            if not t.is_contiguous():
                t = t.contiguous()
            ptrs.append(t.data_ptr())
            shapes.append(list(t.shape))
            dtypes.append(_dtype_name(t.dtype))
        if device == "cpu":
            import torch
            outs = self._model.run_bound(ptrs, shapes, dtypes, "cpu")
            return [torch.from_dlpack(o) if o.dtype != np.bool_ else torch.from_numpy(o) for o in outs]
        return _on_torch_stream(lambda handle: self._model.run_bound(
            ptrs, shapes, dtypes, device, stream=handle, device_outputs=True, cuda_graphs=self.cuda_graphs))

    def __call__(self, *args: Any, **kwargs: Any):
        spec = self.call_spec
        if spec is not None and spec.num_tensor_outputs == len(self.outputs):
            return spec.unflatten_outputs(self.run(spec.flatten_inputs(args, kwargs)))
        if kwargs:
            raise TypeError(f"kiln.Module: keyword arguments ({', '.join(kwargs)}) need the "
                            "program's call structure, which this module does not have "
                            "(compile it from an ExportedProgram or a .pt2)")
        outs = self.run(args)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def run_named(self, inputs: Sequence[Any]) -> Dict[str, Any]:
        """Runs and returns the outputs by name: for a model compiled with
        grad=True, its outputs, then "grads/input<i>" and "grads/<param name>"."""
        return {o.name: v for o, v in zip(self.outputs, self.run(inputs))}

    def __repr__(self) -> str:
        return f"kiln.Module({self.path!r}, inputs={self.inputs}, outputs={self.outputs})"


def _run_on_torch_stream(module: "Module", tensors: Sequence[Any], on_gpu: bool,
                         rng_state=None, rng_state_used=None) -> List[Any]:
    """A GPU model called with torch tensors: the call is queued on PyTorch's
    current stream, so it is ordered after the work that produced its inputs and
    before whatever PyTorch queues next; outputs stay on the GPU (torch tensors
    over kiln's buffers, freed back to kiln's cache in that stream's order).
    The legacy default stream (handle 0) cannot be captured into a CUDA graph,
    so there kiln runs on a side stream that waits for it and that it waits for."""
    if on_gpu and all(t.device.type != "cpu" for t in tensors):
        # Data pointers, shapes and dtypes: cheaper than a DLPack capsule per
        # tensor, which counts for graphs that take every parameter as an input.
        return _on_torch_stream(lambda handle: module._model.run_pointers(
            [t.data_ptr() for t in tensors], [list(t.shape) for t in tensors],
            [_dtype_name(t.dtype) for t in tensors], module.device, stream=handle, device_outputs=True,
            cuda_graphs=module.cuda_graphs, rng_state=rng_state, rng_state_used=rng_state_used))
    return _on_torch_stream(lambda handle: module._model.run(
        tensors, stream=handle, device_outputs=True, cuda_graphs=module.cuda_graphs,
        rng_state=rng_state, rng_state_used=rng_state_used))


def _on_torch_stream(call) -> List[Any]:
    """call(stream handle) on PyTorch's current stream (or a side stream
    ordered with the legacy default one); its device arrays as torch tensors."""
    import torch
    stream = torch.cuda.current_stream()
    handle = stream.cuda_stream
    side = None
    if handle == 0:
        side = _side_stream(stream.device)
        side.wait_stream(stream)
        handle = side.cuda_stream
    outs = call(handle)
    if side is not None:
        stream.wait_stream(side)
    return [_from_device(o) for o in outs]


def _dtype_name(dtype: Any) -> str:
    """kiln's name of a torch dtype (its str without the 'torch.')."""
    return str(dtype).rsplit(".", 1)[-1]


def _from_device(array: Any) -> Any:
    """A kiln device array as a torch tensor over the same memory (no copy)."""
    import torch
    return torch.from_dlpack(array)


_side_streams: Dict[Any, Any] = {}
_side_lock = threading.Lock()


def _side_stream(device: Any) -> Any:
    import torch
    key = (threading.get_ident(), str(device))
    with _side_lock:
        s = _side_streams.get(key)
        if s is None:
            s = _side_streams[key] = torch.cuda.Stream(device=device)
    return s


def load(path: str, weights: Any = None, plugins: Sequence[str] = ()) -> Module:
    """Loads a compiled model (.so). `weights`, for one compiled with
    weights='external': the .pt2 to read them from, or a dict of torch tensors
    by state-dict name (contiguous, on the CPU or the model's GPU), which the
    model reads in place (Module.reload_weights recomputes what it derives
    from them at load)."""
    return Module(path, weights, plugins)


def _expand_sym_sums(program: Any) -> None:
    """Writes each `torch.sym_sum` of the program's graphs as a chain of binary
    adds. torch.export's tracer emits it for the size of a concatenation of
    three or more dynamic lengths (padding a sequence to a multiple of a chunk,
    as Mamba mixers do), and its own serializer cannot save it (it takes a
    list, not two operands); the adds are the same number, and both
    torch.export.save and kiln's importer take them. The program is changed in
    place: it computes what it computed before."""
    import operator
    import torch
    for gm in program.graph_module.modules():
        if not isinstance(gm, torch.fx.GraphModule):
            continue
        changed = False
        for node in list(gm.graph.nodes):
            if node.op != "call_function" or node.target is not torch.sym_sum:
                continue
            terms = list(node.args[0])
            with gm.graph.inserting_before(node):
                total = terms[0] if terms else 0
                for term in terms[1:]:
                    prev = total
                    total = gm.graph.call_function(operator.add, (prev, term))
                    total.meta.update({k: v for k, v in node.meta.items() if k != "val"})
                    if all(not isinstance(t, torch.fx.Node) or "val" in t.meta for t in (prev, term)):
                        total.meta["val"] = ((prev.meta["val"] if isinstance(prev, torch.fx.Node) else prev)
                                             + (term.meta["val"] if isinstance(term, torch.fx.Node) else term))
            if isinstance(total, torch.fx.Node):
                total.meta["val"] = node.meta.get("val", total.meta.get("val"))
                node.replace_all_uses_with(total)
            else:
                for user in list(node.users):
                    user.replace_input_with(node, total)
            gm.graph.erase_node(node)
            changed = True
        if changed:
            gm.recompile()


def _save_exported(program: Any, path: str) -> None:
    import torch
    t0 = time.perf_counter()
    _expand_sym_sums(program)
    # The archive's sample inputs are pickles kiln never reads; for a Dynamo
    # graph they are every parameter (hundreds of MB for a BERT). Leave them out.
    saved = getattr(program, "_example_inputs", None)
    if saved is not None:
        program._example_inputs = None
    try:
        torch.export.save(program, path)
    finally:
        if saved is not None:
            program._example_inputs = saved
    _record("export", time.perf_counter() - t0)


def _function_module_class():
    import torch

    class FunctionModule(torch.nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, *args):
            return self.fn(*args)

    return FunctionModule


def _FunctionModule(fn):
    return _function_module_class()(fn)


def _point_traces_at(program: Any, fn: Any) -> None:
    """torch.export records the frame of the exported module's forward only; for a
    plain function that frame is kiln's wrapper, so point errors at the function."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return
    trace = f'File "{code.co_filename}", line {code.co_firstlineno}, in {code.co_name}'
    for node in program.graph.nodes:
        if node.op == "call_function":
            node.meta["stack_trace"] = trace


def compile(program: Any, target: str = "cpu", *, example_inputs: Optional[Sequence[Any]] = None,
            dynamic_shapes: Any = None, output: Optional[str] = None, weights: Any = "embed",
            plugins: Sequence[str] = (), use_cache: bool = True,
            debug_dir: Optional[str] = None, grad: bool = False,
            split: Optional[str] = None, cuda_tf32: Optional[str] = None) -> Module:
    """Compiles `program` and loads it.

    program: a path to a .pt2 (or .mlir) file, a torch.export.ExportedProgram, or an
    nn.Module/function together with `example_inputs` (exported with
    torch.export.export(program, example_inputs, dynamic_shapes=dynamic_shapes)).
    output: where to keep the .so (default: the compile cache, KILN_CACHE_DIR).
    weights: 'embed' (default) or 'external' (then the returned module reads them
    from the .pt2, which must stay where it is), or a dict of the caller's torch
    tensors by state-dict name: compiled as 'external' and bound in place (see
    kiln.load; the program's own weight values are not read, so it may hold
    placeholders of the right shapes).
    grad: compile the value and gradient (kiln-compile --grad, docs/autograd.md):
    the module takes the inputs plus one cotangent per output and returns the
    outputs, then the gradients of sum(output * cotangent) with respect to every
    floating-point input and parameter (see Module.run_named for their names).
    split: with grad, one half of the value and gradient (kiln-compile --grad
    --split, docs/autograd.md): "forward" returns the outputs, then the
    residuals ("residuals/<i>"); "backward" takes the residuals (named
    "residuals/<i>", "residuals/input<k>" for the forward's input k,
    "residuals/output<k>" for its output k) and one cotangent per output and
    returns the gradients.
    cuda_tf32: with target="cuda", which float32 library calls may multiply in
    TF32: "conv", "all" or "none" (kiln-compile --cuda-tf32; None: its default,
    "conv"). The Dynamo backend passes PyTorch's own flags.
    Raises CompileError naming the op and the Python line of anything kiln cannot compile.
    """
    if target not in ("cpu", "cuda", "rocm"):
        raise ValueError(f"unknown target {target!r} (cpu, cuda or rocm)")
    held = weights if isinstance(weights, dict) else None
    if held is not None:
        weights = "external"
    if weights not in ("embed", "external"):
        raise ValueError(f"weights={weights!r}: 'embed', 'external' or a dict of tensors")
    if split not in (None, "forward", "backward") or (split and not grad):
        raise ValueError(f"split={split!r}: 'forward' or 'backward', with grad=True")
    with tempfile.TemporaryDirectory(prefix="kiln-") as tmp:
        if isinstance(program, (str, os.PathLike)):
            pt2 = os.fspath(program)
            if not os.path.exists(pt2):
                raise FileNotFoundError(pt2)
            call_spec = CallSpec.from_archive(pt2)
        else:
            import torch
            if not isinstance(program, torch.export.ExportedProgram):
                if example_inputs is None:
                    raise TypeError("kiln.compile needs example_inputs to export a module or function")
                fn = None
                if not isinstance(program, torch.nn.Module):
                    fn, program = program, _FunctionModule(program)
                t0 = time.perf_counter()
                program = torch.export.export(program, tuple(example_inputs),
                                              dynamic_shapes=dynamic_shapes)
                if fn is not None:
                    _point_traces_at(program, fn)
                _record("export", time.perf_counter() - t0)
            call_spec = CallSpec.from_exported_program(program)
            pt2 = os.path.join(tmp, "model.pt2")
            _save_exported(program, pt2)
        from . import library
        plugins = list(dict.fromkeys([*library.plugins(), *(os.path.abspath(p) for p in plugins)]))
        opts = {"target": target, "weights": weights, "plugins": plugins}
        if grad:
            opts["grad"] = True
        if split:
            opts["split"] = split
        if cuda_tf32 is not None and target == "cuda":
            if cuda_tf32 not in ("conv", "all", "none"):
                raise ValueError(f"cuda_tf32={cuda_tf32!r}: 'conv', 'all' or 'none'")
            opts["cuda_tf32"] = cuda_tf32
        key = cache.key_for(pt2, opts)
        so = output
        if so is None:
            # Recording for another target, nothing is loaded here.
            hit = cache.lookup(key) if use_cache and not offline.record_target() else None
            if hit:
                try:
                    m = Module(hit, held if held is not None else pt2 if weights == "external" else None,
                               plugins, None if grad else call_spec)
                    _count("cache_hits")
                    return m
                except _kiln.KilnError:
                    cache.evict(key)  # a damaged entry: rebuild it
            so = os.path.join(tmp, "model.so")
        if not cache.compiler_available() and cache.failure(key) is not None:
            # kiln.offline tried it: the same error as compiling here would give.
            msg = cache.failure(key)
            raise CompileError(msg + " (kiln.offline's compile of this program)", [msg])
        recorded = offline.record(key, pt2, opts) if offline.record_dir() else None
        if recorded and offline.record_target():
            raise NotCompiled(f"program {key} recorded in {recorded} for target {target} "
                              "(KILN_RECORD_TARGET): not compiled in this run", recorded)
        if not cache.compiler_available():
            raise NotCompiled(
                f"kiln-compile is not installed here and program {key} is not in the cache "
                f"{cache.cache_dir()}" + (f"; recorded in {recorded} for `python -m kiln.offline "
                                          "compile`" if recorded else
                                          " (set KILN_RECORD_DIR to record it)"), recorded)
        compile_file(pt2, so, target=target, weights=weights, plugins=opts["plugins"],
                     dump_dir=debug_dir, extra_args=derivative_args(opts))
        if output is None:
            so = cache.store(key, so) if use_cache else cache.keep(so)
        return Module(so, held if held is not None else pt2 if weights == "external" else None, plugins,
                      None if grad else call_spec)

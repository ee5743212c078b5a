#!/usr/bin/env python3
"""kiln-reduce: shrinks a .pt2 program that kiln gets wrong to the smallest one that still shows the bug.

usage: kiln-reduce MODEL.pt2 --input X.npy... -o DIR [--mode numerics|compile]
                   [--target cpu|cuda] [--reference eager|cpu | --reference-values DIR]
                   [--expect Y.npy...]
                   [--rtol R] [--atol A] [--compile-arg ARG]... [--kiln-compile P] [--kiln-run P]

numerics (default): kiln's compiled outputs differ from the reference (kiln's eager
interpreter, `kiln-run MODEL.pt2`; with --reference=cpu kiln's CPU build without the
--compile-arg flags: another target, or the same one compiled another way; or with
--reference-values DIR the value of every node, given, as kiln.debug.minify gives
PyTorch's). The reducer
  1. checks the bug shows (against --expect files when given, else the reference);
  2. makes every intermediate value a graph output, runs the reference once on it,
     and finds the first node (in program order) whose compiled value diverges:
     from one compile with all of them as outputs, or, when that compile hides the
     bug, by bisecting over compiled prefixes of the graph;
  3. cuts the graph around that node, feeding its operands the reference's values,
     widens the cut until the bug shows, then removes nodes one at a time (delta
     debugging) while it still shows.
compile: kiln-compile fails on MODEL.pt2 (an error or a crash). The reducer finds the
shortest prefix of the graph that fails the same way (same signal, or the same error
text), then cuts and shrinks around its last node as above.

DIR receives reduced.pt2, its inputs (input<i>.npy), the reference's outputs
(expected<i>.npy, numerics mode), and repro.sh: the one command that shows the bug.
Exit status: 0 when a reduced case was written, 1 when the bug does not show on the
input program, 2 for bad usage or input. Only JSON and .npy files are read from the
archive; nothing is unpickled.
"""
import argparse
import copy
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile

import numpy as np


class UsageError(Exception):
    pass


# ----------------------------------------------------------------- the archive

class Archive:
    """A .pt2 archive: its members, and the parsed JSON of its program."""

    def __init__(self, path):
        if not os.path.isfile(path):
            raise UsageError(f"{path}: no such file")
        try:
            with zipfile.ZipFile(path) as z:
                self.members = [(i, z.read(i.filename)) for i in z.infolist()]
        except (zipfile.BadZipFile, OSError) as e:
            raise UsageError(f"{path}: not a .pt2 archive ({e})")
        names = [i.filename for i, _ in self.members if i.filename.endswith("models/model.json")]
        if len(names) != 1:
            raise UsageError(f"{path}: expected one models/model.json member, found {len(names)}")
        self.program_member = names[0]
        data = dict((i.filename, d) for i, d in self.members)[self.program_member]
        try:
            self.program = json.loads(data)
            self.graph = self.program["graph_module"]["graph"]
            self.signature = self.program["graph_module"]["signature"]
        except (ValueError, KeyError, TypeError) as e:
            raise UsageError(f"{path}: {self.program_member} is not a torch.export program ({e})")

    def write(self, path, program):
        tmp = path + ".tmp"
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
            for info, data in self.members:
                if info.filename == self.program_member:
                    data = json.dumps(program).encode()
                z.writestr(info, data)
        os.replace(tmp, path)


def _walk(value, key):
    """Every name under `key` ("as_tensor", "as_sym_int", ...) in a JSON argument."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key and isinstance(v, dict) and isinstance(v.get("name", v.get("as_name")), str):
                yield v.get("name", v.get("as_name"))
            else:
                yield from _walk(v, key)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v, key)


SYM_KEYS = ("as_sym_int", "as_sym_float", "as_sym_bool")


def tensors_of(value):
    """Tensor names of a JSON argument: `as_tensor` entries, and the
    `as_tensors` lists of plain {"name": ...} entries."""
    names = list(_walk(value, "as_tensor"))
    for lst in _lists(value, "as_tensors"):
        names += [e["name"] for e in lst if isinstance(e, dict) and isinstance(e.get("name"), str)]
    return names


def _lists(value, key):
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key and isinstance(v, list):
                yield v
            else:
                yield from _lists(v, key)
    elif isinstance(value, list):
        for v in value:
            yield from _lists(v, key)


def syms_of(value):
    """Symbol names of a JSON argument: `as_sym_int` (float, bool) entries, and the
    {"as_name": ...} entries of `as_sym_ints` (floats, bools) lists: the symbolic
    sizes of a view or an expand (`[{"as_name": "mul_3"}, {"as_int": 64}]`)."""
    names = [n for k in SYM_KEYS for n in _walk(value, k)]
    for k in SYM_KEYS:
        for lst in _lists(value, k + "s"):
            names += [e["as_name"] for e in lst if isinstance(e, dict) and isinstance(e.get("as_name"), str)]
    return names


def input_name(spec):
    kind, body = next(iter(spec.items()))
    arg = body.get("arg", {})
    if "name" in arg:
        return arg["name"]
    names = tensors_of(arg) + syms_of(arg)
    return names[0] if names else None


class Graph:
    """Producers and users of the values of a program's graph, in program order."""

    def __init__(self, archive):
        self.archive = archive
        self.nodes = archive.graph["nodes"]
        self.meta = archive.graph["tensor_values"]
        self.produced = []   # per node: (tensor names, sym names) it defines
        self.used = []       # per node: (tensor names, sym names) it reads
        self.producer = {}
        for i, n in enumerate(self.nodes):
            outs = (tensors_of(n.get("outputs")), syms_of(n.get("outputs")))
            ins = (tensors_of(n.get("inputs")), syms_of(n.get("inputs")))
            self.produced.append(outs)
            self.used.append(ins)
            for name in outs[0] + outs[1]:
                self.producer[name] = i
        self.specs = {input_name(s): s for s in archive.signature["input_specs"]}
        self.user_inputs = [input_name(s) for s in archive.signature["input_specs"] if "user_input" in s]

    def ancestors(self, node):
        seen, todo = set(), [node]
        while todo:
            i = todo.pop()
            for name in self.used[i][0] + self.used[i][1]:
                p = self.producer.get(name)
                if p is not None and p not in seen:
                    seen.add(p)
                    todo.append(p)
        return seen

    def close_syms(self, nodes):
        """`nodes` plus the producers of every symbolic size they read (sym_size
        nodes read sizes of tensors, which become cut inputs when not produced)."""
        nodes = set(nodes)
        changed = True
        while changed:
            changed = False
            for i in list(nodes):
                for s in self.used[i][1]:
                    p = self.producer.get(s)
                    if p is not None and p not in nodes:
                        nodes.add(p)
                        changed = True
        return nodes

    def live(self, nodes, outputs):
        """The nodes of `nodes` that an output needs."""
        need = set(outputs)
        keep = set()
        for i in sorted(nodes, reverse=True):
            outs = self.produced[i][0] + self.produced[i][1]
            if any(o in need for o in outs):
                keep.add(i)
                need.update(self.used[i][0] + self.used[i][1])
        return keep

    def float_outputs(self, i):
        return [t for t in self.produced[i][0] if self.meta.get(t, {}).get("dtype") in FLOAT_DTYPES]

    def subprogram(self, nodes, outputs, values=None):
        """The program of `nodes` (indices) returning tensors `outputs`. A tensor
        they read that no node of theirs produces, and that is not an input of the
        original program, becomes a new user input: its shape is the value's in
        `values` (name -> array) or the size hints of its metadata."""
        nodes = sorted(self.live(self.close_syms(nodes), outputs))
        produced = set()
        for i in nodes:
            produced.update(self.produced[i][0] + self.produced[i][1])
        read = []
        for i in nodes:
            for t in self.used[i][0] + self.used[i][1]:
                if t not in produced and t not in read:
                    read.append(t)
        for t in outputs:
            if t not in produced and t not in read:
                read.append(t)
        program = copy.deepcopy(self.archive.program)
        graph = program["graph_module"]["graph"]
        sig = program["graph_module"]["signature"]
        graph["nodes"] = [self.nodes[i] for i in nodes]
        specs, cut = [], []
        for s in self.archive.signature["input_specs"]:
            if input_name(s) in read:
                specs.append(s)
        for t in read:
            if t in self.specs:
                continue
            if t not in self.meta:
                raise UsageError(f"value '{t}' has no tensor metadata; cannot cut the graph there")
            meta = copy.deepcopy(self.meta[t])
            if not all(_static_or_symbol(d) for d in meta.get("sizes", [])):
                # A size like 2*s0 cannot bind its symbol from an input: make it static.
                shape = values[t].shape if values is not None and t in values else hinted_shape(meta)
                meta["sizes"] = [{"as_int": int(d)} for d in shape]
                meta["strides"] = [{"as_int": int(d)} for d in contiguous_strides(shape)]
                meta["storage_offset"] = {"as_int": 0}
            graph["tensor_values"][t] = meta
            specs.append({"user_input": {"arg": {"as_tensor": {"name": t}}}})
            cut.append(t)
        graph["inputs"] = [_spec_arg(s) for s in specs]
        graph["outputs"] = [{"as_tensor": {"name": t}} for t in outputs]
        graph["is_single_tensor_return"] = False
        sig["input_specs"] = specs
        sig["output_specs"] = [{"user_output": {"arg": {"as_tensor": {"name": t}}}} for t in outputs]
        program["graph_module"]["module_call_graph"] = []
        user = [input_name(s) for s in specs if "user_input" in s]
        return program, user, nodes


def _static_or_symbol(dim):
    """A size that is a number or one symbol (which an input binds)."""
    if "as_int" in dim:
        return True
    expr = dim.get("as_expr", {}).get("expr_str", "")
    return re.fullmatch(r"[A-Za-z_]\w*|Symbol\('[A-Za-z_]\w*'[^()]*\)", expr) is not None


def _spec_arg(spec):
    kind, body = next(iter(spec.items()))
    arg = body["arg"]
    if "name" in arg:       # parameters, buffers, constants: a plain tensor argument
        return {"as_tensor": {"name": arg["name"]}}
    return arg


# torch's serialized ScalarType codes of the floating-point dtypes.
FLOAT_DTYPES = {6, 7, 8, 13}


def hinted_shape(meta):
    shape = []
    for d in meta.get("sizes", []):
        if "as_int" in d:
            shape.append(d["as_int"])
        else:
            hint = d.get("as_expr", {}).get("hint")
            if isinstance(hint, dict):
                hint = hint.get("as_int")
            if not isinstance(hint, int):
                raise UsageError("a cut value has a symbolic size without a hint")
            shape.append(hint)
    return tuple(shape)


def contiguous_strides(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= max(int(d), 1)
    return list(reversed(strides))


# ------------------------------------------------------------- running kiln

class Kiln:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.count = 0
        self.compiles = 0

    def _tmp(self, suffix):
        self.count += 1
        return os.path.join(self.work, f"t{self.count}{suffix}")

    def compile(self, pt2, target, extra):
        so = self._tmp(".so")
        cmd = [self.args.kiln_compile, pt2, f"--target={target}", "-o", so] + list(extra)
        self.compiles += 1
        r = subprocess.run(cmd, capture_output=True, text=True)
        return (so if r.returncode == 0 else None), r

    def run(self, model, inputs):
        out = self._tmp(".out")
        cmd = [self.args.kiln_run, model] + [a for f in inputs for a in ("--input", f)] + ["--output-dir", out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            return None, r
        files = sorted((f for f in os.listdir(out) if re.fullmatch(r"output\d+\.npy", f)),
                       key=lambda f: int(f[6:-4]))
        return [np.load(os.path.join(out, f)) for f in files], r

    def tested(self, pt2, inputs):
        """kiln's outputs for the target under test, or (None, reason)."""
        so, r = self.compile(pt2, self.args.target, self.args.compile_arg)
        if so is None:
            return None, "kiln-compile failed: " + first_error(r)
        outs, r = self.run(so, inputs)
        return outs, (None if outs is not None else "kiln-run failed: " + first_error(r))

    def reference(self, pt2, inputs, names=None):
        """The reference's outputs of `pt2` (whose outputs are the tensors
        `names`, when given, for --reference-values)."""
        if self.args.reference_values:
            if names is None:
                raise UsageError("internal: --reference-values needs the output names")
            files = [os.path.join(self.args.reference_values, f"{n}.npy") for n in names]
            missing = [f for f in files if not os.path.isfile(f)]
            if missing:
                raise UsageError(f"--reference-values: no {missing[0]}")
            return [np.load(f, allow_pickle=False) for f in files]
        if self.args.reference == "eager":
            outs, r = self.run(pt2, inputs)
        else:
            so, r = self.compile(pt2, self.args.reference, [])
            outs = None
            if so is not None:
                outs, r = self.run(so, inputs)
        if outs is None:
            hint = " (--reference=cpu compares with kiln's CPU build without the --compile-arg flags)" \
                if self.args.reference == "eager" else ""
            raise UsageError(f"the reference ({self.args.reference}) cannot run the program: {first_error(r)}{hint}")
        return outs


def first_error(r):
    if r.returncode < 0:
        return f"killed by {signal.Signals(-r.returncode).name}"
    for line in r.stderr.splitlines():
        if "error" in line.lower():
            return line.strip()
    lines = r.stderr.strip().splitlines()
    return lines[-1] if lines else f"exit {r.returncode}"


def failure_signature(r):
    """How kiln-compile failed, without the parts that change with the graph
    (locations, value names, numbers)."""
    if r.returncode < 0 or r.returncode >= 128:
        sig = -r.returncode if r.returncode < 0 else r.returncode - 128
        return f"signal {sig}"
    text = first_error(r)
    text = re.sub(r"^.*?error:\s*", "", text)
    text = re.sub(r"loc\(.*?\)|'[^']*'|\"[^\"]*\"|\d+", "_", text)
    return f"exit {r.returncode}: {text}"


def diverges(actual, expected, rtol, atol):
    if actual.shape != expected.shape:
        return f"shape {actual.shape} != {expected.shape}"
    if actual.dtype.kind in "fc" or expected.dtype.kind in "fc":
        a = actual.astype(np.float64)
        e = expected.astype(np.float64)
        same = (np.isnan(a) & np.isnan(e)) | (a == e)  # NaNs, and equal infinities (inf - inf is NaN)
        with np.errstate(invalid="ignore"):
            err = np.abs(a - e)
            bad = ~(err <= atol + rtol * np.abs(e)) & ~same
        if bad.any():
            return f"{int(bad.sum())} of {bad.size} elements differ (max abs error {np.max(err[bad]):.3g})"
        return None
    if not np.array_equal(actual, expected):
        return "values differ"
    return None


# ---------------------------------------------------------------- reducing

class Reducer:
    def __init__(self, args):
        self.args = args
        self.archive = Archive(args.model)
        self.graph = Graph(self.archive)
        self.work = tempfile.mkdtemp(prefix="kiln-reduce-")
        self.kiln = Kiln(args, self.work)
        self.n = 0
        self.start = time.monotonic()

    def log(self, msg):
        print(f"kiln-reduce [{time.monotonic() - self.start:5.1f}s]: {msg}", file=sys.stderr, flush=True)

    def write_program(self, program):
        self.n += 1
        path = os.path.join(self.work, f"p{self.n}.pt2")
        self.archive.write(path, program)
        return path

    def write_inputs(self, names, values, prefix):
        files = []
        for i, name in enumerate(names):
            f = os.path.join(self.work, f"{prefix}{self.n}_{i}.npy")
            np.save(f, values[name])
            files.append(f)
        return files

    # ---- numerics
    def numerics(self):
        g, args = self.graph, self.args
        if len(args.input) != len(g.user_inputs):
            raise UsageError(f"the program takes {len(g.user_inputs)} inputs, got {len(args.input)} --input files")
        values = {}
        for name, f in zip(g.user_inputs, args.input):
            try:
                values[name] = np.load(f, allow_pickle=False)
            except (OSError, ValueError) as e:
                raise UsageError(f"{f}: cannot read as .npy ({e})")
        # 1. The bug shows on the whole program.
        outs, why = self.kiln.tested(args.model, args.input)
        if outs is None:
            raise UsageError(f"the program does not compile and run: {why} (use --mode=compile for that)")
        if args.expect:
            expected = [np.load(f, allow_pickle=False) for f in args.expect]
        else:
            expected = self.kiln.reference(args.model, args.input, tensors_of(g.archive.graph["outputs"]))
        bad = [diverges(a, e, args.rtol, args.atol) for a, e in zip(outs, expected)]
        if len(outs) != len(expected) or not any(bad):
            self.log("kiln's outputs match the reference: nothing to reduce")
            return 1
        self.log(f"the program diverges: {next(b for b in bad if b)}")
        # 2. Every intermediate as an output: the reference's values of all of them
        # (integer and bool ones too: a cut may need them as inputs, as MoE routing's
        # offsets), compared where they are floating-point.
        order = [(i, t) for i in range(len(g.nodes)) for t in g.float_outputs(i)]
        names = [t for i in range(len(g.nodes)) for t in g.produced[i][0] if t in g.meta]
        if args.reference_values:  # the values given: the floating-point ones at least
            names = [t for t in names if os.path.isfile(os.path.join(args.reference_values, f"{t}.npy"))]
        program, user, _ = g.subprogram(range(len(g.nodes)), names)
        pt2 = self.write_program(program)
        ref = self.kiln.reference(pt2, args.input, names)
        values.update(zip(names, ref))
        first = None
        got, why = self.kiln.tested(pt2, args.input)
        if got is not None:
            got = dict(zip(names, got))
            for i, t in order:
                if t in got and diverges(got[t], values[t], args.rtol, args.atol):
                    first = i
                    break
        if first is None:
            self.log("the bug hides when every value is an output; bisecting over prefixes")
            first = self.bisect_numerics(order, values)
        if first is None:
            self.log("no single node diverges first; writing the program with its intermediates")
            return 1
        node = g.nodes[first]
        self.log(f"first diverging node: #{first} {node.get('name')} ({node.get('target')})")
        # 3. Cut around it, widen until the bug shows, then shrink.
        outputs = [t for t in g.float_outputs(first)
                   if t in values]
        test = lambda nodes: self.check_numerics(nodes, outputs, values)
        kept = self.widen_and_shrink(first, test)
        if kept is None:
            return 1
        program, user, nodes = g.subprogram(kept, outputs, values)
        return self.finish(program, user, values, outputs, nodes)

    def check_numerics(self, nodes, outputs, values):
        program, user, _ = self.graph.subprogram(nodes, outputs, values)
        pt2 = self.write_program(program)
        inputs = self.write_inputs(user, values, "in")
        got, why = self.kiln.tested(pt2, inputs)
        if got is None:
            return False
        return any(diverges(a, values[t], self.args.rtol, self.args.atol) for a, t in zip(got, outputs))

    def bisect_numerics(self, order, values):
        """The first node whose value diverges when it is the only output of the
        prefix ending at it, by bisection (assuming once wrong, wrong after)."""
        nodes = sorted({i for i, _ in order})
        lo, hi = 0, len(nodes) - 1
        if not self.prefix_diverges(nodes[hi], values):
            return None
        while lo < hi:
            mid = (lo + hi) // 2
            if self.prefix_diverges(nodes[mid], values):
                hi = mid
            else:
                lo = mid + 1
        return nodes[lo]

    def prefix_diverges(self, i, values):
        outputs = self.graph.float_outputs(i)
        program, user, _ = self.graph.subprogram(range(i + 1), outputs, values)
        pt2 = self.write_program(program)
        got, _ = self.kiln.tested(pt2, self.write_inputs(user, values, "in"))
        return got is not None and any(
            diverges(a, values[t], self.args.rtol, self.args.atol) for a, t in zip(got, outputs))

    # ---- compile failures
    def compile_failure(self):
        g, args = self.graph, self.args
        so, r = self.kiln.compile(args.model, args.target, args.compile_arg)
        if so is not None:
            self.log("kiln-compile succeeds on the program: nothing to reduce")
            return 1
        want = failure_signature(r)
        self.log(f"kiln-compile fails: {want}")

        def fails(nodes, outputs):
            program, _, _ = g.subprogram(nodes, outputs)
            so, r = self.kiln.compile(self.write_program(program), args.target, args.compile_arg)
            return so is None and failure_signature(r) == want

        def frontier(k):
            """The tensors of nodes[:k] that no later node of the prefix reads."""
            read = set(t for i in range(k) for t in g.used[i][0])
            return [t for i in range(k) for t in g.produced[i][0] if t not in read]

        lo, hi = 1, len(g.nodes)
        if not fails(range(hi), frontier(hi)):
            self.log("the failure needs the program's own outputs; it cannot be cut by prefixes")
            return 1
        while lo < hi:
            mid = (lo + hi) // 2
            if fails(range(mid), frontier(mid)):
                hi = mid
            else:
                lo = mid + 1
        last = lo - 1
        node = g.nodes[last]
        self.log(f"the failure starts at node #{last} {node.get('name')} ({node.get('target')})")
        outputs = g.produced[last][0]
        kept = self.widen_and_shrink(last, lambda nodes: fails(nodes, outputs))
        if kept is None:
            return 1
        program, user, nodes = g.subprogram(kept, outputs)
        values = {}
        for name in user:
            meta = program["graph_module"]["graph"]["tensor_values"][name]
            values[name] = np.zeros(hinted_shape(meta), dtype=NP_DTYPES.get(meta.get("dtype"), np.float32))
        return self.finish(program, user, values, None, nodes)

    # ---- shared
    def widen_and_shrink(self, node, test):
        g = self.graph
        ancestors = g.ancestors(node)
        width = 0
        while True:
            nodes = {node} | {a for a in ancestors if a >= node - width}
            if test(nodes):
                break
            if nodes >= ancestors | {node}:
                self.log("the bug does not show in any cut around that node")
                return None
            width = max(1, width * 2)
        self.log(f"shows with {len(nodes)} nodes; shrinking")
        changed = True
        while changed and len(nodes) > 1:
            changed = False
            for m in sorted(nodes - {node}):
                trial = g.live(nodes - {m}, g.produced[node][0]) | {node}
                if trial != nodes and test(trial):
                    nodes = trial
                    changed = True
                    break
        return nodes

    def finish(self, program, user, values, outputs, nodes):
        out = self.args.output
        os.makedirs(out, exist_ok=True)
        self.archive.write(os.path.join(out, "reduced.pt2"), program)
        cmd = [self.args.kiln_compile, "reduced.pt2", f"--target={self.args.target}"] + list(self.args.compile_arg)
        cmd += ["-o", "reduced.so"]
        run = [self.args.kiln_run, "reduced.so"]
        for i, name in enumerate(user):
            np.save(os.path.join(out, f"input{i}.npy"), values[name])
            run += ["--input", f"input{i}.npy"]
        if outputs is not None:
            for i, t in enumerate(outputs):
                np.save(os.path.join(out, f"expected{i}.npy"), values[t])
                run += ["--expect", f"expected{i}.npy"]
            run += ["--rtol", str(self.args.rtol), "--atol", str(self.args.atol)]
            line = " ".join(map(shlex.quote, cmd)) + " && " + " ".join(map(shlex.quote, run))
        else:
            line = " ".join(map(shlex.quote, cmd))
        with open(os.path.join(out, "repro.sh"), "w") as f:
            f.write("#!/bin/sh\n# Written by kiln-reduce: shows the bug on the reduced program.\n")
            f.write('cd "$(dirname "$0")" && ' + line + "\n")
        os.chmod(os.path.join(out, "repro.sh"), 0o755)
        targets = [self.graph.nodes[i].get("target", "?").replace("torch.ops.", "") for i in nodes]
        summary = {"nodes": len(nodes), "ops": targets, "inputs": len(user),
                   "compiles": self.kiln.compiles, "seconds": round(time.monotonic() - self.start, 1)}
        with open(os.path.join(out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
        self.log(f"reduced to {len(nodes)} node(s): {', '.join(targets)} "
                 f"({self.kiln.compiles} compiles); wrote {out}/reduced.pt2")
        print(line)
        return 0


NP_DTYPES = {1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64, 6: np.float16,
             7: np.float32, 8: np.float64, 12: np.bool_}


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(prog="kiln-reduce", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model")
    p.add_argument("-o", "--output", required=True, help="folder for the reduced case")
    p.add_argument("--input", action="append", default=[], help="one per user input, in order")
    p.add_argument("--expect", action="append", default=[], help="the right outputs (e.g. PyTorch's)")
    p.add_argument("--mode", choices=["numerics", "compile"], default="numerics")
    p.add_argument("--target", default="cpu", choices=["cpu", "cuda", "rocm"])
    p.add_argument("--reference", default="eager", choices=["eager", "cpu"])
    p.add_argument("--reference-values", metavar="DIR",
                   help="the reference is given: DIR/<value name>.npy for every value of the graph "
                        "(e.g. PyTorch's, as kiln.debug.minify writes them)")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--compile-arg", action="append", default=[],
                   help="passed to kiln-compile for the target under test (repeat)")
    p.add_argument("--kiln-compile", default=os.path.join(here, "kiln-compile"))
    p.add_argument("--kiln-run", default=os.path.join(here, "kiln-run"))
    p.add_argument("--keep-work", action="store_true", help="keep the temporary folder of every trial")
    args = p.parse_args(argv)
    try:
        for tool in (args.kiln_compile, args.kiln_run):
            if not os.access(tool, os.X_OK):
                raise UsageError(f"{tool}: not an executable (--kiln-compile / --kiln-run)")
        if args.reference == args.target and not args.compile_arg and args.mode == "numerics" \
                and not args.reference_values:
            raise UsageError(f"--reference={args.reference} is the target under test, compiled the same way "
                             "(the reference is compiled without the --compile-arg flags)")
        r = Reducer(args)
        try:
            return r.numerics() if args.mode == "numerics" else r.compile_failure()
        finally:
            if args.keep_work:
                print(f"kiln-reduce: trials kept in {r.work}", file=sys.stderr)
            else:
                shutil.rmtree(r.work, ignore_errors=True)
    except UsageError as e:
        print(f"kiln-reduce: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

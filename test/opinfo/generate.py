"""Generates kiln's OpInfo conformance cases from PyTorch's own test samples.

For each op of PyTorch's Core ATen IR (the overloads tagged torch.Tag.core) the
generator finds the OpInfo entries of torch's op database that exercise it, by
exporting their samples and looking at the core ops in the exported graphs (no
name guessing). For every selected OpInfo and dtype it exports one small
program per group of samples with the same core ops, saves it as a .pt2 in the
default IR and, when it differs, in Core ATen IR (after run_decompositions()),
together with the inputs and PyTorch's eager outputs as .npy, and records in
cases.json which core ops each sample exercises. Samples that torch.export
cannot export, or whose exported program disagrees with eager PyTorch, are left
out with the reason. The cases go into test/data/opinfo/cases.tar.xz, so that
running the suite (test/opinfo/run.py) needs no torch.

usage: python3 test/opinfo/generate.py [--out test/data/opinfo] [--jobs 2]
                                       [--only REGEX] [--workdir DIR]

Every OpInfo is first exported in float32 (or its first dtype when it has no
float32); up to MAX_OPINFOS_PER_OP entries per core op are kept in that dtype,
and the most direct one per core op (plus COMPOSITE_OPINFOS) in every other
dtype of DTYPES it supports. --workdir keeps finished (OpInfo, dtype) pairs, so
a repeated or interrupted run only does what is left.

Needs torch 2.11.0 (the version that made the shared corpus; pinned below) and
expecttest (torch's OpInfo database imports it).
"""
import argparse
import hashlib
import io
import json
import math
import multiprocessing
import os
import re
import shutil
import sys
import tarfile
import tempfile
import time
import traceback
import warnings
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_VERSION = "2.11.0"
# Samples per (OpInfo, dtype): float32 is what the headline figure counts.
MAX_SAMPLES = {"float32": 4}
MAX_SAMPLES_OTHER = 2
# Inputs larger than this many elements (all tensors of one sample) are skipped:
# the cases stay small and fast to run.
MAX_ELEMENTS = 4096
# OpInfo entries considered per core op (the most direct ones: fewest other core
# ops in their graphs, and those calling the op itself first).
MAX_OPINFOS_PER_OP = 3
# Samples per bundle (one program running many cases of an OpInfo).
MAX_BUNDLE_SAMPLES = 40
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "int8", "bool"]
# Default-IR composites that exported models emit (see issue 5); their OpInfo
# entries are included so that the default-IR archives test them too.
COMPOSITE_OPINFOS = [
    "nn.functional.linear", "nn.functional.conv1d", "nn.functional.conv2d",
    "nn.functional.conv_transpose2d", "nn.functional.batch_norm", "nn.functional.layer_norm",
    "nn.functional.group_norm", "nn.functional.scaled_dot_product_attention",
    "nn.functional.gelu", "nn.functional.silu", "nn.functional.hardswish",
    "nn.functional.hardsigmoid", "nn.functional.relu6", "nn.functional.embedding",
    "nn.functional.interpolate", "nn.functional.adaptive_avg_pool2d", "nn.functional.max_pool2d",
    "nn.functional.avg_pool2d", "nn.functional.pad", "nn.functional.rms_norm", "softmax",
    "log_softmax", "matmul", "chunk", "split", "flatten", "reshape", "transpose", "t", "squeeze",
    "unsqueeze", "contiguous", "masked_fill", "new_ones", "zeros_like", "ones_like", "cumsum",
    "baddbmm", "einsum", "triu", "tril", "addcmul", "mean", "var_mean", "std", "square", "rsub",
    "nn.functional.dropout", "to",
]


def is_composite(oid):
    return any(oid == c or oid.startswith(c + ".") for c in COMPOSITE_OPINFOS)


def die(msg):
    sys.stderr.write(f"generate.py: error: {msg}\n")
    sys.exit(2)


def first_line(e):
    text = f"{type(e).__name__}: {e}".strip()
    return text.splitlines()[0][:300] if text else type(e).__name__


def opinfo_id(o):
    return o.name + ("." + o.variant_test_name if o.variant_test_name else "")


def core_ops(torch):
    """'aten.add.Tensor'-style names of every overload tagged core."""
    names = []
    for name in dir(torch.ops.aten):
        try:
            packet = getattr(torch.ops.aten, name)
        except Exception:
            continue
        if not hasattr(packet, "overloads"):
            continue
        for ov in packet.overloads():
            if torch.Tag.core in getattr(packet, ov).tags:
                names.append(f"aten.{name}.{ov}")
    return sorted(names)


class Sample:
    """One OpInfo sample, flattened: tensor leaves become program inputs."""

    def __init__(self, torch, pytree, sample):
        self.leaves, self.spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
        self.tensor_pos = [i for i, v in enumerate(self.leaves) if isinstance(v, torch.Tensor)]
        # Contiguous, unaliased copies: the program's inputs and the .npy files.
        self.tensors = [self.leaves[i].detach().contiguous().clone() for i in self.tensor_pos]

    def numel(self):
        return sum(t.numel() for t in self.tensors)

    def call(self, pytree, fn, tensors):
        leaves = list(self.leaves)
        for pos, t in zip(self.tensor_pos, tensors):
            leaves[pos] = t
        inp, args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return fn(inp, *args, **kwargs)


def flat_outputs(torch, pytree, out):
    """The tensors of an op's result, or a reason why it cannot be a program output."""
    leaves, _ = pytree.tree_flatten(out)
    tensors = [v for v in leaves if v is not None]
    if not tensors:
        return None, "the op returns no tensor"
    for v in tensors:
        if not isinstance(v, torch.Tensor):
            return None, f"the op returns a {type(v).__name__}, not only tensors"
        if v.is_complex():
            return None, "the op returns a complex tensor"
    return tensors, None


def make_program(torch, pytree, fn, samples):
    """A module whose forward runs every sample on its slice of the inputs."""
    counts = [len(s.tensors) for s in samples]

    class Program(torch.nn.Module):
        def forward(self, *tensors):
            outs, k = [], 0
            for s, n in zip(samples, counts):
                r, why = flat_outputs(torch, pytree, s.call(pytree, fn, tensors[k:k + n]))
                if why:
                    raise RuntimeError(why)
                outs.extend(r)
                k += n
            return tuple(outs)

    inputs = [t.clone() for s in samples for t in s.tensors]
    return Program(), inputs


def graph_ops(ep):
    """Names of the call_function targets of an exported graph, in order, unique."""
    seen = []
    for node in ep.graph.nodes:
        if node.op != "call_function":
            continue
        name = str(node.target)
        if name.startswith("<built-in function getitem>") or name == "getitem":
            continue
        if name not in seen:
            seen.append(name)
    return seen


def ops_per_output(ep):
    """For each graph output, the op names its value depends on (backward slice)."""
    out_node = next(n for n in ep.graph.nodes if n.op == "output")
    result = []
    for arg in out_node.args[0]:
        ops, stack, seen = set(), [arg], set()
        while stack:
            n = stack.pop()
            if not hasattr(n, "op") or n in seen:
                continue
            seen.add(n)
            if n.op == "call_function":
                name = str(n.target)
                if "getitem" not in name:
                    ops.add(name)
            stack.extend(n.all_input_nodes)
        result.append(sorted(ops))
    return result


def same_values(torch, a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_floating_point:
        return torch.equal(torch.nan_to_num(a.float(), nan=7.25), torch.nan_to_num(b.float(), nan=7.25)) or \
            bool(torch.allclose(a.double(), b.double(), rtol=1e-5, atol=1e-6, equal_nan=True))
    return torch.equal(a, b)


def save_npy(np, torch, path, t):
    """bf16 is saved as f32 (kiln's convention: NumPy has no bfloat16)."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.float()
    np.save(path, t.numpy())


def save_archive(torch, ep, path):
    # No pickled sample inputs in the archive: kiln never reads them.
    ep._example_inputs = None
    torch.export.save(ep, path)


class Generator:
    def __init__(self, args):
        warnings.filterwarnings("ignore")
        import numpy as np
        import torch
        import torch.utils._pytree as pytree
        from torch.testing._internal.common_methods_invocations import op_db
        if torch.__version__.split("+")[0] != TORCH_VERSION:
            die(f"torch {torch.__version__} is installed; the cases are made with torch {TORCH_VERSION} "
                f"(pip install torch=={TORCH_VERSION})")
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from extra_samples import extra_opinfos
        self.np, self.torch, self.pytree = np, torch, pytree
        # PyTorch's OpInfo entries, then kiln's own samples for core ops none reaches.
        self.op_db = list(op_db) + extra_opinfos(torch)
        self.args = args
        self.core = core_ops(torch)
        self.core_set = set(self.core)

    # --- selection: which OpInfos exercise which core op ----------------------

    def select(self, first_cases):
        """From the cases of every OpInfo's first dtype: for each core op, the
        OpInfo entries whose samples exercise it most directly (a sample with the
        fewest other core ops; calling the op itself breaks ties)."""
        by_op = {op: {} for op in self.core}
        for c in first_cases:
            for s in c["samples"]:
                outs = [i for i, so in enumerate(c["sample_of_output"]) if so == s]
                ops = {op for i in outs for op in c["core_ops_of_output"][i]}
                core_ops_here = [op for op in ops if op in self.core_set]
                for op in core_ops_here:
                    rank = (len(ops), 0 if op in c["default_ops"] else 1, c["opinfo"])
                    prev = by_op[op].get(c["opinfo"])
                    by_op[op][c["opinfo"]] = min(prev, rank) if prev else rank
        chosen = {op: [r[2] for r in sorted(v.values())[:MAX_OPINFOS_PER_OP]] for op, v in by_op.items()}
        return chosen

    # --- cases ---------------------------------------------------------------

    def is_seeded(self, name):
        """True for ops tagged nondeterministic_seeded (rand, bernoulli, dropout, ...)."""
        torch = self.torch
        parts = name.split(".")
        if len(parts) != 3 or parts[0] != "aten":
            return False
        try:
            op = getattr(getattr(torch.ops.aten, parts[1]), parts[2])
        except AttributeError:
            return False
        return torch.Tag.nondeterministic_seeded in op.tags

    def is_random(self, o, sample):
        """True if the op gives different results under different seeds."""
        torch, pytree = self.torch, self.pytree
        outs = []
        for seed in (0, 1):
            torch.manual_seed(seed)
            r, _ = flat_outputs(torch, pytree, sample.call(pytree, o.op, [t.clone() for t in sample.tensors]))
            outs.append(r)
        if outs[0] is None or outs[1] is None:
            return False
        return any(not same_values(torch, a, b) for a, b in zip(*outs))

    def export_group(self, o, samples):
        """Exports samples as one program; returns (ep, core_ep, eager outputs per sample)."""
        torch, pytree = self.torch, self.pytree
        eager = []
        for s in samples:
            torch.manual_seed(0)
            r, why = flat_outputs(torch, pytree, s.call(pytree, o.op, [t.clone() for t in s.tensors]))
            if why:
                raise RuntimeError(why)
            eager.append(r)
        mod, inputs = make_program(torch, pytree, o.op, samples)
        ep = torch.export.export(mod, tuple(inputs))
        core = ep.run_decompositions()
        return ep, core, eager

    def check_exported(self, ep, samples, eager):
        """Reason why the exported program disagrees with eager PyTorch, or None."""
        torch = self.torch
        inputs = [t.clone() for s in samples for t in s.tensors]
        torch.manual_seed(0)
        got = ep.module()(*inputs)
        got = list(got) if isinstance(got, (tuple, list)) else [got]
        want = [t for r in eager for t in r]
        if len(got) != len(want):
            return f"the exported program returns {len(got)} outputs, eager PyTorch {len(want)}"
        for i, (a, b) in enumerate(zip(got, want)):
            if not same_values(torch, a, b):
                return f"the exported program's output {i} differs from eager PyTorch"
        return None

    def sample_op_sets(self, ep, core, samples, eager):
        """Per sample: (default-IR ops, core ops) from backward slices of its outputs."""
        d_out, c_out = ops_per_output(ep), ops_per_output(core)
        result, k = [], 0
        for s, r in zip(samples, eager):
            d = sorted({op for i in range(k, k + len(r)) for op in d_out[i]})
            c = sorted({op for i in range(k, k + len(r)) for op in c_out[i]})
            result.append((tuple(d), tuple(c)))
            k += len(r)
        return result

    def group_samples(self, o, samples, dtype_name, skipped):
        """Groups exportable samples by their op sets: {(default, core): (samples,
        exported-or-None)}. One export of all samples when it works; one per
        sample (to find the ones that export) when it does not."""
        oid = opinfo_id(o)
        try:
            exported = self.export_group(o, samples)
            if self.check_exported(exported[0], samples, exported[2]):
                raise RuntimeError("check")
            sets = self.sample_op_sets(exported[0], exported[1], samples, exported[2])
            groups = {}
            for s, key in zip(samples, sets):
                groups.setdefault(key, []).append(s)
            if len(groups) == 1:
                return {key: (ss, exported) for key, ss in groups.items()}
            return {key: (ss, None) for key, ss in groups.items()}
        except Exception:
            pass
        groups = {}
        for s in samples:
            try:
                ep, core, eager = self.export_group(o, [s])
                why = self.check_exported(ep, [s], eager)
                if why:
                    skipped.append({"opinfo": oid, "dtype": dtype_name, "sample": s.index, "reason": why})
                    continue
                key = self.sample_op_sets(ep, core, [s], eager)[0]
                groups.setdefault(key, []).append(s)
            except Exception as e:
                skipped.append({"opinfo": oid, "dtype": dtype_name, "sample": s.index,
                                "reason": "torch.export: " + first_line(e)})
        return {key: (ss, None) for key, ss in groups.items()}

    def cases_for(self, o, dtype_name, workdir):
        """Exports the cases of one OpInfo and dtype; returns (cases, skipped)."""
        torch, pytree, np = self.torch, self.pytree, self.np
        dtype = getattr(torch, dtype_name)
        oid = opinfo_id(o)
        skipped, ok = [], []
        cap = MAX_SAMPLES.get(dtype_name, MAX_SAMPLES_OTHER)
        try:
            # Seeded: the same torch gives the same samples every run.
            torch.manual_seed(zlib.crc32(f"{oid}/{dtype_name}".encode()))
            raw = list(o.sample_inputs("cpu", dtype))
        except Exception as e:
            return [], [{"opinfo": oid, "dtype": dtype_name, "sample": None, "reason": "sample_inputs failed: " + first_line(e)}]
        for idx, sample in enumerate(raw):
            if len(ok) >= cap:
                break
            try:
                s = Sample(torch, pytree, sample)
            except Exception as e:
                skipped.append({"opinfo": oid, "dtype": dtype_name, "sample": idx, "reason": first_line(e)})
                continue
            if s.numel() > MAX_ELEMENTS:
                continue  # too large to keep; not a failure of anything
            if any(t.is_complex() for t in s.tensors):
                continue
            s.index = idx
            ok.append(s)
        if not ok:
            return [], skipped
        groups = self.group_samples(o, ok, dtype_name, skipped)
        cases = []
        for gi, ((default_ops, core_ops_), (samples, exported)) in enumerate(groups.items()):
            seeded = [op for op in default_ops + core_ops_ if self.is_seeded(op)]
            if seeded:
                for s in samples:
                    skipped.append({"opinfo": oid, "dtype": dtype_name, "sample": s.index,
                                    "reason": f"random: {seeded[0]} depends on the generator's state"})
                continue
            if exported is None:
                try:
                    exported = self.export_group(o, samples)
                    why = self.check_exported(exported[0], samples, exported[2])
                    if why:
                        raise RuntimeError(why)
                except Exception as e:
                    for s in samples:
                        skipped.append({"opinfo": oid, "dtype": dtype_name, "sample": s.index,
                                        "reason": "torch.export of the group: " + first_line(e)})
                    continue
            ep, core, eager = exported
            name = re.sub(r"[^A-Za-z0-9_.]+", "_", oid) + f"-{dtype_name}-{gi}"
            d = os.path.join(workdir, name)
            os.makedirs(d, exist_ok=True)
            save_archive(torch, ep, os.path.join(d, "model.pt2"))
            irs = ["model"]
            if list(default_ops) != list(core_ops_):
                save_archive(torch, core, os.path.join(d, "model.core.pt2"))
                irs.append("model.core")
            inputs = [t for s in samples for t in s.tensors]
            for i, t in enumerate(inputs):
                save_npy(np, torch, os.path.join(d, f"input{i}.npy"), t)
            outputs, sample_of_output = [], []
            for s, r in zip(samples, eager):
                for t in r:
                    outputs.append(t)
                    sample_of_output.append(s.index)
            for i, t in enumerate(outputs):
                save_npy(np, torch, os.path.join(d, f"output{i}.npy"), t)
            core_per_output = ops_per_output(core)
            cases.append({
                "name": name, "opinfo": oid, "dtype": dtype_name, "irs": irs,
                "inputs": len(inputs), "outputs": len(outputs),
                "output_dtypes": [str(t.dtype).replace("torch.", "") for t in outputs],
                "samples": [s.index for s in samples],
                "sample_of_output": sample_of_output,
                "default_ops": list(default_ops), "core_ops": list(core_ops_),
                "core_ops_of_output": core_per_output,
                "_samples": samples,
            })
        return cases, skipped

    def first_dtype(self, o):
        """float32 if the OpInfo supports it, else its first dtype in DTYPES."""
        supported = {str(d).replace("torch.", "") for d in o.supported_dtypes("cpu")}
        return next((d for d in DTYPES if d in supported), None)

    def generate(self, oid, dtype_names, workdir, bundle=True):
        """Cases of one OpInfo in the given dtypes, and the bundles that run them
        together; cached in workdir/_done so that an interrupted or repeated run
        picks up where it was. Returns (cases, skipped, bundles)."""
        done = os.path.join(workdir, "_done", re.sub(r"[^A-Za-z0-9_.]+", "_", oid) + "-"
                            + "_".join(dtype_names) + ".json")
        if os.path.exists(done):
            with open(done) as f:
                r = json.load(f)
            return r["cases"], r["skipped"], r.get("bundles", [])
        o = next(x for x in self.op_db if opinfo_id(x) == oid)
        cases, skipped = [], []
        for dtype_name in dtype_names:
            try:
                c, sk = self.cases_for(o, dtype_name, workdir)
            except Exception as e:
                c, sk = [], [{"opinfo": oid, "dtype": dtype_name, "sample": None,
                              "reason": "generator: " + first_line(e)}]
            cases += c
            skipped += sk
        bundles = self.make_bundles(o, cases, workdir) if bundle else []
        for c in cases:
            del c["_samples"]
        os.makedirs(os.path.dirname(done), exist_ok=True)
        with open(done + ".tmp", "w") as f:
            json.dump({"cases": cases, "skipped": skipped, "bundles": bundles}, f)
        os.replace(done + ".tmp", done)
        return cases, skipped, bundles

    def make_bundles(self, o, cases, workdir):
        """Programs that run several cases of one OpInfo at once (every dtype),
        so that the suite compiles far fewer programs; the runner falls back to
        the cases' own programs when a bundle does not compile or run."""
        torch = self.torch
        oid = opinfo_id(o)
        bundles, chunk = [], []
        chunks = []
        for c in cases:
            if chunk and sum(len(x["_samples"]) for x in chunk) + len(c["_samples"]) > MAX_BUNDLE_SAMPLES:
                chunks.append(chunk)
                chunk = []
            chunk.append(c)
        if chunk:
            chunks.append(chunk)
        for k, members in enumerate(chunks):
            if len(members) < 2:
                continue
            samples = [smp for c in members for smp in c["_samples"]]
            try:
                ep, core, eager = self.export_group(o, samples)
                if self.check_exported(ep, samples, eager):
                    continue
            except Exception:
                continue  # the members run on their own
            name = "bundle-" + re.sub(r"[^A-Za-z0-9_.]+", "_", oid) + f"-{k}"
            d = os.path.join(workdir, name)
            os.makedirs(d, exist_ok=True)
            save_archive(torch, ep, os.path.join(d, "model.pt2"))
            irs = ["model"]
            if any("model.core" in c["irs"] for c in members):
                save_archive(torch, core, os.path.join(d, "model.core.pt2"))
                irs.append("model.core")
            bundles.append({"name": name, "opinfo": oid, "irs": irs, "members": [c["name"] for c in members]})
        return bundles


_GEN = None


def _init_worker(args):
    global _GEN
    _GEN = Generator(args)


def _generate_worker(job):
    oid, dtype_names, workdir, bundle = job
    t = time.time()
    cases, skipped, bundles = _GEN.generate(oid, dtype_names, workdir, bundle)
    return oid, cases, skipped, bundles, time.time() - t


def run_jobs(ctx, args, jobs):
    cases, skipped, bundles = [], [], []
    with ctx.Pool(args.jobs, _init_worker, (args,)) as pool:
        for oid, c, s, b, secs in pool.imap_unordered(_generate_worker, jobs):
            cases += c
            skipped += s
            bundles += b
            if secs > 0.5:
                print(f"  {oid}: {len(c)} cases, {len(b)} bundles, {len(s)} samples left out ({secs:.1f} s)",
                      flush=True)
    return cases, skipped, bundles


def write_cases_archive(workdir, out_dir, items):
    """Packs each case's folder of `workdir` into OUT_DIR/cases.tar.xz, deterministically
    (sorted members, no owners or times), and returns the archive's SHA-256."""
    tar_path = os.path.join(out_dir, "cases.tar.xz")
    with tarfile.open(tar_path + ".tmp", "w:xz", preset=9) as tar:
        for c in items:
            for fn in sorted(os.listdir(os.path.join(workdir, c["name"]))):
                full = os.path.join(workdir, c["name"], fn)
                info = tar.gettarinfo(full, arcname=f"{c['name']}/{fn}")
                info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                with open(full, "rb") as f:
                    tar.addfile(info, f)
    os.replace(tar_path + ".tmp", tar_path)
    with open(tar_path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def suite_parser(description, suite, only_help, workdir_help):
    """The command line the case generators share: --out (default
    test/data/`suite`), --jobs, --only and --workdir."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--out", default=os.path.join(HERE, "..", "data", suite))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--only", help=only_help)
    p.add_argument("--workdir", help=workdir_help)
    return p


def write_suite(gen, workdir, out, cases, bundles, fields):
    """Writes a suite into `out`: cases.tar.xz (the folders of `cases` and
    `bundles` under `workdir`) and cases.json, which holds the torch version,
    the archive and its digest, then `fields`. Returns the archive's size in MB."""
    os.makedirs(out, exist_ok=True)
    digest = write_cases_archive(workdir, out, cases + bundles)
    index = {"torch": gen.torch.__version__, "archive": "cases.tar.xz", "archive_sha256": digest, **fields}
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    return os.path.getsize(os.path.join(out, "cases.tar.xz")) / 1e6


def main():
    p = suite_parser(__doc__.splitlines()[0], "opinfo",
                     "regex: only OpInfo entries whose id matches (for trying things out)",
                     "keep the exported cases here between runs (default: a temporary folder)")
    args = p.parse_args()

    gen = Generator(args)  # checks the torch version, loads op_db in this process
    t0 = time.time()
    ctx = multiprocessing.get_context("fork")
    workdir = args.workdir or tempfile.mkdtemp(prefix="kiln-opinfo-")
    survey_dir, final_dir = os.path.join(workdir, "survey"), os.path.join(workdir, "final")
    os.makedirs(survey_dir, exist_ok=True)
    os.makedirs(final_dir, exist_ok=True)

    # 1. Every OpInfo in its first dtype (float32 where it has it): the op sets
    #    its samples exercise, which decide what is kept.
    first = {opinfo_id(o): gen.first_dtype(o) for o in gen.op_db}
    ids = [i for i in first if first[i] and (not args.only or re.search(args.only, i))]
    print(f"exporting {len(ids)} OpInfo entries in their first dtype ...", flush=True)
    survey, _, _ = run_jobs(ctx, args, [(i, [first[i]], survey_dir, False) for i in ids])
    chosen = gen.select(survey)
    keep_first = {n for v in chosen.values() for n in v}
    keep_first.update(i for i in ids if is_composite(i))
    # 2. The kept entries again, for good: the most direct OpInfo of each core op
    #    (and the composites) in every dtype of DTYPES it supports, the others in
    #    their first dtype; with their bundles.
    keep_all = {v[0] for v in chosen.values() if v} | {i for i in ids if is_composite(i)}
    jobs = []
    for o in gen.op_db:
        oid = opinfo_id(o)
        if oid not in keep_first:
            continue
        supported = {str(d).replace("torch.", "") for d in o.supported_dtypes("cpu")}
        dts = [d for d in DTYPES if d in supported] if oid in keep_all else [first[oid]]
        jobs.append((oid, dts, final_dir, True))
    print(f"{len(keep_first)} OpInfo entries cover {sum(1 for v in chosen.values() if v)} of "
          f"{len(gen.core)} core ops; exporting {sum(len(j[1]) for j in jobs)} (OpInfo, dtype) pairs ...",
          flush=True)
    cases, skipped, bundles = run_jobs(ctx, args, jobs)
    workdir = final_dir
    cases.sort(key=lambda c: c["name"])
    skipped.sort(key=lambda s: (s["opinfo"], s["dtype"], s["sample"] if s["sample"] is not None else -1))

    bundles.sort(key=lambda b: b["name"])
    mb = write_suite(gen, workdir, args.out, cases, bundles, {
        "core_ops": gen.core,
        "opinfos_of_core_op": {op: [n for n in v if n in keep_first] for op, v in chosen.items()},
        "max_samples": {d: MAX_SAMPLES.get(d, MAX_SAMPLES_OTHER) for d in DTYPES},
        "cases": cases,
        "bundles": bundles,
        "skipped": skipped,
    })
    if not args.workdir:
        shutil.rmtree(os.path.dirname(workdir))
    print(f"{len(cases)} cases, {len(skipped)} skipped samples, {mb:.1f} MB ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Runs every packed corpus model on the GPU and checks its numbers.

usage: check.py DIR [--repo ROOT] [--bench N] [--rtol R] [--atol A] [--random K]

DIR is what test/gpu/pack.sh made. For each model (DIR/models/<case>):
  1. PyTorch: kiln-run --device cuda on every sample input set (the case's own
     and any batch*/ subfolder; a synthetic case from test/gpu/cases draws its
     sample from inputs.json and takes kiln's CPU build as the reference); each output must satisfy
     |kiln - torch| <= atol + rtol * |torch| elementwise (PyTorch's numbers
     come from the corpus, computed by PyTorch in float32; for 224x224 images
     rtol is at least 1e-3, the tolerance PyTorch itself needs across devices
     for those CNNs).
  2. Differential: K fresh random inputs (normal, float32, the sample's shape)
     through the GPU build and through kiln's CPU build of the same model; the
     same elementwise tolerance, and the relative L2 error is reported.
  3. CUDA graphs (static shapes): kiln-gpu-graph-check replays the graph on
     the sample (against PyTorch) and on random inputs (identical to a
     kernel-by-kernel run), and on a caller's stream with device tensors.
  4. --bench N: the GPU build's median latency (CUDA events, inputs and
     outputs on the GPU), with CUDA graphs and without, and of a build whose
     matmuls are generated kernels instead of cuBLAS (cuda-kernel-gemm.so),
     where pack.sh made one.
Models read their weights from the .pt2 named in weights.txt, relative to the
repository root ROOT (default: DIR/../..). Prints one line per check and a
table; exits 1 if anything fails. Needs only Python 3 and numpy.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

# cudnn_env.py: beside this script when packed (test/gpu/pack.sh), else in the
# repository's bench/.
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[1:1] = [_here, os.path.join(_here, "..", "..", "bench")]
from cudnn_env import cudnn_env  # noqa: E402


def run(cmd, env):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    return p.returncode, p.stdout


def compare(got, want, rtol, atol):
    """(ok, max abs error, relative L2 error, detail)."""
    if got.shape != want.shape:
        return False, float("inf"), float("inf"), f"shape {got.shape} != {want.shape}"
    g, w = got.astype(np.float64), want.astype(np.float64)
    if not np.all(np.isfinite(g)):
        return False, float("inf"), float("inf"), "non-finite values"
    diff = np.abs(g - w)
    bad = diff > atol + rtol * np.abs(w)
    rel = float(np.linalg.norm(g - w) / max(np.linalg.norm(w), 1e-30))
    detail = ""
    if bad.any():
        i = np.unravel_index(np.argmax(bad), bad.shape)
        detail = f"{int(bad.sum())} of {bad.size} elements off, first at {tuple(int(x) for x in i)}: " \
                 f"got {g[i]:.6g}, expected {w[i]:.6g}"
    return not bad.any(), float(diff.max(initial=0.0)), rel, detail


def sample_sets(model_dir):
    sets = []
    for d in [model_dir] + sorted(os.path.join(model_dir, s) for s in os.listdir(model_dir)
                                  if s.startswith("batch")):
        # In numeric order: input10 comes after input9.
        number = lambda f: int(re.search(r"\d+", f).group())
        ins = sorted((f for f in os.listdir(d) if re.fullmatch(r"input\d+\.npy", f)), key=number)
        outs = sorted((f for f in os.listdir(d) if re.fullmatch(r"output\d+\.npy", f)), key=number)
        if ins:
            sets.append((os.path.relpath(d, model_dir), [os.path.join(d, f) for f in ins],
                         [os.path.join(d, f) for f in outs]))
    return sets


def outputs_of(kiln_run, so, inputs, env, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [kiln_run, so, *extra, "--output-dir", tmp]
        for i in inputs:
            cmd += ["--input", i]
        rc, text = run(cmd, env)
        if rc != 0:
            return None, text.strip()
        files = sorted(f for f in os.listdir(tmp) if f.endswith(".npy"))
        return [np.load(os.path.join(tmp, f)) for f in sorted(files, key=lambda f: int(f[6:-4]))], text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--repo")
    ap.add_argument("--bench", type=int, default=0)
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    ap.add_argument("--random", type=int, default=3)
    args = ap.parse_args()
    root = os.path.abspath(args.dir)
    repo = os.path.abspath(args.repo or os.path.join(root, "..", ".."))
    kiln_run = os.path.join(root, "bin", "kiln-run")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(root, "lib") + ":" + env.get("LD_LIBRARY_PATH", "")
    cudnn_env(env)
    plugin_dir = os.path.join(root, "lib", "plugins")
    plugins = sorted(os.path.join(plugin_dir, f) for f in os.listdir(plugin_dir)) if os.path.isdir(plugin_dir) else []
    rng = np.random.default_rng(20251123)
    rows, failed = [], 0
    for case in sorted(os.listdir(os.path.join(root, "models"))):
        mdir = os.path.join(root, "models", case)
        gpu_so, cpu_so = os.path.join(mdir, "cuda.so"), os.path.join(mdir, "cpu.so")
        if not os.path.exists(gpu_so):  # pack.sh could not compile it for CUDA
            with open(os.path.join(mdir, "compile-error.txt")) as f:
                why = next((line for line in f if "error" in line), "no CUDA build").strip()
            print(f"{case}: does not compile for CUDA: {why}")
            failed += 1
            rows.append((case, args.rtol, float("nan"), float("nan"), float("nan"), float("nan"), float("nan"),
                         "FAIL"))
            continue
        # Plugins pack.sh carried: custom ops run through the dispatcher.
        wopt = [a for p in plugins for a in ("--plugin", p)]
        if os.path.exists(os.path.join(mdir, "weights.txt")):
            with open(os.path.join(mdir, "weights.txt")) as f:
                weights = os.path.join(repo, f.read().strip())
            wopt += ["--weights", weights]
        gopt = list(wopt)
        # A synthetic case (test/gpu/cases) has no PyTorch numbers: its sample
        # is drawn from inputs.json and its reference is kiln's CPU build.
        spec = None
        if os.path.exists(os.path.join(mdir, "inputs.json")):
            with open(os.path.join(mdir, "inputs.json")) as f:
                spec = json.load(f)
            gen = os.path.join(mdir, "batch_sample")
            os.makedirs(gen, exist_ok=True)
            ins = []
            for k, (dtype, shape, scale) in enumerate(spec):
                ins.append(os.path.join(gen, f"input{k}.npy"))
                np.save(ins[-1], (rng.standard_normal(shape) * scale).astype(dtype))
            ref, text = outputs_of(kiln_run, cpu_so, ins, env)
            if ref is None:
                print(f"{case}: the CPU build failed:\n{text}")
                failed += 1
                continue
            for k, r in enumerate(ref):
                np.save(os.path.join(gen, f"output{k}.npy"), r)
        reference = "kiln CPU" if spec else "PyTorch"
        torch_rel, torch_ok, rand_rel, rand_ok, median = 0.0, True, 0.0, True, float("nan")
        first = [np.load(p, mmap_mode="r") for p in sample_sets(mdir)[0][1]]
        rtol = args.rtol
        if any(a.ndim == 4 and min(a.shape[2:]) >= 224 for a in first):
            rtol = max(rtol, 1e-3)
        for name, ins, outs in sample_sets(mdir):
            got, text = outputs_of(kiln_run, gpu_so, ins, env, ["--device", "cuda", *wopt])
            if got is None:
                print(f"{case} [{name}] vs {reference}: kiln-run failed:\n{text}")
                torch_ok = False
                continue
            if len(got) != len(outs):
                print(f"{case} [{name}] vs {reference}: {len(got)} outputs, expected {len(outs)}: MISMATCH")
                torch_ok = False
                continue
            for k, (g, o) in enumerate(zip(got, outs)):
                ok, mabs, rel, detail = compare(g, np.load(o), rtol, args.atol)
                torch_rel = max(torch_rel, rel)
                torch_ok &= ok
                print(f"{case} [{name}] output {k} vs {reference}: max abs {mabs:.3g}, rel L2 {rel:.3g}: "
                      f"{'OK' if ok else 'MISMATCH ' + detail}")
        sample = [np.load(p) for p in sample_sets(mdir)[0][1]]
        if args.random and not os.path.exists(cpu_so):
            # The differential check needs kiln's CPU build: its absence is a failure, not a skip.
            print(f"{case}: no CPU build ({cpu_so}) for the GPU-vs-CPU check: FAIL")
            rand_ok = False
        for r in range(args.random if os.path.exists(cpu_so) else 0):
            with tempfile.TemporaryDirectory() as tmp:
                paths = []
                for k, s in enumerate(sample):
                    scale = spec[k][2] if spec else 1.0
                    x = (rng.standard_normal(s.shape) * scale).astype(s.dtype) if s.dtype.kind == "f" else s
                    paths.append(os.path.join(tmp, f"in{k}.npy"))
                    np.save(paths[-1], x)
                want, t1 = outputs_of(kiln_run, cpu_so, paths, env, wopt)
                got, t2 = outputs_of(kiln_run, gpu_so, paths, env, ["--device", "cuda", *wopt])
                if want is None or got is None:
                    print(f"{case} random {r}: kiln-run failed:\n{t1 if want is None else t2}")
                    rand_ok = False
                    continue
                if len(got) != len(want):
                    print(f"{case} random {r}: GPU gave {len(got)} outputs, CPU {len(want)}: MISMATCH")
                    rand_ok = False
                    continue
                for k, (g, w) in enumerate(zip(got, want)):
                    ok, mabs, rel, detail = compare(g, w, rtol, args.atol)
                    rand_rel = max(rand_rel, rel)
                    rand_ok &= ok
                    print(f"{case} random {r} output {k} GPU vs kiln CPU: max abs {mabs:.3g}, rel L2 {rel:.3g}: "
                          f"{'OK' if ok else 'MISMATCH ' + detail}")
        name, ins, outs = sample_sets(mdir)[0]
        graph_ok = True
        rc, text = run([os.path.join(root, "bin", "kiln-gpu-graph-check"), gpu_so, *ins, "--", *outs,
                        *gopt, "--rtol", str(rtol), "--atol", str(args.atol), "--random", str(args.random)], env)
        for line in text.strip().splitlines():
            print(f"{case} graph: {line}")
        graph_ok = rc == 0
        plain = kernel_gemm = float("nan")
        if args.bench:
            kernel_so = os.path.join(mdir, "cuda-kernel-gemm.so")
            variants = [(gpu_so, True), (gpu_so, False)]
            if os.path.exists(kernel_so):
                variants.append((kernel_so, True))
            for so, graphs in variants:
                cmd = [kiln_run, so, "--device", "cuda", "--bench", str(args.bench), *wopt]
                if not graphs:
                    cmd.append("--no-cuda-graphs")
                for i in ins:
                    cmd += ["--input", i]
                rc, text = run(cmd, env)
                m = re.search(r"median ([0-9.]+) ms", text)
                if rc == 0 and m:
                    if so != gpu_so:
                        kernel_gemm = float(m.group(1))
                    elif graphs:
                        median = float(m.group(1))
                    else:
                        plain = float(m.group(1))
                    print(f"{case}{' (generated GEMM kernels)' if so != gpu_so else ''}: {text.strip()}")
                else:
                    print(f"{case} bench failed:\n{text}")
                    torch_ok = False
        ok = torch_ok and rand_ok and graph_ok
        failed += not ok
        rows.append((case + (" *" if spec else ""), rtol, torch_rel, rand_rel, median, plain, kernel_gemm,
                     "PASS" if ok else "FAIL"))
    print()
    print(f"{'case':<22} {'rtol':>6} {'rel L2 vs PyTorch':>18} {'rel L2 vs kiln CPU':>19} "
          f"{'ms (graphs)':>12} {'ms (no graphs)':>15} {'ms (kernel GEMM)':>17}  result")
    for case, rt, tr, rr, med, plain, kg, res in rows:
        print(f"{case:<22} {rt:>6.0e} {tr:>18.3g} {rr:>19.3g} {med:>12.4f} {plain:>15.4f} {kg:>17.4f}  {res}")
    if any(r[0].endswith(" *") for r in rows):
        print("* synthetic case: its reference is kiln's CPU build, not PyTorch")
    print(f"{len(rows) - failed} of {len(rows)} cases pass (elementwise |kiln - ref| <= atol + rtol*|ref|, "
          f"atol {args.atol})")
    return 1 if failed or not rows else 0


if __name__ == "__main__":
    sys.exit(main())

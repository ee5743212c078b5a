#!/usr/bin/env python3
"""Per-model compile time and CPU latency of kiln next to PyTorch eager, in one run.

For each real model of the end-to-end suite (test/models/export_models.py, the
same constructors and seeds, so the weights are the ones in
BUILD_DIR/test/data/models/<name>/model.pt2, which the build's
`kiln-test-models` target exports) it
- compiles model.pt2 with kiln-compile (wall and CPU seconds),
- times it with `kiln-run --bench N` on the suite's inputs (median ms),
- rebuilds the module in PyTorch and times eager on the same inputs (median
  of N, torch.no_grad, 1 thread and the default thread count),
and prints the ratios eager / kiln (> 1: kiln is faster) and a JSON line per model.

usage: bench/models_vs_torch.py BUILD_DIR [NAME...] [--iters N]

kiln runs on one thread, so the 1-thread eager column is the like-for-like
ratio; the default-thread column is only meaningful on an otherwise idle machine.
"""
import argparse, json, os, re, resource, subprocess, sys, tempfile, time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))
import export_models  # noqa: E402


def eager_ms(model, inputs, iters, threads):
    torch.set_num_threads(threads)
    with torch.no_grad():
        for _ in range(5):
            model(*inputs)
        times = []
        for _ in range(iters):
            t = time.perf_counter()
            model(*inputs)
            times.append((time.perf_counter() - t) * 1e3)
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("names", nargs="*")
    args = ap.parse_intermixed_args()
    compile_bin = os.path.join(args.build, "bin", "kiln-compile")
    run_bin = os.path.join(args.build, "bin", "kiln-run")
    specs = export_models.build_models()
    default_threads = torch.get_num_threads()
    rows = []
    tmp = tempfile.mkdtemp(prefix="kiln-models-")
    for name in args.names or list(specs):
        d = os.path.join(args.build, "test", "data", "models", name)
        if not os.path.isdir(d):
            sys.exit(f"models_vs_torch.py: {d} is missing (build the kiln-test-models target first)")
        so = os.path.join(tmp, name + ".so")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        p = subprocess.run([compile_bin, os.path.join(d, "model.pt2"), "-o", so],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if p.returncode:
            print(f"{name}: kiln-compile failed: {p.stdout.strip()[-500:]}")
            continue
        n_in = len([f for f in os.listdir(d) if re.fullmatch(r"input\d+\.npy", f)])
        ins = []
        for i in range(n_in):
            ins += ["--input", os.path.join(d, f"input{i}.npy")]
        p = subprocess.run([run_bin, so, *ins, "--bench", str(args.iters)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        m = re.search(r"median ([0-9.]+) ms", p.stdout)
        if p.returncode or not m:
            print(f"{name}: kiln-run failed: {p.stdout.strip()[-500:]}")
            continue
        kiln = float(m.group(1))
        make, _, _, _ = specs[name]
        torch.manual_seed(0)
        model = make().eval()
        inputs = tuple(torch.from_numpy(np.load(os.path.join(d, f"input{i}.npy"))) for i in range(n_in))
        e1 = eager_ms(model, inputs, args.iters, 1)
        en = eager_ms(model, inputs, args.iters, default_threads)
        row = {"model": name, "kiln_compile_wall_s": round(wall, 2), "kiln_compile_cpu_s": round(cpu, 2),
               "kiln_ms": kiln, "eager_1t_ms": round(e1, 4), f"eager_{default_threads}t_ms": round(en, 4),
               "eager_1t_over_kiln": round(e1 / kiln, 2), f"eager_{default_threads}t_over_kiln": round(en / kiln, 2)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    print(f"\n{'model':28s} {'compile s (cpu)':>16s} {'kiln ms':>9s} {'eager 1t':>9s} {'ratio':>6s} "
          f"{'eager ' + str(default_threads) + 't':>9s} {'ratio':>6s}")
    for r in rows:
        print(f"{r['model']:28s} {r['kiln_compile_cpu_s']:16.2f} {r['kiln_ms']:9.3f} {r['eager_1t_ms']:9.3f} "
              f"{r['eager_1t_over_kiln']:6.2f} {r[f'eager_{default_threads}t_ms']:9.3f} "
              f"{r[f'eager_{default_threads}t_over_kiln']:6.2f}")


if __name__ == "__main__":
    main()

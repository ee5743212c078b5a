#!/usr/bin/env python3
"""Side-by-side CPU latency of per-sample gradients: kiln --grad --vmap=0 vs torch.func, in one run.

For the corpus mlp, convnet and attention models (each exported program is
one sample) it compiles `kiln-compile --grad --vmap=0`, times `kiln-run
--bench` on a batch of B samples, rebuilds the module in PyTorch from the
archive's raw weights (nothing unpickled) and, in the same process, times
torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)), in_dims=(None, 0, 0))
with loss = sum(model(x) * c) in eager mode and under torch.compile (the
default inductor backend). Prints median (and min) latencies and the ratios
torch / kiln (> 1: kiln is faster).

usage: bench/vmap_vs_torch.py BUILD_DIR [MODEL...] [--batch B] [--iters N] [--threads T]
"""
import argparse, os, re, subprocess, sys, tempfile, time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_vs_torch import CORPUS, load_raw_weights  # noqa: E402
from grad_vs_torch import MODELS  # noqa: E402


def timed(fn, iters):
    for _ in range(5):
        fn()
    ts = []
    for _ in range(iters):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return float(np.median(ts) * 1e3), float(np.min(ts) * 1e3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("models", nargs="*", default=list(MODELS))
    args = ap.parse_intermixed_args()
    torch.set_num_threads(args.threads)
    print(f"batch {args.batch}, {args.threads} threads; median / min ms")
    print(f"{'model':10} {'kiln':>16} {'torch.func eager':>18} {'torch.compile':>16} "
          f"{'eager/kiln':>11} {'compile/kiln':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models:
            pt2 = os.path.join(CORPUS, name, "model.pt2")
            model = MODELS[name]().eval()
            model.load_state_dict(load_raw_weights(pt2), strict=True)
            x0 = np.load(os.path.join(CORPUS, name, "input0.npy"))
            params = {k: v.detach() for k, v in model.named_parameters()}
            rng = np.random.default_rng(0)
            xs = rng.standard_normal((args.batch, *x0.shape), dtype=np.float32)
            with torch.no_grad():
                out0 = model(torch.from_numpy(x0))
            cs = rng.standard_normal((args.batch, *out0.shape), dtype=np.float32)
            xf, cf = os.path.join(tmp, name + "-x.npy"), os.path.join(tmp, name + "-c.npy")
            np.save(xf, xs); np.save(cf, cs)
            so = os.path.join(tmp, name + ".so")
            subprocess.run([os.path.join(args.build, "bin", "kiln-compile"), pt2, "--grad", "--vmap=0",
                            "-o", so], check=True)
            out = subprocess.run([os.path.join(args.build, "bin", "kiln-run"), so, "--input", xf,
                                  "--cotangent", cf, "--bench", str(args.iters),
                                  "--threads", str(args.threads)],
                                 check=True, capture_output=True, text=True).stdout
            kmed = float(re.search(r"median ([0-9.]+) ms", out).group(1))
            kmin = float(re.search(r"min ([0-9.]+) ms", out).group(1))

            def loss(p, x, c):
                return (torch.func.functional_call(model, p, (x,)) * c).sum()

            per_sample = torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)), in_dims=(None, 0, 0))
            X, Cs = torch.from_numpy(xs), torch.from_numpy(cs)
            emed, emin = timed(lambda: per_sample(params, X, Cs), args.iters)
            compiled = torch.compile(per_sample)
            cmed, cmin = timed(lambda: compiled(params, X, Cs), args.iters)
            print(f"{name:10} {kmed:7.3f} / {kmin:6.3f} {emed:8.3f} / {emin:7.3f} "
                  f"{cmed:7.3f} / {cmin:6.3f} {emed / kmed:11.2f} {cmed / kmed:13.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())

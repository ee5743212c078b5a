#!/usr/bin/env python3
"""Side-by-side CPU latency of per-sample gradients: kiln --grad --vmap=0 vs torch.func, in one run.

For the corpus mlp, convnet and attention models (each exported program is
one sample) it compiles `kiln-compile --grad --vmap=0`, times `kiln-run
--bench` on a batch of B samples, rebuilds the module in PyTorch from the
archive's raw weights (nothing unpickled) and, in the same process, times
torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)), in_dims=(None, 0, 0))
with loss = sum(model(x) * c) in eager mode and under torch.compile (the
default inductor backend). Prints median (and min) latencies and the ratios
torch / kiln (> 1: kiln is faster). kiln's per-sample gradients from the
very .so it times are first checked against torch.func's (kiln-run
--expect-grads, rtol/atol 1e-4).

With --target cuda the programs are compiled for the GPU and PyTorch runs on
it (float32 with TF32 off on both sides). A GPU machine without LLVM takes
programs compiled elsewhere: `--compile-only DIR` writes DIR/<model>.so on the
build machine, `--prebuilt DIR` times those.

usage: bench/vmap_vs_torch.py BUILD_DIR [MODEL...] [--batch B] [--iters N] [--threads T]
                              [--target cpu|cuda] [--compile-only DIR | --prebuilt DIR]
"""
import argparse, os, re, subprocess, sys, tempfile, time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_vs_torch import CORPUS, load_raw_weights  # noqa: E402
from grad_vs_torch import MODELS  # noqa: E402


def timed(fn, iters, sync=lambda: None):
    for _ in range(5):
        fn()
    sync()
    ts = []
    for _ in range(iters):
        t = time.perf_counter(); fn(); sync(); ts.append(time.perf_counter() - t)
    return float(np.median(ts) * 1e3), float(np.min(ts) * 1e3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--target", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--compile-only", metavar="DIR")
    ap.add_argument("--prebuilt", metavar="DIR")
    ap.add_argument("models", nargs="*", default=list(MODELS))
    args = ap.parse_intermixed_args()
    torch.set_num_threads(args.threads)
    compile_args = ["--grad", "--vmap=0", f"--target={args.target}"]
    if args.target == "cuda":
        compile_args.append("--cuda-tf32=none")
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    if args.compile_only:
        os.makedirs(args.compile_only, exist_ok=True)
        for name in args.models:
            subprocess.run([os.path.join(args.build, "bin", "kiln-compile"),
                            os.path.join(CORPUS, name, "model.pt2"), *compile_args,
                            "-o", os.path.join(args.compile_only, name + ".so")], check=True)
        return 0
    device = torch.device(args.target)
    sync = torch.cuda.synchronize if args.target == "cuda" else (lambda: None)
    where = torch.cuda.get_device_name() if args.target == "cuda" else f"{args.threads} threads"
    print(f"batch {args.batch}, {where}; median / min ms; kiln's gradients checked against torch.func's")
    print(f"{'model':10} {'kiln':>16} {'torch.func eager':>18} {'torch.compile':>16} "
          f"{'eager/kiln':>11} {'compile/kiln':>13}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models:
            pt2 = os.path.join(CORPUS, name, "model.pt2")
            model = MODELS[name]().eval()
            model.load_state_dict(load_raw_weights(pt2), strict=True)
            model.to(device)
            x0 = np.load(os.path.join(CORPUS, name, "input0.npy"))
            params = {k: v.detach() for k, v in model.named_parameters()}
            rng = np.random.default_rng(0)
            xs = rng.standard_normal((args.batch, *x0.shape), dtype=np.float32)
            with torch.no_grad():
                out0 = model(torch.from_numpy(x0).to(device))
            cs = rng.standard_normal((args.batch, *out0.shape), dtype=np.float32)
            xf, cf = os.path.join(tmp, name + "-x.npy"), os.path.join(tmp, name + "-c.npy")
            np.save(xf, xs); np.save(cf, cs)
            so = os.path.join(tmp, name + ".so")
            if args.prebuilt:
                so = os.path.join(args.prebuilt, name + ".so")
            else:
                subprocess.run([os.path.join(args.build, "bin", "kiln-compile"), pt2, *compile_args,
                                "-o", so], check=True)

            def loss(p, x, c):
                return (torch.func.functional_call(model, p, (x,)) * c).sum()

            per_sample = torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)), in_dims=(None, 0, 0))
            X, Cs = torch.from_numpy(xs).to(device), torch.from_numpy(cs).to(device)
            # The reference: torch.func's per-sample gradients, in kiln-run's grads/ layout.
            gp, gx = per_sample(params, X, Cs)
            ref = os.path.join(tmp, name + "-grads")
            os.makedirs(ref, exist_ok=True)
            for k, v in {"input0": gx, **gp}.items():
                np.save(os.path.join(ref, k + ".npy"), v.detach().cpu().numpy())
            kiln_run = [os.path.join(args.build, "bin", "kiln-run"), so, "--input", xf, "--cotangent", cf,
                        "--threads", str(args.threads)]
            check = subprocess.run(kiln_run + ["--expect-grads", ref, "--rtol", "1e-4", "--atol", "1e-4"],
                                   capture_output=True, text=True)
            if check.returncode != 0:
                print(f"{name}: kiln's per-sample gradients differ from torch.func's:\n"
                      f"{check.stdout}{check.stderr}", file=sys.stderr)
                return 1
            out = subprocess.run(kiln_run + ["--bench", str(args.iters)],
                                 check=True, capture_output=True, text=True).stdout
            kmed = float(re.search(r"median ([0-9.]+) ms", out).group(1))
            kmin = float(re.search(r"min ([0-9.]+) ms", out).group(1))
            emed, emin = timed(lambda: per_sample(params, X, Cs), args.iters, sync)
            compiled = torch.compile(per_sample)
            cmed, cmin = timed(lambda: compiled(params, X, Cs), args.iters, sync)
            print(f"{name:10} {kmed:7.3f} / {kmin:6.3f} {emed:8.3f} / {emin:7.3f} "
                  f"{cmed:7.3f} / {cmin:6.3f} {emed / kmed:11.2f} {cmed / kmed:13.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())

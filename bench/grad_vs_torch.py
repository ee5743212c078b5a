#!/usr/bin/env python3
"""Side-by-side CPU latency of one gradient: kiln --grad vs PyTorch eager, in one run.

For each corpus model with a grads/ folder it compiles the archive with
`kiln-compile --grad` (and plainly, for the forward alone), times both with
`kiln-run --bench`, rebuilds the same module in PyTorch with the archive's raw
weights (read from the zip without unpickling anything) and times
`torch.autograd.grad(sum(model(x) * cotangent), [x] + parameters)` on the same
input and cotangent with 2 threads. Prints median (and min) latencies and the
ratio torch / kiln of the forward+backward (> 1 means kiln is faster).

usage: bench/grad_vs_torch.py BUILD_DIR [MODEL...] [--iters N] [--threads T]
"""
import argparse, os, re, subprocess, sys, tempfile, time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_vs_torch import CORPUS, MLP, ConvNet, load_raw_weights  # noqa: E402


class Attention(nn.Module):
    def __init__(self, d=64, h=4):
        super().__init__()
        self.h = h; self.qkv = nn.Linear(d, 3 * d); self.o = nn.Linear(d, d); self.ln = nn.LayerNorm(d)

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(self.ln(x)).chunk(3, dim=-1)
        q, k, v = [t.view(B, T, self.h, D // self.h).transpose(1, 2) for t in (q, k, v)]
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + self.o(y.transpose(1, 2).reshape(B, T, D))


MODELS = {"mlp": MLP, "convnet": ConvNet, "attention": Attention}


def torch_ms(module, x, cot, iters):
    params = list(module.parameters())
    xr = x.clone().requires_grad_(True)

    def step():
        torch.autograd.grad((module(xr) * cot).sum(), [xr] + params)

    for _ in range(10):
        step()
    ts = []
    for _ in range(iters):
        t = time.perf_counter(); step(); ts.append(time.perf_counter() - t)
    return float(np.median(ts) * 1e3), float(np.min(ts) * 1e3)


def kiln_ms(build, pt2, args, iters, so, extra):
    subprocess.run([os.path.join(build, "bin", "kiln-compile"), pt2, *extra, "-o", so], check=True)
    out = subprocess.run([os.path.join(build, "bin", "kiln-run"), so, *args, "--bench", str(iters)],
                         check=True, capture_output=True, text=True).stdout
    med = float(re.search(r"median ([0-9.]+) ms", out).group(1))
    mn = float(re.search(r"min ([0-9.]+) ms", out).group(1))
    return med, mn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("models", nargs="*", default=list(MODELS))
    args = ap.parse_intermixed_args()
    torch.set_num_threads(args.threads)
    print(f"{'model':10} {'kiln fwd':>9} {'kiln fwd+bwd':>13} {'torch fwd+bwd':>14} "
          f"{'(min: kiln / torch)':>20} {'ratio torch/kiln':>17}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models:
            pt2 = os.path.join(CORPUS, name, "model.pt2")
            inp = os.path.join(CORPUS, name, "input0.npy")
            cotf = os.path.join(CORPUS, name, "grads", "cotangent0.npy")
            module = MODELS[name]().eval()
            module.load_state_dict(load_raw_weights(pt2), strict=True)
            x = torch.from_numpy(np.load(inp))
            cot = torch.from_numpy(np.load(cotf))
            with torch.no_grad():  # the rebuilt module must be the exported one
                expect = np.load(os.path.join(CORPUS, name, "output0.npy"))
                assert np.allclose(module(x).numpy(), expect, rtol=1e-4, atol=1e-5), name
            fwd, _ = kiln_ms(args.build, pt2, ["--input", inp], args.iters,
                             os.path.join(tmp, name + ".so"), [])
            kg, kmin = kiln_ms(args.build, pt2, ["--input", inp, "--cotangent", cotf], args.iters,
                               os.path.join(tmp, name + "-grad.so"), ["--grad"])
            tg, tmin = torch_ms(module, x, cot, args.iters)
            print(f"{name:10} {fwd:9.3f} {kg:13.3f} {tg:14.3f} {kmin:9.3f} / {tmin:8.3f} "
                  f"{tg / kg:17.2f}")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Packs a numerical check of kiln's GEMMs with fused epilogues (cuBLASLt).

usage: gemm-epilogues.py BUILD_DIR OUT_DIR [--gpu-arch=sm_NN]     (here, with LLVM)
       OUT_DIR/run.sh                                            (on the GPU machine)

Here: writes one aten-dialect module per case (linear layers with a bias, in
float32, bfloat16 and float16, on 2-d and 3-d activations, with dynamic rows,
the weight stored either way, followed by nothing, a ReLU or an erf GELU, and
addmm), seeded random inputs and numpy's float64 results (the product and
bias summed in float64, then the activation, each result rounded to the
output dtype as PyTorch rounds a bf16/f16 linear's output once), compiles
each for CUDA (the default: cuBLAS/cuBLASLt) and for the CPU, and runs each
CPU build here against numpy's results. bf16 values travel as float32 .npy
files holding bf16 numbers exactly (kiln-run's convention). kiln-run, the
runtime and the libraries they need are copied in, as test/gpu/pack.sh does.
Exits 1 if a CPU check fails, 2 if a compile fails.

There: OUT_DIR/run.sh runs every CUDA build with kiln-run --device cuda
--expect (with CUDA graphs, and without for the dynamic cases), prints one
line per run and exits 1 if any is off.
"""
import argparse
import math
import os
import sys

import numpy as np

from pack_util import fresh_pack, pack_cases, run_script_head, write_run_script

# Elementwise tolerances: float32 sums in another order; one bf16/f16 ulp
# of the rounded output (the GPU and numpy may round a sum that lies near a
# rounding boundary to different neighbours).
TOL = {"f32": ("1e-4", "1e-4"), "bf16": ("1e-2", "1e-2"), "f16": ("2e-3", "2e-3")}


def round_bf16(x):
    """float64 -> nearest bf16 (ties to even), as float32."""
    f = np.asarray(x, np.float64).astype(np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32)


def to_dtype(x, dtype):
    if dtype == "bf16":
        return round_bf16(x)
    return np.asarray(x).astype({"f32": np.float32, "f16": np.float16}[dtype])


def relu(x):
    return np.maximum(x, 0)


def gelu(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def linear(name, dtype, rows, k, n, act=None, w_kn=False, runs=None):
    """act(x @ w^T + b) (w stored [n, k]), or x @ w + b with w_kn (w [k, n])."""
    t = dtype
    xs = "x".join("?" if r is None else str(r) for r in rows)
    out = f"{xs}x{n}x{t}"
    w_shape = f"{k}x{n}" if w_kn else f"{n}x{k}"
    if w_kn:
        body = f"""  %p = aten.matmul %x, %w : (tensor<{xs}x{k}x{t}>, tensor<{w_shape}x{t}>) -> tensor<{out}>
  %0 = aten.add_tensor %p, %b : (tensor<{out}>, tensor<{n}x{t}>) -> tensor<{out}>"""
    else:
        body = f"""  %0 = aten.linear %x, %w, %b : (tensor<{xs}x{k}x{t}>, tensor<{w_shape}x{t}>, tensor<{n}x{t}>) -> tensor<{out}>"""
    last = "%0"
    if act:
        body += f"\n  %1 = aten.{act} %0 : tensor<{out}>"
        last = "%1"
    text = f"""func.func @main(%x: tensor<{xs}x{k}x{t}>, %w: tensor<{w_shape}x{t}>, %b: tensor<{n}x{t}>) -> tensor<{out}> {{
{body}
  return {last} : tensor<{out}>
}}"""
    shapes = [[tuple(r if r is not None else rr for r, rr in zip(rows, run)) + (k,),
               (k, n) if w_kn else (n, k), (n,)] for run in (runs or [rows])]

    def ref(x, w, b):
        # PyTorch rounds a bf16/f16 linear's output (a matmul's before the
        # addition), then applies the activation.
        if w_kn:
            y = to_dtype(to_dtype(x @ w, dtype).astype(np.float64) + b, dtype).astype(np.float64)
        else:
            y = to_dtype(x @ w.T + b, dtype).astype(np.float64)
        return {"relu": relu, "gelu": gelu, None: lambda v: v}[act](y)
    return dict(name=name, dtype=dtype, text=text, shapes=shapes, ref=ref, weight=1, k=k)


def addmm(name, dtype, m, k, n):
    t = dtype
    text = f"""func.func @main(%b: tensor<{n}x{t}>, %x: tensor<{m}x{k}x{t}>, %w: tensor<{k}x{n}x{t}>) -> tensor<{m}x{n}x{t}> {{
  %0 = aten.addmm %b, %x, %w : (tensor<{n}x{t}>, tensor<{m}x{k}x{t}>, tensor<{k}x{n}x{t}>) -> tensor<{m}x{n}x{t}>
  return %0 : tensor<{m}x{n}x{t}>
}}"""
    return dict(name=name, dtype=dtype, text=text, shapes=[[(n,), (m, k), (k, n)]],
                ref=lambda b, x, w: x @ w + b, weight=2, k=k)


def cases():
    return [
        linear("linear_f32_3d", "f32", (2, 64), 256, 384),
        linear("linear_f32_relu", "f32", (96,), 256, 512, act="relu"),
        linear("linear_bf16_3d", "bf16", (2, 48), 256, 512),
        linear("linear_bf16_relu", "bf16", (96,), 256, 512, act="relu"),
        linear("linear_bf16_gelu", "bf16", (2, 48), 256, 512, act="gelu"),
        linear("linear_f16_relu_dynamic", "f16", (None,), 256, 512, act="relu", runs=[(1,), (77,), (200,)]),
        linear("matmul_add_f16_w_kn", "f16", (2, 50), 192, 320, w_kn=True),
        addmm("addmm_f32", "f32", 100, 200, 300),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--gpu-arch", default="sm_90")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    out = os.path.abspath(a.out)
    fresh_pack(build, out)
    rng = np.random.default_rng(20261124)

    def sample(case, shapes):
        dt = case["dtype"]
        # Unit-variance products: the weight scaled by 1/sqrt(k).
        ins = [to_dtype(rng.standard_normal(size=s) / (math.sqrt(case["k"]) if j == case["weight"] else 1.0), dt)
               for j, s in enumerate(shapes)]
        want = to_dtype(case["ref"](*[np.asarray(x, np.float64) for x in ins]), dt)
        return (ins, want) + TOL[dt]

    # With graphs: three runs, so the replayed graph's outputs are checked.
    checks, cpu_failed = pack_cases(build, out, cases(), ["--gpu-arch=" + a.gpu_arch], sample,
                                    [("", " --runs 3"), ("/no-graphs", " --no-cuda-graphs")])
    write_run_script(out, run_script_head("test/gpu/gemm-epilogues.py") + checks)
    sys.exit(cpu_failed)


if __name__ == "__main__":
    main()

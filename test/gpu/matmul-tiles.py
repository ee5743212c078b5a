#!/usr/bin/env python3
"""Packs a numerical check of kiln's tiled GPU contractions (kiln-gpu-tile-contractions).

usage: matmul-tiles.py BUILD_DIR OUT_DIR [--gpu-arch=sm_NN]      (here, with LLVM)
       OUT_DIR/run.sh                                             (on the GPU machine)

Here: writes one aten-dialect module per case (square, ragged edges, k
shorter than a tile step, batched, broadcast batch, transposed operands,
dynamic rows, every size dynamic, float16, float64, int64), seeded random
inputs and numpy's float64 results (rounded to the output dtype), and
compiles each for CUDA (generated kernels only: --cuda-gemm=kernel
--cuda-attention=decomposed) and for
the CPU. Each CPU build is run here against numpy's results (so the
references are known right before anything travels); with --families, the
corpus's products and attention families (PyTorch's own outputs) are packed
too. kiln-run, the runtime and the libraries they need are copied in, as
test/gpu/pack.sh does. Exits 1 if a CPU check fails, 2 if a compile fails.

There: OUT_DIR/run.sh runs every CUDA build with kiln-run --device cuda
--expect, prints one line per case and exits 1 if any is off.
"""
import argparse
import os
import shutil
import sys

import numpy as np

from pack_util import fresh_pack, pack_cases, run_script_head, sh, write_run_script

# (name, aten op text, input shapes, dtype, rtol, atol, extra runs of other
# shapes for dynamic dims). Shapes in the op text use '?' for dynamic dims.
F32 = "f32"


def mm(name, m, k, n, dtype=F32):
    t = dtype
    return dict(name=name, dtype=dtype,
                text=f"""func.func @main(%a: tensor<{m}x{k}x{t}>, %b: tensor<{k}x{n}x{t}>) -> tensor<{m}x{n}x{t}> {{
  %0 = aten.mm %a, %b : (tensor<{m}x{k}x{t}>, tensor<{k}x{n}x{t}>) -> tensor<{m}x{n}x{t}>
  return %0 : tensor<{m}x{n}x{t}>
}}""", shapes=[[(m, k), (k, n)]], ref=lambda a, b: a @ b)


def cases():
    out = [
        mm("square_256", 256, 256, 256),
        mm("ragged_127x33x65", 127, 33, 65),
        mm("ragged_1000x700x513", 1000, 700, 513),
        mm("short_k_64x7x64", 64, 7, 64),
        mm("k1_70x1x90", 70, 1, 90),
        mm("float16_128x96x80", 128, 96, 80, "f16"),
        mm("int64_65x40x33", 65, 40, 33, "i64"),
        mm("float64_33x200x17", 33, 200, 17, "f64"),
    ]
    out.append(dict(
        name="bmm_3x127x65x129", dtype=F32,
        text="""func.func @main(%a: tensor<3x127x65xf32>, %b: tensor<3x65x129xf32>) -> tensor<3x127x129xf32> {
  %0 = aten.bmm %a, %b : (tensor<3x127x65xf32>, tensor<3x65x129xf32>) -> tensor<3x127x129xf32>
  return %0 : tensor<3x127x129xf32>
}""", shapes=[[(3, 127, 65), (3, 65, 129)]], ref=lambda a, b: a @ b))
    out.append(dict(
        name="matmul_broadcast_2x3x50x40_40x30", dtype=F32,
        text="""func.func @main(%a: tensor<2x3x50x40xf32>, %b: tensor<40x30xf32>) -> tensor<2x3x50x30xf32> {
  %0 = aten.matmul %a, %b : (tensor<2x3x50x40xf32>, tensor<40x30xf32>) -> tensor<2x3x50x30xf32>
  return %0 : tensor<2x3x50x30xf32>
}""", shapes=[[(2, 3, 50, 40), (40, 30)]], ref=lambda a, b: a @ b))
    # Every size dynamic, run at shapes with and without whole tiles.
    out.append(dict(
        name="bmm_dynamic", dtype=F32,
        text="""func.func @main(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = aten.bmm %a, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}""", shapes=[[(2, 70, 33), (2, 33, 19)], [(1, 1, 1), (1, 1, 1)], [(4, 64, 128), (4, 128, 64)],
              [(3, 129, 17), (3, 17, 130)]], ref=lambda a, b: a @ b))
    # x @ w^T + b: w is read along k (its contiguous dim); rows are dynamic.
    out.append(dict(
        name="linear_dynamic_rows_x96_w80", dtype=F32,
        text="""func.func @main(%x: tensor<?x96xf32>, %w: tensor<80x96xf32>, %b: tensor<80xf32>) -> tensor<?x80xf32> {
  %0 = aten.linear %x, %w, %b : (tensor<?x96xf32>, tensor<80x96xf32>, tensor<80xf32>) -> tensor<?x80xf32>
  return %0 : tensor<?x80xf32>
}""", shapes=[[(r, 96), (80, 96), (80,)] for r in (1, 5, 64, 200, 1031)],
        ref=lambda x, w, b: x @ w.T + b))
    # Both operands transposed: (k, m) and (n, k).
    out.append(dict(
        name="einsum_transposed_ki_jk", dtype=F32,
        text="""func.func @main(%a: tensor<77x130xf32>, %b: tensor<99x77xf32>) -> tensor<130x99xf32> {
  %0 = aten.einsum "ki,jk->ij"(%a, %b) : (tensor<77x130xf32>, tensor<99x77xf32>) -> tensor<130x99xf32>
  return %0 : tensor<130x99xf32>
}""", shapes=[[(77, 130), (99, 77)]], ref=lambda a, b: a.T @ b.T))
    # A transposed result: (n, m) from (m, k) and (k, n).
    out.append(dict(
        name="einsum_output_transposed", dtype=F32,
        text="""func.func @main(%a: tensor<70x50xf32>, %b: tensor<50x90xf32>) -> tensor<90x70xf32> {
  %0 = aten.einsum "ik,kj->ji"(%a, %b) : (tensor<70x50xf32>, tensor<50x90xf32>) -> tensor<90x70xf32>
  return %0 : tensor<90x70xf32>
}""", shapes=[[(70, 50), (50, 90)]], ref=lambda a, b: (a @ b).T))
    return out


# Generated kernels for every product: with the default (cuBLAS for large
# float32 matmuls) most cases here would never reach the tiled kernels, and
# the attention family's products would run in the fused attention kernel.
GEMM = ["--cuda-gemm=kernel", "--cuda-attention=decomposed"]

NP_DTYPE = {"f32": np.float32, "f16": np.float16, "i64": np.int64, "f64": np.float64}
TOL = {"f32": ("1e-4", "1e-4"), "f16": ("1e-2", "1e-2"), "i64": ("0", "0"),
       "f64": ("1e-10", "1e-10")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--gpu-arch", default="sm_90")
    ap.add_argument("--families", action="store_true",
                    help="also pack test/data/families/{products,attention} (PyTorch's outputs)")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = os.path.abspath(a.out)
    fresh_pack(build, out)
    compile_ = os.path.join(build, "bin", "kiln-compile")
    rng = np.random.default_rng(20261123)

    def sample(case, shapes):
        dt = NP_DTYPE[case["dtype"]]
        if dt == np.int64:
            ins = [rng.integers(-50, 50, size=s).astype(dt) for s in shapes]
            want = case["ref"](*ins).astype(dt)
        else:
            ins = [rng.standard_normal(size=s).astype(dt) for s in shapes]
            want = case["ref"](*[x.astype(np.float64) for x in ins]).astype(dt)
        return (ins, want) + TOL[case["dtype"]]

    checks, cpu_failed = pack_cases(build, out, cases(), ["--gpu-arch=" + a.gpu_arch] + GEMM, sample)
    lines = run_script_head("test/gpu/matmul-tiles.py") + checks

    if a.families:
        for fam in ("products", "attention"):
            fd = os.path.join(src, "test", "data", "families", fam)
            d = os.path.join(out, "cases", "family_" + fam)
            os.makedirs(d)
            p = sh([compile_, os.path.join(fd, "model.pt2"), "--target=cuda", "--gpu-arch=" + a.gpu_arch]
                   + GEMM + ["-o", os.path.join(d, "cuda.so")])
            if p.returncode != 0:
                print(f"COMPILE-FAIL family {fam}: {p.stdout}{p.stderr}")
                sys.exit(2)
            args = []
            n_in = len([f for f in os.listdir(fd) if f.startswith("input") and f.endswith(".npy")])
            n_out = len([f for f in os.listdir(fd) if f.startswith("output") and f.endswith(".npy")])
            for i in range(n_in):
                shutil.copy(os.path.join(fd, f"input{i}.npy"), d)
                args += ["--input", f"cases/family_{fam}/input{i}.npy"]
            for i in range(n_out):
                shutil.copy(os.path.join(fd, f"output{i}.npy"), d)
                args += ["--expect", f"cases/family_{fam}/output{i}.npy"]
            lines.append(f"check family_{fam} cases/family_{fam}/cuda.so "
                         + " ".join(f'"{x}"' for x in args) + " || failed=1")

    write_run_script(out, lines)
    sys.exit(cpu_failed)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Packs a numerical check of kiln's fused CUDA attention (kiln-gpu-fused-attention).

usage: attention.py BUILD_DIR OUT_DIR       (here, with LLVM and PyTorch for bf16 rounding)
       python3 OUT_DIR/run.py OUT_DIR       (on the GPU machine; numpy, and PyTorch if present)

Here: writes one aten-dialect module per case over a grid of dtypes (float32,
bfloat16, float16), shapes (ragged L, S, E != Ev, several key tiles, every
padded head size 32/64/128), bool and additive masks (with fully masked
rows, broadcast dims, expanded masks), is_causal with L != S, explicit
scales, grouped-query heads, rank-3 operands, the 16-bit kernel's edges
(2048 keys, head size 96, many query tiles, rows aligned for 16-byte copies
in some heads only), grids small enough for the key split (two and four
groups of warps a block), a dynamic batch, batch dims
the keys broadcast, and BERT's layout (heads split out of a projection by
a permute and merged back), plus cases the fused kernel does not take (head
size 256, float64), which must keep the decomposition. Each is compiled for
CUDA (the default --cuda-attention=fused) and checked to call the fused
kernel or not as expected; the bench cases are compiled a second time with
--cuda-attention=decomposed. kiln-run, the runtime and its libraries are
copied in, with this file (run.py imports it). Exits 2 if a compile or a
fused/decomposed expectation fails.

There: run.py makes each case's seeded inputs (rounded to the dtype) and
numpy's float64 results, runs the case with kiln-run --device cuda (CUDA
graphs, then kernel by kernel) and, where PyTorch with CUDA is present,
prints PyTorch's own error (F.scaled_dot_product_attention in the same dtype
on the same GPU) beside kiln's; the bench cases (BERT-base's attention at
batch 16 bf16 and batch 1 float32, a causal 2048-token one) compare the fused
build with the decomposed one and time both (kiln-run --bench). One line per
case; exits 1 if any is off.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

from pack_util import copy_kiln_run

MLIR = {"f32": "f32", "bf16": "bf16", "f16": "f16", "f64": "f64", "i1": "i1"}
# Max abs error allowed against float64 (outputs are averages of N(0, 1) values).
TOL = {"f32": 2e-5, "f16": 4e-3, "bf16": 3e-2, "f64": 1e-10}


def case(name, dtype, B, H, L, S, E, Ev=None, Hk=None, mask=None, causal=False, scale=None, gqa=False,
         rank3=False, permuted=False, kv_batch=None, dynamic_batch=None, fused=True, bench=False):
    return dict(name=name, dtype=dtype, B=B, H=H, L=L, S=S, E=E, Ev=Ev or E, Hk=Hk or H, mask=mask,
                causal=causal, scale=scale, gqa=gqa, rank3=rank3, permuted=permuted,
                kv_batch=kv_batch if kv_batch is not None else B, dynamic_batch=dynamic_batch, fused=fused,
                bench=bench)


def cases():
    out = []
    for dt in ("f32", "bf16", "f16"):
        out += [
            case(f"plain_{dt}", dt, 2, 3, 128, 128, 64),
            case(f"ragged_{dt}", dt, 1, 2, 77, 50, 40, 24),
            case(f"tiles_d128_{dt}", dt, 2, 2, 130, 200, 128, 128),
            case(f"tiny_d32_{dt}", dt, 1, 1, 5, 3, 16, 8),
            case(f"causal_{dt}", dt, 1, 2, 100, 100, 64, causal=True),
            case(f"causal_wide_{dt}", dt, 1, 2, 70, 150, 32, causal=True),
            case(f"boolmask_{dt}", dt, 2, 2, 33, 65, 64, mask=("bool", "b1ls")),
            case(f"addmask_{dt}", dt, 2, 2, 40, 70, 64, mask=("add", "ls"), scale=0.3),
            case(f"gqa_{dt}", dt, 1, 8, 20, 30, 64, Hk=2, gqa=True),
            case(f"rank3_{dt}", dt, 6, 0, 45, 45, 80, 48, rank3=True),
            case(f"bert_layout_{dt}", dt, 2, 4, 128, 128, 64, mask=("bool", "expand"), permuted=True),
            case(f"kv_broadcast_{dt}", dt, 3, 2, 17, 19, 64, kv_batch=1, mask=("add", "1hls")),
        ]
    for dt in ("f32", "bf16", "f16"):
        # The tensor-core kernels' edges (float32's TF32 products too): a head size of 96 and 2048 keys (many
        # key tiles, ragged queries); many query tiles with a ragged last key
        # tile and an additive mask; causal rows over grouped heads of 128
        # (warps with no keys left in a tile); permuted heads of 20 and 12
        # whose rows are 16-byte aligned for some heads only (cp.async and
        # element loads in one launch, partial 16-byte chunks).
        out += [
            case(f"e96_long_{dt}", dt, 1, 2, 300, 2048, 96, mask=("bool", "b1ls")),
            case(f"many_tiles_addmask_{dt}", dt, 2, 17, 1030, 333, 64, mask=("add", "ls")),
            case(f"causal_gqa_d128_{dt}", dt, 2, 20, 900, 1000, 128, Hk=4, gqa=True, causal=True),
            case(f"permuted_e20_{dt}", dt, 2, 4, 70, 90, 20, 12, permuted=True),
        ]
        # Grids too small for the GPU, whose blocks' keys are split among two
        # or four groups of warps (Attention.cpp's splitFor, on a GPU of 132
        # SMs such as the H200; others pick from their own count): causal
        # rows over a bool mask with a fully masked row (four groups, the
        # last step's tiles partly past the diagonal and past the keys);
        # head size 32 over grouped heads with an additive mask (two groups,
        # the last group of the last step past the keys); one query row a
        # head over 1000 keys (a decode step, four groups); and 384 blocks
        # of causal rows over 1024 keys (two groups for the long rows).
        out += [
            case(f"split4_causal_{dt}", dt, 1, 4, 600, 610, 64, mask=("bool", "b1ls"), causal=True),
            case(f"split2_gqa_d32_{dt}", dt, 1, 8, 100, 300, 32, Hk=2, gqa=True, mask=("add", "ls")),
            case(f"split4_decode_{dt}", dt, 3, 8, 1, 1000, 64, Hk=2, gqa=True, mask=("bool", "b1ls")),
            case(f"split2_causal_long_{dt}", dt, 2, 12, 1024, 1024, 64, causal=True),
        ]
    out += [
        case("dynamic_batch_bf16", "bf16", 0, 2, 64, 64, 64, dynamic_batch=[1, 3], causal=True),
        case("dynamic_batch_f32", "f32", 0, 3, 90, 90, 64, dynamic_batch=[1, 3], mask=("add", "ls")),
        case("no_heads_f32", "f32", 2, 0, 8, 8, 32),
        case("head256_f32_decomposed", "f32", 1, 2, 16, 16, 256, fused=False),
        case("f64_decomposed", "f64", 1, 2, 16, 16, 32, fused=False),
        case("bench_bert_b16_bf16", "bf16", 16, 12, 128, 128, 64, mask=("bool", "expand"), permuted=True,
             bench=True),
        case("bench_bert_b1_f32", "f32", 1, 12, 128, 128, 64, mask=("bool", "expand"), permuted=True, bench=True),
        case("bench_causal_2k_bf16", "bf16", 2, 16, 2048, 2048, 128, causal=True, bench=True),
    ]
    return out


def shapes(c, batch=None):
    """Operand shapes: q, k, v, mask (or None), result."""
    B = batch if batch is not None else c["B"]
    Bk = c["kv_batch"] if c["dynamic_batch"] is None else B
    H, Hk, L, S, E, Ev = c["H"], c["Hk"], c["L"], c["S"], c["E"], c["Ev"]
    if c["rank3"]:
        q, k, v, r = (B, L, E), (B, S, E), (B, S, Ev), (B, L, Ev)
    elif c["permuted"]:
        q, k, v, r = (B, L, H, E), (B, S, Hk, E), (B, S, Hk, Ev), (B, L, H, Ev)
    else:
        q, k, v, r = (B, H, L, E), (Bk, Hk, S, E), (Bk, Hk, S, Ev), (B, H, L, Ev)
    m = None
    if c["mask"]:
        m = {"b1ls": (B, 1, L, S), "ls": (L, S), "1hls": (1, H, L, S), "expand": (B, 1, 1, S)}[c["mask"][1]]
    return q, k, v, m, r


def ty(shape, dt, dyn=False):
    dims = ["?" if dyn and i == 0 else str(d) for i, d in enumerate(shape)]
    return f"tensor<{'x'.join(dims)}x{MLIR[dt]}>"


def module(c):
    dt, dyn = c["dtype"], c["dynamic_batch"] is not None
    q, k, v, m, r = shapes(c, 1 if dyn else None)
    mdt = "i1" if c["mask"] and c["mask"][0] == "bool" else dt
    args = [f"%q: {ty(q, dt, dyn)}", f"%k: {ty(k, dt, dyn)}", f"%v: {ty(v, dt, dyn)}"]
    if m:
        args.append(f"%m: {ty(m, mdt)}")
    body = []
    qn, kn, vn, mn = "%q", "%k", "%v", "%m"
    B, H, Hk, L, S, E, Ev = c["B"], c["H"], c["Hk"], c["L"], c["S"], c["E"], c["Ev"]
    sq, sk, sv = (B, H, L, E), (B, Hk, S, E), (B, Hk, S, Ev)
    if c["permuted"]:
        for n, src, dst in (("q", q, sq), ("k", k, sk), ("v", v, sv)):
            body.append(f"%{n}p = aten.permute %{n} {{dims = array<i64: 0, 2, 1, 3>}} : ({ty(src, dt)}) -> {ty(dst, dt)}")
        qn, kn, vn = "%qp", "%kp", "%vp"
    else:
        sq, sk, sv = q, k, v
    attn_shape = (sq[0], sq[1], sq[2], Ev) if len(sq) == 4 else (sq[0], sq[1], Ev)
    if c["mask"] and c["mask"][1] == "expand":
        full = (B, 1, L, S)
        body.append(f"%me = aten.expand %m[{B}, -1, {L}, {S}] : {ty(m, mdt)} -> {ty(full, mdt)}")
        mn, m = "%me", full
    attrs = []
    if c["causal"]:
        attrs.append("is_causal = true")
    if c["scale"] is not None:
        attrs.append(f"scale = {c['scale']:e} : f64")
    if c["gqa"]:
        attrs.append("enable_gqa = true")
    attr = " {" + ", ".join(attrs) + "}" if attrs else ""
    ops = [qn, kn, vn]
    types = [ty(sq, dt, dyn), ty(sk, dt, dyn), ty(sv, dt, dyn)]
    mask_part = ""
    if m:
        mask_part = f" mask {mn}"
        types.append(ty(m, mdt))
    res_t = ty(attn_shape, dt, dyn)
    body.append(f"%a = aten.scaled_dot_product_attention {', '.join(ops)}{mask_part}{attr} : ({', '.join(types)}) -> {res_t}")
    out = "%a"
    if c["permuted"]:
        body.append(f"%o = aten.permute %a {{dims = array<i64: 0, 2, 1, 3>}} : ({res_t}) -> {ty(r, dt)}")
        out, res_t = "%o", ty(r, dt)
    body.append(f"return {out} : {res_t}")
    return f"func.func @main({', '.join(args)}) -> {res_t} {{\n  " + "\n  ".join(body) + "\n}\n"


def reference(c, q, k, v, m):
    """float64 attention with kiln's (and ATen's) semantics: fully masked rows give zeros."""
    if c["permuted"]:
        q, k, v = (x.transpose(0, 2, 1, 3) for x in (q, k, v))
    if c["gqa"]:
        g = c["H"] // c["Hk"]
        k, v = np.repeat(k, g, axis=-3), np.repeat(v, g, axis=-3)
    scale = c["scale"] if c["scale"] is not None else 1.0 / np.sqrt(c["E"])
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    if m is not None:
        s = np.where(m, s, -np.inf) if m.dtype == bool else s + m
    if c["causal"]:
        L, S = s.shape[-2:]
        s = np.where(np.tril(np.ones((L, S), dtype=bool)), s, -np.inf)
    mx = s.max(axis=-1, keepdims=True)
    dead = ~np.isfinite(mx)
    p = np.where(np.isneginf(s), 0.0, np.exp(s - np.where(dead, 0.0, mx)))
    den = p.sum(axis=-1, keepdims=True)
    o = np.matmul(p, v) / np.where(den == 0, 1.0, den)
    o = np.where(dead, 0.0, o)
    if c["permuted"]:
        o = o.transpose(0, 2, 1, 3)
    return o


def round_to(x, dtype):
    """float32 `x` rounded to `dtype` (nearest even), as float64."""
    if dtype == "bf16":
        u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
        u = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
        return u.view(np.float32).astype(np.float64)
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float64)
    return x.astype(np.float64) if dtype == "f64" else x.astype(np.float32).astype(np.float64)


def inputs(c, rng, batch=None):
    """Seeded inputs of a case (rounded to its dtype, as float64; masks bool or float64)."""
    q, k, v, m, _ = shapes(c, batch)

    def rnd(shape):
        return round_to(rng.standard_normal(shape).astype(np.float32), c["dtype"])

    arrs = [rnd(q), rnd(k), rnd(v)]
    if m:
        if c["mask"][0] == "bool":
            mm = rng.random(m) < 0.7
            if m[-2] > 1:
                mm[..., 0, :] = False  # a fully masked row
            else:
                mm[..., 0] = True  # one mask row for every query: keep a key
            arrs.append(mm)
        else:
            mm = rnd(m)
            mm[..., 1, :3] = -np.inf
            mm[..., 2, :] = -np.inf  # a fully masked row
            arrs.append(mm)
    return arrs


def save(path, a, dtype):
    if a.dtype == bool:
        np.save(path, a)
    else:
        np.save(path, a.astype({"f32": np.float32, "bf16": np.float32, "f16": np.float16, "f64": np.float64}[dtype]))


def main():
    build, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    copy_kiln_run(build, out)
    shutil.copy(__file__, os.path.join(out, "attention.py"))
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pack_util.py"), out)
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "attention_run.py"), os.path.join(out, "run.py"))
    compile_ = os.path.join(build, "bin", "kiln-compile")
    bad = 0
    manifest = []
    for c in cases():
        d = os.path.join(out, "cases", c["name"])
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "model.mlir"), "w") as f:
            f.write(module(c))
        builds = [("cuda.so", [])] + ([("decomposed.so", ["--cuda-attention=decomposed"])] if c["bench"] else [])
        for so, extra in builds:
            r = subprocess.run([compile_, os.path.join(d, "model.mlir"), "--target=cuda", *extra, "-o", os.path.join(d, so)],
                               capture_output=True, text=True)
            if r.returncode:
                print(f"{c['name']}: FAIL to compile ({so}): {r.stderr.strip()[:2000]}")
                bad += 1
                continue
        ll = subprocess.run([compile_, os.path.join(d, "model.mlir"), "--target=cuda", "--emit=llvm", "-o", "-"],
                            capture_output=True, text=True).stdout
        fused = "kiln_gpu_sdpa_" in ll
        if fused != c["fused"]:
            print(f"{c['name']}: FAIL: {'calls' if fused else 'does not call'} the fused kernel")
            bad += 1
        q, k, v, m, _ = shapes(c)
        manifest.append(dict(c, input_shapes=[q, k, v] + ([m] if m else [])))
        print(f"{c['name']}: packed ({'fused' if fused else 'decomposed'}{', bench' if c['bench'] else ''})")
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    sys.exit(2 if bad else 0)


if __name__ == "__main__":
    main()

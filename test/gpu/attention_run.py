#!/usr/bin/env python3
"""The GPU half of test/gpu/attention.py: python3 run.py PACK_DIR [--no-bench].

Runs every packed attention case with kiln-run --device cuda, with CUDA
graphs and kernel by kernel, against numpy's float64 results; prints
PyTorch's own error beside kiln's where PyTorch has CUDA here; times the
bench cases fused and decomposed. Exits 1 if any case is off.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

TOL = {"f32": 2e-5, "f16": 4e-3, "bf16": 3e-2, "f64": 1e-10}


def torch_error(c, arrs, ref):
    """Max abs error of PyTorch's own SDPA in the case's dtype on this GPU, or None."""
    try:
        import torch
        import torch.nn.functional as F

        if not torch.cuda.is_available():
            return None
        dt = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16, "f64": torch.float64}[c["dtype"]]
        t = [torch.from_numpy(a).cuda().to(torch.bool if a.dtype == bool else dt) for a in arrs]
        q, k, v = t[:3]
        if c["permuted"]:
            q, k, v = (x.transpose(1, 2) for x in (q, k, v))
        kw = dict(attn_mask=t[3] if len(t) > 3 else None, is_causal=c["causal"], scale=c["scale"])
        if c["gqa"]:
            kw["enable_gqa"] = True
        if c["kv_batch"] != c["B"] and not c["permuted"]:
            k, v = k.expand(q.shape[0], *k.shape[1:]), v.expand(q.shape[0], *v.shape[1:])
        o = F.scaled_dot_product_attention(q, k, v, **kw)
        if c["permuted"]:
            o = o.transpose(1, 2)
        o = o.double().cpu().numpy()
        return float(np.max(np.abs(o - ref), initial=0.0)) if np.isfinite(o).all() else float("nan")
    except Exception as e:  # noqa: BLE001 (report, do not fail the kiln check)
        return f"torch error: {str(e)[:120]}"


def main():
    pack = os.path.abspath(sys.argv[1])
    bench = "--no-bench" not in sys.argv
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(pack, "lib") + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
    kiln_run = os.path.join(pack, "bin", "kiln-run")
    cases = json.load(open(os.path.join(pack, "cases.json")))
    bad = 0
    sys.path.insert(0, pack)
    import attention as A  # the packing script: shapes, inputs and the float64 reference

    rng = np.random.default_rng(0)
    for c in cases:
        if c["bench"]:
            continue
        d = os.path.join(pack, "cases", c["name"])
        for batch in c["dynamic_batch"] or [None]:
            arrs = A.inputs(c, rng, batch)
            ref = A.reference(c, *arrs[:3], arrs[3] if len(arrs) > 3 else None)
            errs = []
            with tempfile.TemporaryDirectory() as tmp:
                names = []
                for j, a in enumerate(arrs):
                    names.append(os.path.join(tmp, f"input{j}.npy"))
                    A.save(names[-1], a, c["dtype"])
                for graphs in (True, False):
                    cmd = [kiln_run, os.path.join(d, "cuda.so"), "--device", "cuda", "--output-dir", tmp, "--runs", "2"]
                    for n in names:
                        cmd += ["--input", n]
                    if not graphs:
                        cmd.append("--no-cuda-graphs")
                    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
                    if r.returncode:
                        errs.append(f"kiln-run failed: {(r.stderr or r.stdout).strip()[:300]}")
                        continue
                    o = np.load(os.path.join(tmp, "output0.npy")).astype(np.float64)
                    if o.shape != ref.shape:
                        errs.append(f"shape {o.shape} != {ref.shape}")
                        continue
                    errs.append(float(np.max(np.abs(o - ref), initial=0.0)) if np.isfinite(o).all() else float("nan"))
            tol = TOL[c["dtype"]]
            ok = all(isinstance(e, float) and e <= tol for e in errs)
            bad += not ok
            te = torch_error(c, arrs, ref)
            tes = f"{te:.3g}" if isinstance(te, float) else str(te)
            label = c["name"] + (f" (batch {batch})" if batch else "")
            shown = ", ".join(f"{e:.3g}" if isinstance(e, float) else e for e in errs)
            print(f"{label}: {'PASS' if ok else 'FAIL'} max|kiln - f64| graphs, no graphs = {shown} "
                  f"(tol {tol:g}); PyTorch {c['dtype']} on this GPU: {tes}", flush=True)
    for c in cases:
        if not c["bench"]:
            continue
        # Seeded inputs made here (N(0, 1); a bool mask dropping the last quarter
        # of the keys of every other batch, as the BERT benchmark's): fused and
        # decomposed builds must agree, then each is timed.
        d = os.path.join(pack, "cases", c["name"])
        rng = np.random.default_rng(1)
        with tempfile.TemporaryDirectory() as tmp:
            names = []
            for j, shape in enumerate(c["input_shapes"]):
                if j == 3:
                    a = np.ones(shape, dtype=bool)
                    a[1::2, ..., shape[-1] * 3 // 4:] = False
                else:
                    a = rng.standard_normal(shape).astype(np.float16 if c["dtype"] == "f16" else np.float32)
                names.append(os.path.join(tmp, f"input{j}.npy"))
                np.save(names[-1], a)
            outs, times = {}, {}
            for so in ("cuda.so", "decomposed.so"):
                cmd = [kiln_run, os.path.join(d, so), "--device", "cuda", "--output-dir", os.path.join(tmp, so)]
                for n in names:
                    cmd += ["--input", n]
                r = subprocess.run(cmd + (["--bench", "100"] if bench else []), capture_output=True, text=True, env=env)
                if r.returncode:
                    outs[so] = None
                    times[so] = (r.stdout + r.stderr).strip()[-300:]
                    continue
                outs[so] = np.load(os.path.join(tmp, so, "output0.npy")).astype(np.float64)
                m = re.search(r"median ([0-9.]+) ms", r.stdout + r.stderr)
                times[so] = m.group(1) if m else "-"
            if outs["cuda.so"] is None or outs["decomposed.so"] is None:
                ok, diff = False, "a run failed"
            else:
                e = float(np.max(np.abs(outs["cuda.so"] - outs["decomposed.so"])))
                ok, diff = e <= TOL[c["dtype"]], f"{e:.3g}"
            bad += not ok
            print(f"{c['name']}: {'PASS' if ok else 'FAIL'} max|fused - decomposed| = {diff} (tol {TOL[c['dtype']]:g}); "
                  f"median ms fused {times['cuda.so']}, decomposed {times['decomposed.so']}", flush=True)
    print(f"attention: {'all pass' if not bad else f'{bad} FAIL'}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""GPU latency of kiln against PyTorch eager and Inductor, on one GPU in one run.

usage: gpu_vs_torch.py PACK_DIR [--configs A,B] [--iters N] [--modes M,...] [--json FILE]
                      [--baseline PACK_DIR2] [--baseline-env K=V,...]

PACK_DIR is what bench/pack_gpu.sh made on the build machine. For each config
(bench/gpu_models.py) this rebuilds the model from its seed, checks that its
weights' digest equals the one the compiled model was built from, exports it
to supply kiln's external weights by name, and then times, after warm-up, the
median of N runs (CUDA events around each run, inputs already on the GPU):
  eager                  the module on the GPU
  inductor               torch.compile(module)
  inductor_ro            torch.compile(module, mode="reduce-overhead") (CUDA graphs)
  inductor_ro_freeze     the same with torch._inductor.config.freezing = True
                         (weights folded into the graph as constants)
  inductor_mat           torch.compile(module, mode="max-autotune-no-cudagraphs")
                         (not in the default modes: its autotuning costs minutes)
  kiln                   kiln-run MODEL.so --device cuda --bench N (CUDA events;
                         inputs and outputs on the GPU; CUDA graphs by default)
  kiln_base              the same for PACK_DIR2's build of the config (--baseline:
                         kiln before a change, timed in the same process; its
                         runs get --baseline-env's variables, so a baseline can
                         also be the same pack with a runtime setting changed)
kiln runs in one kiln-run process per pack: 5 runs (the first records, the
next capture and replay the CUDA graph), the last run's outputs written, then
--bench N runs of the same graph. That last output is checked against eager's: for float32 configs against eager
with TF32 off, relative L2 error at most 1e-3 (kiln, like PyTorch by default,
lets convolutions multiply in TF32: kiln-compile --cuda-tf32=conv; the error
against eager as PyTorch runs it by default, TF32 convolutions included, is
reported too); for bfloat16 configs against eager in bfloat16, relative L2
error at most 2e-2 (rounding of intermediates differs), and also reported
against a float32 eager run of the same weights; a bfloat16 output more than
2e-2 from eager's also passes when its error against that float32 run is at
most 2e-2 or 1.5 times eager bfloat16's own.
A kiln time whose output fails the check gets no ratio. kiln / best is kiln's
time over the fastest Inductor anchor's; the table ends with the geometric mean
of those ratios over the configs that have one (and says how many do not).
Inductor's compile time is the wall time of its first call. One JSON line per
config goes to stdout (and --json FILE); a table is printed last.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_models  # noqa: E402


def cuda_median_ms(fn, iters, warmup=10):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for s, e in zip(starts, ends):
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return float(np.median([s.elapsed_time(e) for s, e in zip(starts, ends)]))


def rel_l2(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape:
        return float("inf")
    if not np.all(np.isfinite(a)):
        return float("inf")
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def to_np(t):
    t = t.detach().cpu()
    return (t.float() if t.is_floating_point() else t).numpy()


def run(cmd, env):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    return p.returncode, p.stdout


def bench_config(name, pack, args, env, base_env, log):
    res = {"config": name, "device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "iters": args.iters}
    cdir = os.path.join(pack, name)
    compiled = {}
    if os.path.exists(os.path.join(cdir, "compile.json")):
        with open(os.path.join(cdir, "compile.json")) as f:
            compiled = json.load(f)
    res["kiln_compile_s"] = compiled.get("kiln_compile_s")
    res["kiln_compile_cpu_s"] = compiled.get("kiln_compile_cpu_s")
    res["kiln_commit"] = compiled.get("kiln_commit")
    t0 = time.time()
    m, inputs = gpu_models.build(name)
    digest = gpu_models.digest(m)
    res["weights_match"] = digest == compiled.get("digest")
    tmp = tempfile.mkdtemp(prefix=name)
    weights = os.path.join(tmp, "weights.pt2")
    if any(mode.startswith("kiln") for mode in args.modes):
        gpu_models.export(m, inputs, weights)
    log(f"{name}: built and exported in {time.time() - t0:.1f} s (weights match the compiled model's: "
        f"{res['weights_match']})")
    bf16 = gpu_models.ALL[name]["dtype"] == "bfloat16"
    m = m.cuda()
    xs = tuple(x.cuda() for x in inputs)
    with torch.no_grad():
        # References: eager as PyTorch runs by default, eager with TF32 off, and float32 eager.
        ref = to_np(m(*xs))
        tf32 = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
        torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
        if bf16:
            m32 = m.float()  # in place: cast back below (bf16 -> f32 -> bf16 is exact)
            ref32 = to_np(m32(*(x.float() if x.is_floating_point() else x for x in xs)))
            m = m32.to(torch.bfloat16)
            res["eager_rel_l2_vs_fp32_eager"] = rel_l2(ref, ref32)
        else:
            ref32 = to_np(m(*xs))
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = tf32
        check_ref = ref if bf16 else ref32
        if "eager" in args.modes:
            res["eager_ms"] = cuda_median_ms(lambda: m(*xs), args.iters)
            log(f"{name}: eager {res['eager_ms']:.4f} ms")
        for mode, key in (("default", "inductor"), ("reduce-overhead", "inductor_ro"),
                          ("reduce-overhead", "inductor_ro_freeze"), ("max-autotune-no-cudagraphs", "inductor_mat")):
            if key not in args.modes:
                continue
            torch._dynamo.reset()
            torch._inductor.config.freezing = key == "inductor_ro_freeze"
            cm = torch.compile(m, mode=mode)
            t = time.time()
            try:
                out = cm(*xs)
                torch.cuda.synchronize()
            except Exception as e:  # an anchor that does not compile is reported, not fatal
                res[key + "_error"] = f"{type(e).__name__}: {e}"[:1000]
                log(f"{name}: {key} failed: {res[key + '_error']}")
                torch._dynamo.reset()
                torch._inductor.config.freezing = False
                continue
            res[key + "_compile_s"] = round(time.time() - t, 2)
            res[key + "_rel_l2_vs_eager"] = rel_l2(to_np(out), ref)
            res[key + "_ms"] = cuda_median_ms(lambda: cm(*xs), args.iters)
            log(f"{name}: {key} {res[key + '_ms']:.4f} ms (compiled in {res[key + '_compile_s']} s, "
                f"rel L2 vs eager {res[key + '_rel_l2_vs_eager']:.3g})")
            del cm
            torch._dynamo.reset()
            torch._inductor.config.freezing = False
    kilns = [("kiln", pack, env)] if "kiln" in args.modes else []
    if args.baseline and "kiln_base" in args.modes:
        kilns.append(("kiln_base", args.baseline, dict(pack_env(args.baseline, base_env), **args.baseline_env)))
    ins = []
    for k, x in enumerate(inputs):
        ins += ["--input", os.path.join(tmp, f"input{k}.npy")]
        np.save(ins[-1], to_np(x))  # bf16 travels as float32; kiln-run converts it
    for key, kpack, kenv in kilns:
        so = os.path.join(kpack, name, "model.so")
        kiln_run = os.path.join(kpack, "bin", "kiln-run")
        if not os.path.exists(so):
            err = os.path.join(kpack, name, "compile-error.txt")
            res[key + "_error"] = "not compiled: " + (open(err).read()[-2000:] if os.path.exists(err) else "no model.so")
        else:
            outdir = os.path.join(tmp, key + "_out")
            os.makedirs(outdir)
            # One process: five runs (the first records, the next capture and
            # replay the CUDA graph; the last run's output is the replayed
            # one), then the timed replays of that graph.
            rc, text = run([kiln_run, so, "--device", "cuda", "--weights", weights, *ins, "--runs", "5",
                            "--output-dir", outdir, "--bench", str(args.iters)], kenv)
            if rc != 0:
                res[key + "_error"] = text.strip()[-2000:]
            else:
                got = np.load(os.path.join(outdir, "output0.npy"))
                res[key + "_rel_l2_vs_eager"] = rel_l2(got, check_ref)
                res[key + "_rel_l2_vs_fp32_eager"] = rel_l2(got, ref32)
                res[key + "_rel_l2_vs_default_eager"] = rel_l2(got, ref)
                res[key + "_max_abs_vs_eager"] = float(np.max(np.abs(got.astype(np.float64) - check_ref)))
                limit = 2e-2 if bf16 else 1e-3
                res[key + "_output_ok"] = res[key + "_rel_l2_vs_eager"] <= limit
                if bf16 and not res[key + "_output_ok"]:
                    # Against the float32 run of the same weights: no worse
                    # than 2e-2, or than 1.5 x eager bfloat16's own error.
                    own = res["eager_rel_l2_vs_fp32_eager"]
                    res[key + "_output_ok"] = res[key + "_rel_l2_vs_fp32_eager"] <= max(limit, 1.5 * own)
                mm = re.search(r"median ([0-9.]+) ms", text)
                if not mm:
                    res[key + "_error"] = text.strip()[-2000:]
                else:
                    res[key + "_ms"] = float(mm.group(1))
                log(f"{name}: {key} {res.get(key + '_ms', float('nan')):.4f} ms, rel L2 vs eager "
                    f"{res[key + '_rel_l2_vs_eager']:.3g} ({'OK' if res[key + '_output_ok'] else 'MISMATCH'})")
        if key + "_error" in res:
            log(f"{name}: {key} failed: {res[key + '_error']}")
    best = [res[k] for k in ("inductor_ms", "inductor_ro_ms", "inductor_ro_freeze_ms", "inductor_mat_ms") if k in res]
    if best and "kiln_ms" in res and res.get("kiln_output_ok"):
        res["kiln_vs_best_inductor"] = round(res["kiln_ms"] / min(best), 3)
    if best and "kiln_base_ms" in res and res.get("kiln_base_output_ok"):
        res["kiln_base_vs_best_inductor"] = round(res["kiln_base_ms"] / min(best), 3)
    return res


def pack_env(pack, env):
    """`env` with the pack's own runtime libraries first on the library path."""
    env = dict(env)
    env["LD_LIBRARY_PATH"] = os.path.join(pack, "lib") + ":" + env.get("LD_LIBRARY_PATH", "")
    return env


def geomean(xs):
    return float(np.exp(np.mean(np.log(xs)))) if xs else float("nan")


def print_table(rows):
    """The table of every config's median ms and ratios, and the geometric means."""
    def f(r, k):
        if isinstance(r.get(k), float):
            return f"{r[k]:.4f}"
        return "FAIL" if r.get(k[:-3] + "_error") or r.get("error") else "-"

    print(f"\n{'config':<28} {'eager':>8} {'inductor':>9} {'ind. r-o':>9} {'r-o+frz':>9} {'max-at':>8} "
          f"{'kiln base':>9} {'kiln':>8} {'base/best':>9} {'kiln/best':>9} {'kiln rel L2':>11} {'compile s':>9}",
          flush=True)
    for r in rows:
        ok = r.get("kiln_output_ok")
        l2 = ('%.3g' % r['kiln_rel_l2_vs_eager'] + ("" if ok else " BAD")) if 'kiln_rel_l2_vs_eager' in r else '-'
        print(f"{r['config']:<28} {f(r, 'eager_ms'):>8} {f(r, 'inductor_ms'):>9} {f(r, 'inductor_ro_ms'):>9} "
              f"{f(r, 'inductor_ro_freeze_ms'):>9} {f(r, 'inductor_mat_ms'):>8} {f(r, 'kiln_base_ms'):>9} "
              f"{f(r, 'kiln_ms'):>8} {str(r.get('kiln_base_vs_best_inductor', '-')):>9} "
              f"{str(r.get('kiln_vs_best_inductor', '-')):>9} {l2:>11} {str(r.get('kiln_compile_s', '-')):>9}")
    for key in ("kiln", "kiln_base"):
        ratios = [r[key + "_vs_best_inductor"] for r in rows if key + "_vs_best_inductor" in r]
        if ratios:
            print(f"{key} / best anchor: geometric mean {geomean(ratios):.3f} over {len(ratios)} configs "
                  f"({len(rows) - len(ratios)} without a ratio: not compiled, failed or wrong output)")
    for r in rows:
        for k, v in r.items():
            if k.endswith("error"):
                print(f"{r['config']}: {k}: {str(v).strip().splitlines()[-1][:300] if str(v).strip() else v}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pack", nargs="?")
    ap.add_argument("--configs", default=",".join(gpu_models.CONFIGS))
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--modes", default="eager,inductor,inductor_ro,inductor_ro_freeze,kiln,kiln_base")
    ap.add_argument("--baseline", help="a second pack (kiln before a change), timed as kiln_base")
    ap.add_argument("--baseline-env", default="", help="K=V,... set for kiln_base's runs only")
    ap.add_argument("--json")
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="print the table of earlier runs' --json files (shards run apart) and exit")
    args = ap.parse_args()
    if args.merge:
        rows = [json.loads(line) for fn in args.merge for line in open(fn) if line.strip()]
        print_table(rows)
        return 0
    args.modes = args.modes.split(",")
    pack = os.path.abspath(args.pack)
    args.baseline = os.path.abspath(args.baseline) if args.baseline else None
    args.baseline_env = dict(kv.split("=", 1) for kv in args.baseline_env.split(",") if kv)
    base_env = gpu_models.cudnn_env(dict(os.environ))
    env = pack_env(pack, base_env)

    def log(s):
        print(s, file=sys.stderr, flush=True)

    rows = []
    for name in args.configs.split(","):
        try:
            res = bench_config(name, pack, args, env, base_env, log)
        except Exception as e:  # one config's failure must not lose the others' numbers
            res = {"config": name, "error": f"{type(e).__name__}: {e}"[:2000]}
            log(f"{name}: FAILED: {res['error']}")
        line = json.dumps(res)
        print(line, flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(line + "\n")
        rows.append(res)
    print_table(rows)
    return 0 if all(r.get("kiln_output_ok") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

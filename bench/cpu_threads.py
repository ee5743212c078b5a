#!/usr/bin/env python3
"""kiln's CPU compile time and latency with 1 and 2 threads, side by side in one run.

For each model (ResNet-50 and BERT-base s128 at batch 1 as bench/gpu_models.py
builds them, torchvision's MobileNetV3-Large and SqueezeNet 1.1 at 1x3x224x224;
random weights from fixed seeds, float32, nothing downloaded) it exports the
model with PyTorch's outputs into WORK/<name>/ (once), compiles it with each
given build's kiln-compile (wall and CPU seconds of the process), checks the
output against PyTorch's (rtol/atol 1e-3), and times `kiln-run --bench N`
with --threads 1 and --threads 2, alternating over --rounds rounds so both
see the same machine load. Prints the median over rounds of the medians, and
one JSON line per (build, model).

usage: bench/cpu_threads.py WORK BUILD_DIR [BUILD_DIR...] [--models a,b] [--iters N] [--rounds R]
A build older than --threads is timed with KILN_NUM_THREADS (ignored there: one thread).
"""
import argparse, json, os, re, resource, subprocess, sys, time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["resnet50", "bert_base", "mobilenet_v3_large", "squeezenet1_1"]


def export(work, name):
    d = os.path.join(work, name)
    if os.path.exists(os.path.join(d, "output0.npy")):
        return d
    import torch
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from gpu_models import build
    torch.manual_seed(0)
    if name == "resnet50":
        m, args = build("resnet50_b1_fp32")
    elif name == "bert_base":
        m, args = build("bert_base_b1_fp32")
    else:
        import torchvision
        m = getattr(torchvision.models, name)().eval()
        g = torch.Generator().manual_seed(1)
        args = (torch.randn(1, 3, 224, 224, generator=g),)
    os.makedirs(d, exist_ok=True)
    with torch.no_grad():
        y = m(*args)
        ep = torch.export.export(m, args)
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    for i, a in enumerate(args):
        np.save(os.path.join(d, f"input{i}.npy"), a.numpy())
    np.save(os.path.join(d, "output0.npy"), y.numpy())
    return d


def compile_model(build, d, so, extra):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([os.path.join(build, "bin", "kiln-compile"), os.path.join(d, "model.pt2"), "-o", so] + extra,
                   check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def run(build, so, d, threads, iters, check):
    inputs = sorted(f for f in os.listdir(d) if f.startswith("input"))
    cmd = [os.path.join(build, "bin", "kiln-run"), so]
    for f in inputs:
        cmd += ["--input", os.path.join(d, f)]
    if check:
        cmd += ["--expect", os.path.join(d, "output0.npy"), "--rtol", "1e-3", "--atol", "1e-3"]
    else:
        cmd += ["--bench", str(iters)]
    help_text = subprocess.run([os.path.join(build, "bin", "kiln-run"), "--help"], capture_output=True,
                               text=True).stdout
    env = dict(os.environ)
    if "--threads" in help_text:
        cmd += ["--threads", str(threads)]
    else:
        env["KILN_NUM_THREADS"] = str(threads)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    if check:
        return out.strip().splitlines()[-1]
    return float(re.search(r"median ([0-9.]+) ms", out).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("builds", nargs="+")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--compile-args", default="", help="extra kiln-compile arguments, space-separated")
    args = ap.parse_args()
    for name in args.models.split(","):
        d = export(args.work, name)
        for build in args.builds:
            tag = os.path.basename(os.path.dirname(os.path.abspath(build))) or build
            so = os.path.join(args.work, f"{name}.{tag}.so")
            wall, cpu = compile_model(build, d, so, args.compile_args.split())
            check = run(build, so, d, 2, 1, True)
            ms = {1: [], 2: []}
            for _ in range(args.rounds):
                for threads in (1, 2):
                    ms[threads].append(run(build, so, d, threads, args.iters, False))
            m1, m2 = float(np.median(ms[1])), float(np.median(ms[2]))
            print(f"{name:20} {tag:12} compile {wall:6.2f} s wall {cpu:6.2f} s cpu | 1 thread {m1:9.2f} ms"
                  f" | 2 threads {m2:9.2f} ms | speed-up {m1 / m2:4.2f} | {check}", flush=True)
            print(json.dumps(dict(model=name, build=tag, compile_wall_s=wall, compile_cpu_s=cpu, ms_1t=m1,
                                  ms_2t=m2, check=check)), flush=True)


if __name__ == "__main__":
    sys.exit(main())

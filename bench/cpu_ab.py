#!/usr/bin/env python3
"""Two kiln builds (A, B) side by side on torchvision models, interleaved
round by round (A then B, then B then A), next to ONNX Runtime in the same
rounds: for comparing a branch with main on a shared, noisy machine, where
only figures taken together mean anything.

For each model (a torchvision constructor name; seeded random weights,
1x3x224x224 input) it exports the archive, eager's output and an ONNX file
once into WORK/NAME/, compiles it with each build's kiln-compile (or, with
--same-so, with A's only, so B's kiln-run and runtime run A's program), and
times `kiln-run --bench N --expect` (every output checked against eager's,
rtol/atol 1e-3) at each thread count, with ONNX Runtime's median of N runs
(its output checked once) after each pair. Prints one JSON line per round
(with the one-minute load average) and a table of the rounds' medians and
each build's CPU ms a run (kiln-run's figure: all of its threads).

usage: bench/cpu_ab.py WORK BUILD_A BUILD_B [--models a,b] [--threads 1,2] [--rounds N] [--iters N]
                       [--ort] [--same-so]
"""
import argparse, json, os, re, subprocess, sys, time
import numpy as np
import torch


def make(name):
    import torchvision
    ctor = getattr(torchvision.models, name)
    return ctor()


def export(work, name):
    d = os.path.join(work, name)
    pt2 = os.path.join(d, "model.pt2")
    if os.path.exists(pt2):
        return d
    os.makedirs(d, exist_ok=True)
    torch.manual_seed(0)
    m = make(name).eval()
    x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        ref = m(x)
    ep = torch.export.export(m, (x,))
    torch.export.save(ep, pt2)
    np.save(os.path.join(d, "input0.npy"), x.numpy())
    np.save(os.path.join(d, "output0.npy"), ref.numpy())
    torch.onnx.export(m, (x,), os.path.join(d, "model.onnx"), dynamo=False)
    return d


def kiln_run(build, so, d, threads, iters):
    env = dict(os.environ, KILN_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    cmd = [os.path.join(build, "bin", "kiln-run"), so, "--bench", str(iters), "--input",
           os.path.join(d, "input0.npy"), "--expect", os.path.join(d, "output0.npy"), "--rtol", "1e-3", "--atol", "1e-3"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    m = re.search(r"median ([0-9.]+) ms", p.stdout)
    c = re.search(r"CPU time ([0-9.]+) ms a run", p.stdout)
    if p.returncode or not m:
        raise SystemExit(f"kiln-run failed ({build}, {so}, {threads}t):\n{p.stdout[-800:]}")
    return float(m.group(1)), float(c.group(1)) if c else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work"); ap.add_argument("a"); ap.add_argument("b")
    ap.add_argument("--models", default="mobilenet_v3_large")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--ort", action="store_true")
    ap.add_argument("--same-so", action="store_true", help="compile with A only; B's kiln-run (runtime) runs A's .so")
    args = ap.parse_args()
    res = {}
    for name in args.models.split(","):
        d = export(args.work, name)
        sos = {}
        for tag, build in (("A", args.a), ("B", args.b)):
            so = os.path.join(d, f"{tag}.so")
            if args.same_so and tag == "B":
                so = sos["A"][1]
            else:
                subprocess.run([os.path.join(build, "bin", "kiln-compile"), os.path.join(d, "model.pt2"), "-o", so],
                               check=True)
            sos[tag] = (build, so)
        sess = {}
        if args.ort:
            import onnxruntime as ort
            for t in map(int, args.threads.split(",")):
                so = ort.SessionOptions(); so.intra_op_num_threads = t; so.inter_op_num_threads = 1
                s = ort.InferenceSession(os.path.join(d, "model.onnx"), so, providers=["CPUExecutionProvider"])
                x = np.load(os.path.join(d, "input0.npy"))
                got = s.run(None, {s.get_inputs()[0].name: x})[0]
                assert np.allclose(got, np.load(os.path.join(d, "output0.npy")), rtol=1e-3, atol=1e-3), "ORT output"
                sess[t] = (s, {s.get_inputs()[0].name: x})
        for r in range(args.rounds):
            for t in map(int, args.threads.split(",")):
                row = {"model": name, "threads": t, "round": r, "load": round(os.getloadavg()[0], 2)}
                for tag in ("A", "B") if r % 2 == 0 else ("B", "A"):
                    build, so = sos[tag]
                    row[tag], row[tag + "_cpu"] = kiln_run(build, so, d, t, args.iters)
                if args.ort:
                    s, feed = sess[t]
                    for _ in range(5): s.run(None, feed)
                    ts = []
                    for _ in range(args.iters):
                        t0 = time.perf_counter(); s.run(None, feed); ts.append((time.perf_counter() - t0) * 1e3)
                    row["ort"] = round(float(np.median(ts)), 3)
                print(json.dumps(row), flush=True)
                res.setdefault((name, t), []).append(row)
    print("\n| model | threads | A medians | B medians | ORT medians | B / A | A CPU | B CPU |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for (name, t), rows in res.items():
        a = [x["A"] for x in rows]; b = [x["B"] for x in rows]; o = [x.get("ort") for x in rows]
        print(f"| {name} | {t} | {', '.join(f'{v:.2f}' for v in a)} | {', '.join(f'{v:.2f}' for v in b)} | "
              f"{', '.join(f'{v:.2f}' for v in o if v)} | {np.median(b)/np.median(a):.3f} | "
              f"{', '.join('%.2f' % x['A_cpu'] for x in rows)} | {', '.join('%.2f' % x['B_cpu'] for x in rows)} |")


if __name__ == "__main__":
    main()

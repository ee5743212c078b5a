#!/usr/bin/env python3
"""Runs the OpInfo vmap sweep (test/data/opinfo-vmap) with kiln-compile --vmap and kiln-run.

Each case's per-sample program (model.pt2) is compiled with
`kiln-compile --vmap=<the case's in dims>` and run on the batch of 2 samples
with `kiln-run --torch-tolerances --expect` against torch.func.vmap's outputs.
Prints the pass rate over the entries torch.func.vmap batches, writes
WORK/results.json, and fails (exit 1) when an entry listed as passing in the
baseline no longer passes or fewer entries pass than the baseline records;
--update-baseline records the passing entries. Standard library only.

usage: run_vmap.py --kiln-compile BIN --kiln-run BIN --work DIR [--only REGEX] [--jobs N]
                   [--baseline FILE] [--update-baseline]
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "opinfo-vmap")


def first_error_line(text):
    for line in text.splitlines():
        if "error" in line:
            return line.strip()[:200]
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1][:200] if lines else ""


def run_case(case, cases_dir, work, tools):
    d = os.path.join(cases_dir, case["name"])
    so = os.path.join(work, case["name"] + ".so")
    try:
        p = subprocess.run([tools["compile"], os.path.join(d, "model.pt2"), "--vmap=" + case["vmap"],
                            "-o", so], capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {"status": "compile", "error": "kiln-compile timed out"}
    if p.returncode:
        return {"status": "compile", "error": first_error_line(p.stderr)}
    cmd = [tools["run"], so, "--torch-tolerances"]
    for i in range(case["inputs"]):
        cmd += ["--input", os.path.join(d, f"input{i}.npy")]
    for i in range(case["outputs"]):
        cmd += ["--expect", os.path.join(d, f"output{i}.npy")]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return {"status": "run", "error": "kiln-run timed out"}
    finally:
        if os.path.exists(so):
            os.remove(so)
    if p.returncode:
        return {"status": "mismatch" if p.returncode == 1 else "run",
                "error": first_error_line(p.stdout + p.stderr)}
    return {"status": "pass"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kiln-compile", required=True)
    ap.add_argument("--kiln-run", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--only")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--baseline", default=os.path.join(HERE, "baseline-vmap.json"))
    ap.add_argument("--update-baseline", action="store_true")
    args = ap.parse_args()
    with open(os.path.join(args.data, "cases.json")) as f:
        index = json.load(f)
    os.makedirs(args.work, exist_ok=True)
    cases_dir = os.path.join(args.work, "cases")
    if not os.path.isdir(cases_dir):
        with tarfile.open(os.path.join(args.data, index["archive"])) as tar:
            tar.extractall(cases_dir, filter="data")
    tools = {"compile": args.kiln_compile, "run": args.kiln_run}
    cases = [c for c in index["cases"] if not args.only or __import__("re").search(args.only, c["opinfo"])]
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_case, c, cases_dir, args.work, tools): c for c in cases}
        for fut in concurrent.futures.as_completed(futures):
            c = futures[fut]
            results[c["opinfo"]] = fut.result()
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    entries = index["entries"]
    vmappable = [e for e, v in entries.items() if v["status"] == "exported"]
    passing = sorted(e for e, r in results.items() if r["status"] == "pass")
    by_status = {}
    for r in results.values():
        by_status[r["status"]] = by_status.get(r["status"], 0) + 1
    print(f"OpInfo entries: {len(entries)}; torch.func.vmap batches {len(vmappable)} "
          f"(float32 sample, batch {index['batch']}); ran {len(results)}")
    print(f"kiln-compile --vmap passes {len(passing)} of {len(results)} "
          f"({100.0 * len(passing) / max(len(results), 1):.1f}%); "
          + ", ".join(f"{k} {v}" for k, v in sorted(by_status.items())))
    if args.update_baseline:
        with open(args.baseline, "w") as f:
            json.dump({"passing": passing}, f, indent=1)
            f.write("\n")
        print(f"baseline: {len(passing)} passing entries recorded in {args.baseline}")
        return 0
    if os.path.exists(args.baseline) and not args.only:
        with open(args.baseline) as f:
            base = json.load(f)["passing"]
        lost = [e for e in base if results.get(e, {}).get("status") != "pass"]
        for e in lost:
            print(f"regression: {e}: {results.get(e, {}).get('error', 'not run')}")
        if lost or len(passing) < len(base):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

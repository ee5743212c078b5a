"""Runs the OpInfo entries' gradients (opinfo-entries-grad) with kiln-compile --grad.

Standard library only. For each case of test/data/opinfo-entries-grad (made by
generate_grad.py) and each of its archives (default IR, and Core ATen IR where
it differs), both taken from the entries suite (test/data/opinfo-entries), the
runner compiles the archive with `kiln-compile --grad`, runs it with the case's
inputs and cotangents and compares every gradient torch.autograd computed
(`kiln-run --expect-grads`, rtol 1e-4 / atol 1e-5: float32 gradients reach the
same value through differently ordered sums, so they get a looser rtol than
assert_close's 1.3e-6 for one float32 op). An entry passes an IR when every
gradient of every one of its cases matches; one kiln cannot differentiate
fails with kiln's error. Results go to WORK/results.json.

The run fails (exit 1) if a case that the baseline
(test/opinfo/baseline-entries-grad.json) lists as passing no longer passes, or if
fewer entries pass in either IR; --update-baseline records the current passes.

usage: run_grad.py --kiln-compile PATH --kiln-run PATH [--work DIR] [--jobs 2]
                   [--only REGEX] [--update-baseline [--accept-regressions]]

CUDA (programs compiled here, run on a GPU machine without LLVM), as run.py:
  run_grad.py --target cuda --compile-only --kiln-compile PATH --work PACK/entries-grad
      compiles every archive with --grad --target=cuda --cuda-tf32=none and keeps
      the .so files and WORK/compiled.json (the archives that did not compile);
  run_grad.py --prebuilt PACK/entries-grad --device cuda --kiln-run PATH --work W
              [--batch 25] [--deadline S] [--device-name NAME]
      runs them there through `kiln-run --batch`, gradients compared on the
      device against the same expected values; no baseline check (it is the CPU's).
test/gpu/opinfo-pack.sh and test/gpu/opinfo-run.sh (suite entries-grad) wrap both.
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (extract, first_error_line, timeouts)

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "data", "opinfo-entries-grad"))
BASELINE = os.path.join(HERE, "baseline-entries-grad.json")
RTOL, ATOL = 1e-4, 1e-5
GRAD_LINE = re.compile(r"^output \d+ \(\"grads/(input\d+)\".*\) vs '.*': (.*): (OK|MISMATCH)$")
MISSING_LINE = re.compile(r"^'.*': the model has no gradient named '(input\d+)': MISMATCH$")
IR_ARCHIVES = {"default": "model", "core": "model.core"}


def grad_run_args(case, fwd, grads_dir):
    """kiln-run's arguments after the model: tolerances, the expected
    gradients' folder, the case's inputs, then its cotangents."""
    d = os.path.join(grads_dir, case["name"])
    args = ["--rtol", str(RTOL), "--atol", str(ATOL), "--expect-grads", d]
    args += [a for i in range(case["inputs"]) for a in ("--input", os.path.join(fwd, case["name"], f"input{i}.npy"))]
    args += [a for k in range(case["outputs"]) for a in ("--cotangent", os.path.join(d, f"cotangent{k}.npy"))]
    return args


def read_grads(rec, rc, stdout, stderr, want):
    """Fills rec from one kiln-run of a --grad model: 'ran' with each
    gradient's comparison when every gradient in `want` was compared, else the
    run's error."""
    for line in stdout.splitlines():
        m = GRAD_LINE.match(line)
        if m:
            rec["grads"][m.group(1)] = "ok" if m.group(3) == "OK" else m.group(2)
        m = MISSING_LINE.match(line)
        if m:
            rec["grads"][m.group(1)] = "kiln gives no gradient for this input"
    if rc in (0, 1) and want <= set(rec["grads"]):
        rec["status"] = "ran"
    else:
        rec.update(status="run-error", reason=f"kiln-run exit {rc}: " + run.first_error_line(stderr + stdout))


def wanted(case):
    return {f"input{i}" for i in case["grads"]}


def new_record(case, ir):
    return {"case": case["name"], "ir": ir, "status": None, "reason": None, "grads": {}, "seconds": 0.0}


def run_grad(case, ir, fwd, grads_dir, work, tools):
    """Compiles one archive with --grad (and the target's flags), runs it
    unless compiling only, and returns its record."""
    name = case["name"]
    so = os.path.join(work, "so", f"{name}.{ir}.grad.so")
    rec = new_record(case, ir)
    t0 = time.time()
    try:
        p = subprocess.run([tools["compile"], os.path.join(fwd, name, ir + ".pt2"), "--grad", "-o", so,
                            *tools.get("compile_flags", [])],
                           capture_output=True, text=True, timeout=run.COMPILE_TIMEOUT)
    except subprocess.TimeoutExpired:
        rec.update(status="compile-timeout", reason=f"kiln-compile ran over {run.COMPILE_TIMEOUT} s",
                   seconds=time.time() - t0)
        return rec
    if p.returncode != 0:
        reason = run.first_error_line(p.stderr)
        crash = p.returncode < 0 or p.returncode not in (1, 2)
        rec.update(status="compile-crash" if crash else "compile-error",
                   reason=f"kiln-compile exit {p.returncode}: {reason}" if crash else reason,
                   seconds=time.time() - t0)
        return rec
    if tools.get("compile_only"):  # kept for --prebuilt on another machine
        rec.update(status="compiled", seconds=time.time() - t0)
        return rec
    cmd = [tools["run"], so, *grad_run_args(case, fwd, grads_dir)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=run.RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        rec.update(status="run-timeout", reason=f"kiln-run ran over {run.RUN_TIMEOUT} s", seconds=time.time() - t0)
        return rec
    finally:
        if os.path.exists(so):
            os.unlink(so)
    read_grads(rec, p.returncode, p.stdout, p.stderr, wanted(case))
    rec["seconds"] = time.time() - t0
    return rec


def run_prebuilt(selected, fwd, grads_dir, args, tools):
    """The --prebuilt programs (compiled elsewhere with --compile-only) run
    through `kiln-run --batch`, --jobs processes at a time; an archive that did
    not compile there fails with the compiler's error. Returns the records."""
    records, items = [], []
    for c in selected:
        for ir in c["irs"]:
            rec = new_record(c, ir)
            so, failed = run.prebuilt_program(tools, f"{c['name']}.{ir}", f"{c['name']}.{ir}.grad.so")
            if failed:
                rec.update(failed)
                records.append(rec)
                continue
            items.append((rec, so, grad_run_args(c, fwd, grads_dir) + tools.get("run_flags", [])))
    want = {c["name"]: wanted(c) for c in selected}

    def read(rec, rc, stdout, stderr):
        read_grads(rec, rc, stdout, stderr, want[rec["case"]])

    return records + run.run_batches_in_jobs(items, args, tools, read)


def case_result(rec):
    """(passed, reason) of one record."""
    if rec["status"] != "ran":
        return False, f"{rec['status']}: {rec['reason']}"
    bad = [(k, v) for k, v in sorted(rec["grads"].items()) if v != "ok"]
    return (not bad), (None if not bad else f"grad of {bad[0][0]} mismatch: {bad[0][1]}")


def entry_status(index, results):
    """Per entry: its status in the gradient suite and, per IR, pass and reason."""
    out = {}
    for oid, e in index["entries"].items():
        out[oid] = {"status": e["status"], "differentiable": e["differentiable"]}
        if e.get("left_out"):
            out[oid]["reason"] = e["left_out"][0]
    for c in index["cases"]:
        e = out[c["opinfo"]]
        for ir, archive in IR_ARCHIVES.items():
            a = archive if archive in c["irs"] else "model"
            passed, reason = results.get((c["name"], a), (False, "not run"))
            slot = e.setdefault("grad", {}).setdefault(ir, {"pass": True, "reason": None})
            if not passed and slot["pass"]:
                slot.update({"pass": False, "reason": reason})
    return out


def main():
    args = run.parse_runner_args(__doc__.splitlines()[0], "opinfo-grad-work", DATA, BASELINE,
                                 "the baseline file", 25,
                                 "with --prebuilt: programs per kiln-run --batch process")
    t0 = time.time()

    with open(os.path.join(args.data, "cases.json")) as f:
        index = json.load(f)
    fwd_data = os.path.normpath(os.path.join(args.data, index["forward"]))
    with open(os.path.join(fwd_data, "cases.json")) as f:
        fwd_index = json.load(f)
    if fwd_index["archive_sha256"] != index["forward_sha256"]:
        sys.exit(f"run_grad.py: {fwd_data} changed since the gradients were made; run generate_grad.py again")
    os.makedirs(os.path.join(args.work, "so"), exist_ok=True)
    fwd = run.extract(fwd_index, os.path.join(args.work, "forward"), fwd_data)
    grads_dir = run.extract(index, os.path.join(args.work, "gradients"), args.data)
    tools = run.runner_tools(args)
    selected = [c for c in index["cases"] if not args.only or re.search(args.only, c["name"])]
    records = []
    if args.prebuilt:
        tools["prebuilt"] = run.prebuilt_info(args.prebuilt, index)
        records = run_prebuilt(selected, fwd, grads_dir, args, tools)
    else:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            futs = [pool.submit(run_grad, c, ir, fwd, grads_dir, args.work, tools)
                    for c in selected for ir in c["irs"]]
            for f in concurrent.futures.as_completed(futs):
                records.append(f.result())
    records.sort(key=lambda r: (r["case"], r["ir"]))
    if args.compile_only:
        return run.write_compiled(args.work, index, records, time.time() - t0)
    results = {(r["case"], r["ir"]): case_result(r) for r in records}
    entries = entry_status(index, results)
    n_pass = sum(1 for v in results.values() if v[0])
    figs = {ir: sum(1 for e in entries.values() if e.get("grad", {}).get(ir, {}).get("pass")) for ir in IR_ARCHIVES}
    n_diff = sum(1 for e in entries.values() if e["differentiable"])
    n_diff_exp = sum(1 for e in entries.values() if e["differentiable"] and e["status"] in ("exported", "no-gradient"))
    result = {"seconds": round(time.time() - t0, 1), "archives": len(records), "archives_passed": n_pass,
              "entries_total": len(entries), "entries_differentiable": n_diff,
              "entries_differentiable_exported": n_diff_exp, "entries_passing": figs,
              "rtol": RTOL, "atol": ATOL, "entries": entries, "records": records}
    if args.device_name:
        result["device_name"] = args.device_name
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(f"opinfo-grad: {len(records)} archives compiled with --grad, {n_pass} pass "
          f"({time.time() - t0:.0f} s with {args.jobs} jobs)")
    for ir, n in figs.items():
        print(f"opinfo-grad: {ir} IR: gradients of {n} of {n_diff} differentiable OpInfo entries match "
              f"torch.autograd ({100 * n / max(n_diff, 1):.1f}%; {100 * n / max(n_diff_exp, 1):.1f}% of the "
              f"{n_diff_exp} torch.export exports)")
    if args.only or args.prebuilt:  # the baseline is the CPU's
        return 0
    baseline = {"passing": [], "entries_passing": {}}
    if os.path.exists(args.baseline):
        with open(args.baseline) as f:
            baseline = json.load(f)
    now = {f"{c}:{ir}" for (c, ir), v in results.items() if v[0]}
    regressed = sorted(k for k in baseline["passing"] if k not in now)
    for k in regressed[:50]:
        c, ir = k.rsplit(":", 1)
        print(f"opinfo-grad: REGRESSION {k}: {results.get((c, ir), (False, 'no longer generated'))[1]}")
    dropped = False
    for ir, n in figs.items():
        if n < baseline["entries_passing"].get(ir, 0):
            dropped = True
            print(f"opinfo-grad: REGRESSION: {n} entries pass in the {ir} IR, the baseline has "
                  f"{baseline['entries_passing'][ir]}")
    newly = sorted(now - set(baseline["passing"]))
    if newly and not args.update_baseline:
        print(f"opinfo-grad: {len(newly)} archives pass that the baseline does not list "
              f"(record them: run_grad.py --update-baseline)")
    rc = run.settle_baseline("opinfo-grad", args, args.baseline, baseline, regressed or dropped,
                             {"entries_passing": figs, "passing": sorted(now)}, "archives")
    if args.update_baseline and rc == 0:
        print(f"opinfo-grad: baseline updated: {len(now)} passing archives")
    return rc


if __name__ == "__main__":
    sys.exit(main())

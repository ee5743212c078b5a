"""Runs kiln's OpInfo conformance cases (made by generate.py) and checks them
against the committed baseline. Standard library only: no torch, no NumPy.

Each case is a small exported program (test/data/opinfo/cases.tar.xz, indexed
by cases.json). For each of its archives (default IR, and Core ATen IR where it
differs) the runner compiles it with kiln-compile, runs it with kiln-run
--expect --torch-tolerances (torch.testing.assert_close's default rtol/atol for
each output's dtype; integers and bool exactly) and records, per sample, pass
or the first line of kiln's error. Results go to WORK/results.json (and one
JSON per archive under WORK/results/).

The run fails (exit 1) if a sample that the baseline (test/opinfo/baseline.json)
lists as passing no longer passes, or if the share of core ops that pass all
their float32 samples drops below the baseline's figure. --update-baseline
records the current passes (it refuses to drop passing samples unless
--accept-regressions is given: say why in the commit).

usage: run.py --kiln-compile PATH --kiln-run PATH [--work DIR] [--jobs 2]
              [--only REGEX] [--update-baseline [--accept-regressions]]

CUDA (a GPU machine without LLVM runs programs compiled on a machine with it):
  run.py --target cuda --compile-only --kiln-compile PATH --data D --work PACK/so-dir
      compiles every archive for CUDA (plain float32: --cuda-tf32=none) and keeps
      the .so files and WORK/compiled.json (each archive's compile record);
  run.py --prebuilt WORK --device cuda --kiln-run PATH --data D --work W [--batch 25]
         [--deadline S]
      runs them there with `kiln-run --device cuda` against PyTorch's outputs; an
      archive that did not compile for CUDA fails with the compiler's error. With
      --batch N, N programs share one `kiln-run --batch` process (CUDA is set up
      once per process); past --deadline the programs left fail as not-run.
test/gpu/opinfo-pack.sh and test/gpu/opinfo-run.sh wrap both steps.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "data", "opinfo"))
BASELINE = os.path.join(HERE, "baseline.json")
COMPILE_TIMEOUT = 120
RUN_TIMEOUT = 60
OUTPUT_LINE = re.compile(r"^output (\d+) \(.*\) vs '.*': (.*): (OK|MISMATCH)$")


def first_error_line(text):
    """The first line that says 'error:' (without the file prefix), else the first line."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        i = l.find("error: ")
        if i >= 0:
            return l[i + len("error: "):][:300]
    return lines[0][:300] if lines else "(no message)"


def extract(index, work, data=DATA):
    """Unpacks the cases once per archive version into WORK/cases."""
    dest = os.path.join(work, "cases")
    stamp = os.path.join(dest, ".sha256")
    if os.path.exists(stamp) and open(stamp).read().strip() == index["archive_sha256"]:
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    tar_path = os.path.join(data, index["archive"])
    with open(tar_path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if digest != index["archive_sha256"]:
        sys.exit(f"run.py: {tar_path} does not match cases.json (sha256 {digest}); regenerate both together")
    with tarfile.open(tar_path, "r:xz") as tar:
        for m in tar.getmembers():
            if not m.isfile() or m.name.startswith("/") or ".." in m.name.split("/"):
                sys.exit(f"run.py: unexpected member {m.name!r} in {tar_path}")
        tar.extractall(dest)
    with open(stamp, "w") as f:
        f.write(index["archive_sha256"])
    return dest


def case_files(case, cases_dir):
    d = os.path.join(cases_dir, case["name"])
    return ([os.path.join(d, f"input{i}.npy") for i in range(case["inputs"])],
            [os.path.join(d, f"output{i}.npy") for i in range(case["outputs"])])


def compile_program(archive, so, rec, tools):
    """kiln-compile ARCHIVE -o SO with the target's flags; on failure fills in
    rec's status and reason and returns False. (A packed .so is not stripped:
    its weights are appended after the ELF file, which strip drops.)"""
    try:
        p = subprocess.run([tools["compile"], archive, "-o", so, *tools.get("compile_flags", [])],
                           capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
    except subprocess.TimeoutExpired:
        rec.update(status="compile-timeout", reason=f"kiln-compile ran over {COMPILE_TIMEOUT} s")
        return False
    if p.returncode != 0:
        reason = first_error_line(p.stderr)
        unsupported = p.returncode == 2 and "unsupported" in reason
        crash = p.returncode < 0 or p.returncode not in (1, 2)
        rec.update(status="unsupported" if unsupported else ("compile-crash" if crash else "compile-error"),
                   reason=reason if not crash else f"kiln-compile exit {p.returncode}: {reason}")
        return False
    return True


def run_program(name, ir, archive, inputs, expects, work, tools):
    """Compiles and runs one archive; returns its record: status 'ran' with one
    entry per output ('ok' or the mismatch), or the failure and its reason."""
    so = os.path.join(work, "so", f"{name}.{ir}.so")
    rec = {"case": name, "ir": ir, "status": None, "reason": None,
           "outputs": [None] * len(expects), "seconds": 0.0}
    t0 = time.time()
    prebuilt = tools.get("prebuilt")
    if prebuilt is not None:
        failed = prebuilt["failed"].get(f"{name}.{ir}")
        if failed:  # it did not compile where it was built
            rec.update(status=failed["status"], reason=failed["reason"])
            return rec
        built = os.path.join(prebuilt["dir"], "so", f"{name}.{ir}.so")
        if not os.path.exists(built):
            rec.update(status="compile-error", reason=f"not built: no {name}.{ir}.so in the --prebuilt folder")
            return rec
        shutil.copyfile(built, so)
    elif not compile_program(archive, so, rec, tools):
        rec["seconds"] = time.time() - t0
        return rec
    if tools.get("compile_only"):
        rec.update(status="compiled", outputs=[])
        rec["seconds"] = time.time() - t0
        return rec
    cmd = [tools["run"], so, "--torch-tolerances", *tools.get("run_flags", [])]
    cmd += [a for f in inputs for a in ("--input", f)]
    cmd += [a for f in expects for a in ("--expect", f)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        rec.update(status="run-timeout", reason=f"kiln-run ran over {RUN_TIMEOUT} s")
        rec["seconds"] = time.time() - t0
        return rec
    finally:
        if os.path.exists(so):
            os.unlink(so)
    read_run(rec, p.returncode, p.stdout, p.stderr)
    rec["seconds"] = time.time() - t0
    return rec


def read_run(rec, rc, stdout, stderr):
    """Fills rec from one kiln-run's exit code and output: 'ran' with each
    output's comparison, or the run's error."""
    for line in stdout.splitlines():
        m = OUTPUT_LINE.match(line)
        if m and int(m.group(1)) < len(rec["outputs"]):
            rec["outputs"][int(m.group(1))] = "ok" if m.group(3) == "OK" else m.group(2)
    if rc in (0, 1) and all(o is not None for o in rec["outputs"]):
        rec["status"] = "ran"
    else:
        rec.update(status="run-error", reason=f"kiln-run exit {rc}: " + first_error_line(stderr + stdout))


BATCH_LINE = re.compile(r"^kiln-run batch: (begin|stderr|end) (\d+)(?: exit (-?\d+))?$")


def run_batches(items, work, tools, size, deadline, read=read_run):
    """Runs prebuilt programs `size` at a time with `kiln-run --batch` (one
    process sets the device up once for all of them). items: (record, .so,
    kiln-run arguments after the model). A run that crashes its process fails
    with the process's exit; the batch goes on in a new process after it. Past
    `deadline` (time.time()), the programs not run yet fail as 'not-run'.
    read(rec, exit, stdout, stderr) fills a record from one run (read_run:
    forward outputs; run_grad.py passes its gradients' reader). Returns the
    records."""
    out, todo = [], list(items)
    path = os.path.join(work, f"batch-{threading.get_ident()}.txt")
    while todo:
        if deadline and time.time() > deadline:
            for rec, _, _ in todo:
                rec.update(status="not-run", reason="the run stopped at its deadline (--deadline)")
            return out + [r for r, _, _ in todo]
        chunk = todo[:size]
        with open(path, "w") as f:
            for _, so, args in chunk:
                f.write("\t".join([so, *args]) + "\n")
        t0 = time.time()
        limit = RUN_TIMEOUT * len(chunk)
        if deadline:  # a batch still running past the deadline stops a run's time after it
            limit = max(1.0, min(limit, deadline - t0 + RUN_TIMEOUT))
        try:
            p = subprocess.run([tools["run"], "--batch", path], capture_output=True, text=True,
                               timeout=limit)
            rc, stdout, stderr = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, stderr = None, ""
            stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        done, last, k, part, buf = 0, None, None, None, {"begin": [], "stderr": []}
        for line in stdout.splitlines():
            m = BATCH_LINE.match(line)
            if not m:
                if part:
                    buf[part].append(line)
                continue
            if m.group(1) == "end" and k is not None and int(m.group(2)) == k:
                rec = chunk[k][0]
                last = int(m.group(3))
                read(rec, last, "\n".join(buf["begin"]), "\n".join(buf["stderr"]))
                rec["seconds"] = (time.time() - t0) / len(chunk)
                out.append(rec)
                done, part = k + 1, None
            else:
                k, part = int(m.group(2)), m.group(1)
                if part == "begin":
                    buf = {"begin": [], "stderr": []}
        stopped = last is not None and last >= 3 and rc == last  # kiln-run stops after such a run
        if done < len(chunk) and not stopped:
            # The program after the last one that ended took the process down (or the time).
            rec = chunk[done][0]
            why = f"kiln-run's batch ran over {limit:.0f} s" if rc is None else \
                f"kiln-run exit {rc} in a batch: " + first_error_line(stderr + "\n".join(buf["stderr"]))
            rec.update(status="run-timeout" if rc is None else "run-error", reason=why)
            out.append(rec)
            done += 1
        todo = todo[done:]
    return out


def run_case(case, ir, cases_dir, work, tools):
    inputs, expects = case_files(case, cases_dir)
    return run_program(case["name"], ir, os.path.join(cases_dir, case["name"], ir + ".pt2"),
                       inputs, expects, work, tools)


def run_bundle(bundle, members, ir, cases_dir, work, tools):
    """Runs a bundle: its inputs and outputs are its members', in order."""
    inputs, expects = [], []
    for c in members:
        i, e = case_files(c, cases_dir)
        inputs += i
        expects += e
    return run_program(bundle["name"], ir, os.path.join(cases_dir, bundle["name"], ir + ".pt2"),
                       inputs, expects, work, tools)


def split_bundle(rec, members, ir):
    """The members' records from a bundle that ran."""
    out, k = [], 0
    for c in members:
        n = c["outputs"]
        if ir in c["irs"]:
            out.append({"case": c["name"], "ir": ir, "status": "ran", "reason": None,
                        "outputs": rec["outputs"][k:k + n], "seconds": 0.0, "via": rec["case"]})
        k += n
    return out


def sample_results(index, records):
    """{(case, ir, sample): (passed, reason)} from the archive records."""
    out = {}
    by_case = {c["name"]: c for c in index["cases"]}
    for r in records:
        case = by_case[r["case"]]
        for s in case["samples"]:
            outs = [i for i, so in enumerate(case["sample_of_output"]) if so == s]
            if r["status"] != "ran":
                out[(r["case"], r["ir"], s)] = (False, f"{r['status']}: {r['reason']}")
                continue
            bad = [i for i in outs if r["outputs"][i] != "ok"]
            out[(r["case"], r["ir"], s)] = (
                not bad, None if not bad else f"output {bad[0]} mismatch: {r['outputs'][bad[0]]}")
    return out


def key(case, ir, sample):
    return f"{case}:{ir}:{sample}"


def tally(table, op, case, sample, passed, reason):
    """Counts sample `sample` of `case` for (op, dtype) in `table` ({"passed",
    "total", "reason": the first failing sample's}), as the reports count."""
    e = table.setdefault((op, case["dtype"]), {"passed": 0, "total": 0, "reason": None})
    e["total"] += 1
    e["passed"] += passed
    if not passed and e["reason"] is None:
        e["reason"] = f"{case['opinfo']} sample {sample}: {reason}"


def core_op_status(index, samples):
    """Per core op and dtype: (status, reason, passed, total) over the samples that
    exercise it in the Core ATen IR archive of its OpInfo entries' cases."""
    table = {}
    for c in index["cases"]:
        ir = "model.core" if "model.core" in c["irs"] else "model"
        for s in c["samples"]:
            outs = [i for i, so in enumerate(c["sample_of_output"]) if so == s]
            ops = {op for i in outs for op in c["core_ops_of_output"][i]}
            for op in ops:
                if c["opinfo"] not in index["opinfos_of_core_op"].get(op, []):
                    continue
                passed, reason = samples.get((c["name"], ir, s), (False, "not run"))
                tally(table, op, c, s, passed, reason)
    return table


def f32_summary(index, table):
    tested = [op for op in index["core_ops"] if (op, "float32") in table]
    passing = [op for op in tested if table[(op, "float32")]["passed"] == table[(op, "float32")]["total"]]
    return passing, tested


IR_ARCHIVES = {"default": "model", "core": "model.core"}


def entry_status(index, samples):
    """Per OpInfo entry (the entries suite): for each IR and dtype, whether all
    its samples pass, with the first failure's reason. An entry that torch
    could not export has its status ('not-exported', 'no-float32') instead."""
    out = {}
    for oid, e in index.get("entries", {}).items():
        out[oid] = {"status": e["status"], "reason": e.get("reason")}
    for c in index["cases"]:
        e = out.get(c["opinfo"])
        if e is None:
            continue
        for ir, archive in IR_ARCHIVES.items():
            a = archive if archive in c["irs"] else "model"
            slot = e.setdefault(c["dtype"], {}).setdefault(ir, {"pass": True, "reason": None, "samples": 0})
            for s in c["samples"]:
                passed, reason = samples.get((c["name"], a, s), (False, "not run"))
                slot["samples"] += 1
                if not passed and slot["pass"]:
                    slot.update({"pass": False, "reason": reason})
    return out


def entry_summary(entries, dtype="float32"):
    """{ir: (passing, total entries)} over every entry, plus the count torch
    cannot export; an entry kiln fails or torch cannot export counts as failed."""
    total = len(entries)
    not_exported = sum(1 for e in entries.values() if e["status"] != "exported")
    res = {ir: sum(1 for e in entries.values() if e.get(dtype, {}).get(ir, {}).get("pass"))
           for ir in IR_ARCHIVES}
    return res, total, not_exported


DTYPE_CLASSES = {"16-bit": ["bfloat16", "float16"], "integer": ["int64", "int32", "int8", "uint8"]}


def entry_class_summary(entries, dtypes):
    """{ir: (passing, entries with samples)} for one class of dtypes (16-bit,
    integer): an entry passes when every sample it has in those dtypes passes."""
    have = [e for e in entries.values() if any(d in e for d in dtypes)]
    return {ir: (sum(1 for e in have if all(e[d][ir]["pass"] for d in dtypes if d in e)), len(have))
            for ir in IR_ARCHIVES}


def run_prebuilt_batches(selected, cases_dir, args, tools):
    """The --prebuilt programs through kiln-run --batch, --jobs processes at a
    time, each taking --batch programs; returns every archive's record."""
    records, items = [], []
    for c in selected:
        inputs, expects = case_files(c, cases_dir)
        for ir in c["irs"]:
            rec = {"case": c["name"], "ir": ir, "status": None, "reason": None,
                   "outputs": [None] * len(expects), "seconds": 0.0}
            so, failed = prebuilt_program(tools, f"{c['name']}.{ir}", f"{c['name']}.{ir}.so")
            if failed:
                rec.update(failed)
                records.append(rec)
                continue
            args_ = ["--torch-tolerances", *tools.get("run_flags", [])]
            args_ += [a for f in inputs for a in ("--input", f)] + [a for f in expects for a in ("--expect", f)]
            items.append((rec, so, args_))
    return records + run_batches_in_jobs(items, args, tools)


def prebuilt_program(tools, key, so_name):
    """The --prebuilt program `so_name` of the archive `key` (CASE.IR) and None;
    or None and the record's failure where it was not built there (the
    compiler's error, or no such file)."""
    prebuilt = tools["prebuilt"]
    failed = prebuilt["failed"].get(key)
    so = os.path.join(prebuilt["dir"], "so", so_name)
    if failed or not os.path.exists(so):
        return None, failed or {"status": "compile-error", "reason": f"not built: no {so_name} in the --prebuilt folder"}
    return so, None


def run_batches_in_jobs(items, args, tools, read=read_run):
    """run_batches over `items` in --jobs processes at a time, each taking
    --batch programs, none starting past --deadline; returns their records."""
    deadline = time.time() + args.deadline if args.deadline else 0
    share = [items[k::args.jobs] for k in range(args.jobs)]
    records = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for part in pool.map(lambda its: run_batches(its, args.work, tools, args.batch, deadline, read), share):
            records += part
    return records


def write_compiled(work, index, records, seconds):
    """WORK/compiled.json after --compile-only: the archives' compile failures
    (status, reason) and the cases' digest, so --prebuilt checks it runs them
    against the same samples."""
    failed = {f"{r['case']}.{r['ir']}": {"status": r["status"], "reason": r["reason"]}
              for r in records if r["status"] != "compiled"}
    with open(os.path.join(work, "compiled.json"), "w") as f:
        json.dump({"archive_sha256": index["archive_sha256"], "archives": len(records),
                   "failed": failed}, f, indent=1)
    print(f"opinfo: {len(records) - len(failed)} of {len(records)} archives compiled "
          f"({seconds:.0f} s); {len(failed)} failed (WORK/compiled.json)")
    for k, v in sorted(failed.items()):
        print(f"opinfo: {k}: {v['status']}: {v['reason']}")
    return 0


def prebuilt_info(folder, index):
    with open(os.path.join(folder, "compiled.json")) as f:
        compiled = json.load(f)
    if compiled["archive_sha256"] != index["archive_sha256"]:
        sys.exit(f"run.py: {folder} was compiled from other cases (cases.json's digest differs)")
    return {"dir": folder, "failed": compiled["failed"]}


def parse_runner_args(description, work, data, baseline, baseline_help, batch, batch_help):
    """The command line run.py and run_grad.py share: the tools, the cases and
    the baseline, the CUDA target and the --compile-only / --prebuilt split."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--kiln-compile")
    p.add_argument("--kiln-run")
    p.add_argument("--work", default=os.path.join(os.getcwd(), work))
    p.add_argument("--data", default=data, help="the cases (cases.json, cases.tar.xz)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--only", help="regex over case names: run only those (no baseline check)")
    p.add_argument("--baseline", default=baseline, help=baseline_help)
    p.add_argument("--update-baseline", action="store_true")
    p.add_argument("--accept-regressions", action="store_true")
    p.add_argument("--target", choices=["cpu", "cuda"], default="cpu",
                   help="cuda: compile with --target=cuda --cuda-tf32=none (PyTorch's float32 numbers)")
    p.add_argument("--gpu-arch", default="sm_90", help="with --target cuda (sm_90: H100/H200)")
    p.add_argument("--compile-only", action="store_true",
                   help="compile and keep the .so files and WORK/compiled.json (for --prebuilt elsewhere)")
    p.add_argument("--prebuilt", help="the --work folder of a --compile-only run: run its .so files")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="kiln-run --device")
    p.add_argument("--device-name", help="the machine, as the report names it (e.g. the GPU's name)")
    p.add_argument("--batch", type=int, default=batch, help=batch_help)
    p.add_argument("--deadline", type=float, default=0, help="with --prebuilt: seconds after which no "
                   "program starts (those left fail as not-run); results.json is written all the same")
    args = p.parse_args()
    if not (args.kiln_compile or args.prebuilt) or not (args.kiln_run or args.compile_only):
        p.error("--kiln-compile (or --prebuilt) and --kiln-run (unless --compile-only) are needed")
    return args


def runner_tools(args):
    """The tools and their flags as the command line asks (see compile_program, run_program)."""
    tools = {"compile": args.kiln_compile, "run": args.kiln_run, "compile_only": args.compile_only}
    if args.target == "cuda":
        tools["compile_flags"] = ["--target=cuda", f"--gpu-arch={args.gpu_arch}", "--cuda-tf32=none"]
    if args.device != "cpu":
        tools["run_flags"] = ["--device", args.device]
    return tools


def settle_baseline(tag, args, path, baseline, failed, record, what):
    """The end of a run checked against a baseline. With --update-baseline:
    writes `record` to `path`, unless something `failed` and there is no
    --accept-regressions. Otherwise: says so when nothing failed. Returns
    the exit status; `what` names the baseline's passing items."""
    if args.update_baseline:
        if failed and not args.accept_regressions:
            print(f"{tag}: baseline not updated: there are regressions (--accept-regressions to drop them)")
            return 1
        with open(path, "w") as f:
            json.dump(record, f, indent=0)
            f.write("\n")
        return 0
    if failed:
        return 1
    print(f"{tag}: no regressions against the baseline ({len(baseline['passing'])} {what})")
    return 0


def main():
    args = parse_runner_args(
        __doc__.splitlines()[0], "opinfo-work", DATA, None,
        "the baseline file (default: test/opinfo/baseline.json for the default cases; none for other "
        "--data unless given)", 0,
        "with --prebuilt: run N programs per kiln-run process (kiln-run --batch; a GPU is set up once "
        "per process)")
    t0 = time.time()

    with open(os.path.join(args.data, "cases.json")) as f:
        index = json.load(f)
    os.makedirs(os.path.join(args.work, "so"), exist_ok=True)
    os.makedirs(os.path.join(args.work, "results"), exist_ok=True)
    cases_dir = extract(index, args.work, args.data)
    tools = runner_tools(args)
    if args.prebuilt:
        tools["prebuilt"] = prebuilt_info(args.prebuilt, index)
    selected = [c for c in index["cases"] if not args.only or re.search(args.only, c["name"])]
    by_name = {c["name"]: c for c in selected}
    # Bundles save compiles on one machine; packed programs are the cases alone
    # (a bundle that failed on the GPU would need its members' builds too).
    packed = args.compile_only or args.prebuilt
    bundles = [b for b in index.get("bundles", []) if all(m in by_name for m in b["members"])
               and not packed]
    in_bundle = {(m, ir) for b in bundles for m in b["members"] for ir in b["irs"]
                 if ir in by_name[m]["irs"]}
    records, bundle_records = [], []

    def finish(r):
        records.append(r)
        with open(os.path.join(args.work, "results", f"{r['case']}.{r['ir']}.json"), "w") as f:
            json.dump(r, f, indent=1)

    if args.prebuilt and args.batch > 0:
        for r in run_prebuilt_batches(selected, cases_dir, args, tools):
            finish(r)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        pending = {}
        # Bundles first (largest first keeps both workers busy), then the rest.
        for b in sorted(bundles, key=lambda b: -len(b["members"])):
            members = [by_name[m] for m in b["members"]]
            for ir in b["irs"]:
                pending[pool.submit(run_bundle, b, members, ir, cases_dir, args.work, tools)] = (b, members, ir)
        for c in selected if not (args.prebuilt and args.batch > 0) else []:
            for ir in c["irs"]:
                if (c["name"], ir) not in in_bundle:
                    pending[pool.submit(run_case, c, ir, cases_dir, args.work, tools)] = None
        while pending:
            done, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                what = pending.pop(fut)
                r = fut.result()
                if what is None:
                    finish(r)
                    continue
                b, members, ir = what
                bundle_records.append(r)
                if r["status"] == "ran":
                    for mr in split_bundle(r, members, ir):
                        finish(mr)
                else:  # run the members on their own
                    for c in members:
                        if ir in c["irs"]:
                            pending[pool.submit(run_case, c, ir, cases_dir, args.work, tools)] = None
    records.sort(key=lambda r: (r["case"], r["ir"]))
    if args.compile_only:
        return write_compiled(args.work, index, records, time.time() - t0)
    samples = sample_results(index, records)
    table = core_op_status(index, samples)
    passing, tested = f32_summary(index, table)
    n_pass = sum(1 for v in samples.values() if v[0])
    result = {
        "seconds": round(time.time() - t0, 1),
        "archives": len(records),
        "programs_compiled": len(bundle_records) + sum(1 for r in records if "via" not in r),
        "bundles_ran": sum(1 for r in bundle_records if r["status"] == "ran"),
        "bundles": len(bundle_records),
        "samples_passed": n_pass,
        "samples_total": len(samples),
        "core_ops": len(index["core_ops"]),
        "core_ops_with_f32_samples": len(tested),
        "core_ops_passing_f32": len(passing),
        "records": records,
    }
    if args.device_name:
        result["device_name"] = args.device_name
    entries = entry_status(index, samples)
    if entries:
        result["entries"] = entries
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(result, f, indent=1)
    rate = len(passing) / len(tested) if tested else 0.0
    print(f"opinfo: {len(records)} archives ({result['programs_compiled']} programs compiled, "
          f"{result['bundles_ran']} of {result['bundles']} bundles ran whole), "
          f"{n_pass} of {len(samples)} samples pass ({time.time() - t0:.0f} s with {args.jobs} jobs)")
    print(f"opinfo: {len(passing)} of {len(tested)} core ops with float32 samples pass all of them "
          f"({100 * rate:.1f}%; {len(index['core_ops'])} core ops in torch {index['torch']})")
    entries_passing, class_passing = {}, {}
    if entries and index.get("suite") == "entries-dtypes":
        for cls, dts in DTYPE_CLASSES.items():
            figs = entry_class_summary(entries, dts)
            class_passing[cls] = {ir: n for ir, (n, _) in figs.items()}
            for ir, (n, have) in figs.items():
                print(f"opinfo: {ir} IR: {n} of {have} OpInfo entries with {cls} samples pass them all "
                      f"({100 * n / max(have, 1):.1f}%; {len(entries)} entries)")
    elif entries:
        figs, total, not_exported = entry_summary(entries)
        entries_passing = figs
        for ir, n in figs.items():
            print(f"opinfo: {ir} IR: {n} of {total} OpInfo entries pass all their float32 samples "
                  f"({100 * n / max(total, 1):.1f}%; {not_exported} torch.export cannot export)")
    baseline_path = args.baseline or (BASELINE if os.path.abspath(args.data) == DATA else None)
    if args.only or not baseline_path:
        return 0

    baseline = {"passing": [], "core_ops_passing_f32": 0}
    if os.path.exists(baseline_path):
        with open(baseline_path) as f:
            baseline = json.load(f)
    now = {key(*k) for k, v in samples.items() if v[0]}
    regressed = sorted(k for k in baseline["passing"] if k not in now)
    for k in regressed[:50]:
        case, ir, s = k.rsplit(":", 2)
        reason = samples.get((case, ir, int(s)), (False, "no longer generated"))[1]
        print(f"opinfo: REGRESSION {k}: {reason}")
    if len(regressed) > 50:
        print(f"opinfo: ... and {len(regressed) - 50} more regressions")
    rate_dropped = len(passing) < baseline["core_ops_passing_f32"]
    if rate_dropped:
        print(f"opinfo: REGRESSION: {len(passing)} core ops pass all their float32 samples, "
              f"the baseline has {baseline['core_ops_passing_f32']}")
    for ir, n in entries_passing.items():
        want = baseline.get("entries_passing_f32", {}).get(ir, 0)
        if n < want:
            rate_dropped = True
            print(f"opinfo: REGRESSION: {n} OpInfo entries pass in the {ir} IR, the baseline has {want}")
    for cls, figs in class_passing.items():
        for ir, n in figs.items():
            want = baseline.get("entries_passing_dtypes", {}).get(cls, {}).get(ir, 0)
            if n < want:
                rate_dropped = True
                print(f"opinfo: REGRESSION: {n} OpInfo entries pass their {cls} samples in the {ir} IR, "
                      f"the baseline has {want}")
    newly = sorted(now - set(baseline["passing"]))
    if newly:
        print(f"opinfo: {len(newly)} samples pass that the baseline does not list "
              f"(record them: run.py --update-baseline)")
    record = {"core_ops_passing_f32": len(passing), "core_ops_with_f32_samples": len(tested),
              "passing": sorted(now)}
    if entries_passing:
        record["entries_passing_f32"] = entries_passing
    if class_passing:
        record["entries_passing_dtypes"] = class_passing
    rc = settle_baseline("opinfo", args, baseline_path, baseline, regressed or rate_dropped, record, "samples")
    if args.update_baseline and rc == 0:
        print(f"opinfo: baseline updated: {len(now)} passing samples, {len(passing)} core ops")
    return rc


if __name__ == "__main__":
    sys.exit(main())

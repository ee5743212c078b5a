"""Writes docs/op-coverage.md from the OpInfo suite's results (run.py's
WORK/results.json) and the case index (test/data/opinfo/cases.json).
Standard library only.

usage: report.py --results WORK/results.json [--entries-results W/results.json]
                 [--dtypes-results W/results.json] [--grad-results W/results.json]
                 [--vmap-results W/results.json] [--cuda-entries-results R.json
                 [--cuda-dtypes-results R.json]] [--cuda-grad-results R.json [--grad-baseline B]]
                 [--out docs/op-coverage.md]
Without --results, only the vmap and/or CUDA sections of --out are rewritten.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402  (the runner's aggregation, so both count the same way)

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "int8", "bool"]
SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64",
         "int32": "i32", "uint8": "u8", "int8": "i8", "bool": "bool"}


def cell_status(e):
    if e["passed"] == e["total"]:
        return "pass"
    if e["reason"] and ": unsupported: " in e["reason"]:
        return "unsupported"
    return "fail"


def cell(e):
    if e is None:
        return "·"
    s = cell_status(e)
    mark = {"pass": "pass", "fail": "**fail**", "unsupported": "unsupported"}[s]
    return f"{mark} {e['passed']}/{e['total']}"


def default_ir_status(index, samples):
    """Non-core ops of the default-IR archives (linear, conv2d, softmax, ...):
    {(op, dtype): entry}, counted over every sample whose default graph has the op."""
    core = set(index["core_ops"])
    table = {}
    for c in index["cases"]:
        for s in c["samples"]:
            ops = [op for op in c["default_ops"] if op not in core and op.startswith("aten.")]
            for op in ops:
                passed, reason = samples.get((c["name"], "model", s), (False, "not run"))
                run.tally(table, op, c, s, passed, reason)
    return table


def why_untested(index, op):
    chosen = index["opinfos_of_core_op"].get(op, [])
    if not chosen:
        return "no OpInfo sample exercises it"
    reasons = [s for s in index["skipped"] if s["opinfo"] in chosen and s["dtype"] == "float32"]
    if reasons:
        r = reasons[0]
        return f"{', '.join(chosen)}: float32 samples not usable ({r['reason']})"
    return f"{', '.join(chosen)}: no small float32 sample"


def table_rows(ops, table, lines):
    lines.append("| op | " + " | ".join(SHORT[d] for d in DTYPES) + " |")
    lines.append("| --- | " + " | ".join("---" for _ in DTYPES) + " |")
    for op in ops:
        lines.append(f"| `{op}` | " + " | ".join(cell(table.get((op, d))) for d in DTYPES) + " |")


def reasons_section(ops, table, lines):
    for op in ops:
        bad = [(d, table[(op, d)]) for d in DTYPES if (op, d) in table and cell_status(table[(op, d)]) != "pass"]
        if not bad:
            continue
        lines.append(f"- `{op}`")
        # One line per distinct reason, with the dtypes it applies to.
        by_reason = {}
        for d, e in bad:
            by_reason.setdefault(e["reason"], []).append(SHORT[d])
        for reason, ds in by_reason.items():
            lines.append(f"  - {', '.join(ds)}: {reason}")


def blocking_op(reason):
    """The op an 'unsupported operator' failure names, else None."""
    if not reason or "unsupported operator '" not in reason:
        return None
    return reason.split("unsupported operator '", 1)[1].split("'", 1)[0]


def failure_lists(entries, dtypes, ir_title, lines, level="###"):
    """Failures of some dtypes' samples: ops kiln refuses (by entries blocked),
    then every other failure with the first line of kiln's error."""
    blocked, other = {}, {}
    for oid, e in sorted(entries.items()):
        for ir in run.IR_ARCHIVES:
            slot = next((e[d][ir] for d in dtypes if d in e and not e[d][ir]["pass"]), None)
            if not slot:
                continue
            op = blocking_op(slot["reason"])
            if op:
                blocked.setdefault((ir, op), []).append(oid)
            else:
                other.setdefault(ir, []).append((oid, slot["reason"]))
    for ir in run.IR_ARCHIVES:
        ops = sorted(((len(v), op, v) for (i, op), v in blocked.items() if i == ir), reverse=True)
        lines += ["", f"{level} {ir.capitalize()} IR{ir_title}: unsupported ops, by entries blocked", ""]
        if not ops:
            lines.append("None.")
        for n, op, v in ops:
            lines.append(f"- `{op}` ({n}): {', '.join(v[:6])}{' ...' if len(v) > 6 else ''}")
        lines += ["", f"{level} {ir.capitalize()} IR{ir_title}: other failures", ""]
        if not other.get(ir):
            lines.append("None.")
        for oid, reason in other.get(ir, []):
            lines.append(f"- {oid}: {reason}")


def grad_failures(gentries, names, lines):
    """The gradient suite's failing entries per IR, grouped by kiln's error
    (a mismatch without its numbers, an error without its node)."""
    for ir in run.IR_ARCHIVES:
        groups = {}
        for oid, e in sorted(gentries.items()):
            slot = e.get("grad", {}).get(ir)
            if slot and not slot["pass"]:
                why = slot["reason"] or ""
                key = why.split(" [node ")[0]
                key = key.split(": max abs error")[0] if "mismatch" in key else key
                groups.setdefault(key, []).append(oid)
        lines += [f"{names[ir]}:", ""]
        if not groups:
            lines.append("None.")
        for why, v in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"- ({len(v)}) {', '.join(v)}: {why}")
        lines.append("")


def pct(n, d):
    return f"{100 * n / d:.1f}%" if d else "-"


def entries_section(eindex, eresults, lines, dindex=None, dresults=None, gindex=None, gresults=None):
    """The entries suites: every OpInfo entry in the default IR and Core ATen IR,
    forward in float32, 16-bit and integer dtypes, and backward."""
    samples = run.sample_results(eindex, eresults["records"])
    entries = run.entry_status(eindex, samples)
    figs, total, not_exported = run.entry_summary(entries)
    exportable = total - not_exported
    names = {"default": "default (training) IR", "core": "Core ATen IR"}
    lines += ["## Every OpInfo entry, default IR and Core ATen IR", "",
              f"PyTorch's OpInfo database has {total} entries. Each is exported from its first two "
              "small float32 samples as torch.export writes it (the default IR) and after "
              "`run_decompositions()` (Core ATen IR), compiled and compared with eager PyTorch "
              f"(`test/data/opinfo-entries`, {eresults['archives']} archives, "
              f"{eresults['seconds']:.0f} s). An entry passes an IR when all its samples pass; "
              f"an entry kiln cannot compile counts as failed, and so do the {not_exported} that "
              "torch.export cannot export (or that have no small real float32 sample)."]
    rows = [(f"forward float32", names[ir], n, total, total, exportable) for ir, n in figs.items()]
    dentries = None
    if dindex and dresults:
        dentries = run.entry_status(dindex, run.sample_results(dindex, dresults["records"]))
        lines += ["", "The 16-bit and integer rows: each entry that supports one is exported again from "
                  "its first two small samples in one 16-bit dtype (bfloat16, else float16) and one "
                  "integer dtype (int64, else int32, int8, uint8) "
                  f"(`test/data/opinfo-entries-dtypes`, {dresults['archives']} archives, "
                  f"{dresults['seconds']:.0f} s), compared with assert_close's tolerances for the dtype "
                  "(integers exactly)."]
        for cls, dts in run.DTYPE_CLASSES.items():
            supported = [oid for oid, e in dindex["entries"].items()
                         if any(d in dts for d in e.get("dtypes", []))]
            for ir, (n, have) in run.entry_class_summary(dentries, dts).items():
                rows.append((f"forward {cls}", names[ir], n, total, len(supported), have))
    gentries = None
    if gindex and gresults:
        gentries = gresults["entries"]
        lines += ["", "The backward rows: every differentiable entry (`supports_autograd`) whose float32 "
                  "programs torch.export exports is compiled with `kiln-compile --grad` (the same "
                  "archives) and its gradients of `sum(output * cotangent)` with respect to the "
                  "inputs OpInfo differentiates are compared with `torch.autograd`'s "
                  f"(`test/data/opinfo-entries-grad`, rtol {gresults['rtol']:g} / atol "
                  f"{gresults['atol']:g}, {gresults['archives']} archives, {gresults['seconds']:.0f} s). "
                  "An entry kiln cannot differentiate counts as failed."]
        for ir, n in gresults["entries_passing"].items():
            rows.append(("backward float32", names[ir], n, total, gresults["entries_differentiable"],
                         gresults["entries_differentiable_exported"]))
    lines += ["", "| direction | IR | entries passing | of all entries | of the entries it applies to "
              "(dtype supported / differentiable) | of those torch.export exports |",
              "| --- | --- | --- | --- | --- | --- |"]
    for d, ir, n, tot, applies, exp in rows:
        lines.append(f"| {d} | {ir} | {n} | {pct(n, tot)} | {pct(n, applies)} of {applies} | "
                     f"{pct(n, exp)} of {exp} |")
    if dentries is None:
        lines += ["", "No 16-bit or integer samples in these cases (`generate_entries.py --extra-only`)."]
    failure_lists(entries, ["float32"], "", lines)
    if dentries is not None:
        for cls, dts in run.DTYPE_CLASSES.items():
            failure_lists(dentries, dts, f", {cls}", lines)
    if gentries is not None:
        lines += ["", "### Backward: what fails, by kiln's error", ""]
        grad_failures(gentries, names, lines)
        no_grad = sorted(oid for oid, e in gentries.items() if e["status"] == "no-gradient")
        if no_grad:
            lines += ["Differentiable entries with no gradient to check (no floating input OpInfo "
                      "differentiates, or torch's own gradient fails or is not finite): "
                      + ", ".join(no_grad) + ".", ""]
    lines += ["", "### Entries torch.export cannot export", ""]
    lines.append(", ".join(f"{oid}" for oid, e in sorted(entries.items()) if e["status"] != "exported") or "None.")
    lines.append("")


VMAP_HEADING = "## vmap of every OpInfo entry"
CUDA_HEADING = "## Every OpInfo entry on CUDA"
CUDA_GRAD_HEADING = "## Every OpInfo entry's gradients on CUDA"


def cuda_section(eindex, eresults, dindex=None, dresults=None):
    """The entries suites run on a GPU (run.py --prebuilt --device cuda over
    programs compiled here with --target cuda --compile-only) as markdown lines:
    pass rates over all entries, per IR and dtype class, and what fails."""
    entries = run.entry_status(eindex, run.sample_results(eindex, eresults["records"]))
    figs, total, not_exported = run.entry_summary(entries)
    exportable = total - not_exported
    gpu = eresults.get("device_name") or "a GPU"
    names = {"default": "default (training) IR", "core": "Core ATen IR"}
    lines = [CUDA_HEADING, "",
             f"The same entries and samples, compiled here with `kiln-compile --target=cuda "
             f"--cuda-tf32=none` (plain float32 products, so PyTorch's float32 tolerances apply) and "
             f"run on {gpu} with `kiln-run --device cuda --torch-tolerances` against PyTorch's CPU "
             f"outputs (`test/gpu/opinfo-pack.sh`, `test/gpu/opinfo-run.sh`; {eresults['archives']} "
             f"float32 archives, {eresults['seconds']:.0f} s there). An archive that does not "
             "compile for CUDA counts as failed, as do the entries torch.export cannot export.", "",
             "| direction | IR | entries passing | of all entries | of those torch.export exports |",
             "| --- | --- | --- | --- | --- |"]
    for ir, n in figs.items():
        lines.append(f"| forward float32 | {names[ir]} | {n} | {pct(n, total)} of {total} | "
                     f"{pct(n, exportable)} of {exportable} |")
    dentries = None
    if dindex and dresults:
        dentries = run.entry_status(dindex, run.sample_results(dindex, dresults["records"]))
        for cls, dts in run.DTYPE_CLASSES.items():
            for ir, (n, have) in run.entry_class_summary(dentries, dts).items():
                lines.append(f"| forward {cls} | {names[ir]} | {n} | {pct(n, total)} of {total} | "
                             f"{pct(n, have)} of {have} |")
        lines += ["", f"The 16-bit and integer rows: `test/data/opinfo-entries-dtypes` "
                  f"({dresults['archives']} archives, {dresults['seconds']:.0f} s there)."]
    failure_lists(entries, ["float32"], " on CUDA", lines, level="####")
    if dentries is not None:
        for cls, dts in run.DTYPE_CLASSES.items():
            failure_lists(dentries, dts, f" on CUDA, {cls}", lines, level="####")
    lines.append("")
    return lines


def cuda_grad_section(gresults, baseline):
    """The gradient suite run on a GPU (run_grad.py --prebuilt --device cuda
    over programs compiled here with --grad --target cuda --compile-only):
    pass rates per IR beside the CPU's (the committed baseline of the CPU
    run), the archives that pass on the CPU and fail on CUDA, and what fails."""
    names = {"default": "default (training) IR", "core": "Core ATen IR"}
    gpu = gresults.get("device_name") or "a GPU"
    total, diff = gresults["entries_total"], gresults["entries_differentiable"]
    exp = gresults["entries_differentiable_exported"]
    lines = [CUDA_GRAD_HEADING, "",
             f"The gradient suite's archives (`test/data/opinfo-entries-grad`), compiled here with "
             f"`kiln-compile --grad --target=cuda --cuda-tf32=none` and run on {gpu} with `kiln-run "
             f"--device cuda --expect-grads` against `torch.autograd`'s gradients (rtol "
             f"{gresults['rtol']:g} / atol {gresults['atol']:g}, as on the CPU; "
             f"`test/gpu/opinfo-pack.sh ... entries-grad`, `test/gpu/opinfo-run.sh ... entries-grad`; "
             f"{gresults['archives']} archives, {gresults['seconds']:.0f} s there). An archive that "
             "does not compile for CUDA counts as failed, as do the entries torch.export cannot export. "
             "The last column is the CPU's figure (`test/opinfo/baseline-entries-grad.json`).",
             "", "| direction | IR | entries passing | of all entries | of the differentiable entries | "
             "of those torch.export exports | on the CPU |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for ir, n in gresults["entries_passing"].items():
        m = baseline.get("entries_passing", {}).get(ir, 0)
        lines.append(f"| backward float32 | {names[ir]} | {n} | {pct(n, total)} of {total} | {pct(n, diff)} of "
                     f"{diff} | {pct(n, exp)} of {exp} | {m} ({pct(m, exp)}) |")
    passing = {f"{r['case']}:{r['ir']}" for r in gresults["records"] if run_grad_passed(r)}
    lost = sorted(k for k in baseline.get("passing", []) if k not in passing)
    lines += ["", f"Archives that pass on the CPU and not on CUDA: {len(lost)}"
              + (" (" + ", ".join(f"`{k}`" for k in lost) + ")." if lost else "."),
              "", "#### Backward on CUDA: what fails, by kiln's error", ""]
    grad_failures(gresults["entries"], names, lines)
    return lines


def run_grad_passed(rec):
    """Whether one gradient record passed (every gradient compared and within tolerance)."""
    return rec["status"] == "ran" and all(v == "ok" for v in rec["grads"].values())


def vmap_section(vindex, vresults):
    """The OpInfo vmap sweep (run_vmap.py's results.json) as markdown lines."""
    entries = vindex["entries"]
    vmappable = sorted(e for e, v in entries.items() if v["status"] == "exported")
    passing = [e for e in vmappable if vresults.get(e, {}).get("status") == "pass"]
    others = {}
    for e, v in entries.items():
        if v["status"] != "exported":
            others[v["status"]] = others.get(v["status"], 0) + 1
    pct = 100 * len(passing) / len(vmappable) if vmappable else 0
    lines = [VMAP_HEADING, "",
             f"**kiln-compile --vmap passes {len(passing)} of the {len(vmappable)} OpInfo entries "
             f"torch.func.vmap batches ({pct:.1f}%).**", "",
             f"Of PyTorch's {len(entries)} OpInfo entries, the first small float32 sample of each is "
             "exported as a per-sample program and batched (2 samples: the sample and a copy with "
             "its float tensors' elements permuted; float inputs batched at dim 0, others shared) "
             "with `kiln-compile --vmap`, against `torch.func.vmap` of the same function "
             f"(`test/data/opinfo-vmap`, `test/opinfo/run_vmap.py`; [vmap.md](vmap.md)). Not in the "
             "sweep: " + ", ".join(f"{k} {v}" for k, v in sorted(others.items())) + ".", "",
             "| result | entries |", "| --- | --- |"]
    by = {}
    for e in vmappable:
        by.setdefault(vresults.get(e, {}).get("status", "not run"), []).append(e)
    for k in sorted(by):
        lines.append(f"| {k} | {len(by[k])} |")
    lines += ["", "### Entries that do not pass (first line of kiln's error)", ""]
    for e in vmappable:
        r = vresults.get(e, {})
        if r.get("status") != "pass":
            lines.append(f"- `{e}`: {r.get('status', 'not run')}: {r.get('error', '')}".rstrip())
    lines.append("")
    return lines


def replace_section(path, heading, section, after=None):
    """Puts a section (vmap, CUDA) into an existing op-coverage.md in place of
    the one with that heading, else after the section headed `after` if there
    is one, else before the core-op table."""
    with open(path) as f:
        text = f.read()
    end = text.find("## Core ATen ops")
    start = text.find(heading + "\n")
    prev = text.find(after + "\n") if after else -1
    if start < 0 and prev >= 0:
        nxt = text.find("\n## ", prev + len(after))
        start = end = nxt + 1 if nxt >= 0 else len(text)
    elif start < 0:
        start = end
    else:
        nxt = text.find("\n## ", start + len(heading))
        end = nxt + 1 if nxt >= 0 else len(text)
    new = text[:start] + "\n".join(section) + "\n" + text[end:]
    with open(path + ".tmp", "w") as f:
        f.write(new)
    os.replace(path + ".tmp", path)


def load(data, results):
    """(cases.json, results.json) of one suite."""
    with open(os.path.join(data, "cases.json")) as f:
        index = json.load(f)
    with open(results) as f:
        return index, json.load(f)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", help="the core-op suite's results.json (without it, only the "
                   "vmap section of --out is rewritten from --vmap-results)")
    p.add_argument("--vmap-results", help="run_vmap.py's results.json (the OpInfo vmap sweep)")
    p.add_argument("--vmap-data", default=os.path.join(HERE, "..", "data", "opinfo-vmap"))
    p.add_argument("--data", default=run.DATA, help="the cases (cases.json)")
    p.add_argument("--entries-results", help="the entries suite's results.json (run.py --data "
                   "test/data/opinfo-entries)")
    p.add_argument("--entries-data", default=os.path.join(HERE, "..", "data", "opinfo-entries"))
    p.add_argument("--dtypes-results", help="the 16-bit/integer entries' results.json (run.py --data "
                   "test/data/opinfo-entries-dtypes)")
    p.add_argument("--dtypes-data", default=os.path.join(HERE, "..", "data", "opinfo-entries-dtypes"))
    p.add_argument("--grad-results", help="run_grad.py's results.json (the entries' gradients)")
    p.add_argument("--grad-data", default=os.path.join(HERE, "..", "data", "opinfo-entries-grad"))
    p.add_argument("--cuda-entries-results", help="opinfo-run.sh's float32 entries results (run.py "
                   "--prebuilt --device cuda on a GPU machine)")
    p.add_argument("--cuda-dtypes-results", help="the same for test/data/opinfo-entries-dtypes")
    p.add_argument("--cuda-grad-results", help="opinfo-run.sh's entries-grad results (run_grad.py "
                   "--prebuilt --device cuda on a GPU machine), beside the CPU's --grad-baseline")
    p.add_argument("--grad-baseline", default=os.path.join(HERE, "baseline-entries-grad.json"),
                   help="the CPU's gradient baseline (run_grad.py --update-baseline)")
    p.add_argument("--out", default=os.path.join(HERE, "..", "..", "docs", "op-coverage.md"))
    args = p.parse_args()
    vsection, csection = [], []
    if args.vmap_results:
        with open(os.path.join(args.vmap_data, "cases.json")) as f:
            vindex = json.load(f)
        with open(args.vmap_results) as f:
            vsection = vmap_section(vindex, json.load(f))
    if args.cuda_entries_results:
        csection = cuda_section(*load(args.entries_data, args.cuda_entries_results),
                                *(load(args.dtypes_data, args.cuda_dtypes_results)
                                  if args.cuda_dtypes_results else ()))
    cgsection = []
    if args.cuda_grad_results:
        with open(args.cuda_grad_results) as f:
            cgresults = json.load(f)
        with open(args.grad_baseline) as f:
            cgsection = cuda_grad_section(cgresults, json.load(f))
    if not args.results:
        if not (vsection or csection or cgsection):
            p.error("give --results, or --vmap-results / --cuda-entries-results / --cuda-grad-results "
                    "to rewrite those sections only")
        for heading, section, after in ((VMAP_HEADING, vsection, None), (CUDA_HEADING, csection, None),
                                        (CUDA_GRAD_HEADING, cgsection, CUDA_HEADING)):
            if section:
                replace_section(os.path.normpath(args.out), heading, section, after)
                print(f"wrote the section '{heading[3:]}' of {os.path.normpath(args.out)}")
        return
    with open(os.path.join(args.data, "cases.json")) as f:
        index = json.load(f)
    with open(args.results) as f:
        results = json.load(f)
    samples = run.sample_results(index, results["records"])
    table = run.core_op_status(index, samples)
    passing, tested = run.f32_summary(index, table)
    untested = [op for op in index["core_ops"] if (op, "float32") not in table]
    n_pass = sum(1 for v in samples.values() if v[0])
    pct = 100 * len(passing) / len(tested) if tested else 0

    lines = [
        "# Core ATen op coverage",
        "",
        "<!-- Generated by test/opinfo/report.py from the OpInfo conformance suite; do not edit. -->",
        "",
        f"**{len(passing)} of {len(tested)} core ops pass all their float32 samples ({pct:.1f}%).**",
        "",
        f"PyTorch {index['torch']} tags {len(index['core_ops'])} overloads `core`; {len(tested)} of them "
        f"are exercised by float32 samples of PyTorch's OpInfo database, the other {len(untested)} are "
        f"listed [at the end](#not-covered). The suite has {len(index['cases'])} cases "
        f"({results['archives']} archives compiled and run), {results['samples_total']} samples, "
        f"{n_pass} of which pass; it ran in {results['seconds']:.0f} s. How it is made and run: "
        "[testing.md](testing.md). Whole models (48 torchvision, transformers and hand-written "
        "models in both IRs, with gradients and for CUDA): [the model zoo](zoo.md).",
        "",
        "A cell is `pass`, `**fail**` or `unsupported` (kiln refuses the op: the compile says "
        "`unsupported operator`) with passing/total samples that exercise the op in that dtype, "
        "counted in the Core ATen IR form of each program; `·` means no sample of that dtype. "
        "Outputs are compared with `torch.testing.assert_close`'s default tolerances for their dtype "
        "(integers and bool exactly).",
        "",
    ]
    if args.entries_results:
        with open(os.path.join(args.entries_data, "cases.json")) as f:
            eindex = json.load(f)
        with open(args.entries_results) as f:
            eresults = json.load(f)
        extra = {}
        if args.dtypes_results:
            with open(os.path.join(args.dtypes_data, "cases.json")) as f:
                extra["dindex"] = json.load(f)
            with open(args.dtypes_results) as f:
                extra["dresults"] = json.load(f)
        if args.grad_results:
            with open(os.path.join(args.grad_data, "cases.json")) as f:
                extra["gindex"] = json.load(f)
            with open(args.grad_results) as f:
                extra["gresults"] = json.load(f)
        entries_section(eindex, eresults, lines, **extra)
    lines += csection
    lines += cgsection
    lines += vsection
    lines += ["## Core ATen ops", ""]
    tested_sorted = sorted(tested)
    table_rows(tested_sorted, table, lines)
    lines += ["", "### Why they fail (first line of kiln's error, per op)", ""]
    reasons_section(tested_sorted, table, lines)

    dtable = default_ir_status(index, samples)
    dops = sorted({op for op, _ in dtable})
    lines += ["", "## Default-IR ops",
              "",
              "Ops that `torch.export` leaves in the default IR and Core ATen IR decomposes "
              "(`linear`, `conv2d`, `softmax`, ...), counted over the default-IR archives of the "
              "same cases.", ""]
    table_rows(dops, dtable, lines)
    lines += ["", "### Why they fail", ""]
    reasons_section(dops, dtable, lines)

    lines += ["", "## Not covered", "",
              "Core ops with no usable float32 sample (random ops, ops no OpInfo calls, samples "
              "torch.export cannot export):", ""]
    for op in untested:
        lines.append(f"- `{op}`: {why_untested(index, op)}")
    lines.append("")
    out = os.path.normpath(args.out)
    with open(out + ".tmp", "w") as f:
        f.write("\n".join(lines))
    os.replace(out + ".tmp", out)
    print(f"wrote {out}: {len(passing)} of {len(tested)} core ops pass all their float32 samples")


if __name__ == "__main__":
    main()

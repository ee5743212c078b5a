"""Generates the OpInfo *entries* suite: every entry of PyTorch's OpInfo database,
tried in the default IR and in Core ATen IR.

Where generate.py picks the OpInfo entries that test each Core ATen op, this
one takes every entry of `op_db` (no selection) and exports its first two small
float32 samples (at most 4096 input elements each, no complex tensors), plus,
with --extra-dtypes, its first two samples in one 16-bit dtype (bfloat16, else
float16) and one integer dtype (int64, else int32, int8, uint8) it supports.
Each group of samples with the same ops becomes one case exactly as in
generate.py: `model.pt2` (the default IR torch.export writes), `model.core.pt2`
after run_decompositions() when that differs, the inputs and eager PyTorch's
outputs. cases.json also lists every entry with what became of it, so that the
report counts over all entries: an entry torch.export cannot export (or whose
samples are all complex or too large) is counted apart from one kiln fails.

usage: python3 test/opinfo/generate_entries.py [--out test/data/opinfo-entries]
           [--jobs 2] [--only REGEX] [--workdir DIR] [--extra-dtypes]

--workdir keeps finished (entry, dtype) pairs, so an interrupted or repeated
run only does what is left (generation takes about an hour on two cores).
"""
import multiprocessing
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402  (the case exporter shared with the core-op suite)

# The first two float32 samples per entry (the probe), one case archive
# per group of samples with the same ops.
generate.MAX_SAMPLES = {"float32": 2}
generate.MAX_SAMPLES_OTHER = 2
SIXTEEN_BIT = ["bfloat16", "float16"]
INTEGER = ["int64", "int32", "int8", "uint8"]


def entry_dtypes(o, extra):
    supported = {str(d).replace("torch.", "") for d in o.supported_dtypes("cpu")}
    dts = ["float32"] if "float32" in supported else []
    if extra:
        dts += [d for d in SIXTEEN_BIT if d in supported][:1]
        dts += [d for d in INTEGER if d in supported][:1]
    return dts


def main():
    p = generate.suite_parser(__doc__.splitlines()[0], "opinfo-entries",
                              "regex: only entries whose id matches (for trying things out)",
                              "keep the exported cases here between runs")
    p.add_argument("--extra-dtypes", action="store_true",
                   help="also one 16-bit and one integer dtype per entry")
    p.add_argument("--extra-only", action="store_true",
                   help="only the 16-bit and integer dtypes (the opinfo-entries-dtypes suite, "
                        "default --out test/data/opinfo-entries-dtypes)")
    args = p.parse_args()
    if args.extra_only:
        args.extra_dtypes = True
        if args.out == p.get_default("out"):
            args.out = os.path.join(generate.HERE, "..", "data", "opinfo-entries-dtypes")

    gen = generate.Generator(args)
    t0 = time.time()
    ctx = multiprocessing.get_context("fork")
    workdir = args.workdir or tempfile.mkdtemp(prefix="kiln-opinfo-entries-")
    os.makedirs(workdir, exist_ok=True)
    # PyTorch's entries only (not kiln's extra samples for core ops).
    from torch.testing._internal.common_methods_invocations import op_db
    ids = [generate.opinfo_id(o) for o in op_db]
    entries = {}
    jobs = []
    for o in op_db:
        oid = generate.opinfo_id(o)
        if args.only and not re.search(args.only, oid):
            continue
        dts = entry_dtypes(o, args.extra_dtypes)
        if args.extra_only:
            dts = [d for d in dts if d != "float32"]
            if not dts:
                entries[oid] = {"status": "no-extra-dtype", "dtypes": []}
                continue
            entries[oid] = {"status": None, "dtypes": dts}
            jobs.append((oid, dts, workdir, True))  # one job: its cases form a bundle
            continue
        if not dts:
            entries[oid] = {"status": "no-float32", "dtypes": []}
            continue
        entries[oid] = {"status": None, "dtypes": dts}
        # float32 first, as its own job: the headline figure comes first.
        jobs.append((oid, dts[:1], workdir, True))
        if len(dts) > 1:
            jobs.append((oid, dts[1:], workdir, True))
    jobs.sort(key=lambda j: j[1] != ["float32"])  # every float32 job first
    print(f"{len(ids)} OpInfo entries; exporting {len(jobs)} (entry, dtypes) jobs ...", flush=True)
    cases, skipped, bundles = generate.run_jobs(ctx, args, jobs)
    for oid, e in entries.items():
        if e["status"]:
            continue
        # Per dtype: exported, or why not (the report counts entries per dtype class).
        e["dtype_status"] = {}
        for dt in e["dtypes"]:
            got = [c for c in cases if c["opinfo"] == oid and c["dtype"] == dt]
            why = [s["reason"] for s in skipped if s["opinfo"] == oid and s["dtype"] == dt]
            e["dtype_status"][dt] = "exported" if got else (why[0] if why else f"no small real {dt} sample")
        if args.extra_only:
            e["status"] = "exported" if any(v == "exported" for v in e["dtype_status"].values()) else "not-exported"
            continue
        mine = [c for c in cases if c["opinfo"] == oid and c["dtype"] == "float32"]
        why = [s["reason"] for s in skipped if s["opinfo"] == oid and s["dtype"] == "float32"]
        e["status"] = "exported" if mine else "not-exported"
        if not mine:
            e["reason"] = why[0] if why else "no float32 sample is small enough and real"
    cases.sort(key=lambda c: c["name"])
    bundles.sort(key=lambda b: b["name"])
    skipped.sort(key=lambda s: (s["opinfo"], s["dtype"], s["sample"] if s["sample"] is not None else -1))

    mb = generate.write_suite(gen, workdir, args.out, cases, bundles, {
        "suite": "entries-dtypes" if args.extra_only else "entries",
        "entries": entries,
        "core_ops": gen.core,
        "opinfos_of_core_op": {},
        "max_samples": {"float32": 2, "other": generate.MAX_SAMPLES_OTHER},
        "cases": cases,
        "bundles": bundles,
        "skipped": skipped,
    })
    n_exp = sum(1 for e in entries.values() if e["status"] == "exported")
    print(f"{len(entries)} entries, {n_exp} exported; {len(cases)} cases, {len(bundles)} bundles, "
          f"{mb:.1f} MB ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()

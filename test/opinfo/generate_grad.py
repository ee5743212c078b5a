"""Generates the gradients of the OpInfo entries suite (opinfo-entries-grad).

The entries suite (generate_entries.py, test/data/opinfo-entries) already holds
every entry's float32 programs, inputs and eager outputs. This script adds, for
each of those cases whose OpInfo entry is differentiable (supports_autograd),
what a reverse-mode check needs and nothing else: one cotangent per program
output (seeded normal numbers for floating outputs, zeros for the others) and
torch.autograd's gradient of L = sum_k sum(output_k * cotangent_k) with respect
to every floating input (`input<i>.npy`, zeros where L does not depend on it).
The archives and inputs are reused, not written again: the samples are rebuilt
from OpInfo with the generator's seed and checked against the stored inputs.

Which inputs are differentiated: those OpInfo's own sample_inputs(...,
requires_grad=True) marks (a loss's target, a weight OpInfo holds fixed, stay
fixed), falling back to every floating input. kiln's --grad differentiates every
floating input; run_grad.py compares the gradients torch has.

usage: python3 test/opinfo/generate_grad.py [--entries test/data/opinfo-entries]
           [--out test/data/opinfo-entries-grad] [--only REGEX]

Needs torch 2.11.0 (the version that made the entries suite). Takes a few
minutes: no export, only eager forward and backward passes.
"""
import argparse
import json
import os
import re
import sys
import tarfile
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402  (Sample, make_program, the seed convention)


def differentiable_mask(torch, pytree, o, oid, dtype, index):
    """Which tensor leaves of sample `index` OpInfo marks requires_grad, or None."""
    try:
        torch.manual_seed(zlib.crc32(f"{oid}/float32".encode()))
        raw = list(o.sample_inputs("cpu", dtype, requires_grad=True))
        s = raw[index]
        leaves, _ = pytree.tree_flatten((s.input, s.args, s.kwargs))
        return [v.requires_grad for v in leaves if isinstance(v, torch.Tensor)]
    except Exception:
        return None


def grads_for_case(gen, o, case, cases_dir, out_dir):
    """Writes cotangents and expected gradients of one case; returns (record, reason)."""
    torch, pytree, np = gen.torch, gen.pytree, gen.np
    oid = case["opinfo"]
    torch.manual_seed(zlib.crc32(f"{oid}/float32".encode()))
    raw = list(o.sample_inputs("cpu", torch.float32))
    samples = []
    for idx in case["samples"]:
        s = generate.Sample(torch, pytree, raw[idx])
        s.index = idx
        s.grad_mask = differentiable_mask(torch, pytree, o, oid, torch.float32, idx)
        samples.append(s)
    tensors = [t for s in samples for t in s.tensors]
    if len(tensors) != case["inputs"]:
        return None, f"rebuilt {len(tensors)} inputs, the case has {case['inputs']}"
    for i, t in enumerate(tensors):
        stored = np.load(os.path.join(cases_dir, case["name"], f"input{i}.npy"))
        if stored.shape != tuple(t.shape) or not np.array_equal(stored, t.numpy(), equal_nan=True):
            return None, f"rebuilt input {i} differs from the stored one"
    wrt = []
    for s in samples:
        for k, t in enumerate(s.tensors):
            marked = s.grad_mask[k] if s.grad_mask and len(s.grad_mask) == len(s.tensors) else True
            wrt.append(bool(t.is_floating_point() and marked))
    if not any(wrt):
        return None, "no differentiable floating input"
    ins = [t.clone().requires_grad_(w) for t, w in zip(tensors, wrt)]
    mod, _ = generate.make_program(torch, pytree, o.op, samples)
    torch.manual_seed(0)
    try:
        outs = mod(*ins)
    except Exception as e:
        return None, "forward: " + generate.first_line(e)
    outs = list(outs)
    if len(outs) != case["outputs"]:
        return None, f"the program returns {len(outs)} outputs, the case has {case['outputs']}"
    g = torch.Generator().manual_seed(zlib.crc32(f"{case['name']}/cotangent".encode()))
    cots = []
    for t in outs:
        if t.is_floating_point():
            cots.append(torch.randn(t.shape, generator=g, dtype=t.dtype))
        else:
            cots.append(torch.zeros(t.shape, dtype=t.dtype))
    diff = [(t, c) for t, c in zip(outs, cots) if t.requires_grad]
    if not diff:
        return None, "no output depends differentiably on a floating input"
    wrt_t = [t for t, w in zip(ins, wrt) if w]
    try:
        grads = torch.autograd.grad([t for t, _ in diff], wrt_t, [c for _, c in diff], allow_unused=True)
    except Exception as e:
        return None, "torch.autograd: " + generate.first_line(e)
    d = os.path.join(out_dir, case["name"])
    os.makedirs(d, exist_ok=True)
    for k, c in enumerate(cots):
        generate.save_npy(np, torch, os.path.join(d, f"cotangent{k}.npy"), c)
    it = iter(grads)
    checked = []
    for i, (t, w) in enumerate(zip(tensors, wrt)):
        if not w:
            continue
        gi = next(it)
        if gi is None or gi._is_zerotensor():
            gi = torch.zeros_like(t)
        # inf and nan stay (a pole of the op): kiln-run matches them exactly,
        # as assert_close(equal_nan=True) does.
        generate.save_npy(np, torch, os.path.join(d, f"input{i}.npy"), gi)
        checked.append(i)
    return {"name": case["name"], "opinfo": oid, "grads": checked, "inputs": len(tensors), "outputs": len(cots),
            "samples": case["samples"]}, None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--entries", default=os.path.join(here, "..", "data", "opinfo-entries"))
    p.add_argument("--out", default=os.path.join(here, "..", "data", "opinfo-entries-grad"))
    p.add_argument("--only", help="regex: only entries whose id matches (for trying things out)")
    args = p.parse_args()
    t0 = time.time()
    args.workdir = None
    gen = generate.Generator(args)
    with open(os.path.join(args.entries, "cases.json")) as f:
        index = json.load(f)
    tmp = tempfile.mkdtemp(prefix="kiln-opinfo-grad-")
    cases_dir = os.path.join(tmp, "cases")
    with tarfile.open(os.path.join(args.entries, index["archive"]), "r:xz") as tar:
        tar.extractall(cases_dir, filter="data")
    work = os.path.join(tmp, "grads")
    os.makedirs(work)
    by_id = {generate.opinfo_id(o): o for o in gen.op_db}
    entries, cases = {}, []
    for oid, e in index["entries"].items():
        if args.only and not re.search(args.only, oid):
            continue
        o = by_id.get(oid)
        if e["status"] != "exported":
            entries[oid] = {"status": "not-exported", "differentiable": bool(o and o.supports_autograd)}
            continue
        if not o.supports_autograd:
            entries[oid] = {"status": "not-differentiable", "differentiable": False}
            continue
        mine = [c for c in index["cases"] if c["opinfo"] == oid and c["dtype"] == "float32"]
        recs, reasons = [], []
        for c in mine:
            try:
                r, why = grads_for_case(gen, o, c, cases_dir, work)
            except Exception as ex:
                r, why = None, "generator: " + generate.first_line(ex)
            if r:
                r["irs"] = c["irs"]
                recs.append(r)
            else:
                reasons.append(f"{c['name']}: {why}")
        cases += recs
        entries[oid] = {"status": "exported" if recs else "no-gradient", "differentiable": True}
        if reasons:
            entries[oid]["left_out"] = reasons
        print(f"  {oid}: {len(recs)} cases" + (f"; left out: {reasons[0]}" if reasons else ""), flush=True)
    cases.sort(key=lambda c: c["name"])
    os.makedirs(args.out, exist_ok=True)
    digest = generate.write_cases_archive(work, args.out, cases)
    out = {
        "torch": gen.torch.__version__,
        "suite": "entries-grad",
        "forward": os.path.relpath(args.entries, args.out),
        "forward_sha256": index["archive_sha256"],
        "archive": "grads.tar.xz",
        "archive_sha256": digest,
        "entries": entries,
        "cases": cases,
    }
    os.replace(os.path.join(args.out, "cases.tar.xz"), os.path.join(args.out, "grads.tar.xz"))
    with open(os.path.join(args.out, "cases.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    n = sum(1 for e in entries.values() if e["status"] == "exported")
    print(f"{len(entries)} entries, {sum(1 for e in entries.values() if e['differentiable'])} differentiable, "
          f"{n} with gradients; {len(cases)} cases, "
          f"{os.path.getsize(os.path.join(args.out, 'grads.tar.xz')) / 1e6:.2f} MB ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The OpInfo vmap sweep: every OpInfo entry torch.func.vmap batches, as kiln-compile --vmap.

For each entry of PyTorch's op_db (torch 2.11.0), the first small float32
sample (at most 4096 input elements, no complex values, not random) is
exported with torch.export as a per-sample program `forward(*tensors)`
(model.pt2, exactly as generate.py exports it). A batch of 2 samples is the
sample and a copy whose float tensors have their elements permuted (so
domains and index ranges stay valid); float tensors are batched at dim 0,
the others shared (in_dims None). torch.func.vmap of the sample's function
over that batch gives the expected outputs. An entry "supports vmap" when
torch.func.vmap runs on it and agrees with the loop over the two samples;
the others are recorded with torch's reason. Writes
test/data/opinfo-vmap/cases.tar.xz (model.pt2, input*.npy, output*.npy per
case) and cases.json (per case its `--vmap=` in dims).

usage: generate_vmap.py [--only REGEX] [--out DIR]     (needs torch 2.11.0, expecttest)
"""
import argparse
import json
import os
import re
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--out", default=os.path.join(here, "..", "data", "opinfo-vmap"))
    p.add_argument("--only")
    args = p.parse_args()
    gen = generate.Generator(args)
    torch, pytree, np = gen.torch, gen.pytree, gen.np
    from torch.testing._internal.common_methods_invocations import op_db
    work = tempfile.mkdtemp(prefix="kiln-opinfo-vmap-")
    entries, cases = {}, []
    t0 = time.time()
    for o in op_db:
        oid = generate.opinfo_id(o)
        if args.only and not re.search(args.only, oid):
            continue
        supported = {str(d).replace("torch.", "") for d in o.supported_dtypes("cpu")}
        if "float32" not in supported:
            entries[oid] = {"status": "no-float32"}
            continue
        try:
            torch.manual_seed(zlib.crc32(f"{oid}/float32".encode()))
            raw = list(o.sample_inputs("cpu", torch.float32))
        except Exception as e:
            entries[oid] = {"status": "no-sample", "reason": generate.first_line(e)}
            continue
        sample = None
        for idx, r in enumerate(raw):
            try:
                s = generate.Sample(torch, pytree, r)
            except Exception:
                continue
            if s.tensors and s.numel() <= generate.MAX_ELEMENTS and not any(t.is_complex() for t in s.tensors):
                s.index, sample = idx, s
                break
        if sample is None:
            entries[oid] = {"status": "no-sample", "reason": "no small real sample"}
            continue
        batched = [t.is_floating_point() for t in sample.tensors]
        if not any(batched):
            entries[oid] = {"status": "no-float-input"}
            continue
        g = torch.Generator().manual_seed(1)
        second = [t.flatten()[torch.randperm(t.numel(), generator=g)].reshape(t.shape) if b else t
                  for t, b in zip(sample.tensors, batched)]

        def fn(*ts):
            out, why = generate.flat_outputs(torch, pytree, sample.call(pytree, o.op, list(ts)))
            if why:
                raise RuntimeError(why)
            return tuple(out)

        try:
            if gen.is_random(o, sample):
                entries[oid] = {"status": "random"}
                continue
            loop = [fn(*[t.clone() for t in sample.tensors]), fn(*[t.clone() for t in second])]
            stacked = [torch.stack([a, b]) if bt else a for a, b, bt in zip(sample.tensors, second, batched)]
            in_dims = tuple(0 if b else None for b in batched)
            want = torch.func.vmap(fn, in_dims=in_dims)(*stacked)
            for k, w in enumerate(want):
                ref = torch.stack([loop[0][k], loop[1][k]])
                if not generate.same_values(torch, w, ref):
                    raise RuntimeError(f"torch.func.vmap's output {k} differs from the loop over the samples")
        except Exception as e:
            entries[oid] = {"status": "torch-cannot-vmap", "reason": generate.first_line(e)}
            continue
        try:
            mod, inputs = generate.make_program(torch, pytree, o.op, [sample])
            ep = torch.export.export(mod, tuple(inputs))
            if gen.check_exported(ep, [sample], [list(loop[0])]):
                raise RuntimeError("the exported program differs from eager PyTorch")
        except Exception as e:
            entries[oid] = {"status": "not-exported", "reason": generate.first_line(e)}
            continue
        name = re.sub(r"[^A-Za-z0-9_.]+", "_", oid)
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        try:
            generate.save_archive(torch, ep, os.path.join(d, "model.pt2"))
        except Exception as e:
            entries[oid] = {"status": "not-exported", "reason": "torch.export.save: " + generate.first_line(e)}
            continue
        for i, t in enumerate(stacked):
            generate.save_npy(np, torch, os.path.join(d, f"input{i}.npy"), t)
        for i, t in enumerate(want):
            generate.save_npy(np, torch, os.path.join(d, f"output{i}.npy"), t)
        entries[oid] = {"status": "exported", "case": name}
        cases.append({"name": name, "opinfo": oid, "sample": sample.index, "inputs": len(stacked),
                      "outputs": len(want),
                      "output_dtypes": [str(t.dtype).replace("torch.", "") for t in want],
                      "vmap": ",".join("0" if b else "none" for b in batched)})
        print(f"{oid}: exported ({time.time() - t0:.0f} s)", flush=True)
    os.makedirs(args.out, exist_ok=True)
    digest = generate.write_cases_archive(work, args.out, cases)
    with open(os.path.join(args.out, "cases.json"), "w") as f:
        json.dump({"torch": torch.__version__, "archive": "cases.tar.xz", "archive_sha256": digest,
                   "suite": "vmap", "batch": 2, "entries": entries, "cases": cases}, f, indent=1)
        f.write("\n")
    n = sum(1 for e in entries.values() if e["status"] == "exported")
    print(f"{len(entries)} entries, {n} exported with torch.func.vmap references ({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()

"""Exports kiln's model zoo: small real models from torchvision, transformers and hand-written modules.

The zoo (issue 20) checks kiln on models it was not written for. The models are
listed in zoo_vision.py, zoo_timm.py, zoo_text.py, zoo_timm2.py, zoo_text2.py,
zoo_video.py, zoo_text3.py, zoo_vision3.py, zoo_timm4.py, zoo_text4.py, zoo_timm5.py,
zoo_text5.py, zoo_text6.py, zoo_vision6.py, zoo_text7.py and zoo_vision7.py: tiny configs, random weights from a fixed
seed, nothing downloaded. For each, DIR/<name>/ receives

  model.pt2           the default IR, as a user saves it, with a symbolic batch
                      (dim 0 of every input, range [1, 8]) where torch can export one
  model.core.pt2      the same after run_decompositions() (Core ATen IR), where torch can
  case0/, case1/      input{i}.npy and PyTorch's output{i}.npy at batch 2 and, for a
                      symbolic batch, batch 3 (eager PyTorch, float32, CPU); for a
                      symbolic sequence length too (Spec.seq, range SEQ_RANGE), lengths
                      16, 9 and 24 (case0-case2) and case3/, inputs alone one token past
                      the range, which kiln must refuse (exit 2)
  grads/              for the models with gradients: cotangent{i}.npy and the gradients of
                      sum(output_i * cotangent_i) for the case0 inputs, with respect to each
                      floating-point input (input{i}.npy) and each parameter, computed in
                      float64 (the layout of kiln-run --expect-grads)
  meta.json           op histograms of both IRs, shapes, parameter count

and DIR/index.json lists every model with what torch could export (and why not).
test/models/run_zoo.py compiles and runs them; the ctest tests `zoo` and
`zoo-cuda` and docs/zoo.md use it.

usage: python3 test/models/export_zoo.py --out DIR [--if-stale] [NAME...]

As for export_models.py, the build makes the zoo (the `kiln-test-zoo` target and
the ctest fixture of the zoo tests) into BUILD/test/data/zoo; --if-stale skips the
work while DIR/.stamp records the digest of the zoo's scripts and the pinned versions.
"""
import concurrent.futures
import copy
import hashlib
import inspect
import json
import multiprocessing
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from export_models import VERSIONS, export_into, export_parser, models_to_export, ops_of, parse_export_args  # noqa: E402

SOURCES = ["export_zoo.py", "zoo_spec.py", "zoo_vision.py", "zoo_text.py", "zoo_timm.py", "zoo_text2.py",
           "zoo_timm2.py", "zoo_video.py", "zoo_text3.py", "zoo_vision3.py", "zoo_timm4.py", "zoo_text4.py",
           "zoo_timm5.py", "zoo_text5.py", "zoo_text6.py", "zoo_vision6.py", "zoo_text7.py",
           "zoo_vision7.py", "export_models.py"]
BATCH_RANGE = (1, 8)
SEQ_RANGE = (4, 32)
# (batch, sequence length) of the cases of a model with a symbolic sequence length.
SEQ_CASES = [(2, 16), (3, 9), (1, 24)]


def stamp_text():
    h = hashlib.sha256()
    for name in SOURCES:
        with open(os.path.join(HERE, name), "rb") as f:
            h.update(f.read())
    return json.dumps({"scripts": h.hexdigest(), "versions": VERSIONS, "extended": extended()}, sort_keys=True) + "\n"


def as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def first_line(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:300]


def export_model(spec, out):
    import numpy as np
    import torch
    from torch.export import Dim

    torch.manual_seed(0)
    model = spec.make().eval()
    g = torch.Generator().manual_seed(1)
    for m in model.modules():  # non-trivial normalisation statistics and affine parameters
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
        if isinstance(m, (torch.nn.modules.batchnorm._BatchNorm, torch.nn.GroupNorm, torch.nn.LayerNorm)) \
                and getattr(m, "weight", None) is not None:
            with torch.no_grad():
                m.weight.add_(torch.randn(m.weight.shape, generator=g) * 0.1)
                if m.bias is not None:
                    m.bias.add_(torch.randn(m.bias.shape, generator=g) * 0.1)
    inputs = spec.inputs(torch.Generator().manual_seed(2), *SEQ_CASES[0]) if spec.seq else \
        spec.inputs(torch.Generator().manual_seed(2), 2)
    entry = {"description": spec.desc, "grad": spec.grad, "rtol": spec.rtol, "atol": spec.atol,
             "grad_rtol": spec.grad_rtol, "grad_atol": spec.grad_atol}
    ep = None
    if spec.dynamic:
        batch = Dim("batch", min=BATCH_RANGE[0], max=BATCH_RANGE[1])
        # Dim.DYNAMIC: torch proves the decoders' mask guards (min(16*s, 32*s) == 16*s) over
        # the range, where a named Dim refuses them as constraint violations.
        seq = Dim.DYNAMIC(min=SEQ_RANGE[0], max=SEQ_RANGE[1])
        varargs = any(p.kind == p.VAR_POSITIONAL for p in inspect.signature(model.forward).parameters.values())
        tries = ([{0: batch, 1: seq}] if spec.seq else []) + [{0: batch}]
        for dims in tries:
            shapes = tuple(dims for _ in inputs)
            try:
                ep = torch.export.export(model, inputs, dynamic_shapes={"args": shapes} if varargs else shapes)
                break
            except Exception as e:  # torch cannot keep these dims symbolic: try fewer, then export it static
                entry["seq_reason" if 1 in dims else "static_reason"] = first_line(e)
        entry["seq"] = ep is not None and spec.seq and "seq_reason" not in entry
    else:
        entry["static_reason"] = "not tried"
    if ep is None:
        ep = torch.export.export(model, inputs)
    entry["dynamic"] = ep is not None and "static_reason" not in entry
    d = os.path.join(out, spec.name)
    os.makedirs(d, exist_ok=True)
    meta = {"description": spec.desc, "versions": VERSIONS, "ops": ops_of(ep),
            "ranges": {str(k): [int(v.lower), int(v.upper)] for k, v in ep.range_constraints.items()},
            "parameters": sum(p.numel() for p in model.parameters())}
    ep._example_inputs = None  # no pickled sample inputs in the archive
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    epc = None
    try:
        epc = ep.run_decompositions()
        meta["core_ops"] = ops_of(epc)
        epc._example_inputs = None
        torch.export.save(epc, os.path.join(d, "model.core.pt2"))
        entry["core"] = True
    except Exception as e:
        entry["core"] = False
        entry["core_reason"] = "torch's run_decompositions() fails: " + first_line(e)

    cases = SEQ_CASES if entry.get("seq") else [(2,), (3,)] if entry["dynamic"] else [(2,)]
    entry["cases"] = []
    for k, shape in enumerate(cases):
        tag = f"case{k}"
        x = inputs if k == 0 else spec.inputs(torch.Generator().manual_seed(10 + k), *shape)
        with torch.no_grad():
            refs = as_tuple(model(*x))
            got = as_tuple(ep.module()(*x))
            for r, e in zip(refs, got):
                torch.testing.assert_close(e, r)  # the exported program agrees with eager
            cores = as_tuple(epc.module()(*x)) if epc is not None else ()
        os.makedirs(os.path.join(d, tag), exist_ok=True)
        for i, (r, c) in enumerate(zip(refs, cores)):
            # torch's Core ATen IR program may return another shape than eager (its
            # lstm decomposition gives h_n, c_n as [L*D, 1, B, H]): those outputs,
            # the same values, are saved as core_output{i}.npy.
            torch.testing.assert_close(c.reshape(r.shape), r, rtol=1e-4, atol=1e-5)
            if c.shape != r.shape:
                np.save(os.path.join(d, tag, f"core_output{i}.npy"), c.contiguous().numpy())
        for i, a in enumerate(x):
            np.save(os.path.join(d, tag, f"input{i}.npy"), a.numpy())
        for i, r in enumerate(refs):
            np.save(os.path.join(d, tag, f"output{i}.npy"), r.contiguous().numpy())
        entry["cases"].append({"name": tag, "inputs": len(x), "outputs": len(refs)})
    if entry.get("seq"):
        # One token past the range: inputs alone, which kiln must refuse (exit 2).
        x = spec.inputs(torch.Generator().manual_seed(20), 2, SEQ_RANGE[1] + 1)
        tag = f"case{len(cases)}"
        os.makedirs(os.path.join(d, tag), exist_ok=True)
        for i, a in enumerate(x):
            np.save(os.path.join(d, tag, f"input{i}.npy"), a.numpy())
        entry["cases"].append({"name": tag, "inputs": len(x), "outputs": 0, "refused": True})
    meta["inputs"] = [[list(a.shape), str(a.dtype)] for a in inputs]

    if spec.grad:
        export_grads(model, inputs, os.path.join(d, "grads"))
        entry["grad_files"] = len(os.listdir(os.path.join(d, "grads")))
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    size = sum(os.path.getsize(os.path.join(r, x)) for r, _, fs in os.walk(d) for x in fs)
    entry["parameters"], entry["mbytes"] = meta["parameters"], round(size / 1e6, 2)
    return entry


def export_grads(model, inputs, gdir):
    """float64 gradients of sum(output_i * cotangent_i) (cotangents seeded, stored as float32)."""
    import numpy as np
    import torch
    os.makedirs(gdir, exist_ok=True)
    m64 = copy.deepcopy(model).double()
    x64 = [a.double().requires_grad_() if a.is_floating_point() else a for a in inputs]
    outs = as_tuple(m64(*x64))
    g = torch.Generator().manual_seed(3)
    cots = [torch.randn(o.shape, generator=g) for o in outs]
    loss = sum((o * c.double()).sum() for o, c in zip(outs, cots))
    params = [(n, p) for n, p in m64.named_parameters() if p.requires_grad]
    wrt = [(f"input{i}", a) for i, a in enumerate(x64) if a.is_floating_point()] + params
    grads = torch.autograd.grad(loss, [t for _, t in wrt], allow_unused=True)
    for i, c in enumerate(cots):
        np.save(os.path.join(gdir, f"cotangent{i}.npy"), c.numpy())
    for (n, t), gr in zip(wrt, grads):
        gr = torch.zeros_like(t) if gr is None else gr
        np.save(os.path.join(gdir, f"{n}.npy"), gr.float().numpy())


def export_timed(job):
    name, work = job
    spec = all_specs()[name]
    t0 = time.time()
    try:
        e = export_model(spec, work)
    except Exception as ex:  # torch cannot export it at all: listed, not tested
        e = {"description": spec.desc, "export_error": first_line(ex)}
    return spec.name, e, time.time() - t0


# Round 3 (zoo_text3.py, zoo_vision3.py) is 44 more models whose export and
# runs alone would take longer than the rest of CI together on a 2-core
# machine. The test command exports the ones below (the models behind round
# 3's importer fixes, one speech and two vision models); KILN_ZOO_EXTENDED=1
# exports every one (then run_zoo.py checks them all against the baseline).
ROUND3_IN_TEST_COMMAND = {"m2m100", "jetmoe", "longt5", "hubert", "detr", "mobilevit"}
# Round 4 (zoo_timm4.py, zoo_text4.py) likewise: 39 more families; the test command
# exports the three behind round 4's fixes (two grouped matmuls over the same offsets,
# conv2d with padding="same" and an integer sum run eagerly), KILN_ZOO_EXTENDED=1 all.
ROUND4_IN_TEST_COMMAND = {"qwen3_moe", "timm_convmixer", "data2vec_vision"}
# Round 5 (zoo_timm5.py, zoo_text5.py) likewise: the test command exports a few
# representative ones (DINOv3: tile in the eager runtime; SmolLM3: a symbolic sequence
# length, refused past its range, and gradients), KILN_ZOO_EXTENDED=1 all.
ROUND5_IN_TEST_COMMAND = {"dinov3", "smollm3", "timm_samvit"}
# Round 6 (zoo_text6.py, zoo_vision6.py) likewise: Zamba2 (torch.concatenate, a composite rule
# now), the diffusion transformer and the DLRM recommender (embedding bags; both with gradients).
ROUND6_IN_TEST_COMMAND = {"zamba2", "dit_block", "dlrm"}
# Round 7 (zoo_text7.py, zoo_vision7.py) likewise: BitNet (fake-quantized ternary weights, a
# symbolic length) and the decision transformer (with gradients).
ROUND7_IN_TEST_COMMAND = {"bitnet", "decision_transformer"}


def extended():
    return os.environ.get("KILN_ZOO_EXTENDED") == "1"


def round3_specs():
    import zoo_text3
    import zoo_vision3
    return zoo_text3.SPECS + zoo_vision3.SPECS


def round4_specs():
    import zoo_text4
    import zoo_timm4
    return zoo_timm4.SPECS + zoo_text4.SPECS


def round5_specs():
    import zoo_text5
    import zoo_timm5
    return zoo_timm5.SPECS + zoo_text5.SPECS


def round6_specs():
    import zoo_text6
    import zoo_vision6
    return zoo_text6.SPECS + zoo_vision6.SPECS


def round7_specs():
    import zoo_text7
    import zoo_vision7
    return zoo_text7.SPECS + zoo_vision7.SPECS


def left_out():
    """Names of the round-3 to 7 models this export leaves out (none with KILN_ZOO_EXTENDED=1)."""
    if extended():
        return set()
    return ({s.name for s in round3_specs()} - ROUND3_IN_TEST_COMMAND) | \
        ({s.name for s in round4_specs()} - ROUND4_IN_TEST_COMMAND) | \
        ({s.name for s in round5_specs()} - ROUND5_IN_TEST_COMMAND) | \
        ({s.name for s in round6_specs()} - ROUND6_IN_TEST_COMMAND) | \
        ({s.name for s in round7_specs()} - ROUND7_IN_TEST_COMMAND)


def all_specs():
    import zoo_text
    import zoo_text2
    import zoo_timm
    import zoo_timm2
    import zoo_video
    import zoo_vision
    specs = zoo_vision.SPECS + zoo_timm.SPECS + zoo_text.SPECS + zoo_timm2.SPECS + zoo_text2.SPECS + zoo_video.SPECS \
        + [s for s in round3_specs() + round4_specs() + round5_specs() + round6_specs() + round7_specs()
           if s.name not in left_out()]
    assert len({s.name for s in specs}) == len(specs)
    return {s.name: s for s in specs}


def main():
    warnings.filterwarnings("ignore")
    p = export_parser(__doc__, "one subfolder per model and index.json", "these scripts")
    p.add_argument("--jobs", type=int, default=2, help="models exported at once (default 2)")
    parsed = parse_export_args(p, stamp_text())
    if parsed is None:
        return
    args, out = parsed
    import torch
    torch.set_num_threads(1)  # the machines that run CI are small and shared
    specs = all_specs()
    names = models_to_export("export_zoo.py", args.names, specs)

    def write(work):
        index_path = os.path.join(work, "index.json")
        index = {}
        if args.names and os.path.exists(index_path):
            with open(index_path) as f:
                index = json.load(f)
        with concurrent.futures.ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            for name, e, seconds in pool.map(export_timed, [(n, work) for n in names]):
                index[name] = e
                print(f"{name}: {seconds:.1f} s, " +
                      (f"NOT EXPORTED ({e['export_error']})" if "export_error" in e else
                       f"{e['parameters']} parameters, {e['mbytes']} MB, "
                       f"{'dynamic batch' if e['dynamic'] else 'static'}{' and length' if e.get('seq') else ''}"
                       f"{', core' if e['core'] else ''}"), flush=True)
        index = {k: index[k] for k in specs if k in index}
        with open(index_path, "w") as f:
            json.dump(index, f, indent=1)
            f.write("\n")

    export_into(out, bool(args.names), stamp_text(), write)


if __name__ == "__main__":
    main()

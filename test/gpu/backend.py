"""torch.compile(backend="kiln") on a GPU: training and inference against eager and Inductor.

Run on a GPU machine with the package test/gpu/pack_python.sh builds (kiln's
Python package for that machine's Python, with no kiln-compile):

  record:  KILN_RECORD_DIR=rec python3 backend.py --phase record
           (each graph Dynamo hands kiln is recorded and runs in eager; on a
           machine without the GPU, KILN_RECORD_TARGET=cuda ... --device cpu
           records the same programs for CUDA)
  build machine:  python -m kiln.offline compile rec --cache-dir cache
  replay:  KILN_CACHE_DIR=cache KILN_STRICT=1 python3 backend.py --phase replay [--pack P]

Training: N AdamW steps of ResNet-18 (batch 32, 224x224, train-mode batch
norm) and of a BERT-base-sized encoder (12 layers, d=768, dropout 0, batch 8,
128 tokens, a linear head with cross-entropy) from the same initial weights in
eager, Inductor (torch.compile()) and kiln; losses compared to eager's (relative
difference; Inductor's too, which shows float32 drift alone), the median step
time of the last half of the steps. Inference: ResNet-50 and BERT-base at
batch 1 in float32 through the backend (kiln: parameters held as weights
bound at load; kiln_inputs: passed as bound inputs), eager and Inductor, and (with --pack,
bench/pack_gpu.sh's output) the same model compiled by the CLI, loaded in this
process with kiln.load and timed call by call beside the backend (their ratio
is printed), then under kiln-run --bench. The inference models come from
bench/gpu_models.py (with bench/cudnn_env.py beside it), beside this script or
in --models-dir (the script exits at once if it is in neither); the record
phase fails when an inference config recorded nothing. --device cpu runs the
same here. float32 everywhere with
TF32 off, so kiln's plain float32 arithmetic is compared like with like.

kiln trains each graph through the two halves of its value and gradient
(kiln-compile --grad --split: the forward returns residuals, the backward takes
them), so the record phase records a forward and a backward half per training
graph. --recompute adds the mode kiln_recompute (the backend with
options={"split": False}: the backward runs the whole value and gradient,
recomputing the forward), in both phases, to compare the two in one run; the
table says how many training graphs ran as split halves.
"""
import argparse
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn as nn

torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False


def resnet18():
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet18(num_classes=100)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(32, 3, 224, 224, generator=g)
    y = torch.randint(0, 100, (32,), generator=g)
    return m, (x,), y


class BertClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        import transformers
        conf = transformers.BertConfig(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        conf._attn_implementation = "sdpa"
        self.bert = transformers.BertModel(conf, add_pooling_layer=False)
        self.head = nn.Linear(768, 2)

    def forward(self, ids, mask):
        h = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state
        return self.head(h[:, 0])


def bert():
    torch.manual_seed(0)
    m = BertClassifier()
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 30522, (8, 128), generator=g)
    mask = torch.ones(8, 128, dtype=torch.long)
    mask[1::2, 96:] = 0
    y = torch.randint(0, 2, (8,), generator=g)
    return m, (ids, mask), y


TRAIN = {"resnet18_b32": resnet18, "bert_base_b8": bert}


def train(make, mode, steps, dev):
    import kiln.dynamo
    before = len(kiln.dynamo.explanations())
    model, args, y = make()
    model = model.to(dev).train()
    args = tuple(a.to(dev) for a in args)
    y = y.to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    fn = model
    if mode == "inductor":
        fn = torch.compile(model)
    elif mode == "kiln":
        fn = torch.compile(model, backend="kiln")
    elif mode == "kiln_recompute":
        fn = torch.compile(model, backend="kiln", options={"split": False})
    losses, times = [], []
    for _ in range(steps):
        sync(dev)
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(fn(*args), y)
        loss.backward()
        opt.step()
        sync(dev)
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
    half = sorted(times[steps // 2:])
    training = [e for e in kiln.dynamo.explanations()[before:] if e["kind"] == "training"]
    split = f"{sum(bool(e.get('split')) for e in training)}/{len(training)}" if training else ""
    return losses, 1e3 * half[len(half) // 2], split


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def median_ms(fns, dev, iters=100, warmup=10):
    """Median time in ms of each fn in `fns` (a dict), the calls interleaved
    (one of each per round) so that they share the machine's state: CUDA
    events around each call on a GPU (as kiln-run --bench times a GPU model),
    the wall clock on the CPU."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    sync(dev)
    ts = {k: [] for k in fns}
    if dev.type != "cuda":
        for _ in range(iters):
            for k, fn in fns.items():
                t0 = time.perf_counter()
                fn()
                ts[k].append(1e3 * (time.perf_counter() - t0))
    else:
        ev = {k: [] for k in fns}
        for _ in range(iters):
            for k, fn in fns.items():
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                fn()
                b.record()
                ev[k].append((a, b))
        torch.cuda.synchronize()
        ts = {k: [a.elapsed_time(b) for a, b in v] for k, v in ev.items()}
    return {k: sorted(v)[len(v) // 2] for k, v in ts.items()}


def gpu_models(models_dir=None):
    """bench/gpu_models.py: beside this script (packed), in --models-dir, or
    in the repository this script is in. Exits with a clear message if none:
    without it no inference program is built or recorded."""
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = [d for d in (models_dir, here, os.path.join(here, "..", "..", "bench")) if d]
    for d in dirs:
        if os.path.isfile(os.path.join(d, "gpu_models.py")):
            if d not in sys.path:
                sys.path.insert(0, d)
            import gpu_models as g
            return g
    sys.exit("backend.py: bench/gpu_models.py (the inference models) is in none of " + ", ".join(dirs)
             + ": copy it beside backend.py or pass --models-dir")


def cli_so(pack, name, dev):
    """The CLI-compiled .so of `name` in `pack` (bench/pack_gpu.sh's layout,
    <pack>/<name>/model.so, external weights, compiled for the device's
    target), or None."""
    if not pack:
        return None
    so = os.path.join(pack, name, "model.so")
    return so if os.path.isfile(so) else None


def infer(name, modes, dev, models_dir=None, pack=None, iters=100):
    """Inference of `name` in each mode, timed in this process: eager,
    inductor, kiln (torch.compile(backend="kiln"): parameters held as weights
    bound at load), kiln_inputs (the same with options={"bind_weights": False}:
    parameters passed as bound inputs), kiln_frozen (options={"freezing":
    True}) and kiln_so (the CLI's .so loaded with kiln.load and called with
    the same tensors). For kiln, also the time of a call right after an
    in-place write of a parameter (which reloads the module: reload_ms)."""
    g = gpu_models(models_dir)
    m, args = g.build(name)
    pt2 = None
    so = cli_so(pack, name, dev)
    if "kiln_so" in modes and so:
        pt2 = os.path.join(tempfile.gettempdir(), f"{name}-weights.pt2")
        if not os.path.exists(pt2):
            g.export(m, args, pt2)  # kiln-run and kiln.load read the weights by name from it
    m = m.to(dev)
    args = tuple(a.to(dev) for a in args)
    with torch.no_grad():
        ref = m(*args)
    # Modes timed together, call by call: the backend beside the CLI's .so
    # (the comparison that matters), eager and Inductor each on their own
    # (Dynamo keeps one cache per function, so two backends are not mixed).
    kiln_modes = ("kiln", "kiln_inputs", "kiln_frozen", "kiln_so")
    groups = [[x for x in modes if x in kiln_modes]] + [[x] for x in modes if x not in kiln_modes]
    r = {}
    for group in groups:
        torch._dynamo.reset()
        fns = {}
        for mode in group:
            try:
                if mode == "kiln_so":
                    if not so:
                        continue
                    import kiln
                    mod = kiln.load(so, weights=pt2)
                    fn = lambda mod=mod: mod.run(list(args))[0]  # noqa: E731
                elif mode == "inductor":
                    fn = functools.partial(torch.compile(m), *args)
                elif mode == "kiln":
                    fn = functools.partial(torch.compile(m, backend="kiln"), *args)
                elif mode == "kiln_inputs":
                    fn = functools.partial(torch.compile(m, backend="kiln", options={"bind_weights": False}),
                                           *args)
                elif mode == "kiln_frozen":
                    fn = functools.partial(torch.compile(m, backend="kiln", options={"freezing": True}),
                                           *args)
                else:
                    fn = functools.partial(m, *args)
                with torch.no_grad():
                    out = fn()  # compiles (or, recording, records)
                    err = ((out.float() - ref.float()).norm() / ref.float().norm()).item()
                r[mode] = {"rel_err": err}
                fns[mode] = fn
            except Exception as e:  # noqa: BLE001 - reported in the table
                r[mode] = {"error": f"{type(e).__name__}: {str(e)[:400]}"}
                print(name, mode, r[mode], flush=True)
        if fns:
            with torch.no_grad():
                for mode, ms in median_ms(fns, dev, iters=iters).items():
                    r[mode]["ms"] = ms
                    print(name, mode, r[mode], flush=True)
            if "kiln" in fns and iters > 3:
                r["kiln"]["reload_ms"] = reload_ms(fns["kiln"], m, dev)
                print(name, "kiln call after a parameter write", r["kiln"]["reload_ms"], "ms", flush=True)
    if pack and so:
        r["kiln_run_cli"] = {"ms": kiln_run_ms(pack, so, pt2 or "", g, name, args, dev)}
        print(name, "kiln-run --bench", r["kiln_run_cli"], flush=True)
    return r


def reload_ms(fn, m, dev, times=5):
    """Median wall time of a call made right after an in-place write of one
    parameter (the backend then loads its module again over the weights)."""
    p = next(m.parameters())
    ts = []
    with torch.no_grad():
        for _ in range(times):
            p.mul_(1.0)
            sync(dev)
            t0 = time.perf_counter()
            fn()
            sync(dev)
            ts.append(1e3 * (time.perf_counter() - t0))
    return sorted(ts)[len(ts) // 2]


def kiln_run_ms(pack, so, pt2, g, name, args, dev):
    """kiln-run --bench of the CLI-compiled .so (external weights from a fresh export)."""
    import numpy as np
    exe = os.path.join(pack, "bin", "kiln-run")
    if not os.path.isfile(exe):
        exe = shutil.which("kiln-run") or exe
    if not os.path.isfile(exe):
        print(f"no kiln-run in {pack}/bin or on PATH: kiln-run --bench skipped", flush=True)
        return None
    cmd = [exe, so, "--weights", pt2, "--device", dev.type, "--bench", "100"]
    for i, a in enumerate(args):
        p = os.path.join(tempfile.gettempdir(), f"{name}_in{i}.npy")
        np.save(p, a.cpu().numpy())
        cmd += ["--input", p]
    env = g.cudnn_env(dict(os.environ))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    mm = re.search(r"median ([0-9.]+) ms", r.stdout + r.stderr)
    if not mm:
        print(r.stdout[-2000:], r.stderr[-2000:])
        return None
    return float(mm.group(1))


INFER = ("resnet50_b1_fp32", "bert_base_b1_fp32")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--phase", choices=["record", "replay"], required=True)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--pack", help="bench/pack_gpu.sh output: time the CLI .so too (in this process "
                    "through kiln.load, and with kiln-run --bench)")
    ap.add_argument("--only", default="", help="run only the configs whose name contains this")
    ap.add_argument("--skip-train", action="store_true", help="inference only")
    ap.add_argument("--skip-infer", action="store_true", help="training only")
    ap.add_argument("--device", default="cuda", help="cuda (default) or cpu")
    ap.add_argument("--models-dir", help="the folder holding bench/gpu_models.py (default: beside "
                    "this script, or the repository's bench/)")
    ap.add_argument("--iters", type=int, default=100, help="timed inference calls per mode")
    ap.add_argument("--infer-modes", default="eager,inductor,kiln,kiln_so",
                    help="replay's inference modes (comma-separated)")
    ap.add_argument("--train-modes", default="eager,inductor,kiln",
                    help="replay's training modes, in order (comma-separated)")
    ap.add_argument("--json")
    ap.add_argument("--recompute", action="store_true",
                    help="also train with the recomputing backward (kiln_recompute)")
    a = ap.parse_args()
    dev = torch.device(a.device)
    infer_names = [n for n in INFER if not a.skip_infer and (not a.only or a.only in n)]
    if infer_names:
        gpu_models(a.models_dir)  # fails now, not after the training, if it is missing
    res = {"device": torch.cuda.get_device_name() if dev.type == "cuda" else "cpu", "phase": a.phase,
           "train": {}, "infer": {}}
    import kiln.dynamo
    for name, make in TRAIN.items():
        if a.skip_train or (a.only and a.only not in name):
            continue
        modes = ["kiln"] if a.phase == "record" else a.train_modes.split(",")
        if a.recompute:
            modes.append("kiln_recompute")
        r = {}
        for mode in modes:
            torch._dynamo.reset()
            steps = 2 if a.phase == "record" else a.steps
            try:
                losses, ms, split = train(make, mode, steps, dev)
                r[mode] = {"losses": losses, "step_ms": ms, "split_graphs": split}
            except Exception as e:  # noqa: BLE001 - reported in the table
                r[mode] = {"error": f"{type(e).__name__}: {str(e)[:400]}"}
            if mode != "eager" and "losses" in r[mode] and "losses" in r.get("eager", {}):
                e, k = r["eager"]["losses"], r[mode]["losses"]
                r[mode]["max_rel_loss_diff"] = max(abs(x - y) / abs(y) for x, y in zip(k, e))
            print(name, mode, r[mode] if "error" in r[mode] else
                  f"step {r[mode]['step_ms']:.2f} ms, last loss {r[mode]['losses'][-1]:.6f}"
                  + (f", split training graphs {r[mode]['split_graphs']}" if r[mode]["split_graphs"] else "")
                  + (f", max rel loss diff vs eager {r[mode]['max_rel_loss_diff']:.2e}"
                     if "max_rel_loss_diff" in r[mode] else ""), flush=True)
        if "max_rel_loss_diff" in r.get("kiln", {}):
            r["max_rel_loss_diff"] = r["kiln"]["max_rel_loss_diff"]
        res["train"][name] = r
    failed = []
    for name in infer_names:
        before = len(kiln.dynamo.explanations())
        modes = a.infer_modes.split(",")
        if a.phase == "record":  # what the replay's kiln modes compile (a frozen one carries its weights)
            modes = [x for x in modes if x in ("kiln", "kiln_inputs")] or ["kiln"]
        r = infer(name, modes, dev, a.models_dir, a.pack if a.phase == "replay" else None,
                  3 if a.phase == "record" else a.iters)
        graphs = [e for e in kiln.dynamo.explanations()[before:] if e["kind"] == "inference"]
        if a.phase == "record":
            # Each graph was recorded now, or is in the cache already (compiled).
            r["recorded"] = sum("recorded in" in e["reason"] for e in graphs)
            print(f"{name}: {len(graphs)} inference graph(s), {r['recorded']} recorded for kiln.offline, "
                  f"{sum(e['compiled'] for e in graphs)} found compiled", flush=True)
            if not graphs or not all(e["compiled"] or "recorded in" in e["reason"] for e in graphs):
                failed.append(name)
        elif "error" in r.get("kiln", {}) or not graphs or not all(e["compiled"] for e in graphs):
            failed.append(name)
        r["bound_inputs"] = [e.get("bound_inputs", 0) for e in graphs]
        r["held_weights"] = [e.get("held_weights", 0) for e in graphs]
        res["infer"][name] = r
    res["kiln_summary"] = kiln.dynamo.summary()
    print(json.dumps(res["kiln_summary"]))
    print("\n== on", res["device"])
    for name, r in res["train"].items():
        cells = [f"{m} {r[m]['step_ms']:.2f} ms" if "step_ms" in r.get(m, {}) else f"{m} -" for m in
                 ("eager", "inductor", "kiln", "kiln_recompute") if m in r]
        cells += [f"{m} split graphs {r[m]['split_graphs']}" for m in ("kiln", "kiln_recompute")
                  if r.get(m, {}).get("split_graphs")]
        cells += [f"{m} max rel loss diff vs eager {r[m]['max_rel_loss_diff']:.2e}"
                  for m in ("inductor", "kiln", "kiln_recompute") if "max_rel_loss_diff" in r.get(m, {})]
        print(f"train {name}: " + ", ".join(cells))
    for name, r in res["infer"].items():
        cells = [f"{m} {r[m]['ms']:.3f} ms" if r.get(m, {}).get("ms") else f"{m} -" for m in
                 ("eager", "inductor", "kiln", "kiln_inputs", "kiln_frozen", "kiln_so", "kiln_run_cli") if m in r]
        for m in ("kiln", "kiln_inputs", "kiln_frozen"):
            if r.get(m, {}).get("ms") and r.get("kiln_so", {}).get("ms"):
                cells.append(f"{m} / CLI .so {r[m]['ms'] / r['kiln_so']['ms']:.3f}")
        print(f"infer {name}: " + ", ".join(cells))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    if failed:
        sys.exit(f"backend.py: inference through the backend failed or recorded nothing for {', '.join(failed)}")


if __name__ == "__main__":
    main()

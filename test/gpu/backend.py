"""torch.compile(backend="kiln") on a GPU: training and inference against eager and Inductor.

Run on a GPU machine with the package test/gpu/pack_python.sh builds (kiln's
Python package for that machine's Python, with no kiln-compile):

  record:  KILN_RECORD_DIR=rec python3 backend.py --phase record
           (each graph Dynamo hands kiln is recorded and runs in eager)
  build machine:  python -m kiln.offline compile rec --cache-dir cache
  replay:  KILN_CACHE_DIR=cache KILN_STRICT=1 python3 backend.py --phase replay [--pack P]

Training: N AdamW steps of ResNet-18 (batch 32, 224x224, train-mode batch
norm) and of a BERT-base-sized encoder (12 layers, d=768, dropout 0, batch 8,
128 tokens, a linear head with cross-entropy) from the same initial weights in
eager, Inductor (torch.compile()) and kiln; losses compared to eager's (relative
difference), the median step time of the last half of the steps. Inference:
ResNet-50 and BERT-base at batch 1 in float32 through the backend, eager and
Inductor, and (with --pack, bench/pack_gpu.sh's output) the same model compiled
by the CLI and timed with kiln-run --bench on this GPU. float32 everywhere with
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
import copy
import json
import os
import re
import subprocess
import sys
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
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(fn(*args), y)
        loss.backward()
        opt.step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
    half = sorted(times[steps // 2:])
    training = [e for e in kiln.dynamo.explanations()[before:] if e["kind"] == "training"]
    split = f"{sum(bool(e.get('split')) for e in training)}/{len(training)}" if training else ""
    return losses, 1e3 * half[len(half) // 2], split


def median_ms(fn, iters=100, warmup=10):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    for a, b in ev:
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    ts = sorted(a.elapsed_time(b) for a, b in ev)
    return ts[len(ts) // 2]


def infer(name, mode, dev):
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:0] = [here, os.path.join(here, "..", "..", "bench")]  # packed beside it, or the repo's
    import gpu_models
    m, args = gpu_models.build(name)
    m = m.to(dev)
    args = tuple(a.to(dev) for a in args)
    fn = m
    if mode == "inductor":
        fn = torch.compile(m)
    elif mode == "kiln":
        fn = torch.compile(m, backend="kiln")
    with torch.no_grad():
        out = fn(*args)
        ref = m(*args)
        err = ((out - ref).norm() / ref.norm()).item()
        return median_ms(lambda: fn(*args)), err


def kiln_run_ms(pack, name):
    """kiln-run --bench of the CLI-compiled .so (external weights from a fresh export)."""
    sys.path.insert(0, pack)
    import numpy as np
    import gpu_models
    m, args = gpu_models.build(name)
    d = os.path.join(pack, name)
    pt2 = os.path.join("/tmp", name + ".pt2")
    gpu_models.export(m, args, pt2)
    cmd = [os.path.join(pack, "bin", "kiln-run"), os.path.join(d, "model.so"), "--weights", pt2,
           "--device", "cuda", "--bench", "100"]
    for i, a in enumerate(args):
        p = f"/tmp/{name}_in{i}.npy"
        np.save(p, a.numpy())
        cmd += ["--input", p]
    env = gpu_models.cudnn_env(dict(os.environ))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    mm = re.search(r"median ([0-9.]+) ms", r.stdout + r.stderr)
    if not mm:
        print(r.stdout[-2000:], r.stderr[-2000:])
        return None
    return float(mm.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--phase", choices=["record", "replay"], required=True)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--pack", help="bench/pack_gpu.sh output: time the CLI .so too")
    ap.add_argument("--only", default="")
    ap.add_argument("--json")
    ap.add_argument("--recompute", action="store_true",
                    help="also train with the recomputing backward (kiln_recompute)")
    a = ap.parse_args()
    dev = torch.device("cuda")
    res = {"device": torch.cuda.get_device_name(), "phase": a.phase, "train": {}, "infer": {}}
    import kiln.dynamo
    for name, make in TRAIN.items():
        if a.only and a.only not in name:
            continue
        modes = ["kiln"] if a.phase == "record" else ["eager", "inductor", "kiln"]
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
            print(name, mode, r[mode] if "error" in r[mode] else
                  f"step {r[mode]['step_ms']:.2f} ms, last loss {r[mode]['losses'][-1]:.6f}"
                  + (f", split training graphs {r[mode]['split_graphs']}" if r[mode]["split_graphs"] else ""),
                  flush=True)
        if "eager" in r and "losses" in r.get("kiln", {}) and "losses" in r["eager"]:
            e, k = r["eager"]["losses"], r["kiln"]["losses"]
            r["max_rel_loss_diff"] = max(abs(x - y) / abs(y) for x, y in zip(k, e))
        res["train"][name] = r
    for name in ("resnet50_b1_fp32", "bert_base_b1_fp32"):
        if a.only and a.only not in name:
            continue
        modes = ["kiln"] if a.phase == "record" else ["eager", "inductor", "kiln"]
        r = {}
        for mode in modes:
            torch._dynamo.reset()
            try:
                ms, err = infer(name, mode, dev)
                r[mode] = {"ms": ms, "rel_err": err}
            except Exception as e:  # noqa: BLE001
                r[mode] = {"error": f"{type(e).__name__}: {str(e)[:400]}"}
            print(name, mode, r[mode], flush=True)
        if a.pack and a.phase == "replay":
            r["kiln_run_cli"] = {"ms": kiln_run_ms(a.pack, name)}
            print(name, "kiln-run", r["kiln_run_cli"], flush=True)
        res["infer"][name] = r
    res["kiln_summary"] = kiln.dynamo.summary()
    print(json.dumps(res["kiln_summary"]))
    print("\n== on", res["device"])
    for name, r in res["train"].items():
        cells = [f"{m} {r[m]['step_ms']:.2f} ms" if "step_ms" in r.get(m, {}) else f"{m} -" for m in
                 ("eager", "inductor", "kiln", "kiln_recompute") if m in r]
        cells += [f"{m} split graphs {r[m]['split_graphs']}" for m in ("kiln", "kiln_recompute")
                  if r.get(m, {}).get("split_graphs")]
        print(f"train {name}: " + ", ".join(cells) + (f", max rel loss diff {r['max_rel_loss_diff']:.2e}"
                                                      if "max_rel_loss_diff" in r else ""))
    for name, r in res["infer"].items():
        cells = [f"{m} {r[m]['ms']:.3f} ms" if r.get(m, {}).get("ms") else f"{m} -" for m in
                 ("eager", "inductor", "kiln", "kiln_run_cli")]
        print(f"infer {name}: " + ", ".join(cells))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()

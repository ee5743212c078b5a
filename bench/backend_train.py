#!/usr/bin/env python3
"""Side-by-side CPU training steps through torch.compile(backend="kiln"): the split
halves (kiln-compile --grad --split, the default) vs the recomputing
value-and-gradient backward (options={"split": False}) vs PyTorch eager, in one run.

The steps of the three modes are interleaved, so the machine's load falls on
each alike. Models: torchvision's ResNet-18 (10 classes) on 64x64 images, batch 8, batch
norm in training mode; a BERT-style encoder (transformers' BertModel, 4 layers,
hidden 256, 4 heads, 64 tokens, batch 8, dropout 0.1) with a linear head. Each
trains N AdamW steps from the same weights in each mode; the median step time
of the last half of the steps is printed, and the bytes autograd saves for the
backward in one step (every tensor saved through ctx.save_for_backward or by
eager's ops, counted once per storage, parameters and buffers left out).

usage: PYTHONPATH=build/python-bindings bench/backend_train.py [--steps N] [--only NAME] [--threads T]
"""
import argparse
import copy
import time

import torch
import torch.nn as nn


def resnet18():
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet18(num_classes=10)
    g = torch.Generator().manual_seed(1)
    return m, (torch.randn(8, 3, 64, 64, generator=g),), torch.randint(0, 10, (8,), generator=g)


class Bert(nn.Module):
    def __init__(self):
        super().__init__()
        import transformers
        conf = transformers.BertConfig(vocab_size=1000, hidden_size=256, num_hidden_layers=4,
                                       num_attention_heads=4, intermediate_size=1024,
                                       max_position_embeddings=64, hidden_dropout_prob=0.1,
                                       attention_probs_dropout_prob=0.1)
        conf._attn_implementation = "eager"
        self.bert = transformers.BertModel(conf, add_pooling_layer=False)
        self.head = nn.Linear(256, 2)

    def forward(self, ids):
        return self.head(self.bert(input_ids=ids).last_hidden_state[:, 0])


def bert():
    torch.manual_seed(0)
    m = Bert()
    g = torch.Generator().manual_seed(1)
    return m, (torch.randint(0, 1000, (8, 64), generator=g),), torch.randint(0, 2, (8,), generator=g)


MODELS = {"resnet18_64x64_b8": resnet18, "bert_4x256_s64_b8": bert}


def saved_bytes(fn, args, y, weights):
    """Bytes autograd saves for the backward in one step (unique storages, no weights)."""
    seen, total = set(), [0]

    def pack(t):
        if isinstance(t, torch.Tensor):
            ptr = t.untyped_storage().data_ptr()
            if ptr not in weights and ptr not in seen:
                seen.add(ptr)
                total[0] += t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = nn.functional.cross_entropy(fn(*args), y)
    loss.backward()
    return total[0]


MODES = ("eager", "kiln", "kiln_recompute")


def train_interleaved(make, steps):
    """Each mode trains its own copy of the model from the same weights; the
    steps are interleaved (one step of each mode in turn) so that a change in
    the machine's load falls on every mode alike."""
    import kiln.dynamo
    base, args, y = make()
    base.train()
    runs = {}
    for mode in MODES:
        model = copy.deepcopy(base)
        fn = model
        if mode == "kiln":
            fn = torch.compile(model, backend="kiln")
        elif mode == "kiln_recompute":
            fn = torch.compile(model, backend="kiln", options={"split": False})
        runs[mode] = {"model": model, "fn": fn, "opt": torch.optim.AdamW(model.parameters(), lr=1e-4),
                      "times": [], "losses": []}
    before = len(kiln.dynamo.explanations())
    for _ in range(steps):
        for mode in MODES:
            r = runs[mode]
            t0 = time.perf_counter()
            r["opt"].zero_grad(set_to_none=True)
            loss = nn.functional.cross_entropy(r["fn"](*args), y)
            loss.backward()
            r["opt"].step()
            r["times"].append(time.perf_counter() - t0)
            r["losses"].append(loss.item())
    entries = kiln.dynamo.explanations()[before:]
    out = {}
    for mode in MODES:
        r = runs[mode]
        model = r["model"]
        weights = {t.untyped_storage().data_ptr() for t in list(model.parameters()) + list(model.buffers())}
        half = sorted(r["times"][steps // 2:])
        out[mode] = {"step_ms": 1e3 * half[len(half) // 2], "min_ms": 1e3 * half[0],
                     "losses": r["losses"], "saved_bytes": saved_bytes(r["fn"], args, y, weights)}
    out["graphs"] = [(e["compiled"], e.get("split")) for e in entries]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--only", default="")
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    for name, make in MODELS.items():
        if a.only and a.only not in name:
            continue
        res = train_interleaved(make, a.steps)
        for mode in MODES:
            r = res[mode]
            print(f"{name:20s} {mode:15s} step {r['step_ms']:8.1f} ms (min {r['min_ms']:8.1f}), saved "
                  f"{r['saved_bytes'] / 2**20:7.2f} MiB, losses {r['losses'][0]:.4f} .. {r['losses'][-1]:.4f}",
                  flush=True)
        print(f"{name:20s} kiln graphs (compiled, split): {res['graphs']}", flush=True)


if __name__ == "__main__":
    main()

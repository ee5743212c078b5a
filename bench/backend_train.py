#!/usr/bin/env python3
"""Side-by-side CPU training steps through torch.compile(backend="kiln"): the split
halves (kiln-compile --grad --split, the default) vs the recomputing
value-and-gradient backward (options={"split": False}) vs PyTorch eager, in one run.

Models: torchvision's ResNet-18 (10 classes) on 64x64 images, batch 8, batch
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


def train(make, mode, steps):
    import kiln.dynamo
    model, args, y = make()
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    fn = model
    if mode == "kiln":
        fn = torch.compile(model, backend="kiln")
    elif mode == "kiln_recompute":
        fn = torch.compile(model, backend="kiln", options={"split": False})
    before = len(kiln.dynamo.explanations())
    losses, times = [], []
    for _ in range(steps):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(fn(*args), y)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
    weights = {t.untyped_storage().data_ptr() for t in list(model.parameters()) + list(model.buffers())}
    saved = saved_bytes(fn, args, y, weights)
    entries = kiln.dynamo.explanations()[before:]
    half = sorted(times[steps // 2:])
    return {"step_ms": 1e3 * half[len(half) // 2], "min_ms": 1e3 * half[0], "losses": losses,
            "saved_bytes": saved, "graphs": len(entries),
            "split": sum(bool(e.get("split")) for e in entries),
            "compiled": sum(bool(e["compiled"]) for e in entries)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--only", default="")
    ap.add_argument("--threads", type=int, default=0)
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    import torch._dynamo
    rows = []
    for name, make in MODELS.items():
        if a.only and a.only not in name:
            continue
        for mode in ("eager", "kiln", "kiln_recompute"):
            torch._dynamo.reset()
            r = train(make, mode, a.steps)
            rows.append((name, mode, r))
            print(f"{name:22s} {mode:15s} step {r['step_ms']:8.1f} ms (min {r['min_ms']:8.1f}), saved "
                  f"{r['saved_bytes'] / 2**20:7.2f} MiB, graphs {r['graphs']} ({r['split']} split, "
                  f"{r['compiled']} compiled), losses {r['losses'][0]:.4f} .. {r['losses'][-1]:.4f}",
                  flush=True)


if __name__ == "__main__":
    main()

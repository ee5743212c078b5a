"""Programs and PyTorch's numbers for kiln's random ops and losses (test/e2e/random-*.test, loss-*.test).

  python3 export.py [NAME...]      (torch 2.11 from PyPI; writes NAME/ beside this file)

random_ops   x [256, 512] of ones -> dropout(x, 0.3), rand_like, randn, randint(0, 10),
             bernoulli(x * 0.3), bernoulli(x, 0.7) (default IR: aten.dropout,
             rand_like, randn, randint, bernoulli; Core ATen IR: native_dropout,
             rand, lt, _to_copy). No expected values: test/e2e/Inputs/random/
             check_stats.py checks the distributions.
dropout_grad x [B, 64] (B symbolic, 1..64) -> dropout(x * w, 0.4), w a parameter of ones:
             kiln-compile --grad's gradients must read the forward's mask
             (check_stats.py --grad).
losses       every loss kiln compiles, one output each, on a symbolic batch
             (2..64): cross_entropy with class indices (weight, ignore_index,
             label_smoothing, mean/sum/none), over [B, C, H, W]
             (nll_loss2d), nll_loss,
             mse, l1, smooth_l1, huber, binary_cross_entropy,
             binary_cross_entropy_with_logits (pos_weight), kl_div (and
             log_target). input{i}.npy, output{i}.npy, and in grads/ the
             cotangents and PyTorch's gradients of sum(output_i * cotangent_i)
             with respect to every floating-point input (batch 5).
rules        backward rules against PyTorch's gradients: a grouped, strided transposed
             convolution with output_padding and bias (ConvTranspose2d), the values
             of topk and sort (scattered back at their indices); same files as losses.
sdpa_dropout scaled_dot_product_attention(q, k, v, float mask, dropout_p=1e-7) in training:
             decomposed with a dropout; output0.npy is PyTorch's attention without
             dropout (at p = 1e-7 no element of a seeded run is dropped).
refused      x + randperm(4): a random op kiln does not compile (test/Import/random-ops.test).
losses_probs cross_entropy with class probabilities (label_smoothing, mean and
             none), the same files; batch 5 static (torch.export specialises
             the batch of a probability target).
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

HERE = os.path.dirname(os.path.abspath(__file__))


def save(ep, d, core=True):
    os.makedirs(d, exist_ok=True)
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    if core:
        torch.export.save(ep.run_decompositions(), os.path.join(d, "model.core.pt2"))


class RandomOps(nn.Module):
    def forward(self, x):
        return (F.dropout(x, 0.3, True), torch.rand_like(x), torch.randn(x.shape),
                torch.randint(0, 10, x.shape), torch.bernoulli(x * 0.3), torch.bernoulli(x, 0.7))


class Rules(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)

    def forward(self, x, y):
        top = torch.topk(y, 3, dim=1).values
        srt = torch.sort(y, dim=0, descending=True).values
        return self.up(x), top * top, srt[:2] * 2.0


def rules_inputs(b, g):
    return (torch.randn(b, 4, 5, 6, generator=g), torch.randn(b, 8, generator=g))


class SdpaDropout(nn.Module):
    def forward(self, q, k, v, m):
        return F.scaled_dot_product_attention(q, k, v, m, dropout_p=1e-7)


def export_sdpa_dropout():
    d = os.path.join(HERE, "sdpa_dropout")
    os.makedirs(d, exist_ok=True)
    g = torch.Generator().manual_seed(0)
    ins = (torch.randn(2, 2, 5, 4, generator=g), torch.randn(2, 2, 6, 4, generator=g),
           torch.randn(2, 2, 6, 4, generator=g), torch.randn(2, 1, 1, 6, generator=g))
    torch.export.save(torch.export.export(SdpaDropout().train(), ins), os.path.join(d, "model.pt2"))
    for i, x in enumerate(ins):
        np.save(os.path.join(d, f"input{i}.npy"), x.numpy())
    np.save(os.path.join(d, "output0.npy"), F.scaled_dot_product_attention(*ins).numpy())


class Refused(nn.Module):
    def forward(self, x):
        return x + torch.randperm(4).float()


def export_refused():
    d = os.path.join(HERE, "refused")
    os.makedirs(d, exist_ok=True)
    torch.export.save(torch.export.export(Refused(), (torch.ones(4),)), os.path.join(d, "model.pt2"))


class DropoutGrad(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(64))

    def forward(self, x):
        return F.dropout(x * self.w, 0.4, True)


class Losses(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cw", torch.linspace(0.5, 1.5, 7))

    def forward(self, logits, target, logits4d, target4d, pred, goal, z, zt):
        ce = F.cross_entropy
        return (
            ce(logits, target),
            ce(logits, target, weight=self.cw, reduction="sum"),
            ce(logits, target, ignore_index=2, reduction="none"),
            ce(logits, target, weight=self.cw, ignore_index=2, label_smoothing=0.1),
            ce(logits4d, target4d, weight=self.cw),
            F.nll_loss(logits.log_softmax(1), target, reduction="sum"),
            F.mse_loss(pred, goal),
            F.l1_loss(pred, goal, reduction="sum"),
            F.smooth_l1_loss(pred, goal, beta=0.5),
            F.huber_loss(pred, goal, delta=0.7, reduction="none"),
            F.binary_cross_entropy(torch.sigmoid(z), zt),
            F.binary_cross_entropy_with_logits(z, zt, pos_weight=torch.full((3,), 2.0)),
            F.kl_div(pred.log_softmax(1), goal.softmax(1), reduction="batchmean"),
            F.kl_div(pred.log_softmax(1), goal.log_softmax(1), reduction="sum", log_target=True),
        )


class LossesProbs(nn.Module):
    def forward(self, logits, probs):
        return (F.cross_entropy(logits, probs.softmax(1)),
                F.cross_entropy(logits, probs.softmax(1), label_smoothing=0.2, reduction="none"))


def probs_inputs(b, g):
    return (torch.randn(b, 7, generator=g), torch.randn(b, 7, generator=g))


def losses_inputs(b, g):
    return (torch.randn(b, 7, generator=g), torch.randint(0, 7, (b,), generator=g),
            torch.randn(b, 7, 3, 4, generator=g),
            torch.randint(0, 7, (b, 3, 4), generator=g), torch.randn(b, 5, generator=g),
            torch.randn(b, 5, generator=g), torch.randn(b, 3, generator=g),
            torch.rand(b, 3, generator=g))


def export_random_ops():
    m = RandomOps().train()
    save(torch.export.export(m, (torch.ones(256, 512),)), os.path.join(HERE, "random_ops"))
    np.save(os.path.join(HERE, "random_ops", "input0.npy"), np.ones((256, 512), np.float32))


def export_dropout_grad():
    m = DropoutGrad().train()
    b = Dim("batch", min=1, max=64)
    ep = torch.export.export(m, (torch.ones(8, 64),), dynamic_shapes=({0: b},))
    d = os.path.join(HERE, "dropout_grad")
    save(ep, d)
    np.save(os.path.join(d, "input0.npy"), np.ones((32, 64), np.float32))
    g = torch.Generator().manual_seed(3)
    np.save(os.path.join(d, "cotangent0.npy"), torch.randn(32, 64, generator=g).numpy())


def export_losses(name="losses"):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    if name == "rules":
        m, make = Rules(), rules_inputs
        ep = torch.export.export(m, make(3, g))
    elif name == "losses":
        m, make = Losses(), losses_inputs
        b = Dim("batch", min=2, max=64)
        ep = torch.export.export(m, make(4, g), dynamic_shapes=tuple({0: b} for _ in range(8)))
    else:
        m, make = LossesProbs(), probs_inputs
        ep = torch.export.export(m, make(5, g))
    d = os.path.join(HERE, name)
    save(ep, d)
    g = torch.Generator().manual_seed(2)
    ins = list(make(3 if name == "rules" else 5, g))
    for i, x in enumerate(ins):
        np.save(os.path.join(d, f"input{i}.npy"), x.numpy())
    floats = [i for i, x in enumerate(ins) if x.dtype.is_floating_point]
    for i in floats:
        ins[i] = ins[i].double().requires_grad_()
    m = m.double()
    outs = m(*ins)
    os.makedirs(os.path.join(d, "grads"), exist_ok=True)
    loss = 0
    for k, o in enumerate(outs):
        np.save(os.path.join(d, f"output{k}.npy"), o.detach().float().numpy())
        c = torch.randn(o.shape, generator=g, dtype=torch.float64)
        np.save(os.path.join(d, "grads", f"cotangent{k}.npy"), c.float().numpy())
        loss = loss + (o * c).sum()
    params = dict(m.named_parameters())
    grads = torch.autograd.grad(loss, [ins[i] for i in floats] + list(params.values()))
    for i, gr in zip(floats, grads):
        np.save(os.path.join(d, "grads", f"input{i}.npy"), gr.float().numpy())
    for pname, gr in zip(params, grads[len(floats):]):
        np.save(os.path.join(d, "grads", f"{pname}.npy"), gr.float().numpy())


if __name__ == "__main__":
    todo = {"random_ops": export_random_ops, "refused": export_refused, "sdpa_dropout": export_sdpa_dropout, "dropout_grad": export_dropout_grad, "losses": export_losses,
            "losses_probs": lambda: export_losses("losses_probs"),
            "rules": lambda: export_losses("rules")}
    for name in sys.argv[1:] or list(todo):
        todo[name]()
        print("wrote", name)

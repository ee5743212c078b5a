"""Per-sample gradient references shared by make_refs.py and convnd/export.py:
the vmap of a model over a batch of samples and the per-sample gradients of
sum(model(x_b) * c_b), written in the layout of the corpus grads/ folders
(which kiln-run --expect-grads reads)."""
import os

import numpy as np
import torch


def per_sample_grads(model, xs, g, in_dims=(None, 0, 0), cotangent=None):
    """(output, cotangents, parameter gradients, input gradients) of `model`
    over the samples `xs` (batch in front): output = torch.func.vmap(model)(xs),
    the cotangents seeded random from generator `g` in the output's shape
    unless `cotangent` is given, and the gradients
    torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)), in_dims)."""
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, x, c):
        return (torch.func.functional_call(model, p, (x,)) * c).sum()

    with torch.no_grad():
        out = torch.func.vmap(lambda x: torch.func.functional_call(model, params, (x,)))(xs)
    cs = torch.randn(out.shape, generator=g) if cotangent is None else cotangent
    gp, gx = torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)), in_dims=in_dims)(params, xs, cs)
    return out, cs, gp, gx


def save_grads(d, xs, out, cs, gp, gx):
    """d/input0.npy, d/output0.npy (when `out` is not None), d/grads/cotangent0.npy,
    d/grads/input0.npy and d/grads/<parameter>.npy."""
    os.makedirs(os.path.join(d, "grads"), exist_ok=True)
    np.save(os.path.join(d, "input0.npy"), xs.numpy())
    if out is not None:
        np.save(os.path.join(d, "output0.npy"), out.numpy())
    np.save(os.path.join(d, "grads", "cotangent0.npy"), cs.numpy())
    np.save(os.path.join(d, "grads", "input0.npy"), gx.numpy())
    for k, v in gp.items():
        np.save(os.path.join(d, "grads", k + ".npy"), v.numpy())

"""Reference numbers for kiln-compile --vmap (test/e2e/vmap-*.test).

For the corpus mlp, convnet and attention models (rebuilt in PyTorch from the
archives' raw weights, nothing unpickled; checked against the corpus
output0.npy) each exported program is one sample: a batch of B samples is
its input with a new leading dim. Per model and batch size B (3 and 5) this
writes <model>/batch<B>/: input0.npy [B, *x.shape], grads/cotangent0.npy
[B, *out.shape] (seeded random), output0.npy = torch.func.vmap(model)(X)
and the per-sample gradients of sum(model(x_b) * c_b),
torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)), in_dims=(None, 0, 0)),
as grads/input0.npy and grads/<parameter>.npy, each with the batch in front
(the layout of the corpus grads/ folders, which kiln-run --expect-grads reads).
For mlp also dims/ (vmap(model, in_dims=1, out_dims=2) of a [8, 4, 64]
input) and shared_cotangent/ (per-sample gradients with one cotangent for
every sample: in_dims (None, 0, None)) and jacobian.npy
(torch.func.jacrev of the model at the corpus input, [8, 10, 8, 64]), and jvp/
(torch.func.vmap(torch.func.jvp) over 3 samples, each its own primal and tangent).
custom_op/batch2/: two copies of the corpus custom_op input and output.
Run with torch 2.11 from PyPI: python3 make_refs.py [CORPUS_DIR]
"""
import os
import sys

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "bench"))
from cpu_vs_torch import CORPUS, load_raw_weights  # noqa: E402
from grad_vs_torch import MODELS  # noqa: E402
from per_sample import per_sample_grads, save_grads  # noqa: E402

corpus = sys.argv[1] if len(sys.argv) > 1 else CORPUS
# custom_op (kilntest::scaled_gelu, run by the dispatcher): a batch of two
# copies of the corpus input gives two copies of PyTorch's output.
d = os.path.join(here, "custom_op", "batch2")
os.makedirs(d, exist_ok=True)
x = np.load(os.path.join(corpus, "custom_op", "input0.npy"))
y = np.load(os.path.join(corpus, "custom_op", "output0.npy"))
np.save(os.path.join(d, "input0.npy"), np.stack([x, x]))
np.save(os.path.join(d, "output0.npy"), np.stack([y, y]))
for name in ("mlp", "convnet", "attention"):
    pt2 = os.path.join(corpus, name, "model.pt2")
    model = MODELS[name]().eval()
    model.load_state_dict(load_raw_weights(pt2), strict=True)
    x0 = torch.from_numpy(np.load(os.path.join(corpus, name, "input0.npy")))
    with torch.no_grad():
        assert np.allclose(model(x0).numpy(), np.load(os.path.join(corpus, name, "output0.npy")),
                           rtol=1e-4, atol=1e-5), f"{name}: not the corpus model"
    params = {k: v.detach() for k, v in model.named_parameters()}

    for batch in (3, 5):
        g = torch.Generator().manual_seed(batch)
        xs = torch.randn((batch, *x0.shape), generator=g)
        save_grads(os.path.join(here, name, f"batch{batch}"), xs, *per_sample_grads(model, xs, g))
        print(name, batch, "ok")
    if name != "mlp":
        continue
    # in_dims / out_dims: vmap(model, in_dims=1, out_dims=2) on [8, B, 64].
    g = torch.Generator().manual_seed(7)
    xs = torch.randn((x0.shape[0], 4, *x0.shape[1:]), generator=g)
    with torch.no_grad():
        out = torch.func.vmap(lambda x: torch.func.functional_call(model, params, (x,)),
                              in_dims=1, out_dims=2)(xs)
    d = os.path.join(here, name, "dims")
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "input0.npy"), xs.numpy())
    np.save(os.path.join(d, "output0.npy"), out.numpy())
    # The Jacobian of the output for its input (jacrev / jacfwd by vmap).
    jac = torch.func.jacrev(lambda x: torch.func.functional_call(model, params, (x,)))(x0)
    np.save(os.path.join(here, name, "jacobian.npy"), jac.detach().numpy())
    # An unbatched cotangent (in_dims None): one cotangent for every sample.
    xs = torch.randn((4, *x0.shape), generator=g)
    c = torch.randn((x0.shape[0], 10), generator=g)
    _, _, gp, gx = per_sample_grads(model, xs, g, in_dims=(None, 0, None), cotangent=c)
    save_grads(os.path.join(here, name, "shared_cotangent"), xs, None, c, gp, gx)
    # vmap(jvp): every sample its own primal and tangent (kiln-compile --jvp --vmap=0).
    xs = torch.randn((3, *x0.shape), generator=g)
    ts = torch.randn((3, *x0.shape), generator=g)
    f = lambda x: torch.func.functional_call(model, params, (x,))  # noqa: E731
    with torch.no_grad():
        out, tout = torch.func.vmap(lambda x, t: torch.func.jvp(f, (x,), (t,)))(xs, ts)
    d = os.path.join(here, name, "jvp")
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "input0.npy"), xs.numpy())
    np.save(os.path.join(d, "tangent0.npy"), ts.numpy())
    np.save(os.path.join(d, "output0.npy"), out.numpy())
    np.save(os.path.join(d, "tangent_output0.npy"), tout.numpy())

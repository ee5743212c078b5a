"""Reference numbers for forward-mode and higher derivatives of a model that
updates state (test/e2e/grad-bn-jvp.test).

A Linear, BatchNorm1d, tanh, Linear model in float64, exported with
torch.export in training mode: each call normalises with the batch's
statistics and updates the running mean, variance and batch count. The
references are torch.func's over a functional_call of the module with its
parameters and buffers, at input0.npy:
- torch.func.jvp along tangent0.npy: output0.npy, tangents/output0.npy, and
  the buffers after the call (state/): the state is updated once, by the
  primal computation, as the module's plain forward updates it (checked
  here for the running mean and variance, which torch.func can take as
  primals with zero tangents);
- torch.func.jacrev (jacobian/input0.npy), torch.func.hessian of sum(output)
  (hessian/input0_input0.npy) and the Hessian-vector product along
  tangent0.npy (hvp/input0.npy). Their derivatives do not depend on the
  running statistics (training mode normalises with the batch's), so they are
  taken over the same module with its buffers left out (F.batch_norm with no
  running statistics), which torch.func's vmap needs.
Run with torch 2.11 from PyPI: python3 make_refs.py
"""
import copy
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, hessian, jacrev, jvp

here = os.path.dirname(os.path.abspath(__file__))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 3)
        self.bn = nn.BatchNorm1d(3)
        self.fc2 = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(torch.tanh(self.bn(self.fc1(x))))


def save(rel, t):
    path = os.path.join(here, rel + ".npy")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.save(path, t.detach().numpy())


torch.manual_seed(0)
model = Net().double().train()
g = torch.Generator().manual_seed(1)
x = torch.randn(4, 3, generator=g, dtype=torch.float64)
t = torch.randn(4, 3, generator=g, dtype=torch.float64)
ep = torch.export.export(copy.deepcopy(model), (x,))
torch.export.save(ep, os.path.join(here, "model.pt2"))
save("input0", x)
save("tangent0", t)

m = copy.deepcopy(model)
params = {n: p.detach() for n, p in m.named_parameters()}


def stateless(xx):
    h = F.linear(xx, params["fc1.weight"], params["fc1.bias"])
    h = F.batch_norm(h, None, None, params["bn.weight"], params["bn.bias"], training=True,
                     eps=m.bn.eps)
    return F.linear(torch.tanh(h), params["fc2.weight"], params["fc2.bias"])


# torch.func.jvp of a functional_call whose float buffers are primals too
# (zero tangents; torch.func refuses to mutate captured tensors, so the
# integer batch count is left out here): the state it leaves is the plain
# forward's, updated once.
fm = copy.deepcopy(model)
fm.bn.num_batches_tracked = None
names = ["bn.running_mean", "bn.running_var"]
bufs = [dict(fm.named_buffers())[n].clone() for n in names]


def f(xx, rm, rv):
    return functional_call(fm, (params, dict(zip(names, [rm, rv]))), (xx,))


out, tout = jvp(f, (x, *bufs), (t, torch.zeros_like(bufs[0]), torch.zeros_like(bufs[1])))
with torch.no_grad():
    plain = m(x)
assert torch.allclose(plain, out)
for n, b in zip(names, bufs):
    assert torch.equal(b, dict(m.named_buffers())[n]), n
_, tstateless = jvp(stateless, (x,), (t,))
assert torch.allclose(tstateless, tout)
save("output0", out)
save("tangents/output0", tout)
for n, b in m.named_buffers():
    save("state/" + n, b)

assert torch.allclose(stateless(x), out)
save("jacobian/input0", jacrev(stateless)(x))
save("hessian/input0_input0", hessian(lambda xx: stateless(xx).sum())(x))
_, hv = jvp(torch.func.grad(lambda xx: stateless(xx).sum()), (x,), (t,))
save("hvp/input0", hv)

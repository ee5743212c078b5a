"""PyTorch's gradients and tangents of scan-zeros.mlir at inputs with exact zeros.

f(x, y) = (cumprod(x, 1), prod(x, 1), prod(y)), x [4, 5] with no zero in row
0, one zero inside row 1, a zero first in row 2 and two zeros in row 3; y
[2, 3] with one zero. Finite differences cannot reach an exact zero of a
random input, so test/e2e/grad-scan-zeros.test compares kiln with these
float64 references made by torch.autograd.grad and torch.func.jvp.
Run with torch: python3 make_expected.py
"""
import os

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
g = torch.Generator().manual_seed(11)


def rand(*shape):
    shape = tuple(shape)
    return torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1


def save(name, t):
    np.save(os.path.join(here, name + ".npy"), t.detach().numpy())


x = rand(4, 5)
x[1, 2] = 0
x[2, 0] = 0
x[3, 1] = 0
x[3, 3] = 0
y = rand(2, 3)
y[1, 1] = 0


def f(x, y):
    return torch.cumprod(x, 1), torch.prod(x, 1), torch.prod(y)


os.makedirs(os.path.join(here, "grads"), exist_ok=True)
xs, ys = x.clone().requires_grad_(), y.clone().requires_grad_()
outs = f(xs, ys)
cots = [rand(*o.shape) for o in outs]
gx, gy = torch.autograd.grad(outs, (xs, ys), cots)
save("x", x)
save("y", y)
for i, (o, c) in enumerate(zip(outs, cots)):
    save(f"output{i}", o)
    save(f"grads/cotangent{i}", c)
save("grads/input0", gx)
save("grads/input1", gy)

tx, ty = rand(4, 5), rand(2, 3)
_, tangents = torch.func.jvp(f, (x, y), (tx, ty))
save("tx", tx)
save("ty", ty)
for i, t in enumerate(tangents):
    save(f"tangent{i}", t)

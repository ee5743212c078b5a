"""Closed-form derivatives of the programs here (test/e2e/grad-derivatives.test).

sin-scale.mlir, f(x, y) = sin(x) * y (y [3] broadcast over x [2, 3]):
  d f_ij / d x_kl = [i=k][j=l] cos(x_ij) y_j,  d f_ij / d y_l = [j=l] sin(x_ij);
  L = sum f:  d2L/dx2 = diag(-sin(x) y),  d2L/dx_ij dy_l = [j=l] cos(x_ij),  d2L/dy2 = 0.
exp-mv.mlir, f(x) = exp(A x):
  d f / d x = diag(exp(A x)) A,  d2 sum(f) / dx2 = A^T diag(exp(A x)) A.
Writes the inputs, the vectors of the Hessian-vector products and every
expected result as .npy (float64). Run with numpy: python3 make_expected.py
"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)


def save(name, a):
    np.save(os.path.join(here, name + ".npy"), np.asarray(a, dtype=np.float64))


x = rng.uniform(-2, 2, (2, 3)); y = rng.uniform(-2, 2, (3,))
vx = rng.uniform(-1, 1, (2, 3)); vy = rng.uniform(-1, 1, (3,))
f = np.sin(x) * y
jx = np.zeros((2, 3, 2, 3)); jy = np.zeros((2, 3, 3))
hxx = np.zeros((2, 3, 2, 3)); hxy = np.zeros((2, 3, 3))
for i in range(2):
    for j in range(3):
        jx[i, j, i, j] = np.cos(x[i, j]) * y[j]
        jy[i, j, j] = np.sin(x[i, j])
        hxx[i, j, i, j] = -np.sin(x[i, j]) * y[j]
        hxy[i, j, j] = np.cos(x[i, j])
hyx = np.transpose(hxy, (2, 0, 1))
hyy = np.zeros((3, 3))
for n, a in [("x", x), ("y", y), ("vx", vx), ("vy", vy), ("f", f), ("jx", jx), ("jy", jy),
             ("hxx", hxx), ("hxy", hxy), ("hyx", hyx), ("hyy", hyy)]:
    save("sin-scale." + n, a)
save("sin-scale.hvpx", np.einsum("ijkl,kl->ij", hxx, vx) + np.einsum("ijl,l->ij", hxy, vy))
save("sin-scale.hvpy", np.einsum("lij,ij->l", hyx, vx) + hyy @ vy)

A = np.array([[0.5, -1.0, 0.25, 2.0], [1.5, 0.0, -0.5, 0.75], [-0.25, 1.0, 1.0, -1.5]])
x = rng.uniform(-1, 1, (4,)); v = rng.uniform(-1, 1, (4,))
e = np.exp(A @ x)
h = A.T @ np.diag(e) @ A
for n, a in [("x", x), ("v", v), ("f", e), ("j", np.diag(e) @ A), ("h", h), ("hvp", h @ v)]:
    save("exp-mv." + n, a)

"""Jacobians by vmap: basis vectors in, rows or columns checked (standard library only).

usage: vmap-jacobian.py basis OUT.npy SHAPE
         writes the identity basis of a float32 tensor of SHAPE (comma-separated)
         as one [N, *SHAPE] array (N = the number of elements)
       vmap-jacobian.py rows GRADS.npy JAC.npy
         GRADS [N_out, *in] (vjp of each output basis vector) against the
         Jacobian JAC [*out, *in]: row o of JAC
       vmap-jacobian.py columns TANGENTS.npy JAC.npy
         TANGENTS [N_in, *out] (jvp along each input basis vector): column i
Compares within rtol 1e-4, atol 1e-5; exits 1 on a mismatch.
"""
import os
import sys

# test/Inputs/npy.py: .npy files with the standard library.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Inputs"))
from npy import load as load_npy, save as save_npy  # noqa: E402


def load(path):
    return load_npy(path, "vmap-jacobian")


mode = sys.argv[1]
if mode == "basis":
    shape = tuple(int(s) for s in sys.argv[3].split(","))
    n = 1
    for d in shape:
        n *= d
    values = [0.0] * (n * n)
    for i in range(n):
        values[i * n + i] = 1.0
    save_npy(sys.argv[2], "<f4", (n,) + shape, values)
    sys.exit(0)
(got_shape, got), (jac_shape, jac) = load(sys.argv[2]), load(sys.argv[3])
n_lead = got_shape[0]
per = len(got) // n_lead
other = len(jac) // per if mode == "rows" else len(jac) // n_lead
bad = 0
for k in range(n_lead):
    for j in range(per):
        # rows: got[o, i] = jac[o, i]; columns: got[i, o] = jac[o, i].
        want = jac[k * per + j] if mode == "rows" else jac[j * n_lead + k]
        g = got[k * per + j]
        if abs(g - want) > 1e-5 + 1e-4 * abs(want):
            bad += 1
            if bad <= 3:
                print(f"{mode} mismatch at [{k}, {j}]: {g} vs {want}")
if bad:
    sys.exit(1)
print(f"{mode} of the Jacobian {list(jac_shape)}: OK ({n_lead} x {per})")

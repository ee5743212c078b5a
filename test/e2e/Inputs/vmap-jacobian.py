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
import ast
import struct
import sys


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode("latin1"))
    code = {"<f4": "f", "<f8": "d"}[header["descr"]]
    count = 1
    for d in header["shape"]:
        count *= d
    return header["shape"], struct.unpack("<" + code * count, data[10 + hlen:10 + hlen + 4 * count * (2 if code == "d" else 1)])


def save(path, shape, values):
    shape_str = "(" + "".join(f"{d}, " for d in shape).rstrip(" ")
    shape_str = shape_str.rstrip(",") + ("," if len(shape) == 1 else "") + ")"
    header = f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape_str}, }}"
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


mode = sys.argv[1]
if mode == "basis":
    shape = tuple(int(s) for s in sys.argv[3].split(","))
    n = 1
    for d in shape:
        n *= d
    values = [0.0] * (n * n)
    for i in range(n):
        values[i * n + i] = 1.0
    save(sys.argv[2], (n,) + shape, values)
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

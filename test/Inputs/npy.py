"""Reads and writes .npy files with the standard library only (no numpy), for
the helper scripts lit runs (check-duality.py, make-npy.py and, in
test/e2e/Inputs, vmap-jacobian.py, dtype-io.py, math-sweep.py).
Little-endian version-1 files in C order."""
import ast
import struct
import sys

# numpy descr -> struct code.
CODES = {"<f8": "d", "<f4": "f", "<f2": "e", "<i8": "q", "<i4": "i", "<i2": "h", "|i1": "b",
         "|u1": "B", "|b1": "?"}


def read(path, who):
    """(descr, shape, values) of .npy file `path`; exits naming `who` if it is
    not a .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{who}: {path} is not a .npy file")
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode("latin1"))
    code = CODES[header["descr"]]
    count = 1
    for d in header["shape"]:
        count *= d
    body = data[10 + hlen:10 + hlen + count * struct.calcsize(code)]
    return header["descr"], tuple(header["shape"]), list(struct.unpack("<" + code * count, body))


def load(path, who):
    """(shape, values) of .npy file `path` (see read)."""
    return read(path, who)[1:]


def save(path, descr, shape, values):
    """Writes `values` (len = the product of `shape`) as a .npy file of dtype
    `descr`, its header padded as numpy pads it."""
    dims = "".join(f"{d}, " for d in shape).rstrip(" ")
    dims = dims.rstrip(",") + ("," if len(shape) == 1 else "")
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}"
    header += " " * (-(10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<" + CODES[descr] * len(values), *values))

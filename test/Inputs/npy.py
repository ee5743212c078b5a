"""Reads and writes .npy files with the standard library only (no numpy), for
the helper scripts lit runs (check-duality.py, make-npy.py,
test/e2e/Inputs/vmap-jacobian.py). Little-endian version-1 files, C order."""
import ast
import struct
import sys

CODES = {"<f4": "f", "<f8": "d", "<i8": "q", "<i4": "i", "|u1": "B", "|b1": "?"}


def load(path, who):
    """(shape, values) of float32 or float64 .npy file `path`; exits naming
    `who` if it is not a .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{who}: {path} is not a .npy file")
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode("latin1"))
    code = {"<f4": "f", "<f8": "d"}[header["descr"]]
    count = 1
    for d in header["shape"]:
        count *= d
    body = data[10 + hlen:10 + hlen + count * struct.calcsize(code)]
    return header["shape"], struct.unpack("<" + code * count, body)


def save(path, descr, shape, values):
    """Writes `values` (len = the product of `shape`) as a .npy file of dtype `descr`."""
    shape_str = "(" + "".join(f"{d}, " for d in shape).rstrip(" ")
    shape_str = shape_str.rstrip(",") + ("," if len(shape) == 1 else "") + ")"
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_str}, }}"
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<" + CODES[descr] * len(values), *values))

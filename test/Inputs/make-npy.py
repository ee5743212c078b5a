"""Writes a .npy file with the standard library only (no numpy needed).

usage: make-npy.py OUT DTYPE SHAPE [--fill VALUE]

DTYPE is a numpy descr such as <f4, <f8, <i8; SHAPE is comma-separated
(e.g. 8,64; empty for a 0-d array). Values are VALUE (default 0.5).
"""
import struct
import sys

out, descr, shape_text = sys.argv[1:4]
fill = float(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--fill" else 0.5
shape = tuple(int(s) for s in shape_text.split(",") if s)
codes = {"<f4": "f", "<f8": "d", "<i8": "q", "<i4": "i", "|u1": "B", "|b1": "?"}
count = 1
for d in shape:
    count *= d
shape_str = "(" + "".join(f"{d}, " for d in shape).rstrip(" ")
shape_str = shape_str.rstrip(",") + ("," if len(shape) == 1 else "") + ")"
header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_str}, }}"
pad = 64 - (10 + len(header) + 1) % 64
header = header + " " * pad + "\n"
code = codes[descr]
value = fill if code in "fd" else int(fill)
with open(out, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
    f.write(struct.pack("<" + code * count, *([value] * count)))

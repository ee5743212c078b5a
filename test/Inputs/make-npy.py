"""Writes a .npy file with the standard library only (no numpy needed).

usage: make-npy.py OUT DTYPE SHAPE [--fill VALUE]

DTYPE is a numpy descr such as <f4, <f8, <i8; SHAPE is comma-separated
(e.g. 8,64; empty for a 0-d array). Values are VALUE (default 0.5).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npy  # noqa: E402

out, descr, shape_text = sys.argv[1:4]
fill = float(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[4] == "--fill" else 0.5
shape = tuple(int(s) for s in shape_text.split(",") if s)
count = 1
for d in shape:
    count *= d
value = fill if npy.CODES[descr] in "fd" else int(fill)
npy.save(out, descr, shape, [value] * count)

# Inputs and expected outputs of boolean-masks.mlir: random floats and a random
# mask (standard library only, as lit's own interpreter runs it).
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "Inputs"))
import npy  # noqa: E402

d = sys.argv[1]
rng = random.Random(7)
shape = (8, 100)
count = shape[0] * shape[1]


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


x = [f32(rng.gauss(0.0, 1.0)) for _ in range(count)]
y = [f32(rng.gauss(0.0, 1.0)) for _ in range(count)]
m = [rng.random() < 0.5 for _ in range(count)]
npy.save(f"{d}/x.npy", "<f4", shape, x)
npy.save(f"{d}/y.npy", "<f4", shape, y)
npy.save(f"{d}/m.npy", "|b1", shape, m)
npy.save(f"{d}/selected.npy", "<f4", shape, [a if k else b for a, b, k in zip(x, y, m)])
npy.save(f"{d}/both.npy", "|b1", shape, [k and a < b for a, b, k in zip(x, y, m)])

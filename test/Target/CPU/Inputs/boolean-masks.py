# Inputs and expected outputs of boolean-masks.mlir: random floats and a random mask.
import sys

import numpy as np

d = sys.argv[1]
rng = np.random.default_rng(7)
x = rng.standard_normal((8, 100)).astype(np.float32)
y = rng.standard_normal((8, 100)).astype(np.float32)
m = rng.random((8, 100)) < 0.5
np.save(f"{d}/x.npy", x)
np.save(f"{d}/y.npy", y)
np.save(f"{d}/m.npy", m)
np.save(f"{d}/selected.npy", np.where(m, x, y))
np.save(f"{d}/both.npy", m & (x < y))

#!/usr/bin/env python3
"""Compares two kiln-run --output-dir folders (test/e2e/grad-split.test): every
.npy under SUBDIR of A (grads/, params/) with the same file in B, elementwise
|a - b| <= atol + rtol * |b|. Prints one line per file and exits 1 on a
mismatch or an empty folder. Standard library only (the tests' Python need
not have NumPy)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "random"))
from check_stats import read_npy  # noqa: E402


def main(a, b, sub, rtol, atol):
    names = sorted(n for n in os.listdir(os.path.join(a, sub)) if n.endswith(".npy"))
    if not names:
        sys.exit(f"{a}/{sub}: no .npy files")
    bad = 0
    for n in names:
        x, y = read_npy(os.path.join(a, sub, n)), read_npy(os.path.join(b, sub, n))
        same_shape = x.shape == y.shape
        err = max((abs(p - q) for p, q in zip(x.v, y.v)), default=0.0)
        ok = same_shape and all(abs(p - q) <= atol + rtol * abs(q) for p, q in zip(x.v, y.v))
        print(f"{sub}/{n}: max abs difference {err:.3g}: {'OK' if ok else 'MISMATCH'}")
        bad += not ok
    print(f"{len(names)} files compared, {bad} mismatched")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])))

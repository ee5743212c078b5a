#!/usr/bin/env python3
"""Statistical checks of kiln's random ops (test/e2e/random-ops.test, random-dropout-grad.test).

  check_stats.py ops RUN1 RUN2 OTHER_SEED   output dirs of test/data/random/random_ops:
      RUN1 the first run of a process, RUN2 the second run of the same process
      (the generator's next offset), OTHER_SEED a first run with another seed
  check_stats.py grad DIR P COTANGENT       a --grad run of dropout_grad (input of ones)

Every bound is 6 standard deviations of the statistic (the numbers are
deterministic for a seed, so this only guards against a biased or correlated
generator). Prints one line per check; exits 1 on the first failure.
Standard library only (the tests' Python need not have NumPy).
"""
import array
import ast
import math
import os
import struct
import sys

SIGMAS = 6.0


class Arr:
    """A .npy file's values as a flat list, with its shape."""

    def __init__(self, values, shape, kind):
        self.v, self.shape, self.kind = values, shape, kind
        self.size = len(values)


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    major = data[6]
    hlen = struct.unpack("<H" if major == 1 else "<I", data[8:10] if major == 1 else data[8:12])[0]
    start = 10 + hlen if major == 1 else 12 + hlen
    header = ast.literal_eval(data[10 if major == 1 else 12:start].decode("latin1"))
    codes = {"<f4": "f", "<f8": "d", "<i8": "q", "|b1": "B"}
    code = codes[header["descr"]]
    a = array.array(code)
    a.frombytes(data[start:])
    if header.get("fortran_order"):
        sys.exit(f"{path}: Fortran order")
    return Arr(list(a), tuple(header["shape"]), header["descr"])


def load(d, i):
    return read_npy(os.path.join(d, f"output{i}.npy"))


def mean(v):
    return math.fsum(v) / len(v)


def var(v):
    m = mean(v)
    return math.fsum((x - m) ** 2 for x in v) / len(v)


def corrcoef(a, b):
    ma, mb = mean(a), mean(b)
    sab = math.fsum((x - ma) * (y - mb) for x, y in zip(a, b))
    sa = math.fsum((x - ma) ** 2 for x in a)
    sb = math.fsum((y - mb) ** 2 for y in b)
    return sab / math.sqrt(sa * sb)


def shifted(a, axis):
    """Pairs of neighbours of a 2-d array along `axis`: (first, second) lists."""
    rows, cols = a.shape
    v = a.v
    if axis == 1:
        return ([v[r * cols + c] for r in range(rows) for c in range(cols - 1)],
                [v[r * cols + c + 1] for r in range(rows) for c in range(cols - 1)])
    return v[:(rows - 1) * cols], v[cols:]


def close(name, value, expect, sd):
    ok = abs(value - expect) <= SIGMAS * sd
    print(f"{name}: {value:.6f} (expected {expect:.6f} +- {SIGMAS * sd:.6f}): {'OK' if ok else 'FAIL'}")
    if not ok:
        sys.exit(1)


def require(name, ok):
    print(f"{name}: {'OK' if ok else 'FAIL'}")
    if not ok:
        sys.exit(1)


def uncorrelated(name, a, b):
    close(f"{name} correlation", corrcoef(a, b), 0.0, 1 / math.sqrt(len(a)))


def uniform_bins(name, u, lo, hi, bins):
    counts = [0] * bins
    for x in u:
        counts[min(bins - 1, int((x - lo) / (hi - lo) * bins))] += 1
    p = 1 / bins
    sd = math.sqrt(len(u) * p * (1 - p))
    worst = max(abs(c - len(u) * p) for c in counts) / sd
    require(f"{name} histogram ({bins} bins, worst {worst:.2f} sd)", worst <= SIGMAS)


def check_ops(run1, run2, other):
    p = 0.3
    d1, d2, d3 = load(run1, 0), load(run2, 0), load(other, 0)
    n = d1.size
    scale = struct.unpack("f", struct.pack("f", 1 / (1 - p)))[0]
    require("dropout values are 0 or 1/(1-p)", all(x == 0 or x == scale for x in d1.v))
    keep = Arr([1.0 if x != 0 else 0.0 for x in d1.v], d1.shape, "")
    close("dropout keep rate", mean(keep.v), 1 - p, math.sqrt(p * (1 - p) / n))
    close("dropout mean (scaled by 1/(1-p))", mean(d1.v), 1.0, math.sqrt(p / (1 - p) / n))
    uncorrelated("dropout masks of two runs", keep.v, [1.0 if x != 0 else 0.0 for x in d2.v])
    uncorrelated("dropout masks of two seeds", keep.v, [1.0 if x != 0 else 0.0 for x in d3.v])
    uncorrelated("dropout mask of neighbours along a row", *shifted(keep, 1))
    uncorrelated("dropout mask of neighbours along a column", *shifted(keep, 0))
    require("another run draws other numbers", d1.v != d2.v)

    u = load(run1, 1)
    require("rand in [0, 1)", min(u.v) >= 0 and max(u.v) < 1)
    close("rand mean", mean(u.v), 0.5, math.sqrt(1 / 12 / n))
    close("rand variance", var(u.v), 1 / 12, math.sqrt(1 / 180 / n))
    uniform_bins("rand", u.v, 0, 1, 16)
    uncorrelated("rand and the dropout mask", u.v, keep.v)
    uncorrelated("rand of two runs", u.v, load(run2, 1).v)

    z = load(run1, 2)
    close("randn mean", mean(z.v), 0.0, math.sqrt(1 / n))
    close("randn variance", var(z.v), 1.0, math.sqrt(2 / n))
    close("randn within one sd", mean([1.0 if abs(x) < 1 else 0.0 for x in z.v]), 0.682689,
          math.sqrt(0.682689 * 0.317311 / n))
    close("randn beyond two sd", mean([1.0 if abs(x) > 2 else 0.0 for x in z.v]), 0.0455003,
          math.sqrt(0.0455 * 0.9545 / n))
    uncorrelated("randn and rand", z.v, u.v)

    k = load(run1, 3)
    require("randint dtype int64", k.kind == "<i8")
    require("randint in [0, 10)", min(k.v) >= 0 and max(k.v) < 10)
    uniform_bins("randint", k.v, -0.5, 9.5, 10)

    b = load(run1, 4)
    require("bernoulli(x * 0.3) is 0 or 1", all(x == 0 or x == 1 for x in b.v))
    close("bernoulli(x * 0.3) mean", mean(b.v), 0.3, math.sqrt(0.21 / n))
    b7 = load(run1, 5)
    close("bernoulli(x, 0.7) mean", mean(b7.v), 0.7, math.sqrt(0.21 / n))
    uncorrelated("the two bernoulli draws", b.v, b7.v)


def check_grad(d, p, cot):
    out = load(d, 0)
    g = read_npy(os.path.join(d, "grads", "input0.npy"))
    gw = read_npy(os.path.join(d, "grads", "w.npy"))
    c = read_npy(cot)
    scale = 1 / (1 - p)
    keep = [1.0 if x != 0 else 0.0 for x in out.v]
    require("output is 0 or 1/(1-p)", all(x == 0 or abs(x - scale) < 1e-6 for x in out.v))
    close("keep rate", mean(keep), 1 - p, math.sqrt(p * (1 - p) / out.size))
    # x and w are ones: d out / d x = mask / (1 - p), the forward's mask.
    expect = [ci * ki * scale for ci, ki in zip(c.v, keep)]
    require("grads/input0 = cotangent * the forward's mask / (1-p)",
            all(abs(a - e) <= 1e-6 * abs(e) + 1e-7 for a, e in zip(g.v, expect)))
    rows, cols = out.shape
    col = [math.fsum(expect[r * cols + j] for r in range(rows)) for j in range(cols)]
    require("grads/w = the same summed over the batch",
            all(abs(a - e) <= 1e-5 * abs(e) + 1e-5 for a, e in zip(gw.v, col)))


if __name__ == "__main__":
    if sys.argv[1] == "ops":
        check_ops(*sys.argv[2:5])
    else:
        check_grad(sys.argv[2], float(sys.argv[3]), sys.argv[4])

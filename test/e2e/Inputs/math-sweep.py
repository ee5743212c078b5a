"""Dense sweep of the float32 transcendental functions for e2e/math-approximations.test.
Standard library only (the tests' Python need not have NumPy).

usage: math-sweep.py write DIR          DIR/x.npy: the sweep (float32)
       math-sweep.py check DIR OUTDIR   OUTDIR/output{i}.npy against float64 references;
                                        prints each function's worst error and "ok" or "FAIL"

The sweep is 256 values in every binade of float32 (denormals included) of
both signs, a uniform grid of 65536 points over [-16, 16), and the special
values (infinities, NaN, signed zeros, the edges of exp's range).

An output element passes when |got - ref| <= atol(x) + rtol * |ref| (ref the
float64 function rounded to float32; NaN must match NaN, infinities must
match exactly): rtol is 3 float32 ulps (3 * 2^-23), atol lets results below
the normal range flush to zero (FUNCTIONS below).
"""
import math
import os
import struct
import sys

# test/Inputs/npy.py: .npy files with the standard library.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Inputs"))
import npy  # noqa: E402

SPECIALS = [math.inf, -math.inf, math.nan, 0.0, -0.0, 88.72, -87.33, -103.97, 89.0, -104.0, 1e-45, -1e-45]


def sweep():
    xs = []
    for sign in (0, 1):
        for exponent in range(255):
            for k in range(256):
                bits = (sign << 31) | (exponent << 23) | (k << 15)
                xs.append(struct.unpack("<f", struct.pack("<I", bits))[0])
    xs += [-16.0 + 32.0 * i / 65536 for i in range(65536)]
    xs += SPECIALS
    return [struct.unpack("<f", struct.pack("<f", x))[0] for x in xs]


def f32(v):
    try:
        return struct.unpack("<f", struct.pack("<f", v))[0]
    except OverflowError:
        return math.copysign(math.inf, v)


def overflowing_above_709(fn):
    """`fn` (exp or expm1 in double) with NaN for NaN and infinity past 709, where it overflows."""
    def f(x):
        if x != x:
            return math.nan
        if x > 709:
            return math.inf
        return fn(x)
    return f


exp = overflowing_above_709(math.exp)
expm1 = overflowing_above_709(math.expm1)


def log(x):
    if x != x or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    return math.log(x)


def log1p(x):
    if x != x or x < -1:
        return math.nan
    if x == -1:
        return -math.inf
    return math.log1p(x)


def sigmoid(x):
    if x != x:
        return math.nan
    if x < -700:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


def gelu(x):
    # x * 0.5 * (1 + erf(x / sqrt(2))), as PyTorch computes it: -inf * 0 is NaN.
    if x != x or x == -math.inf:
        return math.nan
    if x == math.inf:
        return x
    return 0.5 * x * (1.0 + math.erf(x / math.sqrt(2.0)))


def silu(x):
    # x * sigmoid(x): -inf * 0 is NaN.
    if x != x or x == -math.inf:
        return math.nan
    return x * sigmoid(x)


FLT_MIN = 2.0 ** -126  # the smallest normal float32
EPS = 2.0 ** -23


def no_atol(x):
    return 0.0


def below_normal(x):
    # Results below the normal range may be flushed to zero.
    return FLT_MIN


def times_x(x):
    # x times a result below the normal range, which may be flushed to zero.
    return FLT_MIN * max(1.0, abs(x))


def gelu_atol(x):
    # For x < 0, 1 + erf(x / sqrt(2)) cancels: erf's rounding near -1
    # (2^-24) comes out multiplied by x / 2 (PyTorch's own kernel is as
    # far from the exact value there).
    return 4 * 2.0 ** -24 * 0.5 * abs(x) + FLT_MIN


# (name, reference, rtol, atol(x)) in the order of the model's outputs.
FUNCTIONS = [
    ("exp", exp, 3 * EPS, below_normal),
    ("expm1", expm1, 3 * EPS, below_normal),
    ("erf", lambda x: math.nan if x != x else math.erf(x), 3 * EPS, below_normal),
    ("tanh", lambda x: math.nan if x != x else math.tanh(x), 3 * EPS, below_normal),
    ("log", log, 3 * EPS, no_atol),
    ("log1p", log1p, 3 * EPS, below_normal),
    ("sigmoid", sigmoid, 3 * EPS, below_normal),
    ("gelu", gelu, 3 * EPS, gelu_atol),
    ("silu", silu, 3 * EPS, times_x),
]


def write_npy(path, values):
    npy.save(path, "<f4", (len(values),), values)


def read_npy(path):
    descr, _, values = npy.read(path, "math-sweep")
    assert descr == "<f4", (path, descr)
    return values


def check(xs, outdir):
    failed = False
    for i, (name, ref, rtol, atol) in enumerate(FUNCTIONS):
        got = read_npy("%s/output%d.npy" % (outdir, i))
        assert len(got) == len(xs), name
        worst, worst_x, bad, first = 0.0, None, 0, None
        for x, g in zip(xs, got):
            r = f32(ref(x))
            if r != r or g != g:
                ok = (r != r) and (g != g)
                err = 0.0 if ok else math.inf
            elif math.isinf(r) or math.isinf(g):
                ok = r == g
                err = 0.0 if ok else math.inf
            else:
                diff = abs(g - r)
                ok = diff <= atol(x) + rtol * abs(r)
                err = diff / max(abs(r), 1e-45)
            if not ok:
                bad += 1
                first = first or (x, g, r)
            elif err > worst and atol(x) < rtol * abs(r):
                worst, worst_x = err, x
        status = "ok" if bad == 0 else "FAIL (%d of %d, first at x = %r: got %r, expected %r)" % ((bad, len(xs)) + first)
        failed |= bad != 0
        print("%s: max rel error %.3g (at x = %r): %s" % (name, worst, worst_x, status))
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write_npy(sys.argv[2] + "/x.npy", sweep())
        print(len(sweep()))
    elif sys.argv[1] == "check":
        sys.exit(check(sweep(), sys.argv[3]))

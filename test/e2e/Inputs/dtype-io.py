"""Writes inputs and expected outputs for e2e/dtype-io.test, or checks outputs.
Standard library only (the tests' Python need not have NumPy).

usage: dtype-io.py write DIR    in_<dtype>.npy ([2, 3]) and out_<dtype>.npy ([6])
       dtype-io.py check DIR    DIR/output{i}.npy hold the flattened inputs, bf16 as f32
       dtype-io.py off-by-one IN OUT INDEX    OUT is IN (an i64 file) with element INDEX - 1

bf16 data is stored as float32 (NumPy has no bfloat16), with values bf16 holds
exactly.
"""
import math
import os
import sys

# test/Inputs/npy.py: .npy files with the standard library.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Inputs"))
import npy  # noqa: E402
from npy import save  # noqa: E402

INF, NAN = math.inf, math.nan
# name -> (npy descr, values)
DTYPES = [
    ("f32", "<f4", [1.5, -2.0, NAN, INF, -0.0, 3.4028234663852886e38]),
    ("f64", "<f8", [0.1, -1e300, NAN, -INF, 5e-324, 2.0]),
    ("f16", "<f2", [1.0, -2.0, 65504.0, 2.0 ** -24, NAN, 0.333251953125]),
    ("bf16", "<f4", [1.0, 0.15625, -3.3895313892515355e38, 2.0 ** -133, INF, -1.0078125]),
    ("i64", "<i8", [2 ** 53 + 1, -7, -2 ** 63, 2 ** 63 - 1, 0, 1]),
    ("i32", "<i4", [2 ** 31 - 1, -1, 0, -2 ** 31, 5, 6]),
    ("i16", "<i2", [-32768, 5, 32767, 0, 1, -1]),
    ("i8", "|i1", [-128, 0, 127, 1, -1, 2]),
    ("u8", "|u1", [0, 128, 255, 1, 2, 3]),
    ("bool", "|b1", [True, False, True, True, False, False]),
]


def load(path):
    return npy.read(path, "dtype-io")


def same(a, b):
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


def main():
    mode = sys.argv[1]
    if mode == "off-by-one":
        descr, shape, v = load(sys.argv[2])
        v[int(sys.argv[4])] -= 1
        save(sys.argv[3], descr, shape, v)
        return
    folder = sys.argv[2]
    for i, (name, descr, values) in enumerate(DTYPES):
        if mode == "write":
            save(f"{folder}/in_{name}.npy", descr, (2, 3), values)
            save(f"{folder}/out_{name}.npy", descr, (6,), values)
            continue
        got_descr, shape, got = load(f"{folder}/output{i}.npy")
        if got_descr != descr or shape != (6,):
            sys.exit(f"output {i} ({name}): {got_descr} {shape}, expected {descr} (6,)")
        if not all(same(a, b) for a, b in zip(got, values)):
            sys.exit(f"output {i} ({name}): {got} != {values}")
        print(f"output {i} ({name}): {got_descr} ok")


main()

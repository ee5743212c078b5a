"""Writes inputs and expected outputs for e2e/dtype-io.test, or checks outputs.
Standard library only (the tests' Python need not have NumPy).

usage: dtype-io.py write DIR    in_<dtype>.npy ([2, 3]) and out_<dtype>.npy ([6])
       dtype-io.py check DIR    DIR/output{i}.npy hold the flattened inputs, bf16 as f32
       dtype-io.py off-by-one IN OUT INDEX    OUT is IN (an i64 file) with element INDEX - 1

bf16 data is stored as float32 (NumPy has no bfloat16), with values bf16 holds
exactly.
"""
import ast
import math
import struct
import sys

INF, NAN = math.inf, math.nan
# name -> (npy descr, struct code, values)
DTYPES = [
    ("f32", "<f4", "f", [1.5, -2.0, NAN, INF, -0.0, 3.4028234663852886e38]),
    ("f64", "<f8", "d", [0.1, -1e300, NAN, -INF, 5e-324, 2.0]),
    ("f16", "<f2", "e", [1.0, -2.0, 65504.0, 2.0 ** -24, NAN, 0.333251953125]),
    ("bf16", "<f4", "f", [1.0, 0.15625, -3.3895313892515355e38, 2.0 ** -133, INF, -1.0078125]),
    ("i64", "<i8", "q", [2 ** 53 + 1, -7, -2 ** 63, 2 ** 63 - 1, 0, 1]),
    ("i32", "<i4", "i", [2 ** 31 - 1, -1, 0, -2 ** 31, 5, 6]),
    ("i16", "<i2", "h", [-32768, 5, 32767, 0, 1, -1]),
    ("i8", "|i1", "b", [-128, 0, 127, 1, -1, 2]),
    ("u8", "|u1", "B", [0, 128, 255, 1, 2, 3]),
    ("bool", "|b1", "?", [True, False, True, True, False, False]),
]
CODES = {d: c for _, d, c, _ in DTYPES}


def save(path, descr, shape, values):
    dims = "".join(f"{d}, " for d in shape).rstrip(" ")
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims.rstrip(',') + (',' if len(shape) == 1 else '')}), }}"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<" + CODES[descr] * len(values), *values))


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    n = struct.unpack("<H", data[8:10])[0]
    h = ast.literal_eval(data[10:10 + n].decode("latin1"))
    count = math.prod(h["shape"])
    return h["descr"], tuple(h["shape"]), list(struct.unpack("<" + CODES[h["descr"]] * count, data[10 + n:]))


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
    for i, (name, descr, _, values) in enumerate(DTYPES):
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

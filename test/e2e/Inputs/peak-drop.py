"""Compares two `kiln-compile --timing` reports (standard library only).

usage: peak-drop.py BEFORE.txt AFTER.txt

Reads the "peak buffer bytes: N" line of each and exits 1 (saying so) unless
AFTER's peak is smaller than BEFORE's; prints both and the drop.
"""
import re
import sys


def peak(path):
    with open(path) as f:
        m = re.search(r"peak buffer bytes: (\d+)", f.read())
    if not m:
        sys.exit(f"peak-drop: no 'peak buffer bytes' line in {path}")
    return int(m.group(1))


before, after = peak(sys.argv[1]), peak(sys.argv[2])
print(f"peak buffer bytes {before} -> {after} ({100.0 * (before - after) / before:.1f}% less)")
if not after < before:
    print("peak-drop: the peak did not drop")
    sys.exit(1)

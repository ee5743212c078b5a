"""Checks the duality of forward and reverse mode (standard library only).

usage: check-duality.py T.npy GRAD.npy JVP.npy COT.npy

T is a tangent of an input, GRAD the reverse-mode gradient of
sum(output * COT) with respect to that input, JVP the forward-mode tangent of
the output along T. For any correct pair, <T, GRAD> == <JVP, COT>; exits 1
(and says so) if they differ by more than 1e-4 relative (float32 sums).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npy  # noqa: E402


def load(path):
    return npy.load(path, "check-duality")[1]


t, g, j, c = (load(p) for p in sys.argv[1:5])
lhs = sum(a * b for a, b in zip(t, g))
rhs = sum(a * b for a, b in zip(j, c))
ok = abs(lhs - rhs) <= 1e-4 * max(abs(lhs), abs(rhs), 1e-6)
print(f"<tangent, grad> = {lhs:.8g}, <jvp, cotangent> = {rhs:.8g}: {'OK' if ok else 'MISMATCH'}")
sys.exit(0 if ok else 1)

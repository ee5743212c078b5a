# Makes the elementwise end-to-end cases (torch from PyPI): small programs
# that each apply many elementwise, conversion and creation ops, exported in
# the default IR (model.pt2) and in Core ATen IR (model.core.pt2), with their
# inputs and PyTorch's outputs as .npy files, and the lit test that checks
# kiln against them (test/e2e/elementwise-<case>.test).
#
# usage: python3 export.py   (from this folder; rewrites every case)
import os
import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
E2E = os.path.join(HERE, "..", "..", "e2e")
torch.manual_seed(0)
nan, inf = float("nan"), float("inf")


def with_specials(x):
    f = x.view(-1)
    f[:5] = torch.tensor([nan, inf, -inf, -0.0, 0.0], dtype=x.dtype)
    return x


def unary_f32(x, u):
    # x: any float32 values (with NaN, +-inf, -0.0); u: values in (-1, 1).
    p = u.abs() + 0.01
    return (
        x.abs(), -x, x.sign(), x.sgn(), x.ceil(), x.floor(), x.round(), x.trunc(), x.frac(),
        torch.round(x, decimals=2), torch.round(x * 100, decimals=-1), x.reciprocal(),
        x.sqrt(), x.rsqrt(), x.exp(), x.exp2(), x.expm1(), x.log(), x.log2(), x.log10(),
        x.log1p(), x.sin(), x.cos(), x.tan(), u.asin(), u.acos(), x.atan(), x.sinh(),
        x.cosh(), x.tanh(), x.asinh(), (x.abs() + 1).acosh(), u.atanh(), x.erf(), x.erfc(),
        u.erfinv(), x.sigmoid(), p.logit(), torch.logit(x, eps=1e-3), x.relu(), F.relu6(x),
        F.leaky_relu(x, 0.2), F.elu(x, 0.7), F.celu(x, 0.5), F.selu(x), F.gelu(x),
        F.gelu(x, approximate="tanh"), F.silu(x), F.mish(x), F.softplus(x, 2.0, 5.0),
        F.hardtanh(x, -0.5, 2.0), F.hardswish(x), F.hardsigmoid(x), F.hardshrink(x, 0.7),
        F.softshrink(x, 0.7), F.threshold(x, 0.5, -3.0), torch.nan_to_num(x),
        torch.nan_to_num(x, 1.5, 100.0, -200.0), x.isnan(), x.isinf(), x.isfinite(),
        x.isposinf(), x.isneginf(), x.signbit(), x.logical_not(), x.square(),
    )


def binary_f32(x, y, r):
    # x: float32 with specials; y: float32 [4] (broadcast); r: 0-d float64.
    m = x > 0.5
    return (
        x + y, torch.add(x, y, alpha=2.5), x - y, torch.sub(x, y, alpha=0.5), x * y, x / y,
        torch.div(x, y, rounding_mode="trunc"), torch.div(x, y, rounding_mode="floor"),
        x // y, torch.fmod(x, y), torch.remainder(x, y), x.abs() ** y, x ** 2, x ** 3,
        x.abs() ** 0.5, x ** -1.0, 2 ** x, torch.maximum(x, y), torch.minimum(x, y),
        torch.fmax(x, y), torch.fmin(x, y), torch.atan2(x, y), torch.hypot(x, y),
        torch.copysign(x, y), torch.copysign(x, -1.0), x == y, x != y, x < y, x <= y, x > y,
        x >= y, x < 0.5, x == 0, torch.logical_and(x, y), torch.logical_or(x, y),
        torch.logical_xor(x, y), x + 2.5, 2 - x, x * 0.3, 3 / x, x % 3, x % -3, x + r, x < r,
        torch.where(m, x, y), torch.where(m, x, 0.5), torch.where(m, 2.0, 3.0),
        x.masked_fill(m, -7.0), torch.clamp(x, -1, 2), torch.clamp(x, min=-0.5),
        torch.clamp(x, max=1.5), torch.clamp(x, min=nan), torch.clamp(x, y, y + 1),
        torch.clamp_min(x, 0.25), torch.clamp_max(x, y), torch.lerp(x, y, 0.3),
        torch.lerp(x, y, torch.sigmoid(y)), torch.addcmul(x, x, y, value=0.5),
        torch.addcdiv(x, x, y, value=2.0), torch.fill(x, 3.5),
    )


def ints(a, b, c, d, e):
    # a: int64, b: int32 (nonzero), c: uint8, d: int8, e: bool.
    bb = b.to(torch.int64)
    s = (bb.abs() % 9).to(torch.int32)
    return (
        a + b, a - b, a * b, a / b, a // b, torch.div(a, b, rounding_mode="trunc"),
        torch.fmod(a, b), torch.remainder(a, b), a % 7, a % -7, -7 // b, a.abs(), -a,
        a.sign(), torch.pow(a, s), torch.pow(d, 2), torch.pow(b % 3 - 1, -s), torch.pow(b, -s), a & b, a | b, a ^ b,
        ~a, b << s, b >> s, d << 3, d >> 2, c << 3, c >> 2, c & 0xF0, ~c, a < b, a == b,
        c < d, c + d, c - d, c * 3, c + 300, c // 7, c % 7, c.abs(), -c, d.abs(), -d,
        torch.maximum(c, d), torch.minimum(a, b), a + 2.5, a < 2.5, a / 2, c / 3,
        torch.clamp(a, -50, 60), torch.clamp(c, max=100), torch.where(e, a, b),
        torch.where(e, c, d), torch.where(e, 1, 0), e + e, e * e, e & e.logical_not(),
        e | e, ~e, e + 1, torch.logical_and(a, c), torch.logical_not(d),
        a.to(torch.float32), c.to(torch.int64), d.to(torch.uint8), a.to(torch.int8),
        a.to(torch.bool), c.to(torch.bool), e.to(torch.int32), (a.float() * 2.7).to(torch.int32),
        (a.float() * -3.3).to(torch.uint8), (a.float() * 0.7).to(torch.bool), a.square(),
        e.square(), d.sgn(), c.sign(), a.isnan(), c.isfinite(),
        d.signbit(), torch.fmax(a, b), torch.maximum(e, e.logical_not()),
    )


def half(x, y, dt):
    # Computes in `dt` (float16 or bfloat16); outputs are converted back to float32.
    h, g = x.to(dt), y.to(dt)
    outs = (
        h + g, h * g, h / g, h - 0.1, h * 0.1, h.exp(), h.log(), h.sqrt(), h.tanh(),
        h.sigmoid(), F.gelu(h), F.silu(h), F.softplus(h), h.erf(), h.erfinv().nan_to_num(),
        torch.pow(h, g), h ** 2, torch.atan2(h, g), torch.hypot(h, g),
        torch.remainder(h, g), torch.div(h, g, rounding_mode="floor"), torch.lerp(h, g, 0.3),
        torch.addcmul(h, h, g, value=0.5), torch.clamp(h, -0.5, 0.7), torch.where(h > g, h, g),
        torch.nan_to_num(h / 0), torch.logit(h.sigmoid(), 1e-3), h.round(decimals=1),
        h.to(torch.float16 if dt == torch.bfloat16 else torch.bfloat16), (h * 10).to(torch.int32),
        x.to(torch.float64).to(dt), torch.arange(0, 2, 0.25, dtype=dt),
        torch.linspace(-1, 3, 9, dtype=dt), torch.full((3,), 0.1, dtype=dt),
    )
    return tuple(o.to(torch.float32) if o.is_floating_point() else o for o in outs)


def f64(x, y):
    return (x.exp(), x.log(), x.sin(), x.erfinv(), torch.hypot(x, y), torch.pow(x, y),
            torch.remainder(x, y), torch.div(x, y, rounding_mode="floor"), x.sigmoid(),
            F.gelu(x), torch.atan2(x, y), torch.arange(0.1, 1.0, 0.1, dtype=torch.float64),
            torch.linspace(0, 1, 7, dtype=torch.float64), x.to(torch.float32), x.to(torch.int64))


def creation(x):
    # x: float32 [n, 3] with a dynamic n.
    n = x.shape[0]
    return (
        torch.zeros(2, 3) + 1, torch.ones(2, 3, dtype=torch.int32),
        torch.full((3,), 200, dtype=torch.uint8), torch.full_like(x, 7),
        torch.zeros_like(x, dtype=torch.int64), torch.ones_like(x), x.new_ones((2, 2)),
        x.new_zeros(3), x.new_full((2,), 4.5), torch.empty(2, 2) * 0,
        x + torch.scalar_tensor(2.0), torch.arange(7), torch.arange(2, 9),
        torch.arange(0.5, 3.0, 0.3), torch.arange(5, -3, -2), torch.arange(n),
        torch.arange(1, n, 2, dtype=torch.float32), x * n, torch.linspace(0, 1, 7),
        torch.linspace(-3, 10, 6, dtype=torch.int64), torch.linspace(2, 5, 1),
    )


def eye(x):
    return (torch.eye(3), torch.eye(2, 4, dtype=torch.int32), torch.eye(3, dtype=torch.bool) & (x > 0))


def case_inputs():
    x = with_specials(torch.randn(6, 4) * 3)
    u = torch.rand(6, 4) * 1.98 - 0.99
    y = torch.randn(4) * 2
    y[0] = 0.75  # no zero divisors, one exactly representable value
    r = torch.tensor(1.25, dtype=torch.float64)
    a = torch.randint(-100, 100, (5, 6), dtype=torch.int64)
    b = torch.randint(1, 30, (5, 6), dtype=torch.int32) * (torch.randint(0, 2, (5, 6)) * 2 - 1).to(torch.int32)
    c = torch.randint(0, 256, (5, 6), dtype=torch.int64).to(torch.uint8)
    d = torch.randint(-128, 128, (5, 6), dtype=torch.int64).to(torch.int8)
    e = torch.rand(5, 6) > 0.5
    hx = torch.rand(5, 4) * 4 - 2
    hy = torch.rand(5, 4) * 2 + 0.5
    dx = torch.rand(3, 4, dtype=torch.float64) * 1.8 - 0.9
    dy = torch.rand(3, 4, dtype=torch.float64) + 0.5
    return {
        # name: (function, inputs, dynamic shapes, kiln-run tolerances)
        "unary_f32": (unary_f32, (x, u), None, "--rtol 1e-5 --atol 1e-6"),
        "binary_f32": (binary_f32, (x, y, r), None, "--rtol 1e-5 --atol 1e-6"),
        "ints": (ints, (a, b, c, d, e), None, "--rtol 0 --atol 0"),
        "float16": (lambda x, y: half(x, y, torch.float16), (hx, hy), None, "--rtol 1e-3 --atol 1e-3"),
        "bfloat16": (lambda x, y: half(x, y, torch.bfloat16), (hx, hy), None, "--rtol 8e-3 --atol 8e-3"),
        "float64": (f64, (dx, dy), None, "--rtol 1e-12 --atol 1e-12"),
        "creation": (creation, (torch.randn(4, 3),), ({0: torch.export.Dim("n", min=4, max=64)},),
                     "--rtol 1e-6 --atol 1e-6"),
        # Core ATen IR spells eye with views (unsqueeze), so only the default IR.
        "eye": (eye, (torch.randn(3, 3),), None, "--rtol 0 --atol 0", ("model",)),
    }


class Program(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def same(got, want, tol):
    if want.dtype.is_floating_point:
        rtol, atol = (float(v) for v in tol.split()[1::2])
        return torch.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    return torch.equal(got, want)


def main():
    for name, (fn, inputs, dynamic, tol, *irs) in case_inputs().items():
        irs = irs[0] if irs else ("model", "model.core")
        folder = os.path.join(HERE, name)
        os.makedirs(folder, exist_ok=True)
        m = Program(fn)
        with torch.no_grad():
            want = m(*inputs)
        ep = torch.export.export(m, inputs, dynamic_shapes=dynamic and (dynamic,))
        core = ep.run_decompositions()
        # Core ATen decompositions must not change the numbers (else the case
        # would test PyTorch's decomposition, not kiln).
        for prog in (ep, core):
            for i, (g, w) in enumerate(zip(prog.module()(*inputs), want)):
                assert same(g, w, tol), f"{name}: output {i} differs in {prog is core and 'core' or 'default'} IR"
        torch.export.save(ep, os.path.join(folder, "model.pt2"))
        if "model.core" in irs:
            torch.export.save(core, os.path.join(folder, "model.core.pt2"))
        for i, t in enumerate(inputs):
            np.save(os.path.join(folder, f"in{i}.npy"), t.numpy())
        for i, t in enumerate(want):
            np.save(os.path.join(folder, f"out{i}.npy"), t.numpy())
        data = f"%S/../data/elementwise/{name}"
        ins = " ".join(f"--input {data}/in{i}.npy" for i in range(len(inputs)))
        exps = " ".join(f"--expect {data}/out{i}.npy" for i in range(len(want)))
        lines = [
            f"# End to end (generated by test/data/elementwise/export.py; do not edit): the",
            f"# '{name}' program of {len(want)} elementwise results, compiled from "
            + ("the default\n# IR and from Core ATen IR" if len(irs) == 2 else "the default IR")
            + f", must match PyTorch ({tol}).",
            "REQUIRES: kiln-runtime",
            "RUN: rm -rf %t && mkdir -p %t",
        ]
        for ir in irs:
            lines.append(f"RUN: kiln-compile {data}/{ir}.pt2 -o %t/{ir}.so")
            lines.append(f"RUN: kiln-run %t/{ir}.so {ins} {tol} {exps} | FileCheck %s")
        lines.append("")
        lines.append(f"CHECK-COUNT-{len(want)}: : OK")
        lines.append("CHECK-NOT: differs")
        with open(os.path.join(E2E, f"elementwise-{name}.test"), "w") as f:
            f.write("\n".join(lines) + "\n")
        print(name, len(want), "outputs")


class Noisy(torch.nn.Module):
    def forward(self, x):
        return x + torch.rand(4)  # random ops cannot be compiled


def export_random():
    ep = torch.export.export(Noisy(), (torch.randn(4),))
    os.makedirs(os.path.join(HERE, "random"), exist_ok=True)
    torch.export.save(ep, os.path.join(HERE, "random", "model.pt2"))


if __name__ == "__main__":
    main()
    export_random()

"""The eager interpreter (kiln-run model.pt2, no compile) on 3-d convolutions (plain,
strided, dilated, grouped, transposed, with and without batch), 3-d max and adaptive
average pooling, instance norm (own statistics, and the running ones of a tracking
module in eval), bicubic upsampling, disabled autocast regions, eye, linspace and ATen's alias ops (multiply, greater, special_expit, clip, fix, ...),
exported in the default IR, against PyTorch."""
import os
import subprocess

import numpy as np
import torch

from conftest import BUILD_DIR

KILN_RUN = os.path.join(BUILD_DIR, "bin", "kiln-run")


class _Video(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv3d(3, 8, (3, 3, 3), stride=(1, 2, 2), padding=1)
        self.b = torch.nn.Conv3d(8, 8, 3, padding=2, dilation=2, groups=4, bias=False)
        self.up = torch.nn.ConvTranspose3d(8, 4, 2, stride=2, output_padding=0)
        self.inorm = torch.nn.InstanceNorm3d(8, affine=True)
        self.tracked = torch.nn.InstanceNorm2d(4, track_running_stats=True)
        with torch.no_grad():
            self.tracked.running_mean.uniform_(-1, 1)
            self.tracked.running_var.uniform_(0.5, 2)

    def forward(self, x, y):
        h = torch.relu(self.inorm(self.a(x)))
        h = self.b(torch.nn.functional.max_pool3d(h, 3, stride=1, padding=1))
        u = self.up(h)
        pooled = torch.nn.functional.adaptive_avg_pool3d(u, (2, 3, 1)).flatten(1)
        plane = self.tracked(y)
        e = torch.eye(4, 6) + torch.linspace(-1.0, 2.0, 6)
        z = torch.multiply(plane.mean((2, 3)), 2.0)
        w = torch.greater(z, 0.1).float() + torch.special.expit(torch.absolute(torch.negative(z)))
        w = torch.clip(torch.divide(torch.subtract(w, 0.25), 1.5), -0.5, 0.9) + torch.fix(z * 3)
        return pooled, e, torch.conv3d(x[0], self.a.weight), w


def test_eager_3d_ops_and_aliases(tmp_path):
    torch.manual_seed(0)
    model = _Video().eval()
    x, y = torch.randn(2, 3, 6, 10, 9), torch.randn(2, 4, 5, 5)
    ep = torch.export.export(model, (x, y))
    targets = {n.target.__name__ for n in ep.graph.nodes if n.op == "call_function"}
    for op in ("conv3d.default", "max_pool3d.default", "adaptive_avg_pool3d.default", "instance_norm.default",
               "eye.m", "linspace.default", "multiply.Tensor", "greater.Scalar", "special_expit.default",
               "absolute.default", "negative.default", "clip.default", "divide.Tensor", "subtract.Tensor", "fix.default"):
        assert op in targets, (op, sorted(targets))
    pt2 = tmp_path / "model.pt2"
    torch.export.save(ep, pt2)
    with torch.no_grad():
        want = model(x, y)
    args = [KILN_RUN, os.fspath(pt2)]
    for i, t in enumerate((x, y)):
        np.save(tmp_path / f"in{i}.npy", t.numpy())
        args += ["--input", os.fspath(tmp_path / f"in{i}.npy")]
    for i, t in enumerate(want):
        np.save(tmp_path / f"out{i}.npy", t.numpy())
        args += ["--expect", os.fspath(tmp_path / f"out{i}.npy")]
    r = subprocess.run(args + ["--rtol", "1e-4", "--atol", "1e-5"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count(": OK") == len(want), r.stdout


class _Bicubic(torch.nn.Module):
    def forward(self, x):
        a = torch.nn.functional.interpolate(x, size=(7, 13), mode="bicubic", align_corners=False)
        b = torch.nn.functional.interpolate(x, scale_factor=1.5, mode="bicubic", align_corners=True)
        c = torch.nn.functional.interpolate(x, size=(3, 2), mode="bicubic", align_corners=False)
        return a, b, c


def test_eager_bicubic_upsampling(tmp_path):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 5, 6)
    ep = torch.export.export(_Bicubic(), (x,))
    assert any("upsample_bicubic2d" in str(n.target) for n in ep.graph.nodes)
    pt2 = tmp_path / "model.pt2"
    torch.export.save(ep, pt2)
    np.save(tmp_path / "in.npy", x.numpy())
    args = [KILN_RUN, os.fspath(pt2), "--input", os.fspath(tmp_path / "in.npy")]
    for i, t in enumerate(_Bicubic()(x)):
        np.save(tmp_path / f"out{i}.npy", t.numpy())
        args += ["--expect", os.fspath(tmp_path / f"out{i}.npy")]
    r = subprocess.run(args + ["--rtol", "1e-5", "--atol", "1e-5"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count(": OK") == 3, r.stdout


class _Autocast(torch.nn.Module):
    def __init__(self, enabled):
        super().__init__()
        self.enabled = enabled
        self.lin = torch.nn.Linear(8, 4)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.enabled):
            y = self.lin(x).relu()
        return y * 2


def test_eager_autocast_regions(tmp_path):
    """A disabled autocast region (a wrap_with_autocast subgraph) runs inline; an enabled
    one, whose casts the archive does not record, is refused with a clear error."""
    torch.manual_seed(0)
    x = torch.randn(3, 8)
    np.save(tmp_path / "in.npy", x.numpy())
    for enabled in (False, True):
        model = _Autocast(enabled)
        ep = torch.export.export(model, (x,))
        assert any("wrap_with_autocast" in str(n.target) for n in ep.graph.nodes), ep.graph
        pt2 = tmp_path / f"model{int(enabled)}.pt2"
        torch.export.save(ep, pt2)
        with torch.no_grad():
            np.save(tmp_path / "out.npy", model(x).float().numpy())
        r = subprocess.run([KILN_RUN, os.fspath(pt2), "--input", os.fspath(tmp_path / "in.npy"), "--expect",
                            os.fspath(tmp_path / "out.npy")], capture_output=True, text=True)
        if enabled:
            assert r.returncode == 2, r.stdout + r.stderr
            assert "an enabled autocast region" in r.stderr, r.stderr
        else:
            assert r.returncode == 0 and ": OK" in r.stdout, r.stdout + r.stderr

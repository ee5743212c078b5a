"""Per-sample convolution gradients compiled by kiln-compile --grad --vmap=0:
strided, dilated, padded and grouped 2-d convolutions with biases, against
torch.func.vmap(torch.func.grad), from one .so at two batch sizes. Their weight
and bias gradients go through the batching rule of aten.convolution_backward
(a batched product with the inputs' windows), not the loop over the batch."""
import os
import subprocess

import numpy as np
import pytest
import torch

from conftest import BUILD_DIR

KILN_RUN = os.path.join(BUILD_DIR, "bin", "kiln-run")


class _Convs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Conv2d(4, 8, 3, stride=2, padding=1)
        self.b = torch.nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=4)
        self.c = torch.nn.Conv2d(8, 6, (1, 3), stride=(1, 2), padding=(0, 1), bias=False)

    def forward(self, x):
        return self.c(torch.tanh(self.b(torch.relu(self.a(x)))))


def test_per_sample_conv_grads(tmp_path):
    from kiln import compiler

    torch.manual_seed(0)
    model = _Convs().eval()
    sample = torch.randn(2, 4, 11, 10)
    pt2 = tmp_path / "convs.pt2"
    torch.export.save(torch.export.export(model, (sample,)), pt2)
    so = tmp_path / "convs.so"
    compiler.compile_file(pt2, so, extra_args=["--grad", "--vmap=0"])
    explain = subprocess.run([compiler._paths.KILN_COMPILE, os.fspath(pt2), "--grad", "--vmap=0", "--explain",
                              "-o", os.fspath(tmp_path / "explain.so")], capture_output=True, text=True)
    assert explain.returncode == 0, explain.stderr
    assert "vmap rule aten.convolution_backward" in explain.stdout + explain.stderr
    assert "in a loop over the batch" in explain.stdout + explain.stderr
    assert " 0 in a loop over the batch" in explain.stdout + explain.stderr

    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, x, c):
        return (torch.func.functional_call(model, p, (x,)) * c).sum()

    for batch in (3, 5):
        xs = torch.randn(batch, *sample.shape)
        with torch.no_grad():
            cs = torch.randn(torch.func.vmap(model)(xs).shape)
        gp, gx = torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)), in_dims=(None, 0, 0))(params, xs, cs)
        d = tmp_path / f"b{batch}"
        d.mkdir()
        np.save(d / "x.npy", xs.numpy())
        np.save(d / "c.npy", cs.numpy())
        r = subprocess.run([KILN_RUN, os.fspath(so), "--input", os.fspath(d / "x.npy"), "--cotangent",
                            os.fspath(d / "c.npy"), "--output-dir", os.fspath(d / "out")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        want = {"input0": gx, **gp}
        for name, w in want.items():
            got = np.load(d / "out" / "grads" / f"{name}.npy")
            assert got.shape == tuple(w.shape), name
            np.testing.assert_allclose(got, w.numpy(), rtol=1e-4, atol=1e-4, err_msg=name)

"""kiln.debug.minify: the Python face of kiln-reduce. A bug planted in one op
(kiln-compile's test-only --inject-fault) is found from an ExportedProgram and
the program cut down to that op."""
import json
import os
import subprocess

import numpy as np
import torch

import kiln.debug


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(16, 32)
        self.b = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)) * torch.sigmoid(x.sum(-1, keepdim=True)))


def test_minify_finds_the_wrong_node(tmp_path):
    torch.manual_seed(0)
    model = Block().eval()
    x = torch.randn(4, 16)
    ep = torch.export.export(model, (x,))
    case = kiln.debug.minify(ep, (x,), out_dir=str(tmp_path / "case"),
                             compile_args=["--inject-fault=wrong:aten.tanh"])
    assert case is not None
    assert case.summary["nodes"] == 1
    assert case.summary["ops"] == ["aten.tanh.default"]
    # The one-line command shows the mismatch; the input it reads is the value
    # that reaches tanh in the whole program.
    r = subprocess.run(case.command, shell=True, cwd=case.out_dir, capture_output=True, text=True)
    assert r.returncode == 1 and "MISMATCH" in r.stdout + r.stderr
    fed = np.load(os.path.join(case.out_dir, "input0.npy"))
    with torch.no_grad():
        torch.testing.assert_close(torch.from_numpy(fed), model.a(x), rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(torch.from_numpy(np.load(os.path.join(case.out_dir, "expected0.npy"))),
                                   torch.tanh(model.a(x)), rtol=1e-5, atol=1e-5)


def test_minify_returns_none_without_a_bug(tmp_path):
    model = Block().eval()
    x = torch.randn(4, 16)
    assert kiln.debug.minify(torch.export.export(model, (x,)), (x,), out_dir=str(tmp_path / "c")) is None


def test_minify_compile_failure(tmp_path):
    model = Block().eval()
    x = torch.randn(4, 16)
    case = kiln.debug.minify(torch.export.export(model, (x,)), mode="compile", out_dir=str(tmp_path / "c"),
                             compile_args=["--inject-fault=error:aten.sigmoid"])
    assert case is not None and case.summary["ops"] == ["aten.sigmoid.default"]
    with open(os.path.join(case.out_dir, "summary.json")) as f:
        assert json.load(f)["nodes"] == 1

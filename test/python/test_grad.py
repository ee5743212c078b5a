"""kiln.compile(..., grad=True): the value-and-gradient model kiln-compile --grad
builds (kiln's autograd dialect, no AOTAutograd) matches torch.autograd."""
import os

import numpy as np
import torch

import kiln


def test_corpus_mlp_gradients(corpus):
    d = os.path.join(corpus, "mlp")
    m = kiln.compile(os.path.join(d, "model.pt2"), grad=True)
    x = np.load(os.path.join(d, "input0.npy"))
    cot = np.load(os.path.join(d, "grads", "cotangent0.npy"))
    named = m.run_named([x, cot])
    np.testing.assert_allclose(named["linear_2"], np.load(os.path.join(d, "output0.npy")),
                               rtol=1e-4, atol=1e-5)
    expected = sorted(f[:-4] for f in os.listdir(os.path.join(d, "grads"))
                      if f.endswith(".npy") and not f.startswith("cotangent"))
    assert sorted(k[len("grads/"):] for k in named if k.startswith("grads/")) == expected
    for name in expected:
        np.testing.assert_allclose(named["grads/" + name],
                                   np.load(os.path.join(d, "grads", name + ".npy")),
                                   rtol=1e-4, atol=1e-5, err_msg=name)


def test_module_gradients_match_autograd():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 12), torch.nn.GELU(), torch.nn.Linear(12, 3),
                                torch.nn.ReLU()).eval()
    x = torch.randn(5, 6)
    m = kiln.compile(model, example_inputs=(x,), grad=True)
    cot = torch.randn(5, 3)
    named = m.run_named([x, cot])
    xr = x.clone().requires_grad_(True)
    params = dict(model.named_parameters())
    out = model(xr)
    grads = torch.autograd.grad((out * cot).sum(), [xr, *params.values()])
    torch.testing.assert_close(named[m.outputs[0].name], out.detach(), rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(named["grads/input0"], grads[0], rtol=1e-4, atol=1e-5)
    for (name, _), g in zip(params.items(), grads[1:]):
        torch.testing.assert_close(named["grads/" + name], g, rtol=1e-4, atol=1e-5)

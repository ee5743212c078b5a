# Programs with complex values inside (test/e2e/complex.test): kiln rewrites
# them to real pairs. Run from this folder; writes <case>/model.pt2, the Core
# IR model.core.pt2, input0.npy and PyTorch's output0.npy. Names on the
# command line export only those cases.
import os
import sys

import numpy as np
import torch


class Rotary(torch.nn.Module):
    """Rotary embeddings as Meta's reference Llama writes them: a complex buffer
    from torch.polar, view_as_complex on the queries, view_as_real back."""

    def __init__(self, seq=16, dim=8):
        super().__init__()
        freqs = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        angles = torch.outer(torch.arange(seq).float(), freqs)
        self.register_buffer("freqs_cis", torch.polar(torch.ones_like(angles), angles))

    def forward(self, x):
        xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
        fc = self.freqs_cis[: x.shape[1]].view(1, x.shape[1], 1, -1)
        return torch.view_as_real(xc * fc).flatten(3).type_as(x)


class FourierMix(torch.nn.Module):
    """FNet's token mixing (an FFT over the hidden and the sequence dims, real
    part), beside a spectrum's magnitude and an inverse transform."""

    def forward(self, x):
        mixed = torch.fft.fftn(x, dim=(1, 2)).real
        mag = torch.fft.rfft(x, dim=-1).abs()
        back = torch.fft.ifft(torch.fft.fft(x, dim=1), dim=1).real
        return mixed, mag, back


class Arithmetic(torch.nn.Module):
    """Complex products, quotients, exp, conj, angle and a real scale."""

    def forward(self, a, b):
        za = torch.complex(a, b)
        zb = torch.polar(a.abs() + 0.5, b)
        q = (za * zb.conj()) / (zb + 1.0) * 2.0
        e = torch.exp(za * 0.1)
        return torch.view_as_real(q), (e * a).angle(), (za - zb).abs()


class Regions(torch.nn.Module):
    """Complex values inside the subgraphs of higher-order ops: a no_grad
    region (wrap_with_set_grad_enabled) whose complex result leaves it and one
    that stays inside, and a disabled autocast region (wrap_with_autocast)
    taking a complex value in and giving one back."""

    def forward(self, a, b):
        with torch.no_grad():
            z = torch.polar(torch.ones_like(a), a) * 2.0
            inner = (torch.complex(a, b) * torch.complex(b, a)).abs()
        with torch.autocast("cpu", enabled=False):
            w = torch.view_as_complex(torch.stack([a, b], -1)) * z
            m = torch.fft.fft(w, dim=-1).abs()
        return torch.view_as_real(w * z.conj()), inner + m


class RegionOnly(torch.nn.Module):
    """Complex values only inside a no_grad region: the program's own graph is real."""

    def forward(self, x):
        with torch.no_grad():
            spec = torch.fft.rfft(x, dim=-1)
            y = (spec * spec.conj()).real
        return y + 1.0


def save(name, model, args):
    if len(sys.argv) > 1 and name not in sys.argv[1:]:
        return
    os.makedirs(name, exist_ok=True)
    ep = torch.export.export(model, args)
    torch.export.save(ep, f"{name}/model.pt2")
    torch.export.save(ep.run_decompositions(), f"{name}/model.core.pt2")
    for i, a in enumerate(args):
        np.save(f"{name}/input{i}.npy", a.numpy())
    outs = model(*args)
    for i, o in enumerate(outs if isinstance(outs, tuple) else (outs,)):
        np.save(f"{name}/output{i}.npy", o.detach().numpy())


torch.manual_seed(0)
save("rotary", Rotary().eval(), (torch.randn(2, 16, 3, 8),))
save("fourier", FourierMix().eval(), (torch.randn(2, 12, 16),))
save("arithmetic", Arithmetic().eval(), (torch.randn(5, 6), torch.randn(5, 6)))
save("regions", Regions().eval(), (torch.randn(3, 8), torch.randn(3, 8)))
save("region_only", RegionOnly().eval(), (torch.randn(4, 10),))


class ReturnsComplex(torch.nn.Module):
    def forward(self, x):
        return torch.fft.fft(x)


if len(sys.argv) == 1:
    ep = torch.export.export(ReturnsComplex(), (torch.randn(4, 8),))
    torch.export.save(ep, "returns_complex.pt2")

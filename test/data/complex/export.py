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


class RealTransforms(torch.nn.Module):
    """torch.fft's real and Hermitian transforms with PyTorch's n, s, dim and
    norm semantics: lengths that trim or zero-pad the input, the inverse's
    default last length 2*(m-1), odd and even lengths, every norm mode, 1-d,
    2-d and n-d forms, a real input to the inverse ones."""

    def forward(self, x, pairs):
        z = torch.view_as_complex(pairs)
        f = torch.fft
        r = torch.view_as_real
        return (
            r(f.rfft(x, n=13)), r(f.rfft(x, n=6, dim=0, norm="ortho")), r(f.rfft(x, norm="forward")),
            f.irfft(z), f.irfft(z, n=9, norm="ortho"), f.irfft(z, n=4, dim=0), f.irfft(z, n=20, norm="forward"),
            f.irfft2(z), f.irfft2(z, s=(3, 7), norm="ortho"), f.irfftn(z, s=(5, 6), dim=(1, 0)),
            f.irfftn(z, norm="forward"), f.hfft(z), f.hfft(z, n=11, dim=0, norm="ortho"),
            f.hfft2(z, s=(6, 8)), f.hfftn(z, dim=(0,), norm="forward"), f.hfftn(z, s=(-1, 9)),
            r(f.ihfft(x, n=10).resolve_conj()), r(f.ihfft2(x, norm="ortho").resolve_conj()), r(f.rfftn(x, s=(7, 12))),
            f.irfft(x, n=12), r(f.fft(x, n=5)), r(f.ifft2(z, s=(2, 9))),
        )


class RealOnly(torch.nn.Module):
    """An inverse real FFT of a real tensor: no complex value in the program."""

    def forward(self, x):
        return torch.fft.irfft(x, n=7), torch.fft.hfft(x, norm="ortho")


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
x, z = torch.randn(4, 10), torch.randn(4, 6, 2)
save("real_transforms", RealTransforms().eval(), (x, z))
save("real_transforms_f64", RealTransforms().eval(), (x.double(), z.double()))
save("real_only", RealOnly().eval(), (torch.randn(3, 5),))
save("regions", Regions().eval(), (torch.randn(3, 8), torch.randn(3, 8)))
save("region_only", RegionOnly().eval(), (torch.randn(4, 10),))


class ReturnsComplex(torch.nn.Module):
    def forward(self, x):
        return torch.fft.fft(x)


if len(sys.argv) == 1:
    ep = torch.export.export(ReturnsComplex(), (torch.randn(4, 8),))
    torch.export.save(ep, "returns_complex.pt2")


class DynamicLength(torch.nn.Module):
    """An inverse real FFT along a symbolic length: kiln's transforms need a static one."""

    def forward(self, x):
        return torch.fft.irfft(x, dim=-1)


if len(sys.argv) == 1 or "dynamic_length" in sys.argv[1:]:
    ep = torch.export.export(DynamicLength(), (torch.randn(2, 9),),
                             dynamic_shapes=({1: torch.export.Dim("n", min=2, max=64)},))
    torch.export.save(ep, "dynamic_length.pt2")

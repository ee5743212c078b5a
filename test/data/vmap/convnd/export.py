"""Per-sample gradients through 1-d, 3-d and transposed convolutions
(test/e2e/vmap-conv-nd.test): one sample's program exported to model.pt2, and
for a batch of 3 samples batch3/: input0.npy, output0.npy, grads/cotangent0.npy,
grads/input0.npy and grads/<parameter>.npy from
torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)), in_dims=(None, 0, 0)),
and sample0/ the same for the first sample alone (plain --grad). The second
transposed convolution's output padding (1) reaches its stride (1), which its
dilation (2) allows: the input gradient's convolution has one more position
than the input there.
Strides, padding, dilation, groups and output_padding are all off their
defaults somewhere. Run with torch 2.11 from PyPI: python3 export.py
"""
import os
import sys

import torch
import torch.nn as nn

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
from per_sample import per_sample_grads, save_grads  # noqa: E402


class ConvND(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(4, 6, 3, stride=2, padding=2, dilation=2, groups=2)
        self.t1 = nn.ConvTranspose1d(6, 4, 3, stride=2, padding=1, output_padding=1)
        self.c3 = nn.Conv3d(2, 4, (2, 3, 3), stride=(1, 2, 1), padding=(1, 0, 1))
        self.t2 = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, dilation=1)
        self.t2d = nn.ConvTranspose2d(6, 2, 3, stride=1, padding=1, dilation=2, output_padding=1, bias=False)

    def forward(self, x):  # x: [N, 4, 10]
        a = self.t1(torch.tanh(self.c1(x)))                     # [N, 4, L]
        v = a.reshape(a.shape[0], 2, 2, a.shape[2], 1).expand(-1, -1, -1, -1, 3)
        v = self.c3(v.contiguous())                              # [N, 4, D, H, W]
        m = v.mean(dim=2)                                        # [N, 4, H, W]
        m = self.t2d(torch.relu(self.t2(m)))
        return torch.cat([m.flatten(1), a.flatten(1)], dim=1)


def main():
    torch.manual_seed(0)
    model = ConvND().eval()
    x0 = torch.randn(2, 4, 10)
    ep = torch.export.export(model, (x0,))
    torch.export.save(ep, os.path.join(here, "model.pt2"))
    g = torch.Generator().manual_seed(3)
    xs = torch.randn((3, *x0.shape), generator=g)
    out, cs, gp, gx = per_sample_grads(model, xs, g)
    save_grads(os.path.join(here, "batch3"), xs, out, cs, gp, gx)
    # The first sample alone, for kiln-compile --grad without --vmap.
    save_grads(os.path.join(here, "sample0"), xs[0], out[0], cs[0], {k: v[0] for k, v in gp.items()}, gx[0])
    print("output", tuple(out.shape), "parameters", len(gp))


if __name__ == "__main__":
    main()

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

import numpy as np
import torch
import torch.nn as nn

here = os.path.dirname(os.path.abspath(__file__))


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
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, x, c):
        return (torch.func.functional_call(model, p, (x,)) * c).sum()

    g = torch.Generator().manual_seed(3)
    xs = torch.randn((3, *x0.shape), generator=g)
    with torch.no_grad():
        out = torch.func.vmap(lambda x: torch.func.functional_call(model, params, (x,)))(xs)
    cs = torch.randn(out.shape, generator=g)
    gp, gx = torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)), in_dims=(None, 0, 0))(params, xs, cs)
    d = os.path.join(here, "batch3")
    os.makedirs(os.path.join(d, "grads"), exist_ok=True)
    np.save(os.path.join(d, "input0.npy"), xs.numpy())
    np.save(os.path.join(d, "output0.npy"), out.numpy())
    np.save(os.path.join(d, "grads", "cotangent0.npy"), cs.numpy())
    np.save(os.path.join(d, "grads", "input0.npy"), gx.numpy())
    for k, v in gp.items():
        np.save(os.path.join(d, "grads", k + ".npy"), v.numpy())
    # The first sample alone, for kiln-compile --grad without --vmap.
    d = os.path.join(here, "sample0")
    os.makedirs(os.path.join(d, "grads"), exist_ok=True)
    np.save(os.path.join(d, "input0.npy"), xs[0].numpy())
    np.save(os.path.join(d, "output0.npy"), out[0].numpy())
    np.save(os.path.join(d, "grads", "cotangent0.npy"), cs[0].numpy())
    np.save(os.path.join(d, "grads", "input0.npy"), gx[0].numpy())
    for k, v in gp.items():
        np.save(os.path.join(d, "grads", k + ".npy"), v[0].numpy())
    print("output", tuple(out.shape), "parameters", len(gp))


if __name__ == "__main__":
    main()

# Makes the batch-norm folding case (test/e2e/fold-batch-norm.test; torch from
# PyPI): convolutions followed by inference batch norm in every form
# kiln-fold-batch-norm folds (with and without the convolution's bias or the
# norm's affine weights, depthwise, strided, 1-d, another eps; followed by
# ReLU, SiLU, hardswish, sigmoid, which the CPU runs as oneDNN post-ops) and
# one it must not (the convolution's output read again by a residual add), with random
# running statistics, saved with its input and PyTorch's outputs, in the
# default IR and Core ATen IR. Run from this folder: python3 export.py
import os, numpy as np, torch, torch.nn as nn


def bn(cls, c, **kw):
    m = cls(c, **kw)
    with torch.no_grad():
        m.running_mean.copy_(torch.randn(c))
        m.running_var.copy_(torch.rand(c) * 2 + 0.1)
        if m.affine:
            m.weight.copy_(torch.randn(c))
            m.bias.copy_(torch.randn(c))
    return m


class ConvBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 16, 3), bn(nn.BatchNorm2d, 16)
        self.c2, self.b2 = nn.Conv2d(16, 32, 3, padding=1, bias=False), bn(nn.BatchNorm2d, 32, affine=False)
        self.c3, self.b3 = nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False), bn(nn.BatchNorm2d, 32, eps=1e-3)
        self.c4, self.b4 = nn.Conv2d(32, 64, 1, stride=2), bn(nn.BatchNorm2d, 64)
        self.c5, self.b5 = nn.Conv2d(64, 64, 3, padding=1), bn(nn.BatchNorm2d, 64)
        self.c6, self.b6 = nn.Conv1d(64, 4, 3), bn(nn.BatchNorm1d, 4)

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        y = nn.functional.silu(self.b3(self.c3(self.b2(self.c2(y)))))
        y = nn.functional.hardswish(self.b4(self.c4(y)))
        z = self.c5(y)
        y = self.b5(z) + z  # the convolution's output has a second reader: not folded
        return y, torch.sigmoid(self.b6(self.c6(y.flatten(2))))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(0)
    m = ConvBN().eval()
    x = torch.randn(2, 3, 34, 34)
    ep = torch.export.export(m, (x,))
    torch.export.save(ep, os.path.join(here, "model.pt2"))
    torch.export.save(ep.run_decompositions(), os.path.join(here, "model.core.pt2"))
    np.save(os.path.join(here, "input0.npy"), x.numpy())
    with torch.no_grad():
        for i, y in enumerate(m(x)):
            np.save(os.path.join(here, f"output{i}.npy"), y.numpy())


main()

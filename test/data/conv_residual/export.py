# Makes the convolution-residual case (test/e2e/conv-residual.test; torch
# from PyPI): residual blocks whose last convolution (batch norm folded into
# it) is followed by the add of the block's input and an activation, which
# the CPU runs as one oneDNN call with binary-add and eltwise post-ops: a
# basic block (ReLU), a bottleneck with a strided 1x1 shortcut, a block with
# SiLU after the add, one with no activation, and one whose add reads the
# convolution's output twice (not a residual of another buffer), with random
# running statistics, saved with its input and PyTorch's output, in the
# default IR and Core ATen IR. Run from this folder: python3 export.py
import os, numpy as np, torch, torch.nn as nn


def bn(c):
    m = nn.BatchNorm2d(c)
    with torch.no_grad():
        m.running_mean.copy_(torch.randn(c))
        m.running_var.copy_(torch.rand(c) * 2 + 0.1)
        m.weight.copy_(torch.randn(c))
        m.bias.copy_(torch.randn(c))
    return m


def cbn(cin, cout, k, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, bias=False), bn(cout))


class Residuals(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = cbn(3, 32, 3)
        self.a1, self.a2 = cbn(32, 32, 3), cbn(32, 32, 3)
        self.b1, self.b2, self.b3 = cbn(32, 16, 1), cbn(16, 16, 3, stride=2), cbn(16, 64, 1)
        self.bs = cbn(32, 64, 1, stride=2)
        self.c1 = cbn(64, 64, 3)
        self.d1 = cbn(64, 64, 1)
        self.e1 = cbn(64, 64, 3)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = torch.relu(self.a2(torch.relu(self.a1(x))) + x)
        x = torch.relu(self.b3(torch.relu(self.b2(torch.relu(self.b1(x))))) + self.bs(x))
        x = nn.functional.silu(x + self.c1(x))
        x = self.d1(x) + x
        y = self.e1(x)
        return y + y


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(0)
    m = Residuals().eval()
    x = torch.randn(2, 3, 20, 20)
    ep = torch.export.export(m, (x,))
    torch.export.save(ep, os.path.join(here, "model.pt2"))
    torch.export.save(ep.run_decompositions(), os.path.join(here, "model.core.pt2"))
    np.save(os.path.join(here, "input0.npy"), x.numpy())
    with torch.no_grad():
        np.save(os.path.join(here, "output0.npy"), m(x).numpy())


if __name__ == "__main__":
    main()

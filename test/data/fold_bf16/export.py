# Makes the 16-bit batch-norm folding case (test/Target/CUDA/fold-batch-norm-16bit.test
# and the GPU machine's check; torch from PyPI): a bfloat16 network of
# convolutions followed by inference batch norm, which CUDA with cuDNN
# convolutions folds, each folded convolution then taking its bias in cuDNN's
# fused call: with a ReLU, a residual block (the add of the block's input, then
# a ReLU), a strided 1x1 shortcut, a SiLU (a generated kernel after the call), a
# convolution's own bias, and the rounding alone, with random running
# statistics, saved with its input and PyTorch's bfloat16 output (as float32,
# which holds every bfloat16). Run from this folder: python3 export.py
import os, numpy as np, torch, torch.nn as nn


def bn(c):
    m = nn.BatchNorm2d(c)
    with torch.no_grad():
        m.running_mean.copy_(torch.randn(c) * 0.5)
        m.running_var.copy_(torch.rand(c) + 0.5)
        m.weight.copy_(torch.rand(c) + 0.5)
        m.bias.copy_(torch.randn(c) * 0.5)
    return m


def cbn(cin, cout, k, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, bias=False), bn(cout))


class Blocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = cbn(3, 32, 3)
        self.a1, self.a2 = cbn(32, 32, 3), cbn(32, 32, 3)
        self.b1, self.b2 = cbn(32, 64, 3, stride=2), cbn(64, 64, 3)
        self.bs = cbn(32, 64, 1, stride=2)
        self.c1 = cbn(64, 64, 1)
        self.d1 = nn.Conv2d(64, 16, 3, padding=1)
        self.e1 = cbn(16, 16, 3)

    def forward(self, x):
        x = torch.relu(self.stem(x))
        x = torch.relu(self.a2(torch.relu(self.a1(x))) + x)
        x = torch.relu(self.b2(torch.relu(self.b1(x))) + self.bs(x))
        x = nn.functional.silu(self.c1(x))
        x = torch.relu(self.d1(x))
        return self.e1(x)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(0)
    m = Blocks().eval().to(torch.bfloat16)
    x = torch.randn(4, 3, 32, 32).to(torch.bfloat16)
    ep = torch.export.export(m, (x,))
    torch.export.save(ep, os.path.join(here, "model.pt2"))
    np.save(os.path.join(here, "input0.npy"), x.float().numpy())
    with torch.no_grad():
        np.save(os.path.join(here, "output0.npy"), m(x).float().numpy())


main()

"""Convolution gradients of many shapes against PyTorch (test/e2e/grad-conv-shapes.test).

A small net whose convolutions cover what kiln's gradient calls must get
right: stride 2 over an odd input (the last row and column read by no
window), a grouped 3x5 kernel with per-dim stride, padding and dilation and
no bias, a depthwise 3x3, a 1x1 stride-2 projection and a grouped dilated
3x3 with padding 3, each large enough to be a library call. Writes
model.pt2 (torch.export of the float32 model), input0.npy, output0.npy and
grads/ in the corpus layout: cotangent0.npy (seed 1) and the gradients of
sum(model(x) * cotangent) with respect to the input and every parameter,
computed in float64 and stored as float32.
Run with torch 2.11 from PyPI: python3 export.py
"""
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


class ConvShapes(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(16, 32, (3, 5), stride=(1, 2), padding=(2, 1), dilation=(2, 1), groups=2, bias=False)
        self.c3 = nn.Conv2d(32, 32, 3, padding=1, groups=32)
        self.c4 = nn.Conv2d(32, 64, 1, stride=2)
        self.c5 = nn.Conv2d(64, 48, 3, padding=3, dilation=3, groups=4)

    def forward(self, x):
        x = F.relu(self.c1(x))
        x = F.relu(self.c2(x))
        x = torch.tanh(self.c3(x))
        x = F.relu(self.c4(x))
        return self.c5(x)


torch.manual_seed(0)
model = ConvShapes().eval()
g = torch.Generator().manual_seed(1)
x = torch.randn(2, 3, 81, 81, generator=g)
with torch.no_grad():
    out = model(x)
cot = torch.randn(out.shape, generator=g)
torch.export.save(torch.export.export(model, (x,)), os.path.join(HERE, "model.pt2"))
np.save(os.path.join(HERE, "input0.npy"), x.numpy())
np.save(os.path.join(HERE, "output0.npy"), out.numpy())
d = os.path.join(HERE, "grads")
os.makedirs(d, exist_ok=True)
np.save(os.path.join(d, "cotangent0.npy"), cot.numpy())
m64 = model.double()
x64 = x.double().requires_grad_()
(m64(x64) * cot.double()).sum().backward()
np.save(os.path.join(d, "input0.npy"), x64.grad.float().numpy())
for name, p in m64.named_parameters():
    np.save(os.path.join(d, name + ".npy"), p.grad.float().numpy())
print("conv_shapes:", tuple(out.shape), sum(1 for _ in m64.parameters()), "parameters")

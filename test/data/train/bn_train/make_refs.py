"""Reference numbers for a batch norm in training mode (test/e2e/grad-bn-train.test).

A small convolution, BatchNorm2d, relu, mean, linear model, exported with
torch.export in training mode (the batch norm normalises with the batch's
statistics and updates its running mean, variance and batch count), with a
random input and cotangent of the loss sum(model(x) * cotangent). Writes
model.pt2, input0.npy, output0.npy, grads/ (the cotangent and PyTorch's
gradients of the input and every parameter, the corpus layout), then takes
3 SGD steps (lr 0.05, momentum 0.9) on the same loss and writes step3/ (every
parameter and buffer after them) and output_step3.npy (the 3rd step's
output, before its update).
Run with torch 2.11 from PyPI: python3 make_refs.py
"""
import copy
import os

import numpy as np
import torch
import torch.nn as nn

here = os.path.dirname(os.path.abspath(__file__))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        return self.fc(torch.relu(self.bn(self.conv(x))).mean((2, 3)))


def save(rel, t):
    path = os.path.join(here, rel + ".npy")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.save(path, t.detach().numpy())


torch.manual_seed(0)
model = Net().train()
g = torch.Generator().manual_seed(1)
x = torch.randn(4, 3, 6, 6, generator=g)
cot = torch.randn(4, 5, generator=g)
ep = torch.export.export(copy.deepcopy(model), (x,))
torch.export.save(ep, os.path.join(here, "model.pt2"))
save("input0", x)
save("grads/cotangent0", cot)

m = copy.deepcopy(model)
xs = x.clone().requires_grad_()
out = m(xs)
save("output0", out)
names = [n for n, _ in m.named_parameters()]
grads = torch.autograd.grad((out * cot).sum(), [xs] + [p for _, p in m.named_parameters()])
save("grads/input0", grads[0])
for n, gr in zip(names, grads[1:]):
    save("grads/" + n, gr)

m = copy.deepcopy(model)
opt = torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
for step in range(3):
    out = m(x)
    opt.zero_grad()
    (out * cot).sum().backward()
    opt.step()
save("output_step3", out)
for n, t in list(m.named_parameters()) + list(m.named_buffers()):
    save("step3/" + n, t)

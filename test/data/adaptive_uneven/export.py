# Makes the adaptive-pooling-with-uneven-windows case (torch from PyPI).
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
class Pool(nn.Module):
    def forward(self, x):
        return F.adaptive_avg_pool2d(torch.relu(x), (3, 4))
x = torch.randn(2, 4, 7, 10)
ep = torch.export.export(Pool(), (x,))
torch.export.save(ep, "model.pt2")
np.save("input0.npy", x.numpy()); np.save("output0.npy", Pool()(x).numpy())

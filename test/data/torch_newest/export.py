# Makes the case of an archive from the newest torch: a small CNN with a grouped convolution,
# ceil-mode max pooling, tanh GELU and a dynamic batch (1..64), in the default IR and Core ATen IR,
# with inputs and outputs for batches 4 and 7. Run from this folder:  python3 export.py
import torch, torch.nn as nn, torch.nn.functional as F, numpy as np
torch.manual_seed(0)
class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1); self.b1 = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1, groups=2); self.b2 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32, 10)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 3, stride=2, ceil_mode=True)
        x = F.relu(self.b2(self.c2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return F.gelu(self.fc(x), approximate='tanh')
m = ConvNet().eval()
for b in (m.b1, m.b2):
    b.running_mean.uniform_(-0.5, 0.5); b.running_var.uniform_(0.5, 2)
x = torch.randn(4, 3, 20, 20)
B = torch.export.Dim("batch", min=1, max=64)
ep = torch.export.export(m, (x,), dynamic_shapes={"x": {0: B}})
torch.export.save(ep, "conv215.pt2")
torch.export.save(ep.run_decompositions(), "conv215.core.pt2")
np.save("in.npy", x.numpy()); np.save("out.npy", m(x).detach().numpy())
x2 = torch.randn(7, 3, 20, 20); np.save("in7.npy", x2.numpy()); np.save("out7.npy", m(x2).detach().numpy())
print(torch.__version__)

# Makes the residual/broadcast case (torch from PyPI): add/sub/mul/div with
# tensors, Python scalars and broadcasting, with a dynamic batch.
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(32, 32); self.b = nn.Linear(32, 32)
        self.scale = nn.Parameter(torch.rand(32) + 0.5)
    def forward(self, x):
        h = F.relu(self.a(x)) * 0.5 + x          # scalar mul, residual add
        h = (self.b(h) - h) / 2.0                 # sub, scalar div
        return h * self.scale + 1, h / (self.scale + 3)   # broadcast mul/div, scalar add
x = torch.randn(6, 32)
B = torch.export.Dim("batch", min=1, max=128)
ep = torch.export.export(Residual().eval(), (x,), dynamic_shapes={"x": {0: B}})
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
m = Residual().eval()
m.load_state_dict(ep.state_dict)
y0, y1 = m(x)
np.save("input0.npy", x.numpy()); np.save("output0.npy", y0.detach().numpy()); np.save("output1.npy", y1.detach().numpy())

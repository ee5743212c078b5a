# Makes the case of torch.concatenate and torch.concat (NumPy-style names of cat that the
# default IR keeps: Zamba2's Mamba-2 layers) on a symbolic batch: model.pt2 (default IR),
# the inputs and PyTorch's outputs. Run from this folder:  python3 export.py
import numpy as np, torch


class Joins(torch.nn.Module):
    def forward(self, x, y):
        return torch.concatenate([x, y * 2], dim=1), torch.concat((y, x), dim=-1), torch.concatenate([x, x])


x, y = torch.randn(3, 4), torch.randn(3, 2)
batch = torch.export.Dim("batch", min=1, max=8)
ep = torch.export.export(Joins(), (x, y), dynamic_shapes=({0: batch}, {0: batch}))
ops = {str(n.target) for n in ep.graph.nodes}
assert "aten.concatenate.default" in ops and "aten.concat.default" in ops, ops
torch.export.save(ep, "model.pt2")
np.save("input0.npy", x.numpy())
np.save("input1.npy", y.numpy())
for i, o in enumerate(Joins()(x, y)):
    np.save(f"output{i}.npy", o.numpy())

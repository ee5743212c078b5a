# Makes the case of _batch_norm_with_update (batch norm in training, the running statistics updated
# in place; _batch_norm_with_update_functional in Core ATen IR): over 4-d input with an affine, and
# over 2-d input with a computed weight and bias at momentum 0.3; the outputs and the updated running statistics. Writes model.pt2, model.core.pt2, input0.npy and PyTorch's outputs.
# Run from this folder:  python3 export.py
import copy

import numpy as np, torch


class TrainBN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn2 = torch.nn.BatchNorm2d(3)
        self.bn1 = torch.nn.BatchNorm1d(6, momentum=0.3, affine=False)

    def forward(self, x):
        b = self.bn2
        y = torch.ops.aten._batch_norm_with_update(x, b.weight, b.bias, b.running_mean, b.running_var, 0.1, 1e-5)[0]
        z = torch.ops.aten._batch_norm_with_update(y.mean((2, 3)).repeat(1, 2), self.bn1.running_mean * 0 + 2, self.bn1.running_mean * 0, self.bn1.running_mean,
                                                   self.bn1.running_var, 0.3, 1e-5)[0]
        return y, z, self.bn2.running_mean.clone(), self.bn2.running_var.clone(), self.bn1.running_var.clone()


torch.manual_seed(0)
m = TrainBN().train()
with torch.no_grad():
    m.bn2.weight.uniform_(0.5, 1.5)
    m.bn2.bias.uniform_(-0.5, 0.5)
x = torch.randn(4, 3, 5, 5)
ep = torch.export.export(copy.deepcopy(m), (x,))
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
np.save("input0.npy", x.numpy())
for i, o in enumerate(m(x)):
    np.save(f"output{i}.npy", o.detach().numpy())
print({str(n.target) for n in ep.graph.nodes if "norm" in str(n.target)},
      {str(n.target) for n in ep.run_decompositions().graph.nodes if "norm" in str(n.target)})

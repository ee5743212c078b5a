# Makes the case of two eager kernels Mask2Former's pixel decoder needed: prod over one dim
# (int64 spatial shapes, float32 with keepdim and a float64 dtype, a negative dim) and the
# multiply of two bool tensors (a logical and), in the default IR and Core ATen IR, with the
# inputs and PyTorch's outputs. Run from this folder:  python3 export.py
import numpy as np, torch


class ProdMul(torch.nn.Module):
    def forward(self, shapes, x):
        m = (x > 0) * (x < 1)
        return shapes.prod(1), x.prod(-1, keepdim=True), x.prod(0, dtype=torch.float64), m, m.sum(1)


shapes = torch.tensor([[4, 6], [2, 3], [1, 1]])
x = torch.randn(3, 5) + 0.5
ep = torch.export.export(ProdMul(), (shapes, x))
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
np.save("input0.npy", shapes.numpy())
np.save("input1.npy", x.numpy())
for i, o in enumerate(ProdMul()(shapes, x)):
    np.save(f"output{i}.npy", o.numpy())
print({str(n.target) for n in ep.graph.nodes if "prod" in str(n.target) or "mul" in str(n.target)})

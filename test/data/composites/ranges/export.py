# Makes the case of linspace and logspace with tensor ends (0-d tensors computed in the program) in the
# default IR: odd and even step counts, one step, an integer result, a base-2 logspace, float64.
# Writes model.pt2, model.core.pt2, the inputs and PyTorch's outputs. Run from this folder:  python3 export.py
import numpy as np, torch


class Ranges(torch.nn.Module):
    def forward(self, x):
        lo, hi = x.min(), x.max()
        return (torch.linspace(lo, hi, 7), torch.linspace(lo, 3.5, 8), torch.linspace(-2.0, hi, 1),
                torch.linspace((lo * 10).round(), (hi * 10).round(), 6, dtype=torch.int64), torch.logspace(lo, hi, 5, base=2.0),
                torch.logspace(lo.double(), 1.0, 4), torch.linspace(lo.double(), hi.double(), 9) * x.sum())


x = torch.randn(3, 4, generator=torch.Generator().manual_seed(0))
ep = torch.export.export(Ranges(), (x,))
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
np.save("input0.npy", x.numpy())
for i, o in enumerate(Ranges()(x)):
    np.save(f"output{i}.npy", o.numpy())
print({str(n.target) for n in ep.graph.nodes if "space" in str(n.target)})

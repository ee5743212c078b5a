# Makes the case of constant pads whose amounts are symbolic (a sequence padded up to a multiple
# of a chunk, as chunked linear attention does: (chunk - L % chunk) % chunk after, and L % 3
# before on another dim, with a value), on a symbolic length L in [4, 40]: model.pt2,
# model.core.pt2, and inputs with PyTorch's outputs at lengths 10, 12 and 7 (input_L*.npy,
# output_L*_*.npy). Run from this folder:  python3 export.py
import numpy as np, torch
import torch.nn.functional as F


class SymbolicPad(torch.nn.Module):
    def forward(self, x):
        n = x.shape[1]
        y = F.pad(x, (0, 0, 0, (4 - n % 4) % 4))
        z = F.pad(x.transpose(1, 2), (n % 3, 1), value=-2.0)
        return y * 2, z


x = torch.randn(2, 10, 3, generator=torch.Generator().manual_seed(0))
L = torch.export.Dim("L", min=4, max=40)
ep = torch.export.export(SymbolicPad(), (x,), dynamic_shapes=({1: L},))
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
for n in (10, 12, 7):
    xi = torch.randn(2, n, 3, generator=torch.Generator().manual_seed(n))
    np.save(f"input_L{n}.npy", xi.numpy())
    for i, o in enumerate(SymbolicPad()(xi)):
        np.save(f"output_L{n}_{i}.npy", o.numpy())
print({str(n.target) for n in ep.graph.nodes if "pad" in str(n.target)})

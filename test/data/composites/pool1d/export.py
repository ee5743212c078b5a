# Makes the case of adaptive_avg_pool1d in the default IR (CLAP's audio tower, Swin's pooled
# tokens): batched (N, C, L) to an uneven output length and unbatched (C, L), on a symbolic
# batch: model.pt2, the inputs and PyTorch's outputs. Run from this folder:  python3 export.py
import numpy as np, torch
import torch.nn.functional as F


class Pool(torch.nn.Module):
    def forward(self, x):
        return F.adaptive_avg_pool1d(x, 3), F.adaptive_avg_pool1d(x[0], 2) * 2


x = torch.randn(3, 4, 7)
ep = torch.export.export(Pool(), (x,), dynamic_shapes=({0: torch.export.Dim("batch", min=1, max=8)},))
assert "aten.adaptive_avg_pool1d.default" in {str(n.target) for n in ep.graph.nodes}
torch.export.save(ep, "model.pt2")
np.save("input0.npy", x.numpy())
for i, o in enumerate(Pool()(x)):
    np.save(f"output{i}.npy", o.numpy())

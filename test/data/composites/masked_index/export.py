# Makes the case of _unsafe_masked_index and _unsafe_masked_index_put_accumulate (what PyTorch's
# decompositions of padded gathers emit): index lists with a None, broadcasting index tensors,
# negative and out-of-range indices at masked-out positions, a fill value, accumulated puts with
# repeated indices. Writes model.pt2, model.core.pt2, the inputs and PyTorch's outputs.
# Run from this folder:  python3 export.py
import numpy as np, torch


class MaskedIndex(torch.nn.Module):
    def forward(self, x, i, j, k, v):
        m = ((i >= 0) & (i < x.shape[0]) & (j < x.shape[1])).unsqueeze(-1)
        a = torch.ops.aten._unsafe_masked_index(x, m, [i, j], -1.5)
        mk = ((k >= -x.shape[1]) & (k < x.shape[1])).unsqueeze(-1)
        b = torch.ops.aten._unsafe_masked_index(x, mk, [None, k], 0.25)
        p = torch.ops.aten._unsafe_masked_index_put_accumulate(x, m, [i, j], v)
        return a, b, p


g = torch.Generator().manual_seed(0)
x = torch.randn(4, 3, 5, generator=g)
i = torch.randint(-6, 6, (2, 6), generator=g)
j = torch.randint(0, 5, (2, 6), generator=g)
k = torch.randint(-5, 5, (4,), generator=g)
v = torch.randn(2, 6, 5, generator=g)
inputs = (x, i, j, k, v)
ep = torch.export.export(MaskedIndex(), inputs)
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
for k, t in enumerate(inputs):
    np.save(f"input{k}.npy", t.numpy())
for k, o in enumerate(MaskedIndex()(*inputs)):
    np.save(f"output{k}.npy", o.numpy())
print({str(n.target) for n in ep.graph.nodes if "masked" in str(n.target)})

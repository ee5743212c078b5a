# Makes the case of tril_indices / triu_indices (all-integer arguments: the positions of a
# row x col matrix's lower or upper triangle past an offset): square and wide and tall
# matrices, positive and negative offsets, offsets past every column (all or no positions),
# an empty matrix and an int32 result, and the positions used to gather a matrix's triangle.
# Writes model.pt2, model.core.pt2, the input and PyTorch's outputs. Run from this folder:  python3 export.py
import numpy as np, torch

SHAPES = [(4, 4, 0), (3, 5, 1), (5, 3, -1), (4, 6, -5), (7, 2, 10), (6, 9, 3), (9, 4, -2), (0, 3, 0), (1, 1, 0)]


class TriIndices(torch.nn.Module):
    def forward(self, x):
        outs = []
        for r, c, o in SHAPES:
            outs.append(torch.tril_indices(r, c, o))
            outs.append(torch.triu_indices(r, c, o))
        outs.append(torch.triu_indices(6, 4, 1, dtype=torch.int32))
        lo = torch.tril_indices(5, 5, -1)
        outs.append(x[lo[0], lo[1]] * 2)  # the strict lower triangle of x, row by row
        return tuple(outs)


x = torch.randn(5, 5, generator=torch.Generator().manual_seed(0))
ep = torch.export.export(TriIndices(), (x,))
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
np.save("input0.npy", x.numpy())
outs = TriIndices()(x)
for i, o in enumerate(outs):
    np.save(f"output{i}.npy", o.numpy())
print(len(outs), {str(n.target) for n in ep.graph.nodes if "indices" in str(n.target)})

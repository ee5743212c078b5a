# Makes the case of ops kiln runs through the runtime's dispatcher whose arguments are tensor lists
# (Tensor[]): block_diag of a matrix, a vector and a 0-d tensor computed in the program, and
# _chunk_cat (each tensor cut into chunks along a dim, padded, concatenated). Writes model.pt2,
# model.core.pt2, the inputs and PyTorch's outputs. Run from this folder:  python3 export.py
import numpy as np, torch


class TensorLists(torch.nn.Module):
    def forward(self, a, b, c):
        d = torch.block_diag(a * 2, b, c.sum())
        e = torch.ops.aten._chunk_cat([a, c], 1, 2)
        return d, e


g = torch.Generator().manual_seed(0)
inputs = (torch.randn(2, 3, generator=g), torch.randn(4, generator=g), torch.randn(2, 5, generator=g))
ep = torch.export.export(TensorLists(), inputs)
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
for i, x in enumerate(inputs):
    np.save(f"input{i}.npy", x.numpy())
for i, o in enumerate(TensorLists()(*inputs)):
    np.save(f"output{i}.npy", o.numpy())
print({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})

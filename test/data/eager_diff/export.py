# Makes the case of torch.diff in the default IR (transformers' decoders keep aten.diff: the
# Whisper and Moonshine decoders' packed-sequence check): int64 positions, float32 twice over a
# middle dim with prepend and append, and bool; saved in the default IR and Core ATen IR with
# the inputs and PyTorch's outputs. Run from this folder:  python3 export.py
import numpy as np, torch


class Diff(torch.nn.Module):
    def forward(self, pos, x):
        return (torch.diff(pos, dim=-1), torch.diff(x, n=2, dim=1, prepend=x[:, :1], append=x[:, -2:] * 2),
                torch.diff(x > 0, dim=0))


pos = torch.tensor([[0, 1, 2, 5, 3], [4, 4, 9, -2, 0]])
x = torch.randn(2, 4, 3)
ep = torch.export.export(Diff(), (pos, x))
assert any("aten.diff" in str(n.target) for n in ep.graph.nodes)
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
np.save("input0.npy", pos.numpy())
np.save("input1.npy", x.numpy())
for i, o in enumerate(Diff()(pos, x)):
    np.save(f"output{i}.npy", o.numpy())

# The outer product x[:, None] * x[None, :] + 1 of a vector with a dynamic
# length: its result needs n*n floats, so a long enough input asks for more
# memory than any machine has (test/tools/kiln-run/out-of-memory.test).
import torch


class Outer(torch.nn.Module):
    def forward(self, x):
        return x.unsqueeze(1) * x.unsqueeze(0) + 1.0


n = torch.export.Dim("n", min=2, max=1 << 24)
ep = torch.export.export(Outer(), (torch.randn(8),), dynamic_shapes=({0: n},))
torch.export.save(ep, "model.pt2")

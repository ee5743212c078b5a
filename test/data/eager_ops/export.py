# Makes the addcmul/addcdiv/sign/amax/amin/unfold/floor/ceil/round/trunc/bitwise_not and
# reflect/replicate/circular pad, reciprocal/softplus and max.dim/min.dim case (torch from PyPI):
# broadcast operands, a Scalar value, a NaN that amax must propagate, integer
# sign and amin, several dims with keepdim and a full reduction, overlapping
# and strided windows of a transposed (non-contiguous) tensor; saved in the default
# IR and in Core ATen IR with the inputs and PyTorch's outputs. Run from this
# folder:  python3 export.py
import numpy as np, torch
import torch.nn.functional as F


class Ops(torch.nn.Module):
    def forward(self, x, y, z, i):
        return (torch.addcmul(x, y, z, value=0.5), torch.addcdiv(x, y, z.abs() + 1, value=-2), torch.sign(x),
                torch.amax(x, dim=(0, 2), keepdim=True), torch.amin(i, dim=1), torch.amax(x), torch.sign(i),
                y.transpose(1, 2).unfold(1, 3, 1) * 2, y.unfold(-1, 2, 2) + 1,
                torch.floor(y * 3), torch.ceil(y * 3), torch.round(y * 2), torch.trunc(y * 3),
                (torch.arange(4.0) - 1.5).round(), torch.bitwise_not(i), torch.bitwise_not(i > 0),
                F.pad(y, (2, 1, 1, 3), mode="reflect"), F.pad(y, (1, 2), mode="replicate"),
                F.pad(y.unsqueeze(0), (2, 2, 1, 1), mode="circular"), torch.reciprocal(z), F.softplus(y * 10, beta=2),
                *torch.max(x, dim=1), *torch.min(i, dim=0, keepdim=True))


torch.manual_seed(0)
x, y, z = torch.randn(3, 4, 5), torch.randn(3, 4, 5), torch.randn(4, 5)
x[0, 0, 0] = float("nan")
i = torch.randint(-9, 9, (3, 4))
ep = torch.export.export(Ops(), (x, y, z, i))
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
for k, t in enumerate((x, y, z, i)):
    np.save(f"input{k}.npy", t.numpy())
for k, o in enumerate(Ops()(x, y, z, i)):
    np.save(f"output{k}.npy", o.numpy())

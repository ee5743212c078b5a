# Makes the case of composites on integer tensors in the default IR and Core ATen IR: ops
# whose result is a float (PyTorch converts the integers to it first: rad2deg, sinc, xlogy,
# angle, pairwise_distance, margin_ranking_loss), ops that stay integer (nansum,
# linalg.cross, addr, addbmm, linear) and isclose. Writes model.pt2, model.core.pt2, the
# inputs and PyTorch's outputs. Run from this folder:  python3 export.py
import numpy as np, torch
import torch.nn.functional as F


class Integers(torch.nn.Module):
    def forward(self, a, b, v, m):
        return (
            torch.rad2deg(a), torch.sinc(a), torch.xlogy(a, b), torch.angle(a - 2),
            F.pairwise_distance(a, b), F.margin_ranking_loss(a, b, torch.sign(a - b)),
            torch.nansum(a, dim=1), torch.linalg.cross(v, v.flip(0)),
            torch.addr(a[2], a[0], b[1], beta=2, alpha=3), torch.addbmm(a[:, :3], m, m.transpose(1, 2)),
            F.linear(a, b[:2], a[0, :2]), F.linear(a[0], b[1]), torch.isclose(a, b, rtol=0.25, atol=1.0),
        )


g = torch.Generator().manual_seed(0)
a = torch.randint(-4, 5, (3, 6), generator=g)
b = torch.randint(0, 6, (3, 6), generator=g)
v = torch.randint(-5, 6, (4, 3), generator=g, dtype=torch.int32)
m = torch.randint(-3, 4, (2, 3, 4), generator=g)
inputs = (a, b, v, m)
ep = torch.export.export(Integers(), inputs)
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
for i, x in enumerate(inputs):
    np.save(f"input{i}.npy", x.numpy())
for i, o in enumerate(Integers()(*inputs)):
    np.save(f"output{i}.npy", o.numpy())
    print(i, o.dtype)

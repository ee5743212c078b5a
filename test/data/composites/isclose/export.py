# Makes the case of isclose on floating-point tensors (the composite table's rules): equal_nan
# False and True, NaN and infinities on either side, broadcasting, float32 and float64. Writes
# model.pt2, the inputs and PyTorch's outputs. Run from this folder:  python3 export.py
import numpy as np, torch


class IsClose(torch.nn.Module):
    def forward(self, a, b, c):
        return (
            torch.isclose(a, b), torch.isclose(a, b, equal_nan=True),
            torch.isclose(a, b[0], rtol=0.1, atol=0.5, equal_nan=True),
            torch.isclose(c, c.flip(0), rtol=0.0, atol=1e-3), torch.isclose(c, c.flip(0), equal_nan=True),
        )


g = torch.Generator().manual_seed(0)
a = torch.randn(4, 5, generator=g)
b = a + 1e-6 * torch.randn(4, 5, generator=g)
b[1] = torch.randn(5, generator=g)
nan, inf = float("nan"), float("inf")
a[0, :4] = torch.tensor([nan, nan, inf, -inf])
b[0, :4] = torch.tensor([nan, 1.0, inf, inf])
a[2, 0], b[3, 1] = nan, nan
c = torch.tensor([nan, 1.0, inf, 2.0, 2.0005, inf, 1.0, nan], dtype=torch.float64)
inputs = (a, b, c)
ep = torch.export.export(IsClose(), inputs)
torch.export.save(ep, "model.pt2")
for i, x in enumerate(inputs):
    np.save(f"input{i}.npy", x.numpy())
for i, o in enumerate(IsClose()(*inputs)):
    np.save(f"output{i}.npy", o.numpy())
    print(i, o.dtype, o.flatten().tolist())

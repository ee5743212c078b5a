# Makes the case of the eager kernels the model zoo needed (torch from PyPI): tril/triu
# of a transposed tensor, pixel_shuffle/unshuffle with a leading batch dim, scatter with a
# Scalar value (functional and in place on a clone), scatter_ of a tensor and an in-place
# unsqueeze_, conv2d/conv1d with padding="same"
# (even and dilated kernels) and "valid", integer and bool sums, the trigonometric,
# hyperbolic, exp/log and erfc unary ops, a float minus an integer tensor (a wrapped
# number: float32, not float64) and adaptive average pooling (Core IR:
# _adaptive_avg_pool2d), tile with fewer, more and as many dims as the rank (a
# composite of the default IR); saved in the default IR and in Core ATen IR with the inputs
# and PyTorch's outputs. Run from this folder:  python3 export.py
import numpy as np, torch
import torch.nn.functional as F


class Ops(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.same = torch.nn.Conv2d(4, 3, (2, 3), padding="same", dilation=(1, 2))
        self.valid = torch.nn.Conv1d(4, 2, 3, padding="valid")
        self.same1d = torch.nn.Conv1d(4, 2, 4, padding="same")

    def forward(self, x, m, k):
        h = x * 0.4  # inside (-1, 1)
        s = torch.zeros(2, 5).scatter(1, k, 2.5)
        t = x[0].clone()
        t.scatter_(0, k[1:], -1.0)
        u = x[1].clone()
        u.scatter_(1, k.clamp(max=3), h[0, :2, :2])
        v = x[0, 0].clone()
        v.unsqueeze_(0)
        return (torch.tril(x.transpose(1, 2), diagonal=-1), torch.triu(x, diagonal=1),
                F.pixel_shuffle(x.reshape(2, 4, 1, 3), 2), F.pixel_unshuffle(x.reshape(1, 1, 4, 6), 2),
                s, t, self.same(x.reshape(1, 4, 2, 3).repeat(1, 1, 2, 2)), self.valid(x.transpose(1, 2)),
                self.same1d(x.transpose(1, 2)), m.sum(1), (m > 2).sum(0), m.sum(dtype=torch.int32),
                torch.acos(h), torch.asin(h), torch.atan(x), torch.tan(h), torch.sinh(x), torch.cosh(x),
                torch.asinh(x), torch.acosh(x.abs() + 1), torch.atanh(h), torch.expm1(x), torch.exp2(x),
                torch.log2(x.abs() + 0.5), torch.log10(x.abs() + 0.5), torch.erfc(x),
                1.5 - m, F.adaptive_avg_pool2d(x.reshape(1, 2, 3, 4), (2, 3)), u, v * 2,
                torch.tile(x, (2,)), torch.tile(x[0], (2, 1, 3)), torch.tile(m, (2, 2)))


torch.manual_seed(0)
x = torch.randn(2, 3, 4)
m = torch.randint(-5, 9, (3, 4))
k = torch.tensor([[4, 0], [1, 2]])
model = Ops()
ep = torch.export.export(model, (x, m, k))
torch.export.save(ep, "model.pt2")
torch.export.save(ep.run_decompositions(), "model.core.pt2")
for i, t in enumerate((x, m, k)):
    np.save(f"input{i}.npy", t.numpy())
with torch.no_grad():
    outs = model(x, m, k)
for i, o in enumerate(outs):
    np.save(f"output{i}.npy", o.detach().numpy())
print(len(outs), "outputs;", [str(o.dtype) for o in outs])


class NegSlice(torch.nn.Module):
    """A slice bound from the negated symbolic length (operator.neg of a SymInt, as a
    causal convolution's trim of its padding): the eager runtime's scalar nodes."""

    def forward(self, x):
        return x[:, -x.shape[1] + 2:] * 2.0


y = torch.randn(2, 7)
ep = torch.export.export(NegSlice(), (y,), dynamic_shapes=({1: torch.export.Dim.DYNAMIC(min=3, max=16)},))
assert any("neg" in str(n.target) for n in ep.graph.nodes), "no operator.neg node"
torch.export.save(ep, "neg_slice.pt2")
np.save("neg_input.npy", y.numpy())
np.save("neg_output.npy", NegSlice()(y).numpy())

# Makes the composite-op cases of test/e2e/composites*.test and
# test/Import/composites.test (torch from PyPI): default-IR archives whose
# composite ops (logaddexp, glu, log_sigmoid, expand_as, layer_norm, softmax
# with a dtype, one_hot, ...) kiln decomposes with its composite table, with a dynamic
# batch dim so the decompositions must carry symbolic sizes. Each case folder
# gets model.pt2 (default IR), input*.npy and PyTorch's output*.npy; `unsupported`
# uses an op kiln refuses, for the error message test.
# Run from this folder: python3 export.py [CASE...]
import os
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

Dim = torch.export.Dim


class Dynamic(nn.Module):
    """Composites on a dynamic batch: x [n, 8], y [1, 8]."""

    def forward(self, x, y):
        a = torch.logaddexp(x, y)
        b = F.glu(x, dim=-1)                     # halves of a static dim
        c = F.logsigmoid(a)
        d = y.expand_as(x)                       # sizes of x read at run time
        e = F.layer_norm(x, [8])
        f = torch.softmax(x, -1, dtype=torch.float64)
        g = torch.var_mean(x, dim=1, keepdim=True)[0]
        h = F.mse_loss(x, a, reduction="none") + F.huber_loss(x, d, reduction="none")
        return a, b, c, d, e, f, g, h


class Eager(nn.Module):
    """What the eager runtime runs: layer_norm and softmax.int around linears."""

    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(8, 16)
        self.ln = nn.LayerNorm(16)
        self.l2 = nn.Linear(16, 4)

    def forward(self, x):
        h = self.ln(torch.relu(self.l1(x)))
        return torch.softmax(self.l2(h), dim=-1), torch.log_softmax(self.l2(h), dim=-1)


class Views(nn.Module):
    """Composites built from views: channel_shuffle over a dynamic batch and
    spatial size (x [n, 6, h, w]) and kron of two matrices (torch specializes
    kron's sizes)."""

    def forward(self, x, a, b):
        return F.channel_shuffle(x, 3), torch.kron(a, b)


class OneHot(nn.Module):
    """one_hot with a class count, of a rank-1 and a rank-3 index tensor over a
    dynamic batch (x: int64 [n, 3, 4], v: int64 [k]), used as float weights."""

    def forward(self, x, v):
        a = F.one_hot(x, num_classes=6)
        b = F.one_hot(v, 5)
        return a, b, a.float().sum(1) * 0.5


class GroupedMM(nn.Module):
    """transformers' custom op transformers::grouped_mm_fallback (its mixture-of-experts
    layers' default on the CPU): rows of x [s, 4] (dynamic s) grouped by the cumulative
    counts offs (int32 [3]; an empty group, rows past the last offset) times w[e]."""

    def __init__(self):
        super().__init__()
        import transformers.integrations.moe  # noqa: F401  (registers the op)
        self.w = nn.Parameter(torch.randn(3, 4, 5))

    def forward(self, x, offs):
        return torch.ops.transformers.grouped_mm_fallback(x, self.w, offs) * 2.0


class GroupedMLP(nn.Module):
    """A mixture-of-experts MLP on rows already grouped by expert: two grouped
    matmuls over the same offsets (up with a SiLU gate, then down), so the two
    expansions' runtime calls read the same tensors once CSE has run."""

    def __init__(self):
        super().__init__()
        import transformers.integrations.moe  # noqa: F401  (registers the op)
        self.up = nn.Parameter(torch.randn(3, 4, 12) * 0.5)
        self.down = nn.Parameter(torch.randn(3, 6, 4) * 0.5)

    def forward(self, x, offs):
        gate, up = torch.ops.transformers.grouped_mm_fallback(x, self.up, offs).chunk(2, dim=-1)
        return torch.ops.transformers.grouped_mm_fallback(F.silu(gate) * up, self.down, offs)


class Unsupported(nn.Module):
    """An op kiln has neither a lowering, a decomposition nor a runtime kernel for."""

    def forward(self, x):
        return torch.nonzero_static(x, size=4) + 1


class HeldOut(nn.Module):
    """What held-out models brought (session 34): parameters stored channels-last
    and transposed (their archive members are strided storages), F.affine_grid
    both ways (affine_grid_generator), rms_norm, var with a correction, erfinv, and
    torch.distributions' argument check (_is_all_true) in a normal quantile, argmax and
    argmin; x [n, 3, 6, 5]."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1).to(memory_format=torch.channels_last)
        self.lin = nn.Linear(5, 6)
        self.lin.weight = nn.Parameter(torch.randn(5, 6).t())
        self.theta = nn.Linear(4, 6)

    def forward(self, x):
        y = self.conv(x)
        t = self.theta(y.mean((2, 3))).view(-1, 2, 3)
        g0 = F.affine_grid(t, list(x.shape), align_corners=False)
        g1 = F.affine_grid(t, list(x.shape), align_corners=True)
        s = F.grid_sample(y, g0, align_corners=False) + F.grid_sample(y, g1, align_corners=True)
        r = F.rms_norm(self.lin(s), [6])
        v = torch.var(s, dim=(2, 3), correction=0) + torch.var(s.flatten(1), dim=1, keepdim=True)
        p = torch.sigmoid(r) * 0.98 + 0.01
        q = torch.distributions.Normal(0.0, 1.0, validate_args=True).icdf(p)
        return r, v, q, torch.erfinv(p * 2 - 1), torch.argmax(r, dim=-1), torch.argmin(v)


class SplitByTensor(nn.Module):
    """tensor_split by a tensor of indices (data-dependent sizes): the default IR
    reads the pieces' storage offsets (sym_storage_offset); and masked_select (a
    data-dependent length); x [3, 9], i int64 [2]."""

    def forward(self, x, i):
        a, b, c = torch.tensor_split(x, i, dim=1)
        return a * 2, b.sum(1), c + 1, torch.masked_select(x, x[:1] > 0) * 2


class LstmProj(nn.Module):
    """nn.LSTM with proj_size (a projection weight per layer and direction; h is
    proj_size wide, c hidden_size wide), 2 layers, bidirectional, batch first, over a
    dynamic batch; x [n, 7, 5]."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(5, 8, num_layers=2, bidirectional=True, batch_first=True, proj_size=3)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        return y, h, c


class HeldOut2(nn.Module):
    """More of what held-out models brought: mish, elu and selu (eager kernels) and
    an in-place floor_divide_ by a tensor (floor_divide_.Tensor, whose functional form
    is floor_divide.default); x [n, 4, 5]."""

    def forward(self, x):
        y = F.mish(x) + F.elu(x, alpha=0.7) + F.selu(x)
        q = x * 3
        q.floor_divide_(torch.full_like(x, 0.7))
        return y, q


class HeldOut3(nn.Module):
    """What held-out round 9 brought: a convolution whose group count is the batch
    (timm's CondConv folds the batch into the channels: per-sample kernels mixed from
    experts), in 2-d (stride, padding, dilation) and 1-d; nn.Bilinear (_trilinear in
    the Core ATen IR); and ops the eager runtime lacked: scatter_reduce (amax without
    self, mean), clamp with tensor bounds, index_copy, index_fill, take_along_dim, mv,
    dot, LocalResponseNorm (avg_pool3d), nearest-exact and linear 1-d upsampling; and
    bicubic grid_sample (a runtime kernel in compiled programs too) in every padding mode.
    x [n, 4, 6, 6]."""

    def __init__(self):
        super().__init__()
        self.route = nn.Linear(4, 3)
        self.experts = nn.Parameter(torch.randn(3, 8 * 4 * 3 * 3) * 0.2)
        self.expert_bias = nn.Parameter(torch.randn(3, 8))
        self.experts1 = nn.Parameter(torch.randn(3, 4 * 2 * 3) * 0.3)
        self.bil = nn.Bilinear(4, 6, 5)
        self.lrn = nn.LocalResponseNorm(3)
        self.register_buffer("idx", torch.tensor([0, 2, 1, 2, 0, 3]))

    def forward(self, x):
        n = x.shape[0]
        r = torch.sigmoid(self.route(x.mean((2, 3))))                       # [n, 3]
        w = (r @ self.experts).view(n * 8, 4, 3, 3)
        b = (r @ self.expert_bias).view(n * 8)
        y = F.conv2d(x.reshape(1, n * 4, 6, 6), w, b, stride=2, padding=2, dilation=2, groups=n).view(n, 8, 3, 3)
        w1 = (r @ self.experts1).view(n * 4, 2, 3)
        z = F.conv1d(x.flatten(2).reshape(1, n * 4, 36), w1, None, padding=1, groups=n * 2).view(n, 4, 36)
        h = x.flatten(2)                                                    # [n, 4, 36]
        bl = self.bil(h.mean(-1), h[:, :, :6].mean(1))
        ix = self.idx.view(1, 1, 6).expand(n, 4, 6)
        sr = torch.zeros(n, 4, 4).scatter_reduce(2, ix, h[..., :6], "amax", include_self=False)
        sm = torch.ones(n, 4, 4).scatter_reduce(2, ix, h[..., :6], "mean")
        cl = h.clamp(min=h.mean(-1, keepdim=True), max=h.amax(1, keepdim=True) * 0.5)
        ic = h.index_copy(2, self.idx[1:3], h[..., :2] * 3).index_fill(1, self.idx[:2], -1.0)
        # torch's export specializes the batch of a take_along_dim over it: a weight's
        ta = torch.take_along_dim(self.experts1, self.experts1.argsort(-1), -1).sum()
        mvd = torch.mv(self.experts1.t(), self.route.bias) + torch.dot(self.route.bias, self.route.bias)
        ln = self.lrn(x)
        up = F.interpolate(x, size=(9, 9), mode="nearest-exact") + 0
        l1 = F.interpolate(h, size=50, mode="linear", align_corners=False)
        theta = torch.tensor([[0.9, 0.2, 0.1], [-0.1, 1.1, 0.05]]).expand(n, 2, 3)
        grid = F.affine_grid(theta, [n, 4, 5, 7], align_corners=False)
        gs = F.grid_sample(x, grid, mode="bicubic", padding_mode="border", align_corners=True) + \
            F.grid_sample(x, grid * 1.3, mode="bicubic", padding_mode="reflection", align_corners=False) + \
            F.grid_sample(x, grid * 1.3, mode="bicubic", padding_mode="zeros", align_corners=False)
        return y, z, bl, sr + sm, cl + ic + ta, mvd, ln, up, l1, gs


class InterpSymbolic(nn.Module):
    """F.interpolate to another input's (dynamic) spatial size: an upsample whose
    output_size is symbolic, which kiln refuses by name. x [1, 2, 4, 4], y [1, 2, h, w]."""

    def forward(self, x, y):
        return F.interpolate(x, size=y.shape[-2:], mode="nearest") + y


class UnpoolSymbolic(nn.Module):
    """max_unpool2d back to the input's dynamic size: its Core ATen IR decomposition
    multiplies a tensor by a SymInt (mul.Tensor with a number node). x [1, 2, h, w]."""

    def forward(self, x):
        p, idx = F.max_pool2d(x, 2, stride=2, return_indices=True)
        return F.max_unpool2d(p * 2, idx, 2, stride=2, output_size=x.shape[-2:])


def save(name, model, inputs, dynamic_shapes=None, core=False):
    os.makedirs(name, exist_ok=True)
    model.eval()
    ep = torch.export.export(model, inputs, dynamic_shapes=dynamic_shapes)
    ep._example_inputs = None
    torch.export.save(ep, f"{name}/model.pt2")
    if core:
        epc = ep.run_decompositions()
        epc._example_inputs = None
        torch.export.save(epc, f"{name}/model.core.pt2")
    outs = model(*inputs)
    outs = (outs,) if isinstance(outs, torch.Tensor) else outs
    for i, t in enumerate(inputs):
        np.save(f"{name}/input{i}.npy", t.numpy())
    for i, t in enumerate(outs):
        np.save(f"{name}/output{i}.npy", t.detach().numpy())


if __name__ == "__main__":
    import sys
    torch.manual_seed(0)
    only = sys.argv[1:]
    n = Dim("n", min=2, max=64)
    cases = {
        "dynamic": lambda: save("dynamic", Dynamic(), (torch.randn(5, 8), torch.randn(1, 8)),
                                dynamic_shapes={"x": {0: n}, "y": None}),
        "eager": lambda: save("eager", Eager(), (torch.randn(3, 8),)),
        "views": lambda: save("views", Views(), (torch.randn(2, 6, 3, 5), torch.randn(2, 3), torch.randn(4, 5)),
                              dynamic_shapes={"x": {0: n, 2: Dim("h", min=2, max=16), 3: Dim("w", min=2, max=16)},
                                              "a": None, "b": None}),
        "one_hot": lambda: save("one_hot", OneHot(), (torch.randint(0, 6, (3, 3, 4)), torch.randint(0, 5, (7,))),
                                dynamic_shapes={"x": {0: n}, "v": {0: Dim("k", min=1, max=32)}}),
        "grouped_mm": lambda: save("grouped_mm", GroupedMM(), (torch.randn(10, 4), torch.tensor([3, 3, 8], dtype=torch.int32)),
                                   dynamic_shapes={"x": {0: Dim("s", min=2, max=64)}, "offs": None}),
        "grouped_mlp": lambda: save("grouped_mlp", GroupedMLP(),
                                    (torch.randn(10, 4), torch.tensor([3, 3, 8], dtype=torch.int32)),
                                    dynamic_shapes={"x": {0: Dim("s", min=2, max=64)}, "offs": None}),
        "unsupported": lambda: save("unsupported", Unsupported(), (torch.randn(3, 8),)),
        "split_by_tensor": lambda: save("split_by_tensor", SplitByTensor(), (torch.randn(3, 9), torch.tensor([2, 5]))),
        "lstm_proj": lambda: save("lstm_proj", LstmProj(), (torch.randn(3, 7, 5),), dynamic_shapes={"x": {0: n}}),
        "held_out2": lambda: save("held_out2", HeldOut2(), (torch.randn(3, 4, 5),), dynamic_shapes={"x": {0: n}}),
        "held_out": lambda: save("held_out", HeldOut(), (torch.randn(3, 3, 6, 5),), dynamic_shapes={"x": {0: n}}),
        "interp_symbolic": lambda: save("interp_symbolic", InterpSymbolic(), (torch.randn(1, 2, 4, 4), torch.randn(1, 2, 8, 8)),
                                        dynamic_shapes={"x": None, "y": {2: Dim("h", min=4, max=32), 3: Dim("w", min=4, max=32)}},
                                        core=True),
        "unpool_symbolic": lambda: save("unpool_symbolic", UnpoolSymbolic(), (torch.randn(1, 2, 8, 6),),
                                        dynamic_shapes={"x": {2: 2 * Dim("h", min=2, max=16),
                                                              3: 2 * Dim("w", min=2, max=16)}},
                                        core=True),
        "held_out3": lambda: save("held_out3", HeldOut3(), (torch.randn(3, 4, 6, 6),), dynamic_shapes={"x": {0: n}},
                                  core=True),
    }
    for name, make in cases.items():
        if not only or name in only:
            make()

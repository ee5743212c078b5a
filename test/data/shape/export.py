# Makes the view / in-place / split-and-join / dynamic-shape cases of
# test/e2e/shape-*.test (torch from PyPI): each case folder gets model.pt2
# (default IR), model.core.pt2 (Core ATen IR), input*.npy and PyTorch's
# output*.npy. Run from this folder: python3 export.py
import os
import sys
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

Dim = torch.export.Dim


class InPlace(nn.Module):
    """In-place ops on intermediates, directly and through views of them."""

    def __init__(self):
        super().__init__()
        self.l = nn.Linear(8, 8)

    def forward(self, x):
        h = self.l(x)
        h.relu_()
        h.add_(x, alpha=0.5)
        h.mul_(2.0)
        h[:, 2:6].sub_(1.0)            # through a slice
        h.t()[0].div_(4.0)             # through select of a transpose: column 0
        y = h * 1.0                    # reads h after the writes
        h.view(-1)[::3].add_(100.0)    # through a strided slice of a flat view
        with torch.no_grad():          # a subgraph (wrap_with_set_grad_enabled)
            a, b = h.chunk(2, dim=1)
            a.add_(b)                  # through a chunk piece
        d = h.detach()
        d.mul_(0.5)                    # detach aliases h
        c = h.clone()
        c.add_(1000.0)                 # a clone does not
        h.unsqueeze(0).sub_(0.25)      # through unsqueeze
        r = F.relu(x).add_(1)
        return y, h, c, r


class Views(nn.Module):
    """Every view and join kiln lowers, static shapes."""

    def forward(self, x, y):
        # x: [2, 3, 4, 5], y: [4, 6]
        a = x.permute(0, 2, 1, 3).reshape(2, 4, 15)          # non-contiguous reshape
        b = x.transpose(-1, -2).unsqueeze(1).squeeze(1)       # [2, 3, 5, 4]
        c = x.flatten(1, 2).unflatten(1, (4, 3))              # [2, 4, 3, 5]
        d = x[:, -2:, ::2, 1:-1]                              # negative / stepped slices
        e = x.select(1, -1).narrow(2, 1, 3)                   # [2, 4, 3]
        f = y.diagonal(offset=1) + y.diagonal(offset=-2)[1]
        g = y.t().unfold(1, 2, 1)                              # [6, 3, 2]
        h = y.as_strided((3, 4), (6, 1), 2)
        i = y[None, :, None].expand(3, 4, 2, 6)
        j = torch.cat([y, y * 2, y[:0]], dim=-2)
        k = torch.stack([y, y * -1.0], dim=1)
        p, q, r = y.split([1, 2, 3], dim=1)
        s = torch.cat(y.unbind(1)[::2], dim=0)
        u = x[1, 2, 3:, -1]
        v = torch.cat(x.chunk(3, dim=2), dim=0)           # 2 pieces of 2
        w = y.squeeze().view(-1, 2)[..., 1]
        return a, b, c, d, e, f, g, h, i, j, k, p * q[:, :1] + r[:, 2:], s, u, v, w


class Composites(nn.Module):
    """Default-IR shape and indexing composites kiln imports directly."""

    def forward(self, x, y, idx):
        # x: [4, 6], y: [3, 8], idx: int64 [4]
        a = x.view_as(y) * 2
        b = x.t().reshape_as(y) + 1                           # non-contiguous source
        c = x[:, :1].expand_as(x)
        d = torch.movedim(x.reshape(2, 2, 6), 0, -1)
        e = torch.flip(x, dims=[0, 1]) + torch.rot90(x.reshape(6, 4), 1, [0, 1]).reshape(4, 6)
        f = torch.hstack([x, x]) + torch.vstack([x, x]).reshape(4, 12)
        g0, g1, g2 = torch.tensor_split(x, 3, dim=1)
        h = torch.take_along_dim(x, idx[:, None] % 6, dim=1)
        i = x.index_add(0, idx % 4, torch.ones(4, 6))
        j = torch.repeat_interleave(x[:2], 2, dim=0)
        return a, b, c, d, e, f, g0 + g1 - g2, h, i, j


class Dynamic(nn.Module):
    """Sizes computed from a symbolic batch: views, slices, expands, splits."""

    def forward(self, x):
        # x: [B, 12]
        n = x.shape[0]
        a = x.view(n, 3, 4).transpose(1, 2).reshape(n * 4, 3)
        b = x[1 : n - 1, 1::2]
        c = x.unsqueeze(1).expand(n, 2, 12).reshape(-1, 6)
        d = torch.cat([x, x[n - 1:]], dim=0)
        e, f = x.split([5, 7], dim=1)
        g = x.view(-1)[n:2 * n]
        h = x.select(0, n - 1) + x.narrow(0, n - 1, 1)
        return a, b, c, d, e * 2 + f[:, :5], g, h


class SymOps(nn.Module):
    """SymInt operators on a symbolic batch as expand sizes (the output
    shapes check the arithmetic)."""

    def forward(self, x):
        n = x.shape[0]
        r = x[:1]
        a = r.expand(n % 3 + 2, 3)
        b = r.expand((n * 5) // 7, 3)
        c = r.expand(max(n - 5, 2), 3)
        d = r.expand(min(n, 6) - 2, 3)
        e = r.expand(x.numel() // 5, 3)
        f = r.expand(-(2 - n), 3)
        return a, b, c, d, e, f


class MultiDim(nn.Module):
    """Batch, sequence and image size all symbolic: head-split views with -1,
    flatten/unflatten, expand/broadcast_to, permute, cat, slices with symbolic
    ends, arange(S), causal SDPA, sym_size arithmetic and pooling over a
    dynamic H x W."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(32, 96)
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x, img):
        # x: [B, S, 32], img: [B, 3, H, W]
        b, s = x.shape[0], x.shape[1]
        q, k, v = (t.view(*x.shape[:-1], -1, 8).transpose(1, 2) for t in self.qkv(x).chunk(3, -1))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)      # [B, 4, S, 8]
        a = a.transpose(1, 2).reshape(b, s, -1)                           # [B, S, 32]
        f = a.flatten(0, 1).unflatten(0, (b, s)) + x[:, :1].expand(-1, s, -1)
        pos = torch.arange(s, dtype=torch.float32)
        f = f + pos[None, :, None] + torch.broadcast_to(x.mean(1, keepdim=True), x.shape)
        g = torch.cat([f, f[:, s // 2:] * 2], dim=1)                      # [B, S + S - S//2, 32]
        h = g[:, 1:s - 1].permute(2, 0, 1)                                # [32, B, S - 2]
        y = self.conv(img)
        p1 = F.avg_pool2d(y, 2)
        p2 = F.max_pool2d(y, 3, 2, 1)
        p3 = F.adaptive_avg_pool2d(y, (2, 3))
        z = y.reshape(b, 4, -1).mean(-1) + p1.mean((2, 3)) + p2.amax((2, 3))
        return g, h, p1, p2, p3, z


class Indexing(nn.Module):
    """Gathers, scatters, advanced indexing, pads; negative indices and a bool mask."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4, padding_idx=0)

    def forward(self, x, i, j, m, ids, g, v, g2, mx):
        # x [4, 5, 6] f32, i [3] i64 (with -1), j [2, 1] i64, m [4] bool,
        # ids [2, 3] i32, g [4, 2, 6] i64 in [0, 5), v [4, 2, 6] i64 values,
        # g2 [4, 2, 6] i64 in [0, 2), mx [4, 5] bool
        a = x[:, i]                               # None entry, negative index
        b = x[i[:2], :, j]                        # non-adjacent: broadcast dims first
        c = x[j, i]                               # broadcast [2, 3] in front
        d = x[m]                                  # bool mask: run-time row count
        e = x.index_select(2, j.flatten())
        f = torch.gather(x, 1, g)
        h = self.emb(ids)
        k = x.flip(0, -1) + x.roll((1, -2), (0, 2)) + x.roll(3)
        r = x[0].repeat(2, 1, 3) * 1.0
        t = x[0, 0].tile((2,)) * 1.0
        u = x.tril(1) + x.triu(-1)
        p1 = F.pad(x, (1, 2, -1, 1), value=0.5)
        p2 = F.pad(x, (2, 1), mode="reflect")
        p3 = F.pad(x[None], (1, 1, 2, 0), mode="replicate")
        p4 = F.pad(x, (1, 2), mode="circular")
        y = x.clone()
        y[i, 1] = x[0, :3, :] * 10.0              # index_put through a view
        y.index_put_((j.flatten(),), x[1, 0] * 0 + 1.0, accumulate=True)
        s1 = x.scatter(1, g[:, :1], x[:, :1] * 100.0)
        s2 = x.scatter(2, g, 7.0)
        s3 = x.scatter_add(1, g, x[:, :2])
        s4 = x.scatter_reduce(1, g, x[:, :2], "amax", include_self=False)
        s5 = x.scatter_reduce(1, g, x[:, :2], "mean")
        s6 = x.scatter_reduce(1, g, x[:, :2], "prod", include_self=False)
        s7 = v.scatter_reduce(1, g2, v * 3, "mean", include_self=False)
        s8 = v.scatter_reduce(2, g, v, "amin")
        ms = torch.masked_select(x[:, 0], m[:, None])
        nz = torch.nonzero(mx)
        return (a, b, c, d, e, f, h, k, r, t, u, p1, p2, p3, p4, y, s1, s2, s3, s4, s5, s6,
                s7, s8, ms, nz)


class PixelShuffle(nn.Module):
    def forward(self, x):
        y = F.pixel_shuffle(x, 2)
        return y, F.pixel_unshuffle(y * 2.0, 2)


class BufferMutation(nn.Module):
    """Buffers updated in place: a running sum (also through a view) and a counter."""

    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(4))
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))
        self.l = nn.Linear(4, 4)

    def forward(self, x):
        self.total.add_(x[0])
        self.total[1:3].mul_(0.5)
        self.calls.add_(1)
        return self.l(x) + self.total, self.calls * 10


class InputMutation(nn.Module):
    """User inputs updated in place, directly and through a view."""

    def forward(self, x, y):
        x.add_(1.0)
        y[:, 0].mul_(-2.0)
        return x * y


class NoGradBuffer(nn.Module):
    """A buffer updated inside torch.no_grad() (a wrap_with_set_grad_enabled subgraph)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("ema", torch.ones(3))
        self.l = nn.Linear(3, 3)

    def forward(self, x):
        y = self.l(x)
        with torch.no_grad():
            self.ema.mul_(0.9).add_(y[0].detach() * 0.1)
        return y * self.ema


class NoGradSymInt(nn.Module):
    """A no_grad region that reads a symbolic size from outside it (positions from the
    sequence length, as sinusoidal position embeddings do): the subgraph takes a SymInt."""

    def forward(self, x):
        s = x.shape[1]
        with torch.no_grad():
            pos = torch.arange(s, dtype=torch.float32).unsqueeze(0).expand(x.shape[0], s) / s
            ids = (x > 0).long().cumsum(1) + s
        return x + pos.unsqueeze(-1), ids


class ItemSplit(nn.Module):
    """Split sizes read from a tensor with Tensor.item() (aten.item in the default IR, an
    unbacked SymInt), as a mixture-of-experts layer's per-expert counts .tolist() are."""

    def forward(self, x, counts):
        n0, n1 = counts.tolist()
        torch._check(n0 >= 0)
        torch._check(n1 >= 0)
        torch._check(n0 + n1 == x.shape[0])
        a, b = x.split([n0, n1])
        return a.sum(0) + 1.0, (b * 2.0).sum(0)


def save_stateful(name, make, args, runs=2):
    """Exports a fresh model, then records PyTorch's outputs of `runs` calls
    on the same input tensors (state and mutated inputs carry over)."""
    if ONLY and name not in ONLY:
        return
    os.makedirs(name, exist_ok=True)
    torch.manual_seed(1)
    model = make().eval()
    ep = torch.export.export(model, tuple(a.clone() for a in args))
    torch.export.save(ep, os.path.join(name, "model.pt2"))
    torch.export.save(ep.run_decompositions(), os.path.join(name, "model.core.pt2"))
    for i, a in enumerate(args):
        np.save(os.path.join(name, f"input{i}.npy"), a.numpy())
    inputs = [a.clone() for a in args]
    for r in range(1, runs + 1):
        with torch.no_grad():
            outs = model(*inputs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for i, o in enumerate(outs):
            np.save(os.path.join(name, f"output_run{r}_{i}.npy"), o.detach().contiguous().numpy())


class DropoutTrain(nn.Module):
    def forward(self, x):
        return F.dropout(x, 0.5, training=True)


class WriteAsStrided(nn.Module):
    def forward(self, x):
        y = x * 2
        y.as_strided((2, 2), (1, 2)).add_(1)
        return y


class Autocast(nn.Module):
    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x @ x
        return y.float()


def save_archive(name, model, args):
    """An archive only, for error tests."""
    if ONLY and name not in ONLY:
        return
    os.makedirs("errors", exist_ok=True)
    ep = torch.export.export(model, args)
    torch.export.save(ep, os.path.join("errors", name + ".pt2"))


def save(name, model, args, dynamic_shapes=None, extra_inputs=()):
    if ONLY and name not in ONLY:
        return
    os.makedirs(name, exist_ok=True)
    model.eval()
    ep = torch.export.export(model, args, dynamic_shapes=dynamic_shapes)
    torch.export.save(ep, os.path.join(name, "model.pt2"))
    torch.export.save(ep.run_decompositions(), os.path.join(name, "model.core.pt2"))
    for tag, inputs in [("", args)] + list(extra_inputs):
        with torch.no_grad():
            outs = model(*[a.clone() for a in inputs])
        outs = outs if isinstance(outs, tuple) else (outs,)
        for i, a in enumerate(inputs):
            np.save(os.path.join(name, f"input{tag}{i}.npy"), a.numpy())
        for i, o in enumerate(outs):
            np.save(os.path.join(name, f"output{tag}{i}.npy"), o.detach().contiguous().numpy())


# python3 export.py [NAME...]: only the named cases (all without names).
ONLY = set(sys.argv[1:])
torch.manual_seed(0)
save("inplace", InPlace(), (torch.randn(4, 8),))
save("views", Views(), (torch.randn(2, 3, 4, 5), torch.randn(4, 6)))
save("composites", Composites(), (torch.randn(4, 6), torch.randn(3, 8), torch.tensor([5, 0, 3, 2])))
save("dynamic", Dynamic(), (torch.randn(6, 12),),
     dynamic_shapes=({0: Dim("batch", min=4, max=64)},),
     extra_inputs=[("_b9_", (torch.randn(9, 12),))])
save("symops", SymOps(), (torch.randn(10, 3),),
     dynamic_shapes=({0: Dim("batch", min=4, max=64)},),
     extra_inputs=[("_b4_", (torch.randn(4, 3),)), ("_b17_", (torch.randn(17, 3),))])
save("indexing", Indexing(),
     (torch.randn(4, 5, 6), torch.tensor([0, -1, 2]), torch.tensor([[1], [3]]),
      torch.tensor([True, False, True, True]), torch.tensor([[0, 3, 9], [2, 2, 1]], dtype=torch.int32),
      torch.randint(0, 5, (4, 2, 6)), torch.randint(-20, 20, (4, 2, 6)),
      torch.randint(0, 2, (4, 2, 6)), torch.randn(4, 5) > 0))
save("pixel_shuffle", PixelShuffle(), (torch.randn(2, 8, 3, 5),),
     dynamic_shapes=({0: Dim("batch", min=1, max=16)},))
save("nograd_symint", NoGradSymInt(), (torch.randn(2, 5, 3),),
     dynamic_shapes=({0: Dim("batch", min=1, max=8), 1: Dim("seq", min=2, max=16)},),
     extra_inputs=[("_b3s9_", (torch.randn(3, 9, 3),))])
save("item_split", ItemSplit(), (torch.randn(7, 3), torch.tensor([4, 3])),
     extra_inputs=[("_2_5_", (torch.randn(7, 3), torch.tensor([2, 5])))])
save_stateful("buffer_mutation", BufferMutation, (torch.randn(2, 4),))
save_stateful("input_mutation", InputMutation, (torch.randn(3, 2), torch.randn(3, 2)))
save_stateful("nograd_buffer", NoGradBuffer, (torch.randn(2, 3),))
save_archive("dropout_train", DropoutTrain(), (torch.randn(4),))
save_archive("write_as_strided", WriteAsStrided(), (torch.randn(2, 2),))
save_archive("autocast", Autocast(), (torch.randn(4, 4),))
# Dim.DYNAMIC: export keeps the ranges and checks its own guards on them.
_multidim_dims = ({0: Dim.DYNAMIC(min=1, max=8), 1: Dim.DYNAMIC(min=3, max=32)},
                  {0: Dim.DYNAMIC(min=1, max=8), 2: Dim.DYNAMIC(min=8, max=64),
                   3: Dim.DYNAMIC(min=8, max=64)})
torch.manual_seed(0)
save("multidim", MultiDim(), (torch.randn(2, 6, 32), torch.randn(2, 3, 16, 20)),
     dynamic_shapes=_multidim_dims,
     extra_inputs=[("_b3s9_", (torch.randn(3, 9, 32), torch.randn(3, 3, 9, 13))),
                   ("_b5s32_", (torch.randn(5, 32, 32), torch.randn(5, 3, 33, 8)))])
print(torch.__version__)

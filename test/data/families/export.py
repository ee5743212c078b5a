# Makes the op-family end-to-end cases (torch from PyPI): one small program
# per family whose outputs exercise every overload, dtype and option kiln
# lowers, saved with its inputs and PyTorch's outputs. Run from this folder:
#   python3 export.py [family...]
import os, sys, numpy as np, torch, torch.nn as nn, torch.nn.functional as F
from torch.export import Dim

r = torch.randn
FAMILIES = {}


def family(name, core=False):
    def wrap(fn):
        FAMILIES[name] = (fn, core)
        return fn
    return wrap


class Program(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *xs):
        return tuple(self.f(*xs))


@family("reductions")
def reductions():
    x = r(3, 5, 7)
    xi = torch.randint(-5, 5, (3, 5, 7))
    xb = torch.rand(3, 5, 7) > 0.3
    xn = torch.tensor([[1., float("nan"), 3.], [2., 5., 1.], [float("-inf")] * 3])
    def f(x, xi, xb, xn, x0):
        return [x.sum(), x.sum((0, -1), keepdim=True), xi.sum(1), xb.sum(1),
                x.sum(1, dtype=torch.float64), x.mean(), x.mean(-1),
                x.prod(1, keepdim=True), xi.prod(1), x.amax((1, 2)), xi.amin(0), x.max(), xi.min(),
                *x.max(1), *xi.min(-1, keepdim=True), x.argmax(), xi.argmax(1),
                x.argmin(2, keepdim=True), xb.any(), xb.any(1), xb.any((0, 2)), xi.any(0),
                x.var(), x.var(1, unbiased=False),
                torch.var(x, dim=(0, 2), correction=2, keepdim=True), *torch.var_mean(x, 1),
                torch.logsumexp(x, 1), torch.logsumexp(xn, 1), torch.linalg.vector_norm(x),
                torch.linalg.vector_norm(x, float("inf"), dim=1),
                torch.linalg.vector_norm(x, 1, dim=(0, 2)), torch.linalg.vector_norm(x, 3, dim=-1),
                torch.norm(x, p=2, dim=1), torch.cumsum(x, 1), torch.cumsum(xi, -1),
                torch.cumprod(x, 0), *xn.max(1), xn.amax(1), xn.argmin(1),
                x0.mean(), x0.argmax(), x0.softmax(0)]
    return f, (x, xi, xb, xn, r(()))


@family("normalization")
def normalization():
    x = r(2, 6, 5, 4)
    def f(x, w, b, rm, rv, w4):
        return [torch.softmax(x, -1), F.log_softmax(x, 1),
                F.log_softmax(x, 1, dtype=torch.float64), F.layer_norm(x, (5, 4)),
                F.layer_norm(x, (4,), w4, w4), F.group_norm(x, 3, w, b),
                F.group_norm(x, 2), F.instance_norm(x, weight=w, bias=b), F.rms_norm(x, (4,), w4),
                F.rms_norm(x, (5, 4), eps=1e-3), F.batch_norm(x, None, None, w, b, training=True),
                F.batch_norm(x, rm, rv, w, b, training=False)]
    return f, (x, r(6), r(6), r(6), torch.rand(6) + 0.5, r(4))


@family("products")
def products():
    def f(a, b, v, u, ai, bi, t, c, tt, bs, sq, w):
        return [a @ b, torch.matmul(t, b), torch.matmul(v, b), torch.matmul(a, v),
                torch.matmul(v, v), torch.matmul(t, c), ai @ bi, torch.mv(a, v),
                torch.bmm(t, tt), torch.baddbmm(bs, t, tt, beta=0.5, alpha=2.0),
                torch.addmv(u, a, v, alpha=0.5), torch.addmm(u, b, w, beta=0.0),
                torch.outer(v, u), torch.dot(v, v), F.linear(t, v), F.linear(t, a, u),
                torch.einsum("ij,jk->ik", a, b), torch.einsum("ii->i", sq), torch.einsum("ii", sq),
                torch.einsum("ij->ji", a), torch.einsum("...ij,...jk", t, b),
                torch.einsum("bij,bkj->bik", t, t), torch.einsum("i,ij->", v, b)]
    a, b = r(4, 6), r(6, 5)
    return f, (a, b, r(6), r(4), torch.randint(-3, 3, (4, 6)),
               torch.randint(-3, 3, (6, 5)), r(2, 3, 6), r(1, 6, 2), r(2, 6, 3), r(2, 3, 3),
               r(4, 4), r(5, 4))


@family("attention")
def attention():
    m = torch.rand(5, 6) > 0.4
    m[1] = False
    def f(q, k, v, ks, vs, qr, m, fm, q4, k2, v2, qs, k3, v3):
        return [F.scaled_dot_product_attention(q, ks, vs, is_causal=True),
                F.scaled_dot_product_attention(qr, k, v, is_causal=True),
                F.scaled_dot_product_attention(q, k, v, attn_mask=m),
                F.scaled_dot_product_attention(q, k, v, attn_mask=fm, scale=0.3),
                F.scaled_dot_product_attention(q4, k2, v2, enable_gqa=True),
                F.scaled_dot_product_attention(qs, k3, v3)]
    q = r(2, 3, 5, 8)
    return f, (q, r(2, 3, 6, 8), r(2, 3, 6, 4), r(2, 3, 5, 8), r(2, 3, 5, 4), r(2, 3, 4, 8), m,
               r(2, 1, 5, 6), r(2, 4, 5, 8), r(2, 2, 6, 8), r(2, 2, 6, 4), r(3, 5, 8), r(3, 6, 8),
               r(3, 6, 4))


# Float16 computes in float32 as ATen's CPU kernels do; the last bit of a
# result may round differently, so this family is checked with rtol 1e-3.
@family("half")
def half():
    def f(x, a, b, q, k, v, w):
        return [x.sum(-1), x.mean((0, 1)), x.cumsum(1), torch.softmax(x, -1), torch.softmax(x, 0),
                F.log_softmax(x, -1), F.layer_norm(x, (7,)), F.layer_norm(x, (7,), w, w),
                x.amax(1), x.var(-1), a @ b, torch.bmm(q, k), torch.matmul(q, b),
                F.scaled_dot_product_attention(q, q, v, is_causal=True)]
    h = lambda *s: r(*s).half()
    return f, (h(3, 5, 7), h(4, 6), h(6, 5), h(2, 5, 6), h(2, 6, 5), h(2, 5, 4), h(7))


def main():
    names = sys.argv[1:] or list(FAMILIES)
    here = os.path.dirname(os.path.abspath(__file__))
    for name in names:
        torch.manual_seed(0)
        fn, core = FAMILIES[name]
        f, inputs = fn()
        m = Program(f).eval()
        ep = torch.export.export(m, inputs)
        d = os.path.join(here, name)
        os.makedirs(d, exist_ok=True)
        torch.export.save(ep, os.path.join(d, "model.pt2"))
        if core:
            torch.export.save(ep.run_decompositions(), os.path.join(d, "model.core.pt2"))
        outs = m(*inputs)
        for i, x in enumerate(inputs):
            np.save(os.path.join(d, f"input{i}.npy"), x.numpy())
        for i, y in enumerate(outs):
            np.save(os.path.join(d, f"output{i}.npy"), y.detach().numpy())
        print(name, len(inputs), "inputs", len(outs), "outputs")


main()

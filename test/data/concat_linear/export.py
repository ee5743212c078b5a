# Makes the stacked-linear case (test/e2e/concat-linear.test,
# test/Target/CUDA/concat-linear.test; torch from PyPI): linear layers that
# read one input in the forms kiln-concat-linear stacks -- grouped-query
# attention's query, key and value projections (6 query heads and 2 key/value
# heads of 8: widths 48, 16, 16, with biases), the heads split by view +
# transpose, the key/value heads repeated as Llama-family models do, causal
# scaled_dot_product_attention; a gated MLP's gate and up projections without
# biases (SiLU(gate) * up); a key projection without a bias beside query and
# value ones with (the biased two stack, the key stays alone) -- and layers
# that read other inputs. Width 48, 2 sequences of 11 tokens. Saved with its
# input and PyTorch's output. Run from this folder: python3 export.py
import os, numpy as np, torch, torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d=48, heads=6, kv_heads=2, ffn=80):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, kv_heads * self.hd), nn.Linear(d, kv_heads * self.hd)
        self.o = nn.Linear(d, d)
        self.gate, self.up = nn.Linear(d, ffn, bias=False), nn.Linear(d, ffn, bias=False)
        self.down = nn.Linear(ffn, d, bias=False)
        self.q2, self.k2, self.v2 = nn.Linear(d, d), nn.Linear(d, d, bias=False), nn.Linear(d, d)
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def repeat_kv(self, x):
        b, h, s, e = x.shape
        g = self.heads // h
        return x[:, :, None].expand(b, h, g, s, e).reshape(b, h * g, s, e)

    def forward(self, x):
        b, s, d = x.shape
        h = self.norm1(x)
        q = self.q(h).view(b, s, -1, self.hd).transpose(1, 2)
        k = self.repeat_kv(self.k(h).view(b, s, -1, self.hd).transpose(1, 2))
        v = self.repeat_kv(self.v(h).view(b, s, -1, self.hd).transpose(1, 2))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, d))
        h = self.norm2(x)
        x = x + self.down(F.silu(self.gate(h)) * self.up(h))
        return x + torch.tanh(self.q2(x) * self.k2(x)) + self.v2(x)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(0)
    m = Block().eval()
    x = torch.randn(2, 11, 48)
    ep = torch.export.export(m, (x,))
    torch.export.save(ep, os.path.join(here, "model.pt2"))
    np.save(os.path.join(here, "input0.npy"), x.numpy())
    with torch.no_grad():
        np.save(os.path.join(here, "output0.npy"), m(x).numpy())


main()

"""Scatter models for the GPU: scatter, scatter_add, index_put with and without
accumulate (repeated indices where the result does not depend on their order)
and the backward of an embedding (--grad), each exported with its inputs and
PyTorch's outputs (and gradients), then compiled for CUDA by kiln-compile.

    build machine:  python3 test/gpu/scatter_cases.py OUT --kiln-compile build/bin/kiln-compile
    GPU machine:    for d in OUT/*/; do kiln-run $d/model.so --device cuda ... ; done
                    (test/gpu/run-scatter.sh OUT KILN_RUN)
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import torch


class ScatterAdd(torch.nn.Module):
    def forward(self, x, i, v):
        return x.scatter_add(1, i, v)


class Scatter(torch.nn.Module):
    def forward(self, x, i, v):
        return x.scatter(0, i, v)


class IndexPutAcc(torch.nn.Module):
    def forward(self, x, i, v):
        return x.index_put((i,), v, accumulate=True)


class IndexPut(torch.nn.Module):
    def forward(self, x, i, v):
        return x.index_put((i,), v)


class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.e = torch.nn.Embedding(1000, 64)

    def forward(self, i):
        return torch.tanh(self.e(i))


def cases():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 300, generator=g)
    yield "scatter_add", ScatterAdd(), (x, torch.randint(0, 300, (64, 2000), generator=g),
                                        torch.randn(64, 2000, generator=g)), False
    # Unique positions per column: the result does not depend on the write order.
    idx = torch.stack([torch.randperm(500, generator=g)[:200] for _ in range(32)], 1)
    yield "scatter", Scatter(), (torch.randn(500, 32, generator=g), idx, torch.randn(200, 32, generator=g)), False
    yield "index_put_acc", IndexPutAcc(), (torch.randn(100, 48, generator=g),
                                           torch.randint(0, 100, (4000,), generator=g),
                                           torch.randn(4000, 48, generator=g)), False
    yield "index_put", IndexPut(), (torch.randn(1000, 48, generator=g),
                                    torch.randperm(1000, generator=g)[:600],
                                    torch.randn(600, 48, generator=g)), False
    torch.manual_seed(0)
    yield "embedding_grad", Embed(), (torch.randint(0, 1000, (16, 128), generator=g),), True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--kiln-compile", required=True)
    a = ap.parse_args()
    for name, mod, args, grad in cases():
        d = os.path.join(a.out, name)
        os.makedirs(os.path.join(d, "grads"), exist_ok=True)
        pt2 = os.path.join(d, "model.pt2")
        torch.export.save(torch.export.export(mod, args), pt2)
        for k, t in enumerate(args):
            np.save(os.path.join(d, f"input{k}.npy"), t.numpy())
        params = dict(mod.named_parameters())
        out = mod(*args)
        np.save(os.path.join(d, "output0.npy"), out.detach().numpy())
        if grad:
            ct = torch.randn(out.shape, generator=torch.Generator().manual_seed(1))
            out.backward(ct)
            np.save(os.path.join(d, "grads", "cotangent0.npy"), ct.numpy())
            for n, p in params.items():
                np.save(os.path.join(d, "grads", n + ".npy"), p.grad.numpy())
        cmd = [a.kiln_compile, pt2, "--target=cuda", "--cuda-tf32=none", "-o", os.path.join(d, "model.so")]
        if grad:
            cmd.append("--grad")
        subprocess.run(cmd, check=True)
        os.remove(pt2)
        print(f"scatter_cases: {name} compiled")


if __name__ == "__main__":
    sys.exit(main())

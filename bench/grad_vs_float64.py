"""kiln's float32 value-and-gradient against float64 eager, beside eager's own float32.

    python3 bench/grad_vs_float64.py [--seeds 0,1,2] [--classes 1000] [--batch 8] [--size 64]

For a torchvision ResNet-18 in training mode (batch norm on batch statistics)
and a random cotangent, prints per seed the largest relative error (norm of
the difference over the float64 gradient's norm) of eager float32 and of
kiln (`kiln.compile(..., grad=True)`) over all parameters, and, for kiln's
worst parameter, how many elements entering a ReLU lie so close to zero in
float64 that float32 rounding may give them the other sign: the gradient is
discontinuous there, so one flipped element moves a channel's gradient by
that element's whole incoming gradient. Needs torch, torchvision and the kiln
package (PYTHONPATH=build/python-bindings).
"""
import argparse
import copy

import torch
import torchvision

import kiln


def grads(model, x, ct):
    model.zero_grad()
    (model(x) * ct.to(x.dtype)).sum().backward()
    return {n: p.grad.detach().clone() for n, p in model.named_parameters()}


def rel(a, b):
    return float((a.double() - b).norm() / b.norm())


def near_kinks(model, x, module_name, tol):
    """Elements of the batch norm `module_name`'s output (the input of the
    ReLU after it) within tol of zero, in float64."""
    seen = {}
    bn = dict(model.named_modules())[module_name]
    # The input, not the output: the ReLU after it works in place.
    bn.register_forward_pre_hook(lambda m, i: seen.setdefault("x", i[0].detach().clone()))
    with torch.no_grad():
        model(x)
        y = torch.nn.functional.batch_norm(seen["x"], None, None, bn.weight, bn.bias, True, 0.0, bn.eps)
    return int((y.abs() < tol).sum())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--size", type=int, default=64)
    args = ap.parse_args()
    for seed in (int(s) for s in args.seeds.split(",")):
        torch.manual_seed(seed)
        m = torchvision.models.resnet18(num_classes=args.classes).train()
        x = torch.randn(args.batch, 3, args.size, args.size)
        ct = torch.randn(args.batch, args.classes)
        g64 = grads(copy.deepcopy(m).double(), x.double(), ct)
        g32 = grads(copy.deepcopy(m), x, ct)
        k = kiln.compile(torch.export.export(copy.deepcopy(m), (x,)), grad=True)
        gk = {n[len("grads/"):]: torch.as_tensor(v) for n, v in k.run_named([x, ct]).items()
              if n.startswith("grads/")}
        eager = {n: rel(g32[n], g64[n]) for n in g64}
        kil = {n: rel(gk[n], g64[n]) for n in g64}
        worst = max(kil, key=kil.get)
        line = (f"seed {seed}: max rel error eager {max(eager.values()):.2e}, kiln {max(kil.values()):.2e} "
                f"(kiln's worst: {worst}, eager there {eager[worst]:.2e})")
        if worst.endswith(".bias") and ".bn" in worst:
            line += f"; its output elements within 1e-5 of 0: " \
                    f"{near_kinks(copy.deepcopy(m).double(), x.double(), worst[:-5], 1e-5)}"
        print(line, flush=True)


if __name__ == "__main__":
    main()

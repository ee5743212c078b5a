"""kiln's float32 value-and-gradient against float64 eager, beside eager's own float32.

    python3 bench/grad_vs_float64.py [--seeds 0,1,2] [--classes 1000] [--batch 8] [--size 64]
                                     [--act relu,silu] [--device cpu|cuda] [--build DIR | --pack DIR]

For a torchvision ResNet-18 in training mode (batch norm on batch statistics)
and a random cotangent, prints per seed the largest and the median relative
error (norm of the difference over the float64 gradient's norm) over all
parameters of eager float32 and of kiln (`kiln.compile(..., grad=True)`), and,
for kiln's worst parameter, how many elements entering a ReLU lie so close to
zero in float64 that float32 rounding may give them the other sign: the
gradient is discontinuous there, so one flipped element moves a channel's
gradient by that element's whole incoming gradient. `--act silu` replaces
every ReLU by a SiLU, whose gradient is continuous: what differs then is
arithmetic alone.

On a GPU machine without kiln-compile: `--build DIR` (here) compiles each
activation's value and gradient for CUDA with external weights into
DIR/<act>/model.so (with the weights' names), and `--device cuda --pack DIR`
(there) loads it over the model's own tensors (kiln.load with a dict). float32
without TF32 on the GPU. Needs torch, torchvision and the kiln package
(PYTHONPATH=build/python-bindings).
"""
import argparse
import copy
import json
import os
import statistics

import torch
import torchvision

import kiln

torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False


def make(seed, classes, act):
    torch.manual_seed(seed)
    m = torchvision.models.resnet18(num_classes=classes).train()
    if act == "silu":
        for mod in m.modules():
            if hasattr(mod, "relu"):
                mod.relu = torch.nn.SiLU()
    return m


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


def build(out, args):
    """CUDA value-and-gradient modules with external weights, one per activation."""
    for act in args.act.split(","):
        m = make(0, args.classes, act)
        x = torch.randn(args.batch, 3, args.size, args.size)
        ep = torch.export.export(m, (x,))
        d = os.path.join(out, act)
        os.makedirs(d, exist_ok=True)
        # Compiled only: a CUDA model cannot be loaded here.
        torch.export.save(ep, os.path.join(d, "model.pt2"))
        # PyTorch's TF32 flags (off above), as the Dynamo backend passes them.
        tf32 = "conv" if torch.backends.cudnn.allow_tf32 else "none"
        kiln.compiler.compile_file(os.path.join(d, "model.pt2"), os.path.join(d, "model.so"), target="cuda",
                                   weights="external", extra_args=["--grad", f"--cuda-tf32={tf32}"])
        os.remove(os.path.join(d, "model.pt2"))
        with open(os.path.join(d, "weights.json"), "w") as f:
            json.dump(list(ep.state_dict) + list(ep.constants), f)
        print("built", d, flush=True)


def kiln_grads(m, x, ct, args, act):
    if args.device == "cpu":
        k = kiln.compile(torch.export.export(copy.deepcopy(m), (x,)), grad=True)
        named = k.run_named([x, ct])
    else:
        d = os.path.join(args.pack, act)
        with open(os.path.join(d, "weights.json")) as f:
            names = json.load(f)
        held = copy.deepcopy(m)
        sd = dict(held.state_dict(keep_vars=True))
        k = kiln.load(os.path.join(d, "model.so"), weights={n: sd[n].detach() for n in names})
        named = {o.name: v for o, v in zip(k.outputs, k.run([x, ct]))}
    return {n[len("grads/"):]: torch.as_tensor(v) for n, v in named.items() if n.startswith("grads/")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--classes", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--act", default="relu", help="relu and/or silu (comma-separated)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--build", help="compile the CUDA modules into this folder and exit")
    ap.add_argument("--pack", help="--build's folder (with --device cuda)")
    args = ap.parse_args()
    if args.build:
        return build(args.build, args)
    dev = torch.device(args.device)
    for act in args.act.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            m = make(seed, args.classes, act)
            x = torch.randn(args.batch, 3, args.size, args.size)
            ct = torch.randn(args.batch, args.classes)
            m, x, ct = m.to(dev), x.to(dev), ct.to(dev)
            g64 = grads(copy.deepcopy(m).double(), x.double(), ct)
            g32 = grads(copy.deepcopy(m), x, ct)
            gk = kiln_grads(m, x, ct, args, act)
            eager = {n: rel(g32[n], g64[n]) for n in g64}
            kil = {n: rel(gk[n], g64[n]) for n in g64}
            worst = max(kil, key=kil.get)
            line = (f"{act} seed {seed} on {dev.type}: rel error max eager {max(eager.values()):.2e}, "
                    f"kiln {max(kil.values()):.2e}; median eager {statistics.median(eager.values()):.2e}, "
                    f"kiln {statistics.median(kil.values()):.2e} (kiln's worst: {worst}, eager there "
                    f"{eager[worst]:.2e})")
            if act == "relu" and worst.endswith(".bias") and ".bn" in worst:
                line += f"; its output elements within 1e-5 of 0: " \
                        f"{near_kinks(copy.deepcopy(m).double(), x.double(), worst[:-5], 1e-5)}"
            print(line, flush=True)


if __name__ == "__main__":
    main()

"""The Python package's GPU path on its own: CUDA .so files compiled on the build
machine by backend_smoke.py --build DIR, run here with torch tensors on the GPU
(device pointers in place, PyTorch's current stream, outputs left on the GPU,
an input the program writes into updated on the device, a --train-step=sgd
model updating its parameters on the device, inputs bound once and read in
place by the CUDA graph)."""
import argparse
import os
import sys

import torch
import torch.nn as nn


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(64, 128), nn.Linear(128, 32)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class Lin(nn.Module):
    """A linear layer whose weight and bias are inputs, as Dynamo passes parameters."""

    def forward(self, x, w, b):
        return torch.relu(nn.functional.linear(x, w, b))


class Stats(nn.Module):
    """Writes a running mean into its second input, as a training batch norm does."""

    def forward(self, x, running):
        running.mul_(0.9).add_(0.1 * x.mean(0))
        return x * 2 + running


def build(out):
    import kiln
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    m = Mlp()
    torch.save(m.state_dict(), os.path.join(out, "mlp.pth"))
    for name, mod, args in (("mlp", m, (torch.randn(8, 64),)),
                            ("stats", Stats(), (torch.randn(8, 16), torch.zeros(16))),
                            ("lin", Lin(), (torch.randn(8, 64), torch.randn(32, 64), torch.randn(32)))):
        pt2 = os.path.join(out, name + ".pt2")
        torch.export.save(torch.export.export(mod, args), pt2)
        kiln.compiler.compile_file(pt2, os.path.join(out, name + ".so"), target="cuda")
        if name == "mlp":  # one SGD step per call, parameters updated on the GPU
            kiln.compiler.compile_file(pt2, os.path.join(out, "mlp_sgd.so"), target="cuda",
                                       extra_args=["--train-step=sgd", "--lr=0.1"])
        os.remove(pt2)


def check(d):
    import kiln
    torch.manual_seed(0)
    m = Mlp().cuda()
    m.load_state_dict(torch.load(os.path.join(d, "mlp.pth")))
    km = kiln.load(os.path.join(d, "mlp.so"))
    ok = True
    for stream in (None, torch.cuda.Stream()):
        for i in range(3):  # the first run records, the later ones replay a CUDA graph
            x = torch.randn(8, 64, device="cuda")
            ctx = torch.cuda.stream(stream) if stream is not None else torch.cuda.stream(torch.cuda.current_stream())
            with ctx:
                y = km.run([x])[0]
                ref = m(x)
                err = ((y - ref).norm() / ref.norm()).item()
            torch.cuda.synchronize()
            good = y.device.type == "cuda" and err < 1e-5
            ok &= good
            print(f"mlp stream={'side' if stream else 'default'} run {i}: {y.device} rel err {err:.2e} "
                  f"{'ok' if good else 'FAIL'}")
    ks = kiln.load(os.path.join(d, "stats.so"))
    x = torch.randn(8, 16, device="cuda")
    running = torch.zeros(16, device="cuda")
    ref_running = torch.zeros(16, device="cuda")
    for i in range(2):
        y = ks.run([x, running])[0]
        ref_running.mul_(0.9).add_(0.1 * x.mean(0))
        ref = x * 2 + ref_running
        torch.cuda.synchronize()
        good = (running - ref_running).abs().max().item() < 1e-6 and (y - ref).abs().max().item() < 1e-5
        ok &= good
        print(f"stats run {i}: running {'updated' if good else 'WRONG'} on {running.device}")
    # --train-step=sgd: each call returns the output with the current parameters,
    # then updates them in the model's device copy.
    step = kiln.load(os.path.join(d, "mlp_sgd.so"))
    ref = Mlp().cuda()
    ref.load_state_dict(torch.load(os.path.join(d, "mlp.pth")))
    opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    for i in range(3):
        x = torch.randn(8, 64, device="cuda")
        cot = torch.randn(8, 32, device="cuda")
        y = step.run([x, cot])[0]
        opt.zero_grad()
        want = ref(x)
        (want * cot).sum().backward()
        opt.step()
        torch.cuda.synchronize()
        err = ((y - want.detach()).norm() / want.norm()).item()
        good = err < 1e-5
        ok &= good
        print(f"sgd step {i}: rel err of the output {err:.2e} {'ok' if good else 'FAIL'}")
    # Bound inputs (Module.bind, what the backend does with parameters): the
    # CUDA graph reads them in place, sees in-place updates, and is recorded
    # again when one moves to new storage.
    kl = kiln.load(os.path.join(d, "lin.so"))
    w, b = torch.randn(32, 64, device="cuda"), torch.randn(32, device="cuda")
    ok &= kl.bind([1, 2], [w, b])
    for i in range(5):
        if i == 3:
            w.mul_(-1.5)  # in place: same address
        if i == 4:
            w = torch.randn(32, 64, device="cuda") * 3  # new storage: bind again
            kl.bind([1, 2], [w, b])
        x = torch.randn(8, 64, device="cuda")
        y = kl.run_bound([x])[0]
        ref = torch.relu(nn.functional.linear(x, w, b))
        torch.cuda.synchronize()
        err = ((y - ref).norm() / ref.norm()).item()
        good = err < 1e-5
        ok &= good
        print(f"bound run {i}: rel err {err:.2e} {'ok' if good else 'FAIL'}")
    try:
        km.run([torch.randn(8, 64, device="cuda").t().contiguous().t()])
    except Exception as e:  # noqa: BLE001
        print("strided input:", type(e).__name__, str(e)[:200])
    print("SMOKE", "OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--build")
    ap.add_argument("--check")
    a = ap.parse_args()
    if a.build:
        build(a.build)
    else:
        sys.exit(check(a.check))

#!/usr/bin/env python3
"""Side-by-side CPU latency: kiln-compiled models vs PyTorch eager, in one run.

For each model it compiles the corpus archive with kiln-compile, times it with
`kiln-run --bench`, rebuilds the same module in PyTorch with the archive's raw
weights (read from the zip without unpickling anything) and times PyTorch
eager on the same input (1 thread and the default thread count). Prints the
median latencies and the ratio torch / kiln (> 1 means kiln is faster).

usage: bench/cpu_vs_torch.py BUILD_DIR [--iters N]
"""
import argparse, json, os, re, subprocess, sys, tempfile, time, zipfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "test", "data", "corpus")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(64, 128); self.l2 = nn.Linear(128, 128); self.l3 = nn.Linear(128, 10)

    def forward(self, x):
        return self.l3(F.gelu(self.l2(F.relu(self.l1(x)))))


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1); self.b1 = nn.BatchNorm2d(16)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1); self.b2 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = F.relu(self.b2(self.c2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


MODELS = {"mlp": MLP, "convnet": ConvNet}
DTYPES = {7: np.float32, 5: np.int64, 8: np.float64}


def load_raw_weights(pt2):
    """State dict from the archive's raw little-endian weight files."""
    out = {}
    with zipfile.ZipFile(pt2) as z:
        names = z.namelist()
        cfg_name = next(n for n in names if n.endswith("data/weights/model_weights_config.json"))
        prefix = cfg_name[: -len("data/weights/model_weights_config.json")]
        for name, entry in json.loads(z.read(cfg_name))["config"].items():
            assert not entry["use_pickle"], name
            meta = entry["tensor_meta"]
            shape = [s["as_int"] for s in meta["sizes"]]
            data = z.read(prefix + "data/weights/" + entry["path_name"])
            out[name] = torch.from_numpy(
                np.frombuffer(data, dtype=DTYPES[meta["dtype"]]).reshape(shape).copy())
    return out


def torch_median_ms(module, x, iters, threads):
    torch.set_num_threads(threads)
    with torch.no_grad():
        for _ in range(10):
            module(x)
        ts = []
        for _ in range(iters):
            t = time.perf_counter(); module(x); ts.append(time.perf_counter() - t)
    return float(np.median(ts) * 1e3)


def kiln_median_ms(build, pt2, inp, iters, tmp):
    so = os.path.join(tmp, os.path.basename(os.path.dirname(pt2)) + ".so")
    subprocess.run([os.path.join(build, "bin", "kiln-compile"), pt2, "-o", so], check=True)
    out = subprocess.run([os.path.join(build, "bin", "kiln-run"), so, "--input", inp,
                          "--bench", str(iters)], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"median ([0-9.]+) ms", out).group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--iters", type=int, default=300)
    args = ap.parse_args()
    default_threads = torch.get_num_threads()
    print(f"{'model':10} {'kiln ms':>9} {'torch-1t ms':>12} {'torch-{0}t ms'.format(default_threads):>12}"
          f" {'ratio 1t':>9} {'ratio {0}t'.format(default_threads):>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, cls in MODELS.items():
            pt2 = os.path.join(CORPUS, name, "model.pt2")
            inp = os.path.join(CORPUS, name, "input0.npy")
            module = cls().eval()
            module.load_state_dict(load_raw_weights(pt2), strict=True)
            x = torch.from_numpy(np.load(inp))
            with torch.no_grad():  # the rebuilt module must be the exported one
                expect = np.load(os.path.join(CORPUS, name, "output0.npy"))
                assert np.allclose(module(x).numpy(), expect, rtol=1e-4, atol=1e-5), name
            k = kiln_median_ms(args.build, pt2, inp, args.iters, tmp)
            t1 = torch_median_ms(module, x, args.iters, 1)
            tn = torch_median_ms(module, x, args.iters, default_threads)
            print(f"{name:10} {k:9.4f} {t1:12.4f} {tn:12.4f} {t1 / k:9.2f} {tn / k:9.2f}")


if __name__ == "__main__":
    sys.exit(main())

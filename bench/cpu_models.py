#!/usr/bin/env python3
"""CPU latency of real-size models: kiln (1 and 2 threads, with and without its
oneDNN library calls) next to PyTorch eager (1, 2 threads) and, when installed,
ONNX Runtime (1, 2 threads) and Inductor, in one run, every output checked.

For each model it builds the network in PyTorch (torchvision / transformers
constructors, seeded random weights: nothing is downloaded), exports it with
torch.export, saves eager PyTorch's output, and
- compiles the archive with kiln-compile once per variant (wall seconds, and
  CPU seconds: user + system of kiln-compile and its linker):
  `lib`: the default pipeline (large float32 convolutions and matmuls call
  oneDNN through the runtime); `loops`: `--cpu-library=off --conv-layout=nchw`
  (every op a generated loop nest, kiln before the library calls); `lib-nchw`:
  the library calls on NCHW tensors (`--conv-layout=nchw`, for the layout choice);
  `lib-nofold`: batch norm not folded into convolutions (`--fold-batch-norm=off`),
- times each with `kiln-run --bench N --expect` (the run fails on a mismatch
  against eager's output), with KILN_NUM_THREADS / OMP_NUM_THREADS at 1 and 2,
- times eager PyTorch (torch.no_grad) and the optional baselines on the same input.
Prints one JSON line per measurement and a table of medians (ms), with each
contender's CPU ms per run at one thread (kiln-run's "CPU time", the Python
process's time for the others): on a shared, loaded machine the wall times
swing with the other processes, the one-thread CPU times much less.

usage: bench/cpu_models.py BUILD_DIR [NAME...] [--iters N] [--variants lib,lib-nchw,loops,lib-nofold]
                                      [--loops-iters N] [--ort] [--inductor]
Optional baselines: `pip install -r bench/requirements-cpu.txt` (onnxruntime, onnx).
The machine is shared and noisy: compare columns of one run only.
"""
import argparse, json, os, re, resource, subprocess, sys, tempfile, time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def models():
    import torchvision
    import transformers

    class Bert(torch.nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.m = transformers.BertModel(cfg, add_pooling_layer=False)

        def forward(self, ids):
            return self.m(input_ids=ids).last_hidden_state

    class Distil(torch.nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.m = transformers.DistilBertModel(cfg)

        def forward(self, ids):
            return self.m(input_ids=ids).last_hidden_state

    class Decoder(torch.nn.Module):
        """LlamaModel(input_ids).last_hidden_state, no KV cache."""

        def __init__(self, cfg):
            super().__init__()
            cfg._attn_implementation = "sdpa"
            self.m = transformers.LlamaModel(cfg)

        def forward(self, ids):
            return self.m(input_ids=ids, use_cache=False).last_hidden_state

    # The Llama-style decoder of bench/gpu_models.py (8 layers, d=1024,
    # grouped-query attention 16/4 heads, rotary positions, SwiGLU, RMSNorm)
    # over 128 tokens: a prompt's forward pass.
    llama = dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8, num_attention_heads=16,
                 num_key_value_heads=4, vocab_size=32000)

    def vit():
        # torchvision zero-initialises the classifier: random weights, so
        # that the output check means something.
        m = torchvision.models.vit_b_16()
        torch.nn.init.normal_(m.heads.head.weight, std=0.02)
        return m

    def img(b, s=224):
        return lambda g: (torch.randn(b, 3, s, s, generator=g),)

    def tokens(b, s):
        return lambda g: (torch.randint(0, 30522, (b, s), generator=g),)

    return {
        "squeezenet1_1": (torchvision.models.squeezenet1_1, img(1)),
        "mobilenet_v3_large": (torchvision.models.mobilenet_v3_large, img(1)),
        "resnet50": (torchvision.models.resnet50, img(1)),
        "bert_base_s128": (lambda: Bert(transformers.BertConfig()), tokens(1, 128)),
        "resnet18_b8": (torchvision.models.resnet18, img(8)),
        "efficientnet_b0": (torchvision.models.efficientnet_b0, img(1)),
        "vit_b_16": (vit, img(1)),
        "distilbert_s128": (lambda: Distil(transformers.DistilBertConfig()), tokens(1, 128)),
        "llama_8l_s128": (lambda: Decoder(transformers.LlamaConfig(**llama)),
                          lambda g: (torch.randint(0, 32000, (1, 128), generator=g),)),
    }


def median_ms(fn, iters):
    """Median wall ms of `iters` calls after 3 warm-ups, and this process's CPU
    ms per call over them (all its threads: at one thread, the figure other
    processes on a loaded machine inflate least)."""
    for _ in range(3):
        fn()
    times = []
    cpu0 = time.process_time()
    for _ in range(iters):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return float(np.median(times)), (time.process_time() - cpu0) * 1e3 / iters


def kiln_variant(args, name, pt2, d, inputs, expect, variant, flags):
    so = os.path.join(d, f"{name}.{variant}.so")
    t = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([os.path.join(args.build, "bin", "kiln-compile"), pt2, "-o", so, *flags],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    compile_s = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU seconds (user + system, all of kiln-compile's threads and the
    # linker it runs): what the compile costs whatever the machine's load,
    # where the wall time above grows with every other process.
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    out = {"compile_s": round(compile_s, 2), "compile_cpu_s": round(cpu_s, 2)}
    if p.returncode:
        out["error"] = "kiln-compile: " + p.stdout.strip()[-400:]
        return out
    iters = args.loops_iters if variant == "loops" else args.iters
    for threads in (1, 2):
        env = dict(os.environ, KILN_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
        cmd = [os.path.join(args.build, "bin", "kiln-run"), so, "--bench", str(iters), "--rtol", "1e-3",
               "--atol", "1e-3"]
        for i in inputs:
            cmd += ["--input", i]
        cmd += ["--expect", expect]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        m = re.search(r"median ([0-9.]+) ms", p.stdout)
        c = re.search(r"CPU time ([0-9.]+) ms a run", p.stdout)
        if p.returncode or not m:
            out[f"{threads}t_error"] = p.stdout.strip()[-400:]
        else:
            out[f"{threads}t_ms"] = float(m.group(1))
            if c:
                out[f"{threads}t_cpu_ms"] = round(float(c.group(1)), 2)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("names", nargs="*")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--loops-iters", type=int, default=3, help="iterations of the (slow) generated-loop variant")
    ap.add_argument("--variants", default="lib,loops")
    ap.add_argument("--ort", action="store_true", help="time ONNX Runtime (needs onnxruntime and onnx)")
    ap.add_argument("--inductor", action="store_true", help="time torch.compile (Inductor, freezing)")
    args = ap.parse_intermixed_args()
    specs = models()
    variants = {"lib": [], "lib-nchw": ["--conv-layout=nchw"], "loops": ["--cpu-library=off", "--conv-layout=nchw"],
                "lib-nofold": ["--fold-batch-norm=off"]}
    tmp = tempfile.mkdtemp(prefix="kiln-cpu-models-")
    rows = []
    for name in args.names or list(specs):
        make, make_inputs = specs[name]
        torch.manual_seed(0)
        model = make().eval()
        inputs = make_inputs(torch.Generator().manual_seed(2))
        with torch.no_grad():
            ref = model(*inputs)
        d = os.path.join(tmp, name)
        os.makedirs(d)
        ep = torch.export.export(model, inputs)
        ep._example_inputs = None
        pt2 = os.path.join(d, "model.pt2")
        torch.export.save(ep, pt2)
        in_files = []
        for i, a in enumerate(inputs):
            in_files.append(os.path.join(d, f"input{i}.npy"))
            np.save(in_files[-1], a.numpy())
        expect = os.path.join(d, "output0.npy")
        np.save(expect, ref.numpy())
        row = {"model": name}
        for v in args.variants.split(","):
            row["kiln_" + v] = kiln_variant(args, name, pt2, d, in_files, expect, v, variants[v])
            print(json.dumps({"model": name, "variant": v, **row["kiln_" + v]}), flush=True)
        with torch.no_grad():
            for threads in (1, 2):
                torch.set_num_threads(threads)
                wall, cpu = median_ms(lambda: model(*inputs), args.iters)
                row[f"eager_{threads}t_ms"], row[f"eager_{threads}t_cpu_ms"] = round(wall, 3), round(cpu, 2)
            if args.inductor:
                torch._inductor.config.freezing = True
                torch.set_num_threads(2)
                c = torch.compile(model)
                got = c(*inputs)
                row["inductor_ok"] = bool(torch.allclose(got, ref, rtol=1e-3, atol=1e-3))
                for threads in (1, 2):
                    torch.set_num_threads(threads)
                    wall, cpu = median_ms(lambda: c(*inputs), args.iters)
                    row[f"inductor_{threads}t_ms"], row[f"inductor_{threads}t_cpu_ms"] = round(wall, 3), round(cpu, 2)
        if args.ort:
            import onnxruntime as ort
            onnx_path = os.path.join(d, "model.onnx")
            try:
                torch.onnx.export(model, inputs, onnx_path, dynamo=False)
            except Exception as e:  # an op the ONNX exporter lacks: the row keeps its other columns
                row["ort_error"] = f"torch.onnx.export: {type(e).__name__}: {str(e)[:200]}"
            for threads in (1, 2) if "ort_error" not in row else ():
                so = ort.SessionOptions()
                so.intra_op_num_threads = threads
                so.inter_op_num_threads = 1
                s = ort.InferenceSession(onnx_path, so, providers=["CPUExecutionProvider"])
                feed = {s.get_inputs()[i].name: a.numpy() for i, a in enumerate(inputs)}
                got = s.run(None, feed)[0]
                row["ort_ok"] = bool(np.allclose(got, ref.numpy(), rtol=1e-3, atol=1e-3))
                wall, cpu = median_ms(lambda: s.run(None, feed), args.iters)
                row[f"ort_{threads}t_ms"], row[f"ort_{threads}t_cpu_ms"] = round(wall, 3), round(cpu, 2)
        torch.set_num_threads(os.cpu_count() or 1)
        row["loadavg"] = [round(x, 1) for x in os.getloadavg()]
        print(json.dumps(row), flush=True)
        rows.append(row)
    cols = []
    for v in args.variants.split(","):
        cols += [(f"kiln {v} 1t", lambda r, v=v: r["kiln_" + v].get("1t_ms")),
                 (f"kiln {v} 2t", lambda r, v=v: r["kiln_" + v].get("2t_ms")),
                 (f"{v} compile s", lambda r, v=v: r["kiln_" + v].get("compile_s")),
                 (f"{v} compile CPU s", lambda r, v=v: r["kiln_" + v].get("compile_cpu_s"))]
    cols += [("eager 1t", lambda r: r.get("eager_1t_ms")), ("eager 2t", lambda r: r.get("eager_2t_ms"))]
    for opt in ("ort", "inductor"):
        if getattr(args, opt):
            cols += [(f"{opt} 1t", lambda r, o=opt: r.get(f"{o}_1t_ms")),
                     (f"{opt} 2t", lambda r, o=opt: r.get(f"{o}_2t_ms"))]
    # One thread's CPU ms per run: the column a loaded machine distorts least.
    cols += [(f"kiln {v} 1t CPU", lambda r, v=v: r["kiln_" + v].get("1t_cpu_ms")) for v in args.variants.split(",")]
    cols += [("eager 1t CPU", lambda r: r.get("eager_1t_cpu_ms"))]
    cols += [(f"{o} 1t CPU", lambda r, o=o: r.get(f"{o}_1t_cpu_ms")) for o in ("ort", "inductor") if getattr(args, o)]
    print("\n| model | " + " | ".join(c for c, _ in cols) + " |")
    print("| --- " * (len(cols) + 1) + "|")
    for r in rows:
        cells = []
        for _, f in cols:
            x = f(r)
            cells.append("fail" if x is None else f"{x:g}")
        print(f"| {r['model']} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()

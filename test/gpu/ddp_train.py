"""torch.compile(DDP(model), backend="kiln") against eager DDP and Inductor DDP.

    python -m torch.distributed.run --nproc-per-node 2 test/gpu/ddp_train.py \
        --device cuda --model resnet18 [--modes eager,inductor,kiln[,kiln_recompute]] [--json out.json]

Every rank trains the same model from the same seed on its own slice of a
global batch for --steps SGD or AdamW steps, once per mode; rank 0 prints each
mode's losses, its median step time and samples per second over all ranks, and
the largest relative difference of each compiled mode's losses from eager's
(Inductor's says how far float32 reassociation alone drifts). Dynamo's DDP
optimizer splits each model's graph at the gradient buckets (bucket_cap_mb), so
kiln compiles several pieces whose gradients DDP all-reduces bucket by bucket.

On a GPU machine each process sees only its own GPU (CUDA_VISIBLE_DEVICES is set
from LOCAL_RANK before torch loads, picking from the GPUs CUDA_VISIBLE_DEVICES
named if it was set: kiln runs on device 0 of its process) and
ranks talk through NCCL; on the CPU (--device cpu, what test/python/test_ddp.py
runs) through gloo. kiln's KILN_* variables apply as in one process: under
KILN_RECORD_DIR every rank records what it needs (the ranks' programs are the
same, so they share entries).
"""
import argparse
import json
import os
import sys
import time

if "LOCAL_RANK" in os.environ and "--device" in sys.argv and \
        sys.argv[sys.argv.index("--device") + 1] == "cuda":
    # Rank r takes the r-th visible GPU (of CUDA_VISIBLE_DEVICES when it names them).
    _visible = [d for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if d.strip()]
    _rank = int(os.environ["LOCAL_RANK"])
    os.environ["CUDA_VISIBLE_DEVICES"] = _visible[_rank] if _rank < len(_visible) else str(_rank)
os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False


class Mlp(nn.Module):
    """A user's module (Dynamo does not start tracing at torch.nn's own forwards,
    such as nn.Sequential's, when DDP.forward breaks its graph)."""

    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                    nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))

    def forward(self, x):
        return self.layers(x)


def mlp():
    torch.manual_seed(0)
    # Four 1 MiB layers: with --bucket-mb 1 (DDP's first bucket is 1 MiB, and
    # no later bucket may be smaller) each gradient bucket holds about one.
    m = Mlp()
    g = torch.Generator().manual_seed(1)
    return m, (torch.randn(16, 512, generator=g),), torch.randint(0, 10, (16,), generator=g)


def resnet18():
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet18(num_classes=100)
    g = torch.Generator().manual_seed(1)
    return m, (torch.randn(64, 3, 224, 224, generator=g),), torch.randint(0, 100, (64,), generator=g)


def bert():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from backend import BertClassifier
    torch.manual_seed(0)
    m = BertClassifier()
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 30522, (16, 128), generator=g)
    mask = torch.ones(16, 128, dtype=torch.long)
    return m, (ids, mask), torch.randint(0, 2, (16,), generator=g)


MODELS = {"mlp": mlp, "resnet18": resnet18, "bert": bert}


def train(args, mode, dev, rank, world):
    model, inputs, labels = MODELS[args.model]()
    model = model.to(dev).train()
    per = labels.shape[0] // world
    inputs = tuple(x[rank * per:(rank + 1) * per].to(dev) for x in inputs)
    labels = labels[rank * per:(rank + 1) * per].to(dev)
    ddp = DDP(model, device_ids=[0] if dev.type == "cuda" else None, bucket_cap_mb=args.bucket_mb)
    if mode == "eager":
        fn = ddp
    elif mode == "kiln":
        fn = torch.compile(ddp, backend="kiln")
    elif mode == "kiln_recompute":  # the backward runs the whole value and gradient
        fn = torch.compile(ddp, backend="kiln", options={"split": False})
    else:
        fn = torch.compile(ddp)
    opt = (torch.optim.AdamW(model.parameters(), lr=1e-4) if args.optim == "adamw"
           else torch.optim.SGD(model.parameters(), lr=0.05))
    losses, times = [], []
    for _ in range(args.steps):
        if dev.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(fn(*inputs), labels)
        loss.backward()
        opt.step()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        # The mean loss over ranks: what the whole batch's loss is.
        t = loss.detach().clone()
        dist.all_reduce(t)
        losses.append(t.item() / world)
    half = sorted(times[args.steps // 2:])
    step = half[len(half) // 2]
    return {"losses": losses, "step_ms": 1e3 * step, "samples_per_s": per * world / step}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", choices=["cpu", "cuda"], default="cuda")
    ap.add_argument("--model", choices=sorted(MODELS), default="mlp")
    ap.add_argument("--modes", default="eager,inductor,kiln")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--optim", choices=["sgd", "adamw"], default="adamw")
    ap.add_argument("--bucket-mb", type=float, default=25.0)
    ap.add_argument("--json")
    a = ap.parse_args()
    dist.init_process_group("nccl" if a.device == "cuda" else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    dev = torch.device("cuda", 0) if a.device == "cuda" else torch.device("cpu")
    if a.device == "cuda":
        torch.cuda.set_device(0)
    res = {"model": a.model, "world": world, "device": torch.cuda.get_device_name() if a.device == "cuda"
           else "cpu", "modes": {}}
    for mode in a.modes.split(","):
        torch._dynamo.reset()
        if mode.startswith("kiln"):
            import kiln.dynamo
            before = len(kiln.dynamo.explanations())
        res["modes"][mode] = train(a, mode, dev, rank, world)
        if mode.startswith("kiln"):
            # Training pieces: how many ran as kiln's split halves (no forward recompute).
            training = [e for e in kiln.dynamo.explanations()[before:]
                        if e["kind"] == "training" and e["compiled"]]
            res["modes"][mode]["training_graphs"] = len(training)
            res["modes"][mode]["split_graphs"] = sum(bool(e.get("split")) for e in training)
    if "kiln" in res["modes"]:
        import kiln.dynamo
        res["kiln_summary"] = kiln.dynamo.summary()
        if "eager" in res["modes"]:
            e, k = res["modes"]["eager"]["losses"], res["modes"]["kiln"]["losses"]
            res["max_rel_loss_diff"] = max(abs(x - y) / max(abs(y), 1e-12) for x, y in zip(k, e))
    # Every compiled mode's losses against eager's: Inductor's difference says
    # how far float32 reassociation alone drifts over the same steps.
    if "eager" in res["modes"]:
        e = res["modes"]["eager"]["losses"]
        for mode, r in res["modes"].items():
            if mode != "eager":
                r["max_rel_loss_diff"] = max(abs(x - y) / max(abs(y), 1e-12) for x, y in zip(r["losses"], e))
    if rank == 0:
        for mode, r in res["modes"].items():
            graphs = (f", {r['training_graphs']} training graphs ({r['split_graphs']} split)"
                      if "training_graphs" in r else "")
            print(f"ddp {a.model} x{world} on {res['device']}: {mode} step {r['step_ms']:.2f} ms, "
                  f"{r['samples_per_s']:.1f} samples/s, last loss {r['losses'][-1]:.6f}{graphs}", flush=True)
        for mode, r in res["modes"].items():
            if "max_rel_loss_diff" in r:
                print(f"max rel loss diff {mode} vs eager: {r['max_rel_loss_diff']:.2e}")
        print("RESULT " + json.dumps(res), flush=True)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

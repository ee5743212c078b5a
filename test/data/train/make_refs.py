"""Reference numbers for kiln-compile --train-step (test/e2e/grad-train-sgd.test).

Rebuilds the mlp and convnet corpus models exactly as
/work/shared/corpus/export_corpus.py makes them (torch.manual_seed(0), then
the model; checked against the corpus output0.npy), then takes 5 SGD steps
(torch.optim.SGD, lr 0.01, momentum 0.9, weight_decay 0.01) on the loss
sum(model(x) * cotangent) with the corpus input and cotangent, in eval mode.
Writes <model>/step5/<param>.npy (the parameters after 5 steps) and
<model>/output_step5.npy (the output of the 5th step, before its update).
The same with torch.optim.AdamW (lr 0.01, betas (0.9, 0.99), eps 1e-6,
weight_decay 0.05): <model>/adamw_step5/ and <model>/output_adamw_step5.npy.
Also, for the dynamic-batch corpus models (mlp_dynamic, convnet_dynamic),
the gradients PyTorch computes at batch 3 (random input and cotangent, seed
1): <model>/batch3/{input0,cotangent0}.npy and <model>/batch3/grads/, the
layout of the corpus grads/ folders.
Run with torch 2.11 from PyPI: python3 make_refs.py CORPUS_DIR
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


here = os.path.dirname(os.path.abspath(__file__))
# The corpus's mlp and convnet classes, as the benchmarks define them.
sys.path.insert(0, os.path.join(here, "..", "..", "..", "bench"))
from cpu_vs_torch import MLP, ConvNet  # noqa: E402


def build_dynamic(name):
    torch.manual_seed(0)
    MLP(); torch.randn(8, 64)
    mlp_dynamic = MLP()
    if name == "mlp_dynamic":
        return mlp_dynamic
    torch.randn(8, 64); ConvNet(); torch.randn(2, 3, 32, 32)
    return ConvNet()


def build(name):
    # The order export_corpus.py draws from the global generator: each model,
    # then its sample input.
    torch.manual_seed(0)
    mlp = MLP()
    if name == "mlp":
        return mlp
    torch.randn(8, 64)
    MLP()  # mlp_dynamic
    torch.randn(8, 64)
    return ConvNet()


def train5(name, model, opt, x, cot, params_dir, output_file):
    """5 steps of `opt` on sum(model(x) * cot); saves the last step's output
    (before its update) as <name>/<output_file> and the parameters after the
    5 steps under <name>/<params_dir>/."""
    for step in range(5):
        opt.zero_grad()
        out = model(x)
        (out * cot).sum().backward()
        opt.step()
    out_dir = os.path.join(here, name, params_dir)
    os.makedirs(out_dir, exist_ok=True)
    np.save(os.path.join(here, name, output_file), out.detach().numpy())
    for pname, p in model.named_parameters():
        np.save(os.path.join(out_dir, pname + ".npy"), p.detach().numpy())


corpus = sys.argv[1]
for name in ("mlp", "convnet"):
    model = build(name).eval()
    x = torch.from_numpy(np.load(os.path.join(corpus, name, "input0.npy")))
    cot = torch.from_numpy(np.load(os.path.join(corpus, name, "grads", "cotangent0.npy")))
    with torch.no_grad():
        ref = model(x).numpy()
    expected = np.load(os.path.join(corpus, name, "output0.npy"))
    assert np.allclose(ref, expected, rtol=1e-5, atol=1e-6), f"{name}: not the corpus model"
    train5(name, model, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9,
                                        weight_decay=0.01), x, cot, "step5", "output_step5.npy")
    print(name, "ok")

    # AdamW from the same starting point.
    model = build(name).eval()
    train5(name, model, torch.optim.AdamW(model.parameters(), lr=0.01, betas=(0.9, 0.99), eps=1e-6,
                                          weight_decay=0.05),
           x, cot, "adamw_step5", "output_adamw_step5.npy")
    print(name, "adamw ok")

# Hessian-vector products of sum(model(x)) for kiln-compile --hvp
# (test/e2e/grad-hvp.test), in float64 from the archives' own weights (read
# from the zip, nothing unpickled): <model>/hvp/vector0.npy (the corpus input
# gradient scaled to max 1) and <model>/hvp/input0.npy.
from grad_vs_torch import MODELS as BENCH_MODELS, load_raw_weights  # noqa: E402
for name in ("mlp", "attention"):
    model = BENCH_MODELS[name]().eval()
    model.load_state_dict(load_raw_weights(os.path.join(corpus, name, "model.pt2")))
    model = model.double()
    x = torch.from_numpy(np.load(os.path.join(corpus, name, "input0.npy"))).double()
    v = np.load(os.path.join(corpus, name, "grads", "input0.npy"))
    v = (v / np.abs(v).max()).astype(np.float32)
    # The math attention backend: the fused CPU one has no double backward.
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
        _, hv = torch.autograd.functional.hvp(lambda t: model(t).sum(), x,
                                              torch.from_numpy(v).double())
    d = os.path.join(here, name, "hvp")
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "vector0.npy"), v)
    np.save(os.path.join(d, "input0.npy"), hv.float().numpy())
    print(name, "hvp ok")

# bert_tiny (transformers' BertModel as export_corpus.py configures it, with
# the archive's weights): gradients of sum(last_hidden_state * cotangent)
# (cotangent: seed 1) for a few parameters, the embeddings' among them,
# computed in float64 and stored as float32 in bert_tiny/grads/ (PyTorch's
# own float32 gradients are 3e-5 off the float64 ones where they reach 400).
import transformers  # noqa: E402
bert = transformers.BertModel(transformers.BertConfig(
    vocab_size=1000, hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
    intermediate_size=256, max_position_embeddings=64)).eval()
raw = load_raw_weights(os.path.join(corpus, "bert_tiny", "model.pt2"))
bert.load_state_dict({k[len("m."):]: v for k, v in raw.items()})
ids = torch.from_numpy(np.load(os.path.join(corpus, "bert_tiny", "input0.npy")))
mask = torch.from_numpy(np.load(os.path.join(corpus, "bert_tiny", "input1.npy")))
with torch.no_grad():
    assert np.allclose(bert(input_ids=ids, attention_mask=mask).last_hidden_state.numpy(),
                       np.load(os.path.join(corpus, "bert_tiny", "output0.npy")),
                       rtol=1e-4, atol=1e-5), "bert_tiny: not the corpus model"
bert = bert.double()
out = bert(input_ids=ids, attention_mask=mask).last_hidden_state
cot = torch.randn(out.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
keep = ["embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
        "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight",
        "encoder.layer.0.attention.self.query.weight", "encoder.layer.0.attention.self.key.bias",
        "encoder.layer.1.attention.self.value.weight", "encoder.layer.1.intermediate.dense.weight",
        "encoder.layer.1.output.LayerNorm.bias"]
params = dict(bert.named_parameters())
grads = torch.autograd.grad((out * cot).sum(), [params[k] for k in keep])
d = os.path.join(here, "bert_tiny", "grads")
os.makedirs(d, exist_ok=True)
np.save(os.path.join(d, "cotangent0.npy"), cot.float().numpy())
for k, gv in zip(keep, grads):
    np.save(os.path.join(d, "m." + k + ".npy"), gv.float().numpy())
print("bert_tiny ok")

for name, shape in (("mlp_dynamic", (3, 64)), ("convnet_dynamic", (3, 3, 32, 32))):
    model = build_dynamic(name).eval()
    x8 = torch.from_numpy(np.load(os.path.join(corpus, name, "input0.npy")))
    with torch.no_grad():
        assert np.allclose(model(x8).numpy(), np.load(os.path.join(corpus, name, "output0.npy")),
                           rtol=1e-5, atol=1e-6), f"{name}: not the corpus model"
    g = torch.Generator().manual_seed(1)
    x = torch.randn(shape, generator=g).requires_grad_(True)
    out = model(x)
    cot = torch.randn(out.shape, generator=g)
    names = ["input0"] + [n for n, _ in model.named_parameters()]
    grads = torch.autograd.grad((out * cot).sum(), [x] + list(model.parameters()))
    d = os.path.join(here, name, "batch3")
    os.makedirs(os.path.join(d, "grads"), exist_ok=True)
    np.save(os.path.join(d, "input0.npy"), x.detach().numpy())
    np.save(os.path.join(d, "output0.npy"), out.detach().numpy())
    np.save(os.path.join(d, "grads", "cotangent0.npy"), cot.numpy())
    for n, gv in zip(names, grads):
        np.save(os.path.join(d, "grads", n + ".npy"), gv.numpy())
    print(name, "ok")


class Detached(nn.Module):
    """detach() and a torch.no_grad() region: no gradient flows through either."""
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(4, 6); self.l2 = nn.Linear(6, 6)
    def forward(self, x):
        h = F.relu(self.l1(x))
        d = h.detach()
        with torch.no_grad():
            n = self.l2(h)
        return h * d + n


torch.manual_seed(2)
model = Detached().eval()
x = torch.randn(3, 4)
ep = torch.export.export(model, (x,))
ops = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
assert "aten.detach.default" in ops and "wrap_with_set_grad_enabled" in ops, ops
d = os.path.join(here, "detach")
os.makedirs(os.path.join(d, "grads"), exist_ok=True)
torch.export.save(ep, os.path.join(d, "model.pt2"))
xr = x.clone().requires_grad_(True)
out = model(xr)
cot = torch.randn(out.shape, generator=torch.Generator().manual_seed(1))
params = list(model.named_parameters())
grads = torch.autograd.grad((out * cot).sum(), [xr] + [p for _, p in params], allow_unused=True)
np.save(os.path.join(d, "input0.npy"), x.numpy())
np.save(os.path.join(d, "output0.npy"), out.detach().numpy())
np.save(os.path.join(d, "grads", "cotangent0.npy"), cot.numpy())
for n, gv in zip(["input0"] + [n for n, _ in params], grads):
    np.save(os.path.join(d, "grads", n + ".npy"),
            (gv if gv is not None else torch.zeros_like(dict(params).get(n, x))).numpy())
print("detach ok", sorted(ops))


# squeezenet1_1 (torchvision, as export_corpus.py makes it): the input gradient
# and a few parameters' (the whole set would be 5 MB), batch 1 at 224x224.
import torchvision.models as tvm
torch.manual_seed(0)
sq = tvm.squeezenet1_1().eval()
x = torch.from_numpy(np.load(os.path.join(corpus, "squeezenet1_1", "input0.npy")))
with torch.no_grad():
    assert np.allclose(sq(x).numpy(), np.load(os.path.join(corpus, "squeezenet1_1", "output0.npy")),
                       rtol=1e-3, atol=1e-4), "squeezenet1_1: not the corpus model"
xr = x.clone().requires_grad_(True)
out = sq(xr)
cot = torch.randn(out.shape, generator=torch.Generator().manual_seed(1))
keep = ["features.0.weight", "features.0.bias", "features.3.squeeze.weight",
        "features.12.expand3x3.bias", "classifier.1.bias"]
params = dict(sq.named_parameters())
grads = torch.autograd.grad((out * cot).sum(), [xr] + [params[k] for k in keep])
d = os.path.join(here, "squeezenet1_1", "grads")
os.makedirs(d, exist_ok=True)
np.save(os.path.join(d, "cotangent0.npy"), cot.numpy())
for n, gv in zip(["input0"] + keep, grads):
    np.save(os.path.join(d, n + ".npy"), gv.numpy())
print("squeezenet1_1 ok")


# resnet_tiny and shufflenet_v2_x0_5 of test/data/models, rebuilt as
# test/models/export_models.py builds them (seed 0, then seeded batch-norm
# statistics): all gradients of resnet_tiny, and of shufflenet the input's and
# a few parameters'.
import importlib.util
spec = importlib.util.spec_from_file_location(
    "export_models", os.path.join(here, "..", "..", "models", "export_models.py"))
em = importlib.util.module_from_spec(spec)
spec.loader.exec_module(em)
models_dir = os.path.join(here, "..", "models")
for name, keep in (("resnet_tiny", None),
                   ("shufflenet_v2_x0_5", ["conv1.0.weight", "stage2.0.branch1.0.weight",
                                           "stage4.3.branch2.6.bias", "fc.bias"])):
    make, make_inputs, _, _ = em.build_models()[name]
    model = em.seeded_model(make)
    x = torch.from_numpy(np.load(os.path.join(models_dir, name, "input0.npy")))
    with torch.no_grad():
        assert np.allclose(model(x).numpy(), np.load(os.path.join(models_dir, name, "output0.npy")),
                           rtol=1e-4, atol=1e-5), f"{name}: not the exported model"
    xr = x.clone().requires_grad_(True)
    out = model(xr)
    cot = torch.randn(out.shape, generator=torch.Generator().manual_seed(1))
    params = dict(model.named_parameters())
    names = list(params) if keep is None else keep
    grads = torch.autograd.grad((out * cot).sum(), [xr] + [params[k] for k in names])
    d = os.path.join(here, name, "grads")
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "cotangent0.npy"), cot.numpy())
    for n, gv in zip(["input0"] + names, grads):
        np.save(os.path.join(d, n + ".npy"), gv.numpy())
    print(name, "ok")

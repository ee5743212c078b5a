#!/usr/bin/env python3
"""Generates reference inputs and outputs of the mlp_dynamic corpus model for
batch sizes 1, 8 and 1024 (test/data/mlp_dynamic_batches/).

The reference is computed in NumPy (float64, then rounded to float32) from the
archive's raw weights; nothing in the archive is unpickled. The graph in
models/model.json is interpreted node by node (linear, relu, gelu only), so
the layer order is the exported one. As a check of this script, the corpus's
own sample (input0.npy -> output0.npy, computed by PyTorch) must be
reproduced; if torch is importable, its functional ops on the same raw
weights must agree too.

usage: gen_mlp_dynamic_refs.py [OUT_DIR]
"""
import json
import math
import os
import sys
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "data", "corpus", "mlp_dynamic")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "data",
                                                         "mlp_dynamic_batches")
BATCHES = [1, 8, 1024]
SEED = 20240607


def member(z, suffix):
    names = [n for n in z.namelist() if n.endswith(suffix)]
    assert len(names) == 1, f"expected one member ending in {suffix}, got {names}"
    return z.read(names[0])


def load_program(path):
    """Returns (nodes, params by graph name, user input name, output name)."""
    with zipfile.ZipFile(path) as z:
        model = json.loads(member(z, "models/model.json"))
        config = json.loads(member(z, "data/weights/model_weights_config.json"))["config"]
        weights = {}
        for name, entry in config.items():
            assert not entry.get("use_pickle", False), f"{name} is pickled"
            meta = entry["tensor_meta"]
            assert meta["dtype"] == 7, f"{name}: only float32 weights are expected"
            shape = [s["as_int"] for s in meta["sizes"]]
            raw = member(z, "data/weights/" + entry["path_name"])
            weights[name] = np.frombuffer(raw, dtype="<f4").reshape(shape).astype(np.float64)
    gm = model["graph_module"]
    params, user_input = {}, None
    for spec in gm["signature"]["input_specs"]:
        kind, body = next(iter(spec.items()))
        if kind == "parameter":
            params[body["arg"]["name"]] = weights[body["parameter_name"]]
        elif kind == "user_input":
            user_input = body["arg"]["as_tensor"]["name"]
        else:
            raise SystemExit(f"unexpected input kind {kind}")
    (out_spec,) = gm["signature"]["output_specs"]
    output = out_spec["user_output"]["arg"]["as_tensor"]["name"]
    return gm["graph"]["nodes"], params, user_input, output


def erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def run(nodes, params, user_input, output, x):
    """Interprets the graph in float64."""
    env = dict(params)
    env[user_input] = x.astype(np.float64)
    ops = []
    for node in nodes:
        args = {a["name"]: a["arg"] for a in node["inputs"]}
        get = lambda n: env[args[n]["as_tensor"]["name"]]
        target = node["target"]
        if target == "torch.ops.aten.linear.default":
            y = get("input") @ get("weight").T
            if "bias" in args and "as_tensor" in args["bias"]:
                y = y + get("bias")
        elif target == "torch.ops.aten.relu.default":
            y = np.maximum(get("self"), 0.0)
        elif target == "torch.ops.aten.gelu.default":
            approx = args.get("approximate", {}).get("as_string", "none")
            assert approx == "none", approx
            v = get("self")
            y = 0.5 * v * (1.0 + erf(v / math.sqrt(2.0)))
        else:
            raise SystemExit(f"unexpected op {target}")
        ops.append(target.split(".")[3])
        (out,) = node["outputs"]
        env[out["as_tensor"]["name"]] = y
    assert ops == ["linear", "relu", "linear", "gelu", "linear"], ops
    return env[output].astype(np.float32)


def torch_check(params_by_node, x, expected):
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        return "torch not importable: skipped"
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32))
    (w1, b1), (w2, b2), (w3, b3) = params_by_node
    with torch.no_grad():
        y = F.linear(t(x), t(w1), t(b1)).relu()
        y = F.gelu(F.linear(y, t(w2), t(b2)))
        y = F.linear(y, t(w3), t(b3)).numpy()
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-5)
    return "torch agrees"


def main():
    nodes, params, user_input, output = load_program(os.path.join(CORPUS, "model.pt2"))
    linears = [n for n in nodes if n["target"] == "torch.ops.aten.linear.default"]
    by_node = [tuple(params[{a["name"]: a["arg"] for a in n["inputs"]}[k]["as_tensor"]["name"]]
                     for k in ("weight", "bias")) for n in linears]

    # The corpus sample was computed by PyTorch at export time.
    x0 = np.load(os.path.join(CORPUS, "input0.npy"))
    y0 = np.load(os.path.join(CORPUS, "output0.npy"))
    np.testing.assert_allclose(run(nodes, params, user_input, output, x0), y0,
                               rtol=1e-5, atol=1e-6)

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(SEED)
    for batch in BATCHES:
        x = rng.standard_normal((batch, 64)).astype(np.float32)
        y = run(nodes, params, user_input, output, x)
        note = torch_check(by_node, x, y)
        np.save(os.path.join(OUT, f"input_b{batch}.npy"), x)
        np.save(os.path.join(OUT, f"output_b{batch}.npy"), y)
        print(f"batch {batch}: input {x.shape}, output {y.shape}; {note}")


if __name__ == "__main__":
    main()

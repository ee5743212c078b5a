"""Exports the real models of kiln's end-to-end suite with torch.export.

Each model gets random weights from a fixed seed (nothing is downloaded), is put
in eval mode and exported; test/data/models/<name>/ receives model.pt2 (the
default IR, as a user saves it), model.core.pt2 (after run_decompositions(),
for the smaller models), input{i}.npy and PyTorch's output{i}.npy computed on
the CPU, and meta.json (op histograms, shapes). The archives carry no pickled
sample inputs. The e2e tests are test/e2e/model-<name>.test.

The language-model zoo (`*_dyn`) is exported with a symbolic batch and
sequence length (torch.export Dim.DYNAMIC with a range); each gets case0..2/
(inputs and PyTorch's outputs at three shapes in range) and reject/ (inputs
outside the range, which kiln must refuse), and meta.json records the ranges.

usage: python3 test/models/export_models.py --out DIR [--if-stale] [NAME...]

The archives are not kept in the repository: the build exports them into
BUILD/test/data/models (the `kiln-test-models` target, and the ctest fixture
that the lit suite needs), which the lit substitution %models names. With
--if-stale the export is skipped when DIR/.stamp records the digest of this
script and of the zoo modules it takes models from (SOURCES), and the pinned
versions; the models are written to a scratch folder beside DIR
and moved into place at the end, so an interrupted export leaves no partial DIR.

Pinned: torch 2.11.0, torchvision 0.26.0, transformers 5.17.0 (the versions
that made the shared corpus).
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
# The model classes this script shares with the zoo are imported from beside it.
if HERE not in sys.path:
    sys.path.insert(0, HERE)
# What the stamp digests: this script and the zoo modules it takes models from.
SOURCES = ["export_models.py", "zoo_spec.py", "zoo_vision.py"]

VERSIONS = {"torch": "2.11.0", "torchvision": "0.26.0", "transformers": "5.17.0", "timm": "1.0.31"}


def check_versions():
    import torch
    import torchvision
    import timm
    import transformers
    found = {"torch": torch.__version__, "torchvision": torchvision.__version__,
             "transformers": transformers.__version__, "timm": timm.__version__}
    for k, want in VERSIONS.items():
        if found[k].split("+")[0] != want:
            sys.exit(f"export_models.py: {k} {found[k]} is installed, the models are made with {want} "
                     f"(pip install {k}=={want})")


def build_models():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torchvision
    from torchvision.models.resnet import BasicBlock
    import transformers
    from zoo_vision import UNet  # the zoo's unet, here at 32x32

    class TinyResNet(nn.Module):
        """ResNet-style classifier from torchvision's BasicBlock: 3 stages, 16-64 channels."""

        def __init__(self, num_classes=10):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16),
                                      nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
            layers, cin = [], 16
            for cout, stride in ((16, 1), (32, 2), (64, 2)):
                down = None
                if stride != 1 or cin != cout:
                    down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                layers += [BasicBlock(cin, cout, stride, down), BasicBlock(cout, cout)]
                cin = cout
            self.layers = nn.Sequential(*layers)
            self.fc = nn.Linear(64, num_classes)

        def forward(self, x):
            x = self.layers(self.stem(x))
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))

    class HFHidden(nn.Module):
        """The last hidden state of a Hugging Face model (no KV cache)."""

        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask):
            return self.m(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state

    class HFEncoder(HFHidden):
        def forward(self, input_ids, attention_mask):
            return self.m(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    class LRASPPSmall(nn.Module):
        """torchvision's LR-ASPP segmentation head on a MobileNetV3-Small backbone."""

        def __init__(self, num_classes=4):
            super().__init__()
            from torchvision.models._utils import IntermediateLayerGetter
            from torchvision.models.segmentation.lraspp import LRASPPHead
            backbone = torchvision.models.mobilenet_v3_small().features
            # Stage ends: the last blocks before each stride-2 block.
            stage = [0] + [i for i, b in enumerate(backbone) if getattr(b, "_is_cn", False)] + [len(backbone) - 1]
            low, high = stage[-4], stage[-1]
            self.backbone = IntermediateLayerGetter(backbone, {str(low): "low", str(high): "high"})
            self.head = LRASPPHead(backbone[low].out_channels, backbone[high].out_channels, num_classes, 64)

        def forward(self, x):
            f = self.backbone(x)
            out = self.head(f)
            return F.interpolate(out, size=x.shape[-2:], mode="bilinear", align_corners=False)

    def llama():
        cfg = transformers.LlamaConfig(vocab_size=256, hidden_size=64, intermediate_size=128,
                                       num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                       max_position_embeddings=64, rms_norm_eps=1e-6)
        return HFHidden(transformers.LlamaModel(cfg))

    def gpt2():
        cfg = transformers.GPT2Config(vocab_size=256, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                                      bos_token_id=0, eos_token_id=0)
        return HFHidden(transformers.GPT2Model(cfg))

    def roberta():
        cfg = transformers.RobertaConfig(vocab_size=256, hidden_size=64, num_hidden_layers=2,
                                         num_attention_heads=4, intermediate_size=128,
                                         max_position_embeddings=40, pad_token_id=1)
        return HFEncoder(transformers.RobertaModel(cfg, add_pooling_layer=False))

    def text_inputs(g, pad=None):
        x = torch.randint(2, 256, (2, 16), generator=g)
        mask = torch.ones(2, 16, dtype=torch.int64)
        mask[1, 11:] = 0  # the second sequence is padded
        if pad is not None:
            x[1, 11:] = pad
        return x, mask

    def vit():
        return torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                                                    hidden_dim=32, mlp_dim=64, num_classes=10)

    # name -> (constructor, inputs(generator), core archive too?, description)
    return {
        "resnet_tiny": (TinyResNet, lambda g: (torch.randn(2, 3, 32, 32, generator=g),), True,
                        "ResNet-style CNN from torchvision BasicBlocks"),
        "shufflenet_v2_x0_5": (lambda: torchvision.models.shufflenet_v2_x0_5(num_classes=10),
                               lambda g: (torch.randn(1, 3, 96, 96, generator=g),), False,
                               "torchvision ShuffleNetV2 0.5x: channel shuffle, chunk, depthwise conv"),
        "lraspp_mobilenet_v3_small": (LRASPPSmall, lambda g: (torch.randn(1, 3, 64, 64, generator=g),), False,
                                      "torchvision LR-ASPP segmentation head on MobileNetV3-Small"),
        "vit_tiny": (vit, lambda g: (torch.randn(2, 3, 32, 32, generator=g),), True,
                     "torchvision VisionTransformer, 2 layers, hidden 32"),
        "unet_tiny": (UNet, lambda g: (torch.randn(1, 3, 32, 32, generator=g),), True,
                      "UNet: ConvTranspose2d, bilinear upsampling, skip cat"),
        "llama_tiny": (llama, lambda g: text_inputs(g), True,
                       "transformers LlamaModel: RMSNorm, rotary embeddings, SiLU MLP, GQA, causal mask"),
        # Default IR only: torch 2.11's run_decompositions() fails on GPT-2's Conv1D
        # (a view of a transposed attention output).
        "gpt2_tiny": (gpt2, lambda g: text_inputs(g), False,
                      "transformers GPT2Model: learned positions, tanh GELU, causal mask"),
        "roberta_tiny": (roberta, lambda g: text_inputs(g, pad=1), True,
                         "transformers RobertaModel: position ids by cumsum over the padding mask"),
    }


def build_dynamic_models():
    """The language-model zoo: name -> spec with dynamic batch and sequence."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import transformers
    from torch.export import Dim

    class NoMask(nn.Module):
        """A decoder's last hidden state called without an attention mask (GPT-2
        and Llama then build their causal mask with aten.diff)."""

        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids):
            return self.m(input_ids=input_ids, use_cache=False).last_hidden_state

    class Masked(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask):
            return self.m(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    class Features(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_features):
            return self.m(input_features).last_hidden_state

    class Recurrent(nn.Module):
        """Embedding, 2-layer bidirectional LSTM, 2-layer bidirectional GRU
        (default IR: aten.lstm.input, aten.gru.input) and a pooled head
        (adaptive_avg_pool1d with uneven windows)."""

        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(64, 16)
            self.lstm = nn.LSTM(16, 24, num_layers=2, bidirectional=True, batch_first=True)
            self.gru = nn.GRU(48, 20, num_layers=2, bidirectional=True)

        def forward(self, ids):
            y, (h, c) = self.lstm(self.emb(ids))
            z, hg = self.gru(y.transpose(0, 1))
            pooled = F.adaptive_avg_pool1d(z.permute(1, 2, 0), 3)
            return z, h, c, hg, pooled

    class Cells(nn.Module):
        """2-layer bidirectional ReLU RNN, a tanh RNN without biases, and
        LSTMCell, GRUCell and RNNCell stepped by hand, one of them unbatched
        (default IR: aten.rnn_relu.input, aten.rnn_tanh.input, aten.lstm_cell,
        aten.gru_cell, aten.rnn_relu_cell)."""

        def __init__(self):
            super().__init__()
            self.rnn_relu = nn.RNN(8, 12, num_layers=2, nonlinearity="relu", bidirectional=True, batch_first=True)
            self.rnn_tanh = nn.RNN(24, 10, bias=False)
            self.lstm_cell = nn.LSTMCell(10, 12)
            self.gru_cell = nn.GRUCell(10, 12)
            self.rnn_cell = nn.RNNCell(10, 12, nonlinearity="relu")

        def forward(self, x):
            y, h = self.rnn_relu(x)
            z, hz = self.rnn_tanh(y.transpose(0, 1))
            hc = cc = hg = hr = x.new_zeros(x.shape[0], 12)
            for t in range(3):
                hc, cc = self.lstm_cell(z[t], (hc, cc))
                hg = self.gru_cell(z[t], hg)
                hr = self.rnn_cell(z[t], hr)
            u = self.gru_cell(z[0][0], hg[0])
            return y, h, hz, hc, cc, hg, hr, u

    class WeightNorm(nn.Module):
        """Weight-normalised layers (aten._weight_norm): a conv1d normalised
        over its kernel dim (wav2vec2's positional conv), linears over dim 0 and
        over the whole weight, and a conv2d through the parametrization API."""

        def __init__(self):
            super().__init__()
            from torch.nn.utils import weight_norm
            from torch.nn.utils.parametrizations import weight_norm as param_weight_norm
            self.a = weight_norm(nn.Conv1d(4, 8, 3), dim=2)
            self.b = weight_norm(nn.Linear(8, 6))
            self.c = weight_norm(nn.Linear(6, 5), dim=None)
            self.d = param_weight_norm(nn.Conv2d(5, 3, 1), dim=1)

        def forward(self, x):
            y = self.c(self.b(self.a(x).transpose(1, 2)))
            return self.d(y.transpose(1, 2).unsqueeze(-1))

    T = transformers
    V = 256

    def ids(g, b, s, mask=False, pad=None):
        x = torch.randint(2, V, (b, s), generator=g)
        if not mask:
            return (x,)
        m = torch.ones(b, s, dtype=torch.int64)
        if b > 1:
            m[-1, s - s // 3:] = 0  # the last sequence is padded
            if pad is not None:
                x[-1, s - s // 3:] = pad
        return x, m

    def seq_dims(n, bmax=8, smin=2, smax=64):
        # One batch and one sequence symbol shared by every input.
        d = {0: Dim("batch", min=1, max=bmax), 1: Dim("seq", min=smin, max=smax)}
        return tuple(d for _ in range(n))

    text_cases = [(2, 7), (3, 16), (5, 64)]
    text_reject = (2, 65)

    def gpt2():
        return NoMask(T.GPT2Model(T.GPT2Config(vocab_size=V, n_positions=64, n_embd=64, n_layer=2,
                                               n_head=4, bos_token_id=0, eos_token_id=0)))

    def llama():
        return NoMask(T.LlamaModel(T.LlamaConfig(vocab_size=V, hidden_size=64, intermediate_size=128,
                                                 num_hidden_layers=2, num_attention_heads=4,
                                                 num_key_value_heads=2, max_position_embeddings=64,
                                                 rms_norm_eps=1e-6)))

    def bert():
        return Masked(T.BertModel(T.BertConfig(vocab_size=V, hidden_size=64, num_hidden_layers=2,
                                               num_attention_heads=4, intermediate_size=128,
                                               max_position_embeddings=64), add_pooling_layer=False))

    def distilbert():
        return Masked(T.DistilBertModel(T.DistilBertConfig(vocab_size=V, dim=64, n_layers=2, n_heads=4,
                                                           hidden_dim=128, max_position_embeddings=64)))

    def roberta():
        return Masked(T.RobertaModel(T.RobertaConfig(vocab_size=V, hidden_size=64, num_hidden_layers=2,
                                                     num_attention_heads=4, intermediate_size=128,
                                                     max_position_embeddings=80, pad_token_id=1),
                                     add_pooling_layer=False))

    def t5():
        return Masked(T.T5EncoderModel(T.T5Config(vocab_size=V, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                                                  num_heads=4, relative_attention_num_buckets=32,
                                                  relative_attention_max_distance=64)))

    def whisper():
        from transformers.models.whisper.modeling_whisper import WhisperEncoder
        cfg = T.WhisperConfig(vocab_size=V, num_mel_bins=16, d_model=64, encoder_layers=2,
                              encoder_attention_heads=4, encoder_ffn_dim=128, max_source_positions=32,
                              pad_token_id=0, bos_token_id=0, eos_token_id=0, decoder_start_token_id=0)
        return Features(WhisperEncoder(cfg))

    def text(make, mask, desc, core=True, pad=None):
        return {"make": make, "desc": desc, "core": core,
                "inputs": lambda g, b, s: ids(g, b, s, mask, pad),
                "dims": seq_dims(2 if mask else 1), "cases": text_cases, "reject": text_reject}

    return {
        # torch 2.11's run_decompositions() fails on GPT-2's Conv1D: default IR only.
        "gpt2_dyn": text(gpt2, False, "transformers GPT2Model without attention mask (aten.diff)", core=False),
        "llama_dyn": text(llama, False, "transformers LlamaModel without attention mask: RoPE, GQA, SiLU MLP, "
                                        "causal (aten.diff)"),
        "bert_dyn": text(bert, True, "transformers BertModel with a padding mask"),
        "distilbert_dyn": text(distilbert, True, "transformers DistilBertModel with a padding mask"),
        "roberta_dyn": text(roberta, True, "transformers RobertaModel: positions by cumsum over the padding",
                            pad=1),
        "t5_encoder_dyn": text(t5, True, "transformers T5EncoderModel: relative position buckets (integer abs)"),
        # Whisper's encoder requires 2 * max_source_positions frames: the batch is symbolic.
        "whisper_encoder_dyn": {
            "make": whisper, "desc": "transformers WhisperEncoder: conv1d stem, GELU, sinusoidal positions",
            "core": True, "inputs": lambda g, b, s: (torch.randn(b, 16, 64, generator=g),),
            "dims": ({0: Dim("batch", min=1, max=8)},), "cases": [(2, 64), (3, 64), (8, 64)],
            "reject": (9, 64)},
        # torch.export specializes the time steps of nn.LSTM/GRU: the batch is symbolic.
        "rnn_dyn": {
            "make": Recurrent, "desc": Recurrent.__doc__.split("\n")[0].strip(), "core": True,
            "inputs": lambda g, b, s: (torch.randint(0, 64, (b, s), generator=g),),
            "dims": ({0: Dim("batch", min=1, max=16)},), "cases": [(2, 10), (5, 10), (16, 10)],
            "reject": (17, 10)},
        "weight_norm_dyn": {
            "make": WeightNorm, "desc": WeightNorm.__doc__.split("\n")[0].strip(), "core": True,
            "inputs": lambda g, b, s: (torch.randn(b, 4, s, generator=g),),
            "dims": ({0: Dim("batch", min=1, max=16)},), "cases": [(2, 9), (7, 9), (16, 9)],
            "reject": (17, 9)},
        "rnn_cells_dyn": {
            "make": Cells, "desc": Cells.__doc__.split("\n")[0].strip(), "core": True,
            "inputs": lambda g, b, s: (torch.randn(b, s, 8, generator=g),),
            "dims": ({0: Dim("batch", min=1, max=16)},), "cases": [(2, 6), (5, 6), (16, 6)],
            "reject": (17, 6)},
    }


def export_dynamic(name, spec, out):
    import numpy as np
    import torch
    torch.manual_seed(0)
    model = spec["make"]().eval()
    example = spec["inputs"](torch.Generator().manual_seed(2), *spec["cases"][1])
    try:
        ep = torch.export.export(model, example, dynamic_shapes=spec["dims"])
    except torch._dynamo.exc.UserError:
        # torch cannot prove some guard over the whole named range (Llama's
        # rotary slices): Dim.DYNAMIC keeps the same bounds and lets export
        # refine them (0/1 specialization may raise a minimum of 1 to 2).
        dims = [{k: torch.export.Dim.DYNAMIC(min=v.min, max=v.max) for k, v in d.items()}
                for d in spec["dims"]]
        ep = torch.export.export(model, example, dynamic_shapes=tuple(dims))
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    ranges = {str(k): [int(v.lower), int(v.upper)] for k, v in ep.range_constraints.items()}
    meta = {"description": spec["desc"], "versions": VERSIONS, "ops": ops_of(ep), "ranges": ranges,
            "cases": {}, "parameters": sum(p.numel() for p in model.parameters())}
    ep._example_inputs = None
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    if spec["core"]:
        epc = ep.run_decompositions()
        meta["core_ops"] = ops_of(epc)
        epc._example_inputs = None
        torch.export.save(epc, os.path.join(d, "model.core.pt2"))
    cases = list(spec["cases"])
    if min(v[0] for v in ranges.values()) == 1:
        cases[0] = (1, cases[0][1])  # a batch of one where the range has it
    shapes = [(f"case{k}", bs) for k, bs in enumerate(cases)] + [("reject", spec["reject"])]
    for k, (tag, bs) in enumerate(shapes):
        inputs = spec["inputs"](torch.Generator().manual_seed(10 + k), *bs)
        os.makedirs(os.path.join(d, tag), exist_ok=True)
        for i, a in enumerate(inputs):
            np.save(os.path.join(d, tag, f"input{i}.npy"), a.numpy())
        meta["cases"][tag] = [list(a.shape) for a in inputs]
        if tag == "reject":
            continue
        with torch.no_grad():
            ref = model(*inputs)
            got = ep.module()(*inputs)
        refs = ref if isinstance(ref, (tuple, list)) else (ref,)
        gots = got if isinstance(got, (tuple, list)) else (got,)
        for i, (r, e) in enumerate(zip(refs, gots)):
            torch.testing.assert_close(e, r)  # the exported program agrees with eager
            np.save(os.path.join(d, tag, f"output{i}.npy"), r.contiguous().numpy())
        if spec["core"]:
            # torch's Core ATen IR program may return another shape than eager
            # (its lstm decomposition gives h_n, c_n as [L*D, 1, B, H]): those
            # outputs, the same values, are also saved as core_output{i}.npy.
            with torch.no_grad():
                core = epc.module()(*inputs)
            cores = core if isinstance(core, (tuple, list)) else (core,)
            for i, (r, c) in enumerate(zip(refs, cores)):
                if c.shape != r.shape:
                    torch.testing.assert_close(c.reshape(r.shape), r)
                    np.save(os.path.join(d, tag, f"core_output{i}.npy"), c.contiguous().numpy())
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    size = sum(os.path.getsize(os.path.join(r, x)) for r, _, fs in os.walk(d) for x in fs)
    print(f"{name}: {meta['parameters']} parameters, {size / 1e6:.1f} MB, ranges {ranges}")


def ops_of(ep):
    ops = {}
    for n in ep.graph.nodes:
        if n.op == "call_function":
            k = str(n.target)
            ops[k] = ops.get(k, 0) + 1
    return dict(sorted(ops.items()))


def seeded_model(make):
    """make() in eval mode with the exported weights: parameters from seed 0,
    then non-trivial batch-norm statistics from seed 1, so inference
    normalisation is exercised (test/data/train/make_refs.py rebuilds the
    exported models with it)."""
    import torch
    torch.manual_seed(0)
    model = make().eval()
    g = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
    return model


def export_one(name, spec, out):
    import numpy as np
    import torch
    make, make_inputs, core, desc = spec
    model = seeded_model(make)
    inputs = make_inputs(torch.Generator().manual_seed(2))
    with torch.no_grad():
        ref = model(*inputs)
    refs = ref if isinstance(ref, (tuple, list)) else (ref,)
    ep = torch.export.export(model, inputs)
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    meta = {"description": desc, "versions": VERSIONS, "ops": ops_of(ep),
            "inputs": [[list(a.shape), str(a.dtype)] for a in inputs],
            "outputs": [[list(r.shape), str(r.dtype)] for r in refs],
            "parameters": sum(p.numel() for p in model.parameters())}
    ep._example_inputs = None  # no pickled sample inputs in the archive
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    if core:
        epc = ep.run_decompositions()
        meta["core_ops"] = ops_of(epc)
        epc._example_inputs = None
        torch.export.save(epc, os.path.join(d, "model.core.pt2"))
    elif os.path.exists(os.path.join(d, "model.core.pt2")):
        os.unlink(os.path.join(d, "model.core.pt2"))
    for i, a in enumerate(inputs):
        np.save(os.path.join(d, f"input{i}.npy"), a.numpy())
    for i, r in enumerate(refs):
        np.save(os.path.join(d, f"output{i}.npy"), r.numpy())
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    size = sum(os.path.getsize(os.path.join(d, x)) for x in os.listdir(d))
    print(f"{name}: {meta['parameters']} parameters, {size / 1e6:.1f} MB, "
          f"{sum(meta['ops'].values())} ops in the default IR")


def stamp_text():
    h = hashlib.sha256()
    for name in SOURCES:
        with open(os.path.join(HERE, name), "rb") as f:
            h.update(f.read())
    return json.dumps({"script": h.hexdigest(), "versions": VERSIONS}, sort_keys=True) + "\n"


def export_parser(doc, out_holds, made_by):
    """The command line every exporter shares: --out (the folder that receives
    `out_holds`), --if-stale (skip when OUT/.stamp shows OUT was made by
    `made_by` and the pinned versions) and the model names; the caller may add
    options of its own."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--out", required=True, help=f"folder that receives {out_holds}")
    p.add_argument("--if-stale", action="store_true",
                   help=f"do nothing when OUT/.stamp shows OUT was made by {made_by} and versions")
    p.add_argument("names", nargs="*")
    return p


def parse_export_args(p, stamp):
    """(arguments, OUT as an absolute path), or None when --if-stale finds OUT
    stamped with `stamp` (nothing to do); checks the installed versions
    before anything is exported."""
    args = p.parse_args()
    out = os.path.abspath(args.out)
    if args.if_stale and not args.names and is_fresh(out, stamp):
        return None
    check_versions()
    return args, out


def models_to_export(script, names, known):
    """`names`, or every model of `known` when none is named; exits naming an
    unknown one and the known ones."""
    for name in names:
        if name not in known:
            sys.exit(f"{script}: unknown model '{name}' (known: {', '.join(known)})")
    return names or list(known)


def is_fresh(out, stamp):
    """Whether OUT/.stamp holds `stamp` (OUT was made by these scripts and versions)."""
    path = os.path.join(out, ".stamp")
    if not os.path.exists(path):
        return False
    with open(path) as f:
        return f.read() == stamp


def export_into(out, partial, stamp, write):
    """Calls write(folder). A full export (`partial` false) writes into a
    scratch folder beside OUT, stamps it with `stamp` and only then replaces
    OUT, so an interrupted export leaves no partial OUT; a partial one (named
    models only) writes into OUT itself and leaves its stamp alone."""
    work = out if partial else out + ".partial"
    if work != out:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    write(work)
    if work != out:
        with open(os.path.join(work, ".stamp"), "w") as f:
            f.write(stamp)
        shutil.rmtree(out, ignore_errors=True)
        os.replace(work, out)


def main():
    warnings.filterwarnings("ignore")
    parsed = parse_export_args(export_parser(__doc__, "one subfolder per model", "this script"), stamp_text())
    if parsed is None:
        return
    args, out = parsed
    models, dynamic = build_models(), build_dynamic_models()
    names = models_to_export("export_models.py", args.names, list(models) + list(dynamic))

    def write(work):
        for name in names:
            if name in models:
                export_one(name, models[name], work)
            else:
                export_dynamic(name, dynamic[name], work)

    export_into(out, bool(args.names), stamp_text(), write)


if __name__ == "__main__":
    main()

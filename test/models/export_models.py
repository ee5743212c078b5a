"""Exports the real models of kiln's end-to-end suite with torch.export.

Each model gets random weights from a fixed seed (nothing is downloaded), is put
in eval mode and exported; test/data/models/<name>/ receives model.pt2 (the
default IR, as a user saves it), model.core.pt2 (after run_decompositions(),
for the smaller models), input{i}.npy and PyTorch's output{i}.npy computed on
the CPU, and meta.json (op histograms, shapes). The archives carry no pickled
sample inputs. The e2e tests are test/e2e/model-<name>.test.

usage: python3 test/models/export_models.py [--out test/data/models] [NAME...]

Pinned: torch 2.11.0, torchvision 0.26.0, transformers 5.17.0 (the versions
that made the shared corpus).
"""
import argparse
import json
import os
import sys
import warnings

VERSIONS = {"torch": "2.11.0", "torchvision": "0.26.0", "transformers": "5.17.0"}


def check_versions():
    import torch
    import torchvision
    import transformers
    found = {"torch": torch.__version__, "torchvision": torchvision.__version__,
             "transformers": transformers.__version__}
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

    class UNet(nn.Module):
        """Two-level UNet: strided conv down, ConvTranspose2d and bilinear upsampling up, skip cats."""

        def __init__(self, c=8):
            super().__init__()
            def block(i, o):
                return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))
            self.e1, self.e2, self.e3 = block(3, c), block(c, 2 * c), block(2 * c, 4 * c)
            self.down1 = nn.Conv2d(c, c, 2, stride=2)
            self.up2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
            self.d2 = block(4 * c, 2 * c)
            self.d1 = block(3 * c, c)
            self.head = nn.Conv2d(c, 2, 1)

        def forward(self, x):
            s1 = self.e1(x)                       # c, H
            s2 = self.e2(self.down1(s1))          # 2c, H/2
            b = self.e3(F.max_pool2d(s2, 2))      # 4c, H/4
            u2 = self.d2(torch.cat([self.up2(b), s2], 1))
            u1 = F.interpolate(u2, scale_factor=2, mode="bilinear", align_corners=False)
            u1 = self.d1(torch.cat([u1, s1], 1))
            return torch.sigmoid(self.head(u1))

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


def ops_of(ep):
    ops = {}
    for n in ep.graph.nodes:
        if n.op == "call_function":
            k = str(n.target)
            ops[k] = ops.get(k, 0) + 1
    return dict(sorted(ops.items()))


def export_one(name, spec, out):
    import numpy as np
    import torch
    make, make_inputs, core, desc = spec
    torch.manual_seed(0)
    model = make().eval()
    # Non-trivial batch-norm statistics, so inference normalisation is exercised.
    g = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
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


def main():
    warnings.filterwarnings("ignore")
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.normpath(os.path.join(here, "..", "data", "models")))
    p.add_argument("names", nargs="*")
    args = p.parse_args()
    check_versions()
    models = build_models()
    for name in args.names or models:
        if name not in models:
            sys.exit(f"export_models.py: unknown model '{name}' (known: {', '.join(models)})")
        export_one(name, models[name], args.out)


if __name__ == "__main__":
    main()

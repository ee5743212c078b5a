"""The GPU benchmark's models, rebuilt identically wherever this runs.

Each config is a torchvision or Hugging Face model with random weights drawn
from a fixed seed, in eval mode, cast to the config's dtype, and a seeded
example input. The build machine exports it for kiln-compile
(--weights=external); the GPU machine builds it again from the same seed (the
same torch version gives the same weights bit for bit, which digest() checks),
exports it to supply kiln's weights by name, and runs it in PyTorch.
Nothing is downloaded.
"""
import hashlib
import importlib.util
import os

import torch
import torch.nn as nn

CONFIGS = {
    "resnet50_b1_fp32": dict(model="resnet50", batch=1, dtype="float32"),
    "resnet50_b32_bf16": dict(model="resnet50", batch=32, dtype="bfloat16"),
    "bert_base_b1_fp32": dict(model="bert_base", batch=1, dtype="float32"),
    "bert_base_b16_bf16": dict(model="bert_base", batch=16, dtype="bfloat16"),
    # Held out: configs kiln was not tuned on (issue 21).
    "vit_b16_b8_bf16": dict(model="vit_b_16", batch=8, dtype="bfloat16"),
    "convnext_t_b16_bf16": dict(model="convnext_tiny", batch=16, dtype="bfloat16"),
    "mobilenet_v3_l_b1_fp32": dict(model="mobilenet_v3_large", batch=1, dtype="float32"),
    "llama_8l_b1_s512_bf16": dict(model="llama", batch=1, dtype="bfloat16"),
}

# torchvision image classifiers (224x224 RGB input).
VISION = ("resnet50", "vit_b_16", "convnext_tiny", "mobilenet_v3_large")

# The Llama-style decoder: Hugging Face's LlamaModel with 8 layers, d=1024,
# grouped-query attention with 16 query and 4 key/value heads of 64, rotary
# positions, SwiGLU MLP, RMSNorm; batch 1, 512 tokens, an all-ones attention
# mask (what a tokenizer gives an unpadded prompt), SDPA attention.
LLAMA = dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8, num_attention_heads=16,
             num_key_value_heads=4, vocab_size=32000)
LLAMA_SEQ = 512

SEQ = 128


class LastHiddenState(nn.Module):
    """BertModel(input_ids, attention_mask).last_hidden_state."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask):
        return self.m(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state


class DecoderHiddenState(nn.Module):
    """LlamaModel(input_ids, attention_mask).last_hidden_state, no KV cache."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, input_ids, attention_mask):
        return self.m(input_ids=input_ids, attention_mask=attention_mask, use_cache=False).last_hidden_state


def cudnn_env(env):
    """Points kiln's runtime at the cuDNN of PyTorch's pip packages (for the
    convolutions) unless KILN_CUDNN is already set."""
    if env.get("KILN_CUDNN"):
        return env
    try:
        spec = importlib.util.find_spec("nvidia.cudnn")
        lib = os.path.join(list(spec.submodule_search_locations)[0], "lib")
    except Exception:
        return env
    if os.path.exists(os.path.join(lib, "libcudnn.so.9")):
        env["KILN_CUDNN"] = os.path.join(lib, "libcudnn.so.9")
        env["LD_LIBRARY_PATH"] = env.get("LD_LIBRARY_PATH", "") + ":" + lib
    return env


def build(name):
    """(module in eval mode on the CPU, example inputs on the CPU)."""
    cfg = CONFIGS[name]
    dtype = getattr(torch, cfg["dtype"])
    b = cfg["batch"]
    torch.manual_seed(0)
    if cfg["model"] in VISION:
        import torchvision

        m = getattr(torchvision.models, cfg["model"])()
        if cfg["model"] == "vit_b_16":
            # torchvision zero-initialises the classifier, which would make
            # every output 0 and the output check vacuous.
            nn.init.normal_(m.heads.head.weight, std=0.02)
        g = torch.Generator().manual_seed(1)
        args = (torch.randn(b, 3, 224, 224, generator=g).to(dtype),)
    elif cfg["model"] == "llama":
        import transformers

        conf = transformers.LlamaConfig(**LLAMA)
        conf._attn_implementation = "sdpa"
        m = DecoderHiddenState(transformers.LlamaModel(conf))
        g = torch.Generator().manual_seed(1)
        args = (torch.randint(0, LLAMA["vocab_size"], (b, LLAMA_SEQ), generator=g),
                torch.ones(b, LLAMA_SEQ, dtype=torch.long))
    else:
        import transformers

        m = LastHiddenState(transformers.BertModel(transformers.BertConfig(), add_pooling_layer=False))
        g = torch.Generator().manual_seed(1)
        ids = torch.randint(0, 30522, (b, SEQ), generator=g)
        mask = torch.ones(b, SEQ, dtype=torch.long)
        if b > 1:  # padding in every other sequence, so the mask matters
            mask[1::2, SEQ * 3 // 4:] = 0
        args = (ids, mask)
    m = m.eval().to(dtype)
    return m, args


def digest(m):
    """SHA-256 over the state dict (names, dtypes, bytes), to check both machines built the same weights."""
    h = hashlib.sha256()
    for k, v in sorted(m.state_dict().items()):
        t = v.detach().contiguous().cpu().reshape(-1)
        h.update(k.encode())
        h.update(str(t.dtype).encode())
        h.update(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return h.hexdigest()


def export(m, args, path):
    with torch.no_grad():
        ep = torch.export.export(m, args)
    torch.export.save(ep, path)

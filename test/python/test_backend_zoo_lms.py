"""The zoo's language models (test/models/zoo_text*.py, built by the zoo's own
builders) through torch.compile(backend="kiln") under KILN_STRICT=1, so a graph
kiln cannot compile fails the test instead of running in eager:

- .eval() with Dynamo's automatic dynamic shapes, called at three batch sizes x
  three sequence lengths: at most the one recompile automatic-dynamic makes,
  every output against eager's;
- the same with dynamic=True: one compile serves every shape;
- .train() for a decoder, encoders and encoder-decoders: a linear head and a
  cross-entropy loss, 10 AdamW steps, every graph compiled by kiln; with every
  dropout probability set to 0 the losses follow eager's, with the models'
  dropout on they are finite and fall.

A language model here is a zoo spec whose first input is a (batch, length)
tensor of token ids. CI runs the models in DEFAULT (a few minutes on two cores);
KILN_ZOO_LMS=all runs every language model of the zoo, KILN_ZOO_LMS=a,b,c the
ones named. The models that fail a part are listed in FAILS with the cause, and
are left out of that part only."""
import copy
import importlib
import os
import sys

import numpy as np
import pytest
import torch

import kiln.dynamo

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(os.path.dirname(HERE), "models")
if MODELS not in sys.path:
    sys.path.insert(0, MODELS)

transformers = pytest.importorskip("transformers")

ZOO_FILES = ["zoo_text", "zoo_text2", "zoo_text3", "zoo_text4", "zoo_text5", "zoo_text6", "zoo_text7"]

# Run by CI: decoders (learned positions, RoPE with GQA, ALiBi, sliding windows,
# a symbolic-length spec), encoders, encoder-decoders and a mixture of experts.
DEFAULT = ["gpt2", "llama", "mistral", "bloom", "smollm3", "bert", "distilbert", "roberta", "t5", "bart",
           "mixtral"]
TRAIN = ["gpt2", "opt", "bert", "distilbert", "t5", "bart"]

# Models whose own code makes Dynamo recompile more than automatic-dynamic's
# once with any backend (measured with one that compiles nothing: the same
# counts): their auto part checks that kiln adds no compile to Dynamo's.
DYNAMO_RECOMPILES = {
    "mamba": "Dynamo keeps the length static after the batch recompile, then recompiles per length",
    "jamba": "as mamba (its Mamba layers)",
    "minimax": "Dynamo guards on min(16, length) in the lightning-attention blocks",
}

# part -> {model: why it is left out of that part}. From session 35's sweep of
# the automatic-dynamic part (KILN_ZOO_LMS=<model>, one process per model,
# 300 s each) over the 45 models session 34 never ran and its 10 failures;
# models rerun after this session's fixes say so. Not rechecked since
# session 34 fixed lifted constants: bigbird, bigbird_pegasus, convbert, ctrl,
# deberta_v2, falcon, gpt_neo, gpt_oss, lilt, longt5 (they run here). The
# dynamic=True and training parts were not swept beyond the CI set.
SLOW = "no result within the sweep's 300 s on the loaded 2-core machine"
FAILS = {
    "auto": {
        # wrong numbers
        "mpt": "wrong numbers with a dynamic length: the ALiBi bias sliced with a symbolic start "
               "(max(0, 1 - length)) along a size-1 dim is typed dynamic, and the add does not broadcast it "
               "(kiln.debug.minify: sym_max, two slices, add)",
        "umt5": "differs from eager already at the first, static shape (batch 2, length 7: max abs diff 1.98), "
                "and so do torch.compile(backend='eager'), backend='aot_eager' and torch.export's own program, "
                "by the same 1.98: transformers' UMT5 computes something else when traced; kiln matches "
                "the traced program",
        # kiln-compile
        "fnet": "kiln-compile: aten.fft_fftn along a dynamic dim (the FFT lowering needs static lengths)",
        "canine": "kiln-compile: 'aten.gelu' op inferred type tensor<?x?x64xf32> incompatible with its result "
                  "type tensor<?x1x64xf32>: a dim export knows is 1 that kiln infers as dynamic",
        "recurrent_gemma": "kiln-compile: a symbolic pad amount that is negative (conv1d_width - length - 1 "
                           "crops) is refused: 'expected offsets to be non-negative, but got -9'",
        "xlnet": "kiln-compile: aten.eye with a symbolic size ('expected an int for argument n')",
        "led": "after this session's fix for a folded item(): kiln-compile refuses as_strided of a tensor "
               "that is itself a strided view (modeling_led.py:363, the overlapping chunks)",
        # the backend
        "jetmoe": "after this session's fix for returned sizes: export of the graph after the MoE's "
                  "data-dependent split fails ('Split sizes add up to 160 but got the tensor's size of s22': "
                  "an int specialized while the tensor stays dynamic)",
        "switch_transformers": "after this session's fix for returned sizes: the export fails as jetmoe's "
                               "(\"shape '[3, 6, 64]' is invalid for input of size 64*s51\": the sizes the "
                               "graph takes are specialized while its tensor stays dynamic)",
        "fsmt": "after this session's fix for returned sizes every graph compiles, but one more graph at a new "
                "length than automatic dynamic's (counts 3, 7, 8); not compared with Dynamo's own counts",
        "dbrx": "after this session's fix for returned sizes every graph compiles, but a new graph at every "
                "call (counts 8, 14, 15, ... 21); not compared with Dynamo's own counts",
        # Dynamo or the harness, before kiln
        "nllb_moe": "Dynamo fails tracing the router ('ndarray' object has no attribute 'bool')",
        "nystromformer": "the zoo config fixes the length (segment_means_seq_len=16): eager fails at 7",
        # not finished
        "bamba": "sym_sum fixed this session; the rerun gave " + SLOW,
        "falcon_h1": "sym_sum fixed this session; the rerun gave " + SLOW,
        "granitemoehybrid": "sym_sum fixed this session; the rerun gave " + SLOW,
        "mamba2": "sym_sum fixed this session; the rerun gave " + SLOW,
        "qwen3_next": SLOW,
        "rwkv": SLOW,
        "zamba2": "not run (the sweep ran out of time)",
    },
    "dynamic": {
        "canine": "Dynamo recompiles after the first call under dynamic=True (counts 1, 2, 3)",
    },
    "train": {},
}

BATCHES = (2, 3, 5)
LENGTHS = (7, 12, 16)
# The first two calls change batch and length together, so Dynamo's
# automatic-dynamic recompiles once with both dims symbolic.
SHAPES = [(2, 7), (3, 12), (5, 16), (2, 12), (3, 16), (5, 7), (2, 16), (3, 7), (5, 12)]
assert sorted(SHAPES) == sorted((b, s) for b in BATCHES for s in LENGTHS)


def _language_models():
    specs = {}
    for name in ZOO_FILES:
        for spec in importlib.import_module(name).SPECS:
            first = spec.inputs(torch.Generator().manual_seed(0), 2)[0]
            if first.dtype == torch.int64 and first.dim() == 2:
                specs[spec.name] = spec
    return specs


SPECS = _language_models()


def _selected(part, base):
    want = os.environ.get("KILN_ZOO_LMS", "")
    names = sorted(SPECS) if want == "all" else want.split(",") if want else base
    unknown = [n for n in names if n not in SPECS]
    assert not unknown, f"KILN_ZOO_LMS names no language model of the zoo: {unknown}"
    return [n for n in names if n not in FAILS[part]]


def test_selection_is_the_zoos():
    assert len(SPECS) >= 100, sorted(SPECS)  # every round's language models
    for part, names in FAILS.items():
        assert set(names) <= set(SPECS), (part, set(names) - set(SPECS))
    assert set(DEFAULT) | set(TRAIN) | set(DYNAMO_RECOMPILES) <= set(SPECS)


def _inputs(spec, b, s):
    """The spec's inputs at batch b and length s: its own at length s where it
    takes one (Spec.seq), else its inputs cut along dim 1: those as long as the
    token ids (masks, boxes) to s, a decoder's ids of another length in the same
    proportion (so the two lengths stay distinct symbols)."""
    g = torch.Generator().manual_seed(1000 * b + s)
    if spec.seq:
        return list(spec.inputs(g, b, s))
    xs = spec.inputs(g, b)
    full = xs[0].shape[1]
    out = []
    for x in xs:
        if x.dim() >= 2 and not x.dtype.is_floating_point:
            x = x[:, :max(1, x.shape[1] * s // full)].contiguous()
        out.append(x)
    return out


def _build(spec):
    torch.manual_seed(0)
    return spec.make()


def _entries(before):
    entries = kiln.dynamo.explanations()[before:]
    assert entries, "Dynamo handed kiln no graph"
    assert all(e["compiled"] for e in entries), [e for e in entries if not e["compiled"]]
    return entries


def _check_shapes(name, **compile_kw):
    spec = SPECS[name]
    model = _build(spec).eval()
    compiled = torch.compile(model, backend="kiln", **compile_kw)
    before = len(kiln.dynamo.explanations())
    counts = []
    with torch.no_grad():
        for b, s in SHAPES:
            xs = _inputs(spec, b, s)
            torch.testing.assert_close(compiled(*xs), model(*xs), rtol=1e-4, atol=1e-4,
                                       msg=lambda m: f"{name} at batch {b}, length {s}: {m}")
            counts.append(len(kiln.dynamo.explanations()) - before)
    _entries(before)
    return counts


def _dynamo_counts(name, **compile_kw):
    """How many graphs Dynamo itself hands a backend over SHAPES (one that
    compiles nothing): what kiln's counts must equal for a model whose code
    makes Dynamo recompile more than automatic-dynamic's once."""
    torch._dynamo.reset()
    calls = []

    def counting(gm, example_inputs):
        calls.append(gm)
        return gm.forward

    spec = SPECS[name]
    compiled = torch.compile(_build(spec).eval(), backend=counting, **compile_kw)
    counts = []
    with torch.no_grad():
        for b, s in SHAPES:
            compiled(*_inputs(spec, b, s))
            counts.append(len(calls))
    torch._dynamo.reset()
    return counts


@pytest.mark.parametrize("name", _selected("auto", DEFAULT))
def test_eval_automatic_dynamic(name):
    if name in DYNAMO_RECOMPILES:
        expected = _dynamo_counts(name)  # first: Dynamo's frame state is reset around it
        assert _check_shapes(name) == expected  # no compile of kiln's own
        return
    counts = _check_shapes(name)
    # The first shape's graphs, then at most one recompile of each with the
    # batch and length symbolic; nothing after that.
    assert counts[-1] <= 2 * counts[0], counts
    assert counts[1] == counts[-1], counts


@pytest.mark.parametrize("name", _selected("dynamic", DEFAULT))
def test_eval_dynamic_true(name):
    counts = _check_shapes(name, dynamic=True)
    assert counts[0] == counts[-1], counts  # one compile serves every shape


class _WithHead(torch.nn.Module):
    """The zoo model's last hidden state through a linear head over the vocabulary."""

    def __init__(self, m, hidden, vocab):
        super().__init__()
        self.m, self.head = m, torch.nn.Linear(hidden, vocab)

    def forward(self, targets, *args):
        logits = self.head(self.m(*args))
        return torch.nn.functional.cross_entropy(logits.flatten(0, -2), targets.flatten())


def _dropouts(model):
    """The dropout probabilities the model uses: nn.Dropout modules, and the
    float attributes attention code passes to dropout / sdpa (modules' and
    configs')."""
    found = []
    for mod in model.modules():
        if isinstance(mod, torch.nn.Dropout):
            found.append((mod, "p"))
        owners = [mod] + ([mod.config] if isinstance(getattr(mod, "config", None),
                                                    transformers.PretrainedConfig) else [])
        for o in owners:
            for k, v in vars(o).items():
                if "dropout" in k and isinstance(v, float):
                    found.append((o, k))
    return found


def _training_model(spec):
    torch.manual_seed(0)
    m = spec.make()
    xs = _inputs(spec, 4, 12)
    with torch.no_grad():
        h = m.eval()(*xs)
    torch.manual_seed(1)
    model = _WithHead(m, h.shape[-1], 256).train()
    targets = torch.randint(0, 256, h.shape[:-1], generator=torch.Generator().manual_seed(2))
    return model, [targets] + xs


def _train(model, args, steps=10):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    losses = []
    for _ in range(steps):
        loss = model(*args)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("name", _selected("train", TRAIN))
def test_train_matches_eager_without_dropout(name):
    model, args = _training_model(SPECS[name])
    for owner, k in _dropouts(model):
        setattr(owner, k, 0.0)
    eager = copy.deepcopy(model)
    compiled = torch.compile(model, backend="kiln")
    before = len(kiln.dynamo.explanations())
    losses_c = _train(compiled, args)
    entries = _entries(before)
    assert any(e["kind"] == "training" for e in entries), entries
    losses_e = _train(eager, args)
    torch.testing.assert_close(torch.tensor(losses_c), torch.tensor(losses_e), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("name", _selected("train", TRAIN))
def test_train_with_dropout(name):
    model, args = _training_model(SPECS[name])
    assert any(getattr(o, k) > 0 for o, k in _dropouts(model)), "the model has no dropout on"
    compiled = torch.compile(model, backend="kiln")
    before = len(kiln.dynamo.explanations())
    losses = _train(compiled, args)
    entries = _entries(before)
    assert any(e["kind"] == "training" for e in entries), entries
    assert all(np.isfinite(losses)), losses
    assert np.mean(losses[-3:]) < np.mean(losses[:3]), losses

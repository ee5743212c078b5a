"""Training through torch.compile(backend="kiln"): the losses of 20 optimizer steps
match eager's, with the backward made by kiln's own differentiation, and through
AOTAutograd's forward/backward graphs for a graph kiln cannot differentiate."""
import copy

import pytest
import torch

import kiln.dynamo


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 32),
                               torch.nn.ReLU(), torch.nn.Linear(32, 4))


def _side_by_side(make, make_opt, batches, options=None):
    """Trains make()'s model and a deep copy compiled by kiln, each with
    make_opt's optimizer, on the (x, t) pairs of batches() (drawn after
    seeding 1) with an MSE loss. Returns the two models, their losses and the
    kiln explanations the compiled steps added."""
    eager = make()
    compiled_model = copy.deepcopy(eager)
    compiled = torch.compile(compiled_model, backend="kiln",
                             **({"options": options} if options else {}))
    opt_e, opt_c = make_opt(eager.parameters()), make_opt(compiled_model.parameters())
    torch.manual_seed(1)
    before = len(kiln.dynamo.explanations())
    losses_e, losses_c = [], []
    for x, t in batches():
        for model, opt, losses in ((eager, opt_e, losses_e), (compiled, opt_c, losses_c)):
            loss = torch.nn.functional.mse_loss(model(x), t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return eager, compiled_model, losses_e, losses_c, kiln.dynamo.explanations()[before:]


def _sgd(params):
    return torch.optim.SGD(params, lr=0.05)


@pytest.mark.parametrize("make_opt", [
    lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9),
    lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.01),
], ids=["sgd", "adamw"])
def test_twenty_steps_match_eager(make_opt):
    _, _, losses_e, losses_c, entries = _side_by_side(
        _model, make_opt, lambda: [(torch.randn(8, 16), torch.randn(8, 4)) for _ in range(20)])
    torch.testing.assert_close(torch.tensor(losses_c), torch.tensor(losses_e), rtol=1e-4, atol=1e-5)
    assert losses_e[-1] < losses_e[0]
    assert [e["kind"] for e in entries] == ["training"], entries  # one graph, no AOTAutograd
    assert entries[0]["compiled"] and entries[0]["split"], entries[0]  # no forward recompute


class _ConvBN(torch.nn.Module):
    """A batch norm in training mode: batch statistics, running statistics updated."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.c = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.l = torch.nn.Linear(8, 4)

    def forward(self, x):
        return self.l(torch.relu(self.bn(self.c(x))).mean((2, 3)))


def test_training_batch_norm_is_differentiated_by_kiln():
    eager, compiled_model, losses_e, losses_c, entries = _side_by_side(
        _ConvBN, _sgd, lambda: ((torch.randn(4, 3, 8, 8), torch.randn(4, 4)) for _ in range(3)))
    assert losses_c == pytest.approx(losses_e, rel=1e-4, abs=1e-5)
    # The running statistics are updated once per step, as in eager.
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        torch.testing.assert_close(getattr(compiled_model.bn, name), getattr(eager.bn, name),
                                   rtol=1e-4, atol=1e-5)
    assert [e["kind"] for e in entries] == ["training"], entries  # no AOTAutograd
    assert entries[0]["compiled"], entries[0]


class _TopK(torch.nn.Module):
    """topk (an op the runtime runs): its registered formula scatters the values'
    gradient back at the indices (MoE-style routing)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.l1, self.l2 = torch.nn.Linear(16, 32), torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.l2(torch.topk(torch.relu(self.l1(x)), 4, dim=1).values)


class _GammaInc(torch.nn.Module):
    """Uses an op kiln has no reverse rule for (the regularised incomplete gamma
    function, which the runtime runs with no registered formula; PyTorch
    differentiates it with respect to x)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.l1, self.l2 = torch.nn.Linear(16, 32), torch.nn.Linear(32, 4)

    def forward(self, x):
        h = torch.relu(self.l1(x)) + 0.5
        return self.l2(torch.special.gammainc(torch.full_like(h, 2.0), h))


class _MaskAcrossBreak(torch.nn.Module):
    """A graph break after a comparison: the first graph returns a float
    activation and a bool mask, which carries no gradient."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.l1, self.l2 = torch.nn.Linear(16, 32), torch.nn.Linear(32, 4)

    def forward(self, x):
        h = self.l1(x)
        mask = h > 0
        torch._dynamo.graph_break()
        return self.l2(h * mask)


def _steps_match_eager(make):
    _, _, losses_e, losses_c, entries = _side_by_side(
        make, _sgd, lambda: ((torch.randn(8, 16), torch.randn(8, 4)) for _ in range(5)))
    assert losses_c == pytest.approx(losses_e, rel=1e-4, abs=1e-5)
    return entries


def test_topk_is_differentiated_by_kiln():
    entries = _steps_match_eager(_TopK)
    assert [e["kind"] for e in entries] == ["training"], entries  # no AOTAutograd
    assert entries[0]["compiled"], entries[0]


def test_graph_with_a_bool_output_is_differentiated_by_kiln():
    entries = _steps_match_eager(_MaskAcrossBreak)
    training = [e for e in entries if e["kind"] == "training"]
    assert len(training) == 2 and all(e["compiled"] for e in training), entries


def test_graph_kiln_cannot_differentiate_goes_through_aot_autograd():
    entries = _steps_match_eager(_GammaInc)
    training = [e for e in entries if e["kind"] == "training"]
    assert len(training) == 1 and not training[0]["compiled"]
    assert "gammainc" in training[0]["reason"], training[0]
    assert {"forward", "backward"} <= {e["kind"] for e in entries if e["compiled"]}


def test_save_activations_keeps_them_between_forward_and_backward():
    """options={"save_activations": True}: AOTAutograd's partitioner chooses what the
    forward saves, kiln compiles the forward graph (which returns those activations)
    and the backward graph (which takes them), and the steps match eager's."""
    _, _, losses_e, losses_c, entries = _side_by_side(
        _model, lambda p: torch.optim.AdamW(p, lr=1e-2),
        lambda: ((torch.randn(8, 16), torch.randn(8, 4)) for _ in range(5)),
        options={"save_activations": True})
    torch.testing.assert_close(torch.tensor(losses_c), torch.tensor(losses_e), rtol=1e-4, atol=1e-5)
    assert [e["kind"] for e in entries] == ["forward", "backward"], entries
    assert all(e["compiled"] for e in entries), entries
    # The forward returns the loss's input and the activations it saves.
    assert entries[0]["outputs"] > 1, entries

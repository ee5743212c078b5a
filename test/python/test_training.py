"""Training through torch.compile(backend="kiln"): the losses of 20 optimizer steps
match eager's (forward and backward graphs go through AOTAutograd to kiln)."""
import copy

import pytest
import torch

import kiln.dynamo


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32),
                               torch.nn.ReLU(), torch.nn.Linear(32, 4))


@pytest.mark.parametrize("make_opt", [
    lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9),
    lambda p: torch.optim.AdamW(p, lr=1e-2, weight_decay=0.01),
], ids=["sgd", "adamw"])
def test_twenty_steps_match_eager(make_opt):
    eager = _model()
    compiled_model = copy.deepcopy(eager)
    compiled = torch.compile(compiled_model, backend="kiln")
    opt_e, opt_c = make_opt(eager.parameters()), make_opt(compiled_model.parameters())
    torch.manual_seed(1)
    data = [(torch.randn(8, 16), torch.randn(8, 4)) for _ in range(20)]
    before = len(kiln.dynamo.explanations())
    losses_e, losses_c = [], []
    for x, t in data:
        for model, opt, losses in ((eager, opt_e, losses_e), (compiled, opt_c, losses_c)):
            loss = torch.nn.functional.mse_loss(model(x), t)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    torch.testing.assert_close(torch.tensor(losses_c), torch.tensor(losses_e), rtol=1e-4, atol=1e-5)
    assert losses_e[-1] < losses_e[0]
    kinds = {e["kind"] for e in kiln.dynamo.explanations()[before:]}
    assert {"forward", "backward"} <= kinds  # AOTAutograd handed both graphs to kiln

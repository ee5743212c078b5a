"""torch.compile(backend="kiln") inference: parameters and buffers held as weights, or bound as inputs.

Dynamo passes a module's parameters and buffers to each graph as inputs. By
default kiln holds them as weights of the compiled module, loaded over the
tensors in place, so the loader folds batch norms into convolutions from their
values; a call that finds one written (its version counter) or moved loads
the module again. With options={"bind_weights": False} they stay inputs,
bound once. These tests check both: in-place updates (including an optimizer
step and load_state_dict) seen without a recompile, new storage, the fold,
and the runtime's errors for weights that do not fit."""
import pytest
import torch

import kiln
import kiln.dynamo


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        h = torch.relu(self.bn(self.conv(x)))
        return self.fc(h.mean((2, 3)))


def _entries(before):
    return [e for e in kiln.dynamo.explanations()[before:] if e["kind"] == "inference"]


def _check(fn, model, x):
    with torch.no_grad():
        got, want = fn(x), model(x)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


def _compile_checked(model, x, options=None):
    """torch.compile(model, backend="kiln", options=options) from a fresh
    Dynamo, run on `x` and checked against the model: (the compiled function,
    the one inference entry it recorded)."""
    torch._dynamo.reset()
    before = len(kiln.dynamo.explanations())
    fn = torch.compile(model, backend="kiln", options=options)
    _check(fn, model, x)
    (entry,) = _entries(before)
    return fn, entry


def _warm_model(seed):
    torch.manual_seed(seed)
    model = Net().eval()
    with torch.no_grad():  # running statistics that are not the defaults
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    return model


@pytest.mark.parametrize("bind_weights", [True, False])
def test_parameters_and_buffers_follow_in_place_updates(bind_weights):
    model = _warm_model(0)
    torch._dynamo.reset()
    before = len(kiln.dynamo.explanations())
    fn = torch.compile(model, backend="kiln", options={"bind_weights": bind_weights})
    x = torch.randn(2, 3, 10, 10)
    _check(fn, model, x)
    (entry,) = _entries(before)
    assert entry["compiled"], entry
    # conv weight and bias, bn weight, bias, running mean and var, fc weight
    # and bias: every input but the image (eval mode never reads the batch
    # counter, so Dynamo does not pass it).
    n = len(list(model.parameters())) + 2
    assert (entry["held_weights"], entry["bound_inputs"]) == ((n, 0) if bind_weights else (0, n))
    # Held as weights, the module takes the image only and the batch norm is
    # folded into the convolution (derived at load); as inputs, nothing folds.
    assert entry["module_inputs"] == (1 if bind_weights else n + 1)
    with open(entry["so"], "rb") as f:
        assert (b"conv-bn-weight" in f.read()) == bind_weights
    compiles = kiln.stats().get("compiles", 0)

    # A new input at another address: only it is passed.
    _check(fn, model, torch.randn(2, 3, 10, 10))
    # In-place updates of parameters and buffers are read by the next call,
    # those the fold reads (conv bias, running variance) included.
    with torch.no_grad():
        model.fc.weight.mul_(-2.0)
        model.conv.bias.add_(0.25)
        model.bn.running_var.mul_(3.0)
    _check(fn, model, x)
    # An optimizer step writes the parameters in place.
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for p in model.parameters():
        p.grad = torch.randn_like(p)
    opt.step()
    _check(fn, model, x)
    # load_state_dict copies into the tensors in place.
    model.load_state_dict(_warm_model(7).state_dict())
    _check(fn, model, x)
    # New storage for a parameter: its address changes and it is bound again.
    old_ptr = model.fc.weight.data_ptr()
    model.fc.weight.data = torch.randn(5, 8)
    assert model.fc.weight.data_ptr() != old_ptr
    _check(fn, model, x)
    assert kiln.stats().get("compiles", 0) == compiles, "no recompile for new parameter values"
    assert len(_entries(before)) == 1


def test_untracked_tensors_are_bound_as_inputs():
    # An inference tensor's writes are not counted (it has no version
    # counter): the graph's parameters are bound as inputs, read in place.
    model = _warm_model(6)
    with torch.inference_mode():
        var = torch.full((8,), 0.5)
    model.bn.running_var = var
    x = torch.randn(2, 3, 10, 10)
    fn, entry = _compile_checked(model, x)
    assert entry["compiled"] and entry["held_weights"] == 0
    assert entry["bound_inputs"] == len(list(model.parameters())) + 2
    with torch.inference_mode():
        var.mul_(2.0)
    _check(fn, model, x)


def test_held_weights_reload_only_when_written():
    model = _warm_model(4)
    torch._dynamo.reset()
    fn = torch.compile(model, backend="kiln")
    x = torch.randn(2, 3, 10, 10)
    compiled = []
    real = kiln.compiler.Module.reload_weights

    def counting(self, weights):
        compiled.append(len(weights))
        return real(self, weights)

    kiln.compiler.Module.reload_weights = counting
    try:
        for _ in range(4):
            _check(fn, model, x)
        assert compiled == []
        with torch.no_grad():
            model.bn.weight.mul_(1.5)
        for _ in range(3):
            _check(fn, model, x)
        assert compiled == [len(list(model.parameters())) + 2]
    finally:
        kiln.compiler.Module.reload_weights = real


def test_caller_weights_through_kiln_compile_and_their_errors():
    model = _warm_model(5)
    x = torch.randn(2, 3, 10, 10)
    ep = torch.export.export(model, (x,))
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    m = kiln.compile(ep, weights=state)
    torch.testing.assert_close(m(x), model(x), rtol=1e-4, atol=1e-5)
    # Derived at load: the folded filter follows a changed weight only on reload.
    state["conv.weight"].mul_(2.0)
    with torch.no_grad():
        model.conv.weight.mul_(2.0)
    m.reload_weights(state)
    torch.testing.assert_close(m(x), model(x), rtol=1e-4, atol=1e-5)
    missing = dict(state)
    missing.pop("fc.bias")
    with pytest.raises(kiln.KilnError, match="weight 'fc.bias' is not among"):
        kiln.load(m.path, weights=missing)
    with pytest.raises(kiln.KilnError, match=r"'fc.bias' is f32 \[4\], expected f32 \[5\]"):
        kiln.load(m.path, weights={**state, "fc.bias": torch.zeros(4)})
    with pytest.raises(kiln.KilnError, match="has no weight named 'extra'"):
        kiln.load(m.path, weights={**state, "extra": torch.zeros(1)})
    with pytest.raises(kiln.KilnError, match="is not contiguous"):
        kiln.load(m.path, weights={**state, "fc.weight": state["fc.weight"].t().contiguous().t()})


def test_module_bind_and_run_bound_directly():
    torch.manual_seed(1)
    lin = torch.nn.Linear(4, 3)
    ep = torch.export.export(lambda_module(), (torch.randn(2, 4), lin.weight.detach(), lin.bias.detach()))
    m = kiln.compile(ep)
    w, b = lin.weight.detach().clone(), lin.bias.detach().clone()
    assert m.bind([1, 2], [w, b])
    x = torch.randn(2, 4)
    torch.testing.assert_close(m.run_bound([x])[0], torch.nn.functional.linear(x, w, b))
    w.mul_(3.0)  # bound in place: the next run reads the new values
    torch.testing.assert_close(m.run_bound([x])[0], torch.nn.functional.linear(x, w, b))
    with pytest.raises(kiln.KilnError, match="unbound input"):
        m.run_bound([x, x])
    # A strided tensor cannot be bound: nothing is, and run_bound says so.
    assert not m.bind([1, 2], [w.t().contiguous().t(), b])
    with pytest.raises(kiln.KilnError, match="no inputs are bound"):
        m.run_bound([x])


def lambda_module():
    class Linear(torch.nn.Module):
        def forward(self, x, w, b):
            return torch.nn.functional.linear(x, w, b)

    return Linear()


def test_freezing_makes_parameters_constants_and_folds_batch_norm():
    torch.manual_seed(2)
    model = Net().eval()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 3, 10, 10)
    fn, entry = _compile_checked(model, x, {"freezing": True})
    assert entry["compiled"], entry
    assert entry["frozen_inputs"] == len(list(model.parameters())) + 2
    assert entry["bound_inputs"] == 0
    _check(fn, model, torch.randn(2, 3, 10, 10))
    # The compiled model takes the image only, and the batch norm was folded
    # into the convolution: its manifest derives the folded filter at load.
    assert entry["module_inputs"] == 1
    with open(entry["so"], "rb") as f:
        assert b"conv-bn-weight" in f.read()
    # Without freezing the same model holds its parameters as weights bound
    # at load: it folds too, and takes the image only.
    _, entry = _compile_checked(model, x)
    assert entry["frozen_inputs"] == 0 and entry["module_inputs"] == 1
    assert entry["held_weights"] == len(list(model.parameters())) + 2


def test_freezing_leaves_a_graph_that_writes_its_buffers_unfrozen():
    torch.manual_seed(3)
    model = Net().train()
    torch._dynamo.reset()
    before = len(kiln.dynamo.explanations())
    fn = torch.compile(model, backend="kiln", options={"freezing": True})
    x = torch.randn(4, 3, 10, 10)
    ref = Net().train()
    ref.load_state_dict(model.state_dict())
    with torch.no_grad():
        got, want = fn(x), ref(x)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(model.bn.running_mean, ref.bn.running_mean)
    (entry,) = _entries(before)
    assert entry["frozen_inputs"] == 0
    assert entry["held_weights"] == 0

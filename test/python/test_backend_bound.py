"""torch.compile(backend="kiln") inference: parameters and buffers bound to the compiled module once.

Dynamo passes a module's parameters and buffers to each graph as inputs; kiln
binds them to the module on the first call and each later call passes only the
other inputs. These tests check that the binding happens, that in-place
updates of a parameter are seen without a recompile, and that a parameter
given new storage is bound again."""
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


def test_parameters_and_buffers_are_bound_once():
    torch.manual_seed(0)
    model = Net().eval()
    with torch.no_grad():  # running statistics that are not the defaults
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 2.0)
    torch._dynamo.reset()
    before = len(kiln.dynamo.explanations())
    fn = torch.compile(model, backend="kiln")
    x = torch.randn(2, 3, 10, 10)
    _check(fn, model, x)
    (entry,) = _entries(before)
    assert entry["compiled"], entry
    # conv weight and bias, bn weight, bias, running mean and var, fc weight
    # and bias: every input but the image (eval mode never reads the batch
    # counter, so Dynamo does not pass it).
    assert entry["bound_inputs"] == len(list(model.parameters())) + 2
    compiles = kiln.stats().get("compiles", 0)

    # A new input at another address: only it is passed.
    _check(fn, model, torch.randn(2, 3, 10, 10))
    # In-place updates of parameters and buffers are read by the next call.
    with torch.no_grad():
        model.fc.weight.mul_(-2.0)
        model.conv.bias.add_(0.25)
        model.bn.running_var.mul_(3.0)
    _check(fn, model, x)
    # New storage for a parameter: its address changes and it is bound again.
    old_ptr = model.fc.weight.data_ptr()
    model.fc.weight.data = torch.randn(5, 8)
    assert model.fc.weight.data_ptr() != old_ptr
    _check(fn, model, x)
    assert kiln.stats().get("compiles", 0) == compiles, "no recompile for new parameter values"
    assert len(_entries(before)) == 1


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
    torch._dynamo.reset()
    before = len(kiln.dynamo.explanations())
    fn = torch.compile(model, backend="kiln", options={"freezing": True})
    x = torch.randn(2, 3, 10, 10)
    _check(fn, model, x)
    (entry,) = _entries(before)
    assert entry["compiled"], entry
    assert entry["frozen_inputs"] == len(list(model.parameters())) + 2
    assert entry["bound_inputs"] == 0
    _check(fn, model, torch.randn(2, 3, 10, 10))
    # The compiled model takes the image only, and the batch norm was folded
    # into the convolution: its manifest derives the folded filter at load.
    assert entry["module_inputs"] == 1
    with open(entry["so"], "rb") as f:
        assert b"conv-bn-weight" in f.read()
    # Without freezing the same model binds its parameters as inputs instead,
    # and nothing can fold.
    torch._dynamo.reset()
    before = len(kiln.dynamo.explanations())
    plain = torch.compile(model, backend="kiln")
    _check(plain, model, x)
    (entry,) = _entries(before)
    assert entry["frozen_inputs"] == 0 and entry["module_inputs"] == len(list(model.parameters())) + 3
    with open(entry["so"], "rb") as f:
        assert b"conv-bn-weight" not in f.read()


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

"""Everyday use of the Python package: eager fallbacks are reported and counted,
unknown backend options are errors, errors under torch.compile name the user's
line, kiln.Module is called like ExportedProgram.module(), and the compile cache
does not depend on the archive's file name."""
import os
import shutil

import pytest
import torch

import kiln
import kiln.dynamo


class _Unsupported(torch.nn.Module):
    """An op kiln has no lowering or kernel for (torch.gradient's central differences)."""

    def forward(self, x):
        return torch.gradient(x, dim=-1)[0] + 1  # the line kiln's error must name


@pytest.mark.fallback
def test_fallback_is_reported_and_counted(capsys):
    before = kiln.dynamo.summary()
    x = torch.randn(1, 2, 8, 8)
    out = torch.compile(_Unsupported(), backend="kiln")(x)
    torch.testing.assert_close(out, _Unsupported()(x))
    after = kiln.dynamo.summary()
    assert after["eager"] == before["eager"] + 1
    assert after["graphs"] == before["graphs"] + 1
    assert after["first_eager_reason"]
    last = kiln.dynamo.explanations()[-1]
    assert not last["compiled"] and last["reason"], last


def test_strict_error_names_the_users_line():
    with pytest.raises(Exception) as info:
        torch.compile(_Unsupported(), backend="kiln")(torch.randn(1, 2, 8, 8))
    text = str(info.value)
    assert "test_usability.py" in text, text
    assert "eval_with_key" not in text.split("\n")[0], text


def test_unknown_backend_option_is_an_error():
    f = torch.compile(lambda x: x + 1, backend="kiln", options={"no_such_option": 1})
    with pytest.raises(Exception, match="unknown kiln backend option.*no_such_option"):
        f(torch.randn(3))


def test_strict_option():
    f = torch.compile(lambda x: torch.relu(x) * 2, backend="kiln", options={"strict": True})
    x = torch.randn(5)
    torch.testing.assert_close(f(x), torch.relu(x) * 2)
    assert kiln.dynamo.explanations()[-1]["compiled"]


class _Structured(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(6, 4)

    def forward(self, x, *, scale, extra=None):
        y = self.lin(x) * scale
        return {"out": y, "pair": (y.sum(-1), x.mean(0))}


def test_module_takes_kwargs_and_returns_the_programs_structure(tmp_path):
    torch.manual_seed(0)
    model = _Structured().eval()
    x, scale = torch.randn(3, 6), torch.randn(4)
    ep = torch.export.export(model, (x,), {"scale": scale})
    m = kiln.compile(ep)
    got, want = m(x, scale=scale), model(x, scale=scale)
    assert isinstance(got, dict) and set(got) == {"out", "pair"}
    assert isinstance(got["pair"], tuple) and len(got["pair"]) == 2
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    # The same structure when compiled from the saved archive.
    path = tmp_path / "structured.pt2"
    torch.export.save(ep, str(path))
    torch.testing.assert_close(kiln.compile(str(path))(x, scale=scale), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="structure|keyword"):
        m(x, scale=scale, bogus=1)


def test_cache_key_ignores_the_archive_file_name(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path / "cache"))
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh()).eval()
    ep = torch.export.export(model, (torch.randn(2, 4),))
    a, b = tmp_path / "first_name.pt2", tmp_path / "other_name.pt2"
    torch.export.save(ep, str(a))
    torch.export.save(ep, str(b))
    before = kiln.stats().get("cache_hits", 0)
    kiln.compile(str(a))
    kiln.compile(str(b))
    assert kiln.stats().get("cache_hits", 0) == before + 1

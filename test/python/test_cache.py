"""The on-disk compile cache: a second process compiles nothing; a damaged entry
is rebuilt, never trusted."""
import os
import subprocess
import sys

import kiln
from kiln import cache

SCRIPT = r"""
import json, sys, torch, kiln
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2)).eval()
f = torch.compile(model, backend="kiln")
with torch.no_grad():
    x = torch.randn(4, 8)
    assert torch.allclose(f(x), model(x), atol=1e-5)
    m = kiln.compile(model, example_inputs=(x,))
    assert torch.allclose(m(x), model(x), atol=1e-5)
print(json.dumps(kiln.stats()))
"""


def _run(cache_dir):
    env = dict(os.environ, KILN_CACHE_DIR=str(cache_dir), PYTHONPATH=":".join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    import json
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_second_process_compiles_nothing(tmp_path):
    first = _run(tmp_path)
    assert first.get("compiles", 0) >= 1
    second = _run(tmp_path)
    assert second.get("compiles", 0) == 0, second
    assert second.get("cache_hits", 0) == first["compiles"]


def test_corrupt_entry_is_rebuilt(tmp_path, corpus, monkeypatch):
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    pt2 = os.path.join(corpus, "mlp", "model.pt2")
    kiln.compile(pt2)
    entries = [d for d in os.listdir(tmp_path) if not d.startswith(".")]
    assert len(entries) == 1
    so = tmp_path / entries[0] / "model.so"
    so.write_bytes(b"not a shared object")
    compiles = kiln.stats().get("compiles", 0)
    m = kiln.compile(pt2)  # checksum mismatch: evicted and rebuilt
    assert kiln.stats()["compiles"] == compiles + 1
    assert len(m.outputs) == 1
    # A broken entry.json too.
    (tmp_path / entries[0] / "entry.json").write_text("{")
    kiln.compile(pt2)
    assert kiln.stats()["compiles"] == compiles + 2
    assert cache.lookup(entries[0]) is not None

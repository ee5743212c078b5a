"""Compiling on one machine for another (kiln.offline): a copy of the package
without kiln-compile records what the backend asks for, the full package compiles
it into a cache, and the copy then runs every graph from that cache under
KILN_STRICT=1 without compiling anything."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import PACKAGE_DIR

SCRIPT = r"""
import json, sys, torch, kiln, kiln.dynamo
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.BatchNorm1d(16), torch.nn.ReLU(),
                            torch.nn.Linear(16, 2))
x = torch.randn(32, 8)
y = torch.randn(32, 2)
f = torch.compile(model, backend="kiln")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
for _ in range(3):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(f(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())
model.eval()
with torch.no_grad():
    out = f(x)[0].tolist()
print(json.dumps({"losses": losses, "out": out, "running_mean": model[1].running_mean.tolist(),
                  "summary": kiln.dynamo.summary(), "stats": kiln.stats()}))
"""


@pytest.fixture(scope="module")
def runtime_only(tmp_path_factory):
    """The package as a GPU machine without LLVM has it: no kiln-compile."""
    root = tmp_path_factory.mktemp("runtime-only")
    shutil.copytree(os.path.join(PACKAGE_DIR, "kiln"), root / "kiln",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for d in os.listdir(PACKAGE_DIR):
        if d.endswith(".dist-info"):
            shutil.copytree(os.path.join(PACKAGE_DIR, d), root / d)
    (root / "kiln" / "_paths.py").write_text("KILN_COMPILE = ''\nKILN_VERSION = '%s'\n"
                                             % __import__("kiln")._paths.KILN_VERSION)
    return root


def _env(package_root, **extra):
    path = [str(package_root)] + [p for p in sys.path if p and os.path.abspath(p) != PACKAGE_DIR]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KILN_")}
    env.update(PYTHONPATH=":".join(path), **{k: str(v) for k, v in extra.items()})
    return env


def _run(package_root, **extra):
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=_env(package_root, **extra),
                       capture_output=True, text=True)
    return r, (json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else None)


def test_record_compile_replay(tmp_path, runtime_only):
    rec, cache = tmp_path / "rec", tmp_path / "cache"
    # 1. Without kiln-compile, recording: every graph runs in eager, even under
    #    KILN_STRICT (recorded graphs are not failures), and nothing compiles.
    r, first = _run(runtime_only, KILN_RECORD_DIR=rec, KILN_CACHE_DIR=cache, KILN_STRICT=1)
    assert r.returncode == 0, r.stderr
    assert first["stats"].get("compiles", 0) == 0
    assert first["summary"]["compiled"] == 0 and first["summary"]["eager"] >= 2, first["summary"]
    assert "recorded in" in r.stderr
    recorded = sorted(os.listdir(rec))
    # The training graph's forward and backward halves (kiln-compile --grad
    # --split), the inference graph.
    assert len(recorded) == 3, recorded
    options = [json.loads((rec / k / "request.json").read_text())["options"] for k in recorded]
    assert sorted(bool(o.get("grad")) for o in options) == [False, True, True]
    assert sorted(o.get("split", "") for o in options) == ["", "backward", "forward"]
    assert all(o["target"] == "cpu" for o in options)

    # 2. The full package compiles them into the cache.
    c = subprocess.run([sys.executable, "-m", "kiln.offline", "compile", str(rec), "--cache-dir", str(cache)],
                       env=_env(PACKAGE_DIR), capture_output=True, text=True)
    assert c.returncode == 0, c.stdout + c.stderr
    assert "3 compiled, 0 already cached, 0 failed" in c.stdout
    assert (cache / "compiler-id").read_text().strip()
    again = subprocess.run([sys.executable, "-m", "kiln.offline", "compile", str(rec), "--cache-dir",
                            str(cache)], env=_env(PACKAGE_DIR), capture_output=True, text=True)
    assert "0 compiled, 3 already cached" in again.stdout, again.stdout + again.stderr

    # 3. The package without kiln-compile runs every graph from the cache.
    r, second = _run(runtime_only, KILN_CACHE_DIR=cache, KILN_STRICT=1)
    assert r.returncode == 0, r.stderr
    assert second["stats"].get("compiles", 0) == 0
    assert second["stats"]["cache_hits"] == 3
    s = second["summary"]
    assert s["eager"] == 0 and s["compiled"] == s["graphs"] == 2, s
    # Kiln's steps and running statistics match eager PyTorch's (the recording run).
    for a, b in zip(second["losses"], first["losses"]):
        assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), (second["losses"], first["losses"])
    for a, b in zip(second["running_mean"], first["running_mean"]):
        assert abs(a - b) <= 1e-5
    for a, b in zip(second["out"], first["out"]):
        assert abs(a - b) <= 1e-4


def test_missing_program_without_compiler_is_strict_error(tmp_path, runtime_only):
    r, _ = _run(runtime_only, KILN_CACHE_DIR=tmp_path / "empty", KILN_STRICT=1)
    assert r.returncode != 0
    assert "kiln-compile is not installed here" in r.stderr
    assert "set KILN_RECORD_DIR to record it" in r.stderr


@pytest.mark.fallback
def test_missing_program_without_compiler_falls_back(tmp_path, runtime_only):
    r, out = _run(runtime_only, KILN_CACHE_DIR=tmp_path / "empty")
    assert r.returncode == 0, r.stderr
    assert out["summary"]["compiled"] == 0 and out["summary"]["eager"] >= 1


def test_offline_command_errors(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "kiln.offline", *args], env=_env(PACKAGE_DIR),
                              capture_output=True, text=True)
    r = run("compile", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "no such folder" in r.stderr
    bad = tmp_path / "rec" / "abc"
    bad.mkdir(parents=True)
    (bad / "request.json").write_text("[1, 2]")
    r = run("list", str(tmp_path / "rec"))
    assert r.returncode == 2 and "not a kiln compile request" in r.stderr


def test_cache_key_does_not_depend_on_the_compilers_path(tmp_path, monkeypatch):
    """Without kiln-compile, the identity is the one the filling compiler wrote."""
    from kiln import _paths, cache
    monkeypatch.setenv("KILN_CACHE_DIR", str(tmp_path))
    here = cache.compiler_identity()
    cache.write_compiler_identity()
    monkeypatch.setattr(_paths, "KILN_COMPILE", "")
    assert not cache.compiler_available()
    assert cache.compiler_identity() == here


TOPK = r"""
import json, torch, kiln, kiln.dynamo
torch.manual_seed(0)
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = torch.nn.Linear(16, 32), torch.nn.Linear(32, 4)
    def forward(self, x):  # gammainc: no reverse rule in kiln, so AOTAutograd's graphs
        h = torch.relu(self.l1(x)) + 0.5
        return self.l2(torch.special.gammainc(torch.full_like(h, 2.0), h))
m = M()
f = torch.compile(m, backend="kiln")
x, t = torch.randn(8, 16), torch.randn(8, 4)
loss = torch.nn.functional.mse_loss(f(x), t)
loss.backward()
print(json.dumps({"loss": loss.item(), "grad": m.l1.weight.grad.sum().item(),
                  "kinds": sorted((e["kind"], e["compiled"]) for e in kiln.dynamo.explanations()),
                  "stats": kiln.stats()}))
"""


def test_a_failed_offline_compile_sends_the_next_recording_down_the_other_road(tmp_path, runtime_only):
    """kiln cannot differentiate gammainc: the offline compile records the failure in
    the cache, the next recording run then goes through AOTAutograd (as a compiler
    error would make it) and records those graphs, and the third run is all kiln."""
    rec, cache = tmp_path / "rec", tmp_path / "cache"

    def run(**extra):
        r = subprocess.run([sys.executable, "-c", TOPK], env=_env(runtime_only, KILN_CACHE_DIR=cache, **extra),
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout.strip().splitlines()[-1])

    def offline():
        return subprocess.run([sys.executable, "-m", "kiln.offline", "compile", str(rec), "--cache-dir",
                               str(cache)], env=_env(PACKAGE_DIR), capture_output=True, text=True)

    first = run(KILN_RECORD_DIR=rec, KILN_STRICT=1)  # the forward and backward halves recorded
    c = offline()
    # Both halves differentiate the graph, so both fail.
    assert c.returncode == 1 and "0 compiled, 0 already cached, 2 failed" in c.stdout, c.stdout + c.stderr
    assert "gammainc" in c.stdout
    run(KILN_RECORD_DIR=rec, KILN_STRICT=1)  # the failure is known: AOTAutograd's graphs recorded
    c = offline()
    assert "2 compiled" in c.stdout and "1 failed" not in c.stdout, c.stdout + c.stderr
    last = run(KILN_STRICT=1)
    assert last["stats"].get("compiles", 0) == 0
    assert ["backward", True] in last["kinds"] and ["forward", True] in last["kinds"], last["kinds"]
    assert abs(last["loss"] - first["loss"]) <= 1e-5 and abs(last["grad"] - first["grad"]) <= 1e-4


RECORD_FOR_CUDA = r"""
import json, sys, torch, kiln, kiln.dynamo
torch.backends.cudnn.allow_tf32 = sys.argv[1] == "1"
torch.backends.cuda.matmul.allow_tf32 = sys.argv[2] == "1"
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU()).eval()
x = torch.randn(2, 3, 8, 8)
with torch.no_grad():
    got, want = torch.compile(model, backend="kiln")(x), model(x)
print(json.dumps({"close": torch.allclose(got, want), "summary": kiln.dynamo.summary()}))
"""


@pytest.mark.parametrize("conv,mm,policy", [("1", "0", "conv"), ("0", "0", "none"), ("1", "1", "all"),
                                            ("0", "1", "none")])
def test_record_for_cuda_on_the_cpu_with_pytorchs_tf32_flags(tmp_path, conv, mm, policy):
    """KILN_RECORD_TARGET=cuda records, on a machine without the GPU, the
    programs a CUDA run would ask for (none compiled, the graphs run in eager
    here), with the TF32 policy PyTorch's flags set."""
    rec = tmp_path / "rec"
    env = _env(PACKAGE_DIR, KILN_RECORD_DIR=rec, KILN_RECORD_TARGET="cuda", KILN_STRICT=1,
               KILN_CACHE_DIR=tmp_path / "cache")
    r = subprocess.run([sys.executable, "-c", RECORD_FOR_CUDA, conv, mm], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["close"] and out["summary"]["compiled"] == 0 and out["summary"]["eager"] == 1, out
    (entry,) = os.listdir(rec)
    with open(rec / entry / "request.json") as f:
        opts = json.load(f)["options"]
    # Parameters held as weights (external, bound at load), TF32 as PyTorch's flags say.
    assert opts == {"target": "cuda", "weights": "external", "plugins": [], "cuda_tf32": policy}, opts
    assert os.path.getsize(rec / entry / "model.pt2") < 64 * 1024, "the weights are placeholders"

"""Random ops in the eager interpreter (kiln-run model.pt2) draw the numbers a compiled
program draws with the same generator state: rand, randn (Box-Muller, float math may
differ in the last bits), randint, bernoulli and training-mode dropout, in the default
and the Core ATen IR, with the default seed and with KILN_SEED."""
import os
import subprocess

import numpy as np
import torch

from conftest import BUILD_DIR

KILN_RUN = os.path.join(BUILD_DIR, "bin", "kiln-run")
KILN_COMPILE = os.path.join(BUILD_DIR, "bin", "kiln-compile")


class _Random(torch.nn.Module):
    def forward(self, x):
        a = torch.rand(3, 5)
        b = torch.randn_like(x)
        c = torch.randint(2, 9, (4, 3))
        d = torch.bernoulli(torch.full((6,), 0.3))
        e = torch.nn.functional.dropout(x, 0.4, training=True)
        return a, b, c, d, e


def _outputs(cmd, out_dir, env):
    r = subprocess.run(cmd + ["--output-dir", os.fspath(out_dir)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    return [np.load(out_dir / f"output{i}.npy") for i in range(5)]


def test_eager_random_matches_compiled(tmp_path):
    x = torch.randn(8, 16)
    np.save(tmp_path / "x.npy", x.numpy())
    ep = torch.export.export(_Random(), (x,))
    for ir, prog in (("default", ep), ("core", ep.run_decompositions())):
        pt2 = tmp_path / f"{ir}.pt2"
        torch.export.save(prog, pt2)
        so = tmp_path / f"{ir}.so"
        r = subprocess.run([KILN_COMPILE, os.fspath(pt2), "-o", os.fspath(so)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        for seed in (None, "12345"):
            env = dict(os.environ)
            env.pop("KILN_SEED", None)
            if seed:
                env["KILN_SEED"] = seed
            tag = f"{ir}-{seed or 'default'}"
            eager = _outputs([KILN_RUN, os.fspath(pt2), "--input", os.fspath(tmp_path / "x.npy")],
                             tmp_path / f"eager-{tag}", env)
            compiled = _outputs([KILN_RUN, os.fspath(so), "--input", os.fspath(tmp_path / "x.npy")],
                                tmp_path / f"compiled-{tag}", env)
            a, b, c, d, e = eager
            assert a.dtype == np.float32 and (a >= 0).all() and (a < 1).all() and len(np.unique(a)) == a.size
            assert c.dtype == np.int64 and c.min() >= 2 and c.max() <= 8
            assert set(np.unique(d)) <= {0.0, 1.0}
            kept = e != 0
            np.testing.assert_allclose(e[kept], x.numpy()[kept] / 0.6, rtol=1e-6)
            for i, (ge, gc) in enumerate(zip(eager, compiled)):
                if i == 1:  # randn: log/sqrt/cos may round differently
                    np.testing.assert_allclose(ge, gc, rtol=1e-5, atol=1e-5, err_msg=f"{tag} output {i}")
                else:
                    np.testing.assert_array_equal(ge, gc, err_msg=f"{tag} output {i}")
        # A different seed draws different numbers.
        assert not np.array_equal(np.load(tmp_path / f"eager-{ir}-default" / "output0.npy"),
                                  np.load(tmp_path / f"eager-{ir}-12345" / "output0.npy"))

"""Host memory that runs out while a compiled model runs: an error the caller
can handle, after which the same loaded model (and the process) keeps working."""
import os

import pytest
import torch

import kiln

HERE = os.path.dirname(os.path.abspath(__file__))
ARCHIVE = os.path.join(HERE, "..", "data", "out_of_memory", "model.pt2")


def test_out_of_memory_is_an_error_and_the_model_stays_usable(tmp_path):
    out = tmp_path / "outer.so"
    kiln.compile(ARCHIVE, output=str(out))
    m = kiln.load(str(out))
    x = torch.arange(8, dtype=torch.float32)
    expected = x[:, None] * x[None, :] + 1
    torch.testing.assert_close(m(x), expected)
    # The outer product of 2^20 floats needs 4 TiB.
    with pytest.raises(RuntimeError, match="out of memory: cannot allocate a buffer of 4398046511104 bytes"):
        m(torch.ones(1 << 20))
    for _ in range(3):
        torch.testing.assert_close(m(x), expected)
    y = torch.randn(2048)
    torch.testing.assert_close(m(y), y[:, None] * y[None, :] + 1)

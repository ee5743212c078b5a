"""KILN_DEBUG=1: a folder per compiled graph with the FX graph, the exported
program, kiln's IR after each stage and the timings."""
import json
import os

import torch

import kiln.dynamo


def test_kiln_debug_writes_a_folder_per_graph(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_DEBUG", "1")
    monkeypatch.setenv("KILN_DEBUG_DIR", str(tmp_path))
    monkeypatch.setattr(kiln.dynamo, "_DEBUG_RUN", None)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU()).eval()
    with torch.no_grad():
        x = torch.randn(2, 4)
        torch.testing.assert_close(torch.compile(model, backend="kiln")(x), model(x))
    (run,) = os.listdir(tmp_path)
    graphs = os.listdir(tmp_path / run)
    assert len(graphs) == 1
    g = tmp_path / run / graphs[0]
    assert "linear" in (g / "fx_graph.py").read_text()
    assert "aten.linear" in (g / "exported_program.txt").read_text()
    ir = sorted(os.listdir(g / "kiln_ir"))
    assert len(ir) > 5 and any("ConvertATenToLinalg" in n or "aten-to-linalg" in n for n in ir), ir
    times = json.loads((g / "timings.json").read_text())
    assert times["pipeline"] > 0

"""KILN_DEBUG=1: a folder per compiled graph with the FX graph, the exported
program, kiln's IR after each stage and the timings."""
import json
import os

import pytest
import torch

import kiln.dynamo


def test_kiln_debug_writes_a_folder_per_graph(tmp_path, monkeypatch, capsys):
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
    assert str(tmp_path) in capsys.readouterr().err  # says where it writes


def test_kiln_debug_timings_are_per_graph(tmp_path, monkeypatch):
    monkeypatch.setenv("KILN_DEBUG", "1")
    monkeypatch.setenv("KILN_DEBUG_DIR", str(tmp_path))
    monkeypatch.setattr(kiln.dynamo, "_DEBUG_RUN", None)
    before = kiln.compile_times().get("pipeline", 0.0)
    for width in (4, 5):
        model = torch.nn.Sequential(torch.nn.Linear(width, 3), torch.nn.ReLU()).eval()
        with torch.no_grad():
            torch.compile(model, backend="kiln")(torch.randn(2, width))
    (run,) = os.listdir(tmp_path)
    spent = kiln.compile_times()["pipeline"] - before
    per_graph = [json.loads((tmp_path / run / g / "timings.json").read_text())
                 for g in sorted(os.listdir(tmp_path / run))]
    assert len(per_graph) == 2
    # Each graph's file holds its own time, not the process total so far: they
    # add up to what the two compiles took.
    assert all(t["pipeline"] > 0 for t in per_graph), per_graph
    assert sum(t["pipeline"] for t in per_graph) == pytest.approx(spent, abs=1e-4), (per_graph, spent)

"""Debugging helpers: `minify` shrinks a program kiln gets wrong (kiln-reduce).

    import kiln.debug
    case = kiln.debug.minify(torch.export.export(model, (x,)), (x,), out_dir="case")
    print(case.command)        # one line that shows the bug on the reduced program
"""
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Sequence

from . import _paths


@dataclass
class ReducedCase:
    """What kiln-reduce wrote: the folder, its reduced.pt2, the command that shows
    the bug, and its summary (node count, ops, compiles, seconds)."""
    out_dir: str
    archive: str
    command: str
    summary: Dict[str, Any] = field(default_factory=dict)


def minify(program, inputs: Sequence[Any] = (), *, out_dir: str, mode: str = "numerics",
           target: str = "cpu", reference: str = "eager", expect: Sequence[Any] = (),
           rtol: float = 1e-4, atol: float = 1e-5, compile_args: Sequence[str] = ()) -> Optional[ReducedCase]:
    """Shrinks `program` (a torch.export ExportedProgram or a .pt2 path) to the
    smallest program on which kiln still diverges from `reference` (mode
    "numerics", on `inputs`) or still fails to compile the same way (mode
    "compile"). Returns the reduced case, or None when the bug does not show on
    `program`. Raises ValueError for bad arguments or input (kiln-reduce's exit 2)."""
    import numpy as np

    with tempfile.TemporaryDirectory(prefix="kiln-minify-") as tmp:
        values_dir = None
        if isinstance(program, (str, os.PathLike)):
            pt2 = os.fspath(program)
        else:
            import torch
            pt2 = os.path.join(tmp, "program.pt2")
            torch.export.save(program, pt2)
            if mode == "numerics" and reference == "eager":
                # PyTorch itself is the reference: every node's value, by name.
                values_dir = os.path.join(tmp, "values")
                _node_values(program, inputs, values_dir)

        def npy(values, stem):
            files = []
            for i, v in enumerate(values):
                f = os.path.join(tmp, f"{stem}{i}.npy")
                np.save(f, v.detach().cpu().numpy() if hasattr(v, "detach") else np.asarray(v))
                files.append(f)
            return files

        cmd = [_paths.KILN_REDUCE, pt2, "-o", os.fspath(out_dir), f"--mode={mode}", f"--target={target}",
               f"--reference={reference}", f"--rtol={rtol}", f"--atol={atol}",
               f"--kiln-compile={_paths.KILN_COMPILE}", f"--kiln-run={_paths.KILN_RUN}"]
        for f in npy(inputs, "input"):
            cmd += ["--input", f]
        for f in npy(expect, "expect"):
            cmd += ["--expect", f]
        cmd += [f"--compile-arg={a}" for a in compile_args]
        if values_dir:
            cmd.append(f"--reference-values={values_dir}")
        r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode == 1:
        return None
    if r.returncode != 0:
        raise ValueError(r.stderr.strip() or f"kiln-reduce exited with {r.returncode}")
    with open(os.path.join(out_dir, "summary.json")) as f:
        summary = json.load(f)
    return ReducedCase(os.fspath(out_dir), os.path.join(out_dir, "reduced.pt2"),
                       r.stdout.strip().splitlines()[-1], summary)


def _node_values(program, inputs, out_dir: str) -> None:
    """Runs `program` (an ExportedProgram) node by node in PyTorch on `inputs`
    and writes every tensor a node produces as out_dir/<node name>.npy: the
    names the serialized graph gives those values."""
    import numpy as np
    import torch
    from torch.export.graph_signature import InputKind

    os.makedirs(out_dir)
    user = iter(inputs)
    args = []
    for spec in program.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            args.append(next(user))
        elif spec.target in program.state_dict:
            args.append(program.state_dict[spec.target])
        else:
            args.append(program.constants[spec.target])

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            value = super().run_node(n)
            if isinstance(value, torch.Tensor):
                v = value.detach().cpu()
                if v.dtype == torch.bfloat16:   # NumPy has none; kiln-run writes them as float32 too
                    v = v.float()
                np.save(os.path.join(out_dir, f"{n.name}.npy"), v.numpy())
            return value

    with torch.no_grad():
        Recorder(program.graph_module).run(*args)

"""How a compiled model is called from Python: the exported program's argument and
result structure (pytree specs), so `kiln.Module` takes the same positional and
keyword arguments as `ExportedProgram.module()` and returns the same structure.

The specs come from an ExportedProgram (`call_spec`) or from a `.pt2` archive's
`models/model.json` (its `module_call_graph` entry for the root module); the
archive is read as a zip and JSON, nothing in it is unpickled.
"""
from __future__ import annotations

import json
import zipfile
from typing import Any, List, Optional, Sequence, Tuple


class CallSpec:
    """The argument and result structure of an exported program.

    in_spec / out_spec: pytree TreeSpecs of ((args), {kwargs}) and of the result.
    input_is_tensor: per flattened user input, whether it is a tensor the compiled
    model takes (other leaves, e.g. ints, were baked into the program at export).
    output_consts: per flattened user output, None for a tensor the compiled model
    returns, or the constant export recorded for it.
    """

    def __init__(self, in_spec, out_spec, input_is_tensor: Sequence[bool],
                 output_consts: Sequence[Tuple[bool, Any]]):
        self.in_spec = in_spec
        self.out_spec = out_spec
        self.input_is_tensor = list(input_is_tensor)
        self.output_consts = list(output_consts)

    # ---- construction ---------------------------------------------------------------
    @staticmethod
    def from_exported_program(ep: Any) -> Optional["CallSpec"]:
        from torch.export.graph_signature import (ConstantArgument, InputKind, OutputKind,
                                                  TensorArgument)
        spec = getattr(ep, "call_spec", None)
        if spec is None or spec.in_spec is None or spec.out_spec is None:
            return None
        sig = ep.graph_signature
        inputs = [isinstance(s.arg, TensorArgument) for s in sig.input_specs
                  if s.kind == InputKind.USER_INPUT]
        outputs = []
        for s in sig.output_specs:
            if s.kind != OutputKind.USER_OUTPUT:
                continue
            if isinstance(s.arg, TensorArgument):
                outputs.append((False, None))
            elif isinstance(s.arg, ConstantArgument):
                outputs.append((True, s.arg.value))
            else:
                return None  # a symbolic int result: keep the flat list
        return CallSpec(spec.in_spec, spec.out_spec, inputs, outputs)

    @staticmethod
    def from_archive(path: str) -> Optional["CallSpec"]:
        """The call structure recorded in a .pt2 archive, or None when it has none
        kiln can read (an .mlir input, an unknown container type in the spec)."""
        try:
            with zipfile.ZipFile(path) as z:
                name = next((n for n in z.namelist() if n.endswith("models/model.json")), None)
                if name is None:
                    return None
                model = json.loads(z.read(name))
        except (OSError, zipfile.BadZipFile, ValueError):
            return None
        try:
            from torch.utils import _pytree as pytree
            gm = model["graph_module"]
            calls = gm.get("module_call_graph") or model.get("module_call_graph") or []
            root = next(c for c in calls if c.get("fqn", "") == "")
            in_spec = pytree.treespec_loads(root["signature"]["in_spec"])
            out_spec = pytree.treespec_loads(root["signature"]["out_spec"])
            sig = gm["signature"]
            inputs = []
            for s in sig["input_specs"]:
                if "user_input" in s:
                    inputs.append("as_tensor" in s["user_input"]["arg"])
            outputs = []
            for s in sig["output_specs"]:
                if "user_output" not in s:
                    continue
                arg = s["user_output"]["arg"]
                if "as_tensor" in arg:
                    outputs.append((False, None))
                elif "as_none" in arg:
                    outputs.append((True, None))
                else:
                    kind, value = next(iter(arg.items()))
                    if kind not in ("as_int", "as_float", "as_bool", "as_string"):
                        return None
                    outputs.append((True, value))
            return CallSpec(in_spec, out_spec, inputs, outputs)
        except Exception:  # noqa: BLE001 - an archive kiln reads but whose spec it cannot: flat I/O
            return None

    @property
    def num_tensor_outputs(self) -> int:
        return sum(1 for is_const, _ in self.output_consts if not is_const)

    # ---- use ------------------------------------------------------------------------
    def flatten_inputs(self, args: Sequence[Any], kwargs: dict) -> List[Any]:
        """The compiled model's inputs for a call with `args` and `kwargs`."""
        from torch.utils import _pytree as pytree
        if kwargs:
            try:
                from torch.export._tree_utils import reorder_kwargs
                kwargs = reorder_kwargs(kwargs, self.in_spec)
            except Exception as e:  # noqa: BLE001
                raise TypeError(f"kiln.Module: keyword arguments do not match the exported "
                                f"program's: {e}") from None
        leaves, spec = pytree.tree_flatten((tuple(args), dict(kwargs)))
        if spec != self.in_spec:
            raise TypeError("kiln.Module: the arguments do not have the structure the program "
                            f"was exported with.\n  expected: {self.in_spec}\n  got: {spec}")
        if len(leaves) != len(self.input_is_tensor):
            raise TypeError(f"kiln.Module: {len(leaves)} argument leaves, the program has "
                            f"{len(self.input_is_tensor)} user inputs")
        return [x for x, t in zip(leaves, self.input_is_tensor) if t]

    def unflatten_outputs(self, outs: Sequence[Any]) -> Any:
        """The compiled model's outputs in the structure the program returns."""
        from torch.utils import _pytree as pytree
        it = iter(outs)
        leaves = [value if is_const else next(it) for is_const, value in self.output_consts]
        return pytree.tree_unflatten(leaves, self.out_spec)

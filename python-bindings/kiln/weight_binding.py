"""How an inference graph's parameters and buffers reach its compiled module.

Dynamo passes a module's parameters and buffers to each graph as inputs (it
marks them static). kiln takes them one of three ways:

- held as weights (the default): the graph is exported with them as buffers
  of the program holding placeholders of their shapes (so the program, and its
  cache key, do not depend on their values), compiled with external weights,
  and the module is loaded over the caller's tensors themselves
  (compiler.Module with a dict of weights). kiln-compile then sees weights, as
  in a .pt2 from torch.export: batch norms fold into the convolutions, linear
  layers that read one input stack, filters are laid out, all computed at
  load from the tensors' values. Each call checks, in one C++ call, that they
  are at the addresses loaded, and that none was written since (PyTorch's
  version counters, which every in-place op bumps: an optimizer step,
  load_state_dict, `.mul_()`); if one moved or was written, the module is
  loaded again over the tensors as they are now. What kiln reads in place
  needs nothing more; what it derived is recomputed.
- bound as inputs (options={"bind_weights": False}, or where they cannot be
  held: strided, inference tensors, whose writes PyTorch does not count): the
  module keeps taking them as inputs, bound once (Module.bind), each call
  passing only the others; nothing is derived from them.
- frozen (options={"freezing": True}): their values at compile time become
  the program's, and later changes are not seen (dynamo._export).
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Dict, List, Optional, Sequence


def static_inputs(gm, example_inputs, positions: Sequence[int]) -> List[int]:
    """Which of the graph's tensor inputs (indices into `positions`) stay at
    one address from call to call: the parameters and buffers Dynamo passes to
    the graph (it marks them static, as it does for Inductor's CUDA graphs)."""
    import torch
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    out = []
    for k, i in enumerate(positions):
        node = placeholders[i] if i < len(placeholders) else None
        marked = (node.meta.get("tensor_dict") or {}).get("_dynamo_static_input_type") if node is not None else None
        x = example_inputs[i]
        if marked or getattr(x, "_dynamo_static_input_type", None) or isinstance(x, torch.nn.Parameter):
            out.append(k)
    return out


def can_hold(tensors: Sequence[Any]) -> bool:
    """Whether these static inputs can be held as weights: real, contiguous
    tensors on one device whose writes PyTorch counts (not inference tensors)."""
    import torch
    if not tensors:
        return False
    devices = set()
    for t in tensors:
        if not isinstance(t, torch.Tensor) or isinstance(t, torch._subclasses.fake_tensor.FakeTensor):
            return False
        if t.is_inference() or not t.is_contiguous() or t.layout != torch.strided:
            return False
        devices.add(t.device)
    return len(devices) == 1


def placeholder(t: Any) -> Any:
    """A CPU tensor of `t`'s shape and dtype holding one element (every stride
    0): what the exported program holds in place of a weight kiln binds at
    load, so the archive stays small and its key ignores the values."""
    import torch
    return torch.zeros((), dtype=t.dtype).expand(t.shape)


def held_name(k: int) -> str:
    """The program's buffer name for the graph's k-th tensor input."""
    return f"kiln_frozen_{k}"


def held_runner(module, plan, static: Sequence[int], example_inputs, constants=None) -> Callable:
    """The call of an inference graph whose static inputs (`static`, indices
    into plan.tensor_positions) the module holds as weights (with the program's
    lifted `constants`, name -> tensor, given again at each reload): each call passes
    the other inputs, after checking that the held tensors are the ones loaded
    (addresses) and unwritten since (the sum of their version counters, which
    only grow); otherwise the module is loaded again over them."""
    import torch
    positions = plan.tensor_positions
    static_args = [positions[k] for k in static]
    taken = set(static)
    free_args = [positions[k] for k in range(len(positions)) if k not in taken]
    same_addresses = torch._C._tensors_data_ptrs_at_indices_equal
    version = operator.attrgetter("_version")
    pick = operator.itemgetter(*static_args)
    names = [held_name(k) for k in static]

    def held(args) -> List[Any]:
        got = pick(args)
        return list(got) if len(static_args) > 1 else [got]

    state: Dict[str, Any] = {}

    def note(args) -> None:
        ptrs: List[Optional[int]] = [None] * len(args)
        tensors = held(args)
        for i, t in zip(static_args, tensors):
            ptrs[i] = t.data_ptr()
        state["ptrs"] = ptrs
        state["version"] = sum(map(version, tensors))

    note(list(example_inputs))  # what compile loaded the module over

    def run(*args):
        args = list(args)
        if not same_addresses(args, state["ptrs"], static_args) or \
                sum(map(version, held(args))) != state["version"]:
            module.reload_weights({**{n: t.detach() for n, t in zip(names, held(args))}, **(constants or {})})
            note(args)
            state["reloads"] = state.get("reloads", 0) + 1
        return plan.outputs(module.run([args[i] for i in free_args]), args)

    run._kiln_state = state  # for tests: how many reloads
    return run


def bound_runner(module, plan, static: Sequence[int]) -> Callable:
    """The call of an inference graph whose parameters and buffers (`static`)
    are bound to the module once as inputs (compiler.Module.bind): each call
    passes only the other inputs, after one check, in C++, that the static
    ones are still at the addresses bound (a parameter replaced by another
    tensor is bound again). A GPU model's CUDA graph reads them in place."""
    import torch
    positions = plan.tensor_positions
    static_args = [positions[k] for k in static]
    taken = set(static)
    free_args = [positions[k] for k in range(len(positions)) if k not in taken]
    same_addresses = torch._C._tensors_data_ptrs_at_indices_equal
    state: Dict[str, Any] = {"ptrs": None, "bindable": True}

    def run(*args):
        args = list(args)
        if state["ptrs"] is None or not same_addresses(args, state["ptrs"], static_args):
            if state["bindable"]:
                state["bindable"] = module.bind(static, [args[i] for i in static_args])
            if not state["bindable"]:
                state["ptrs"] = None
                return plan.outputs(module.run([args[i] for i in positions]), args)
            ptrs: List[Optional[int]] = [None] * len(args)
            for i in static_args:
                ptrs[i] = args[i].data_ptr()
            state["ptrs"] = ptrs
        return plan.outputs(module.run_bound([args[i] for i in free_args]), args)

    return run

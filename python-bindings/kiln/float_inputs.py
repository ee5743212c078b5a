"""Python floats Dynamo passes to the backend's graph as 0-d tensors.

With `dynamic=True` (or after a float changed value), Dynamo does not specialize
Python floats such as a layer norm's `eps`, a dropout probability or an
attention scale: each becomes a graph input, a 0-d float64 tensor that the
graph turns back into a number with `.item()`. `torch.export` cannot trace
through that number (it is data-dependent: the first comparison on it fails),
so kiln specializes such graphs on the floats' values instead: the `.item()`
results are replaced by the values, the inputs are dropped from the graph kiln
compiles, and every call checks the values it is given (Dynamo does not guard
on them); a value not seen before compiles the graph for it, once.

An integer Dynamo made symbolic that no tensor input's size carries (a length
handed over a graph break, read off a tensor of another graph) is specialized
the same way: kiln cannot rebuild it from the inputs it is given."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Sequence, Tuple


def float_inputs(gm) -> List[int]:
    """The placeholder positions kiln specializes on: an unspecialized Python
    float (Dynamo passes it as a tensor, the graph only reads it with `.item()`),
    or a symbolic integer that no tensor input's size carries."""
    import torch
    found = []
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    dims = {str(d.node.expr) for p in placeholders for d in getattr(p.meta.get("example_value"), "shape", ())
            if isinstance(d, torch.SymInt)}
    for i, p in enumerate(placeholders):
        v = p.meta.get("example_value")
        arg = p.meta.get("grapharg")
        if isinstance(v, torch.SymInt) and str(v.node.expr) not in dims and v.node.has_hint() \
                and not all(u.op == "output" for u in p.users):  # only handed on: see dynamo._Plan
            found.append(i)
            continue
        if arg is None or not getattr(arg, "pass_arg_as_tensor", False) or getattr(arg, "is_tensor", True):
            continue
        fake = p.meta.get("example_value")
        if not isinstance(fake, torch.Tensor) or fake.dim() != 0 or not fake.dtype.is_floating_point:
            continue
        if p.users and all(u.op == "call_method" and u.target == "item" for u in p.users):
            found.append(i)
    return found


def _value(p):
    """The value the placeholder p had when Dynamo traced the graph."""
    import torch
    v = p.meta["example_value"]
    if isinstance(v, torch.SymInt):
        return int(v.node.hint)
    return float(p.meta["grapharg"].example.item())


def _key(values: Sequence[Any]) -> Tuple[str, ...]:
    return tuple(v.hex() if isinstance(v, float) else repr(v) for v in values)  # NaN equals itself here


def _specialize(gm, positions: Sequence[int], values: Sequence[float]):
    """A copy of gm with the floats at `positions` replaced by `values` and
    their placeholders removed."""
    import torch
    graph = torch.fx.Graph()
    env: Dict[Any, Any] = {}
    out = graph.graph_copy(gm.graph, env)
    graph.output(out)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    for i, v in zip(positions, values):
        p = placeholders[i]
        if not isinstance(p.meta.get("example_value"), torch.Tensor):  # an integer
            for user in list(p.users):
                user.replace_input_with(p, int(v))
            graph.erase_node(p)
            continue
        for item in list(p.users):
            for user in list(item.users):
                user.replace_input_with(item, float(v))
            graph.erase_node(item)
        graph.erase_node(p)
    graph.lint()
    return torch.fx.GraphModule(gm, graph)


def specialized(gm, example_inputs, positions: Sequence[int], compile_graph: Callable) -> Callable:
    """The callable Dynamo runs for gm: compile_graph(graph, inputs) of gm
    specialized on the floats it is called with."""
    take = set(positions)
    rest = [i for i in range(len(example_inputs)) if i not in take]
    compiled: Dict[Tuple[str, ...], Callable] = {}

    def values_of(args) -> List[float]:
        return [args[i].item() if hasattr(args[i], "item") else args[i] for i in positions]

    def build(values: List[float]) -> Callable:
        g = _specialize(gm, positions, values)
        return compile_graph(g, [example_inputs[i] for i in rest])

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    first = [_value(placeholders[i]) for i in positions]
    compiled[_key(first)] = build(first)

    def run(*args):
        values = values_of(args)
        key = _key(values)
        fn = compiled.get(key)
        if fn is None:
            fn = compiled[key] = build(values)
        return fn(*[args[i] for i in rest])

    run._kiln_specialized = compiled  # for tests and debugging
    return run

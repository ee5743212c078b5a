"""The torch.autograd.Function classes through which a graph compiled for
training by the Dynamo backend (kiln.dynamo) runs: one over kiln's forward and
value-and-gradient modules (the backward recomputes the forward), one over the
two halves of a split value and gradient (kiln-compile --grad --split), whose
backward reads the residuals the forward saved.
"""
from __future__ import annotations

from typing import Dict, Sequence, Tuple


def whole_function(fwd, grad, grad_slot: Dict[int, int], num_outputs: int,
                   mutated: Sequence[int] = ()):
    """A torch.autograd.Function running kiln's forward module, and in backward
    its value-and-gradient module on the saved inputs and the cotangents. The
    forward applies the graph's state updates (a training batch norm's running
    statistics) to the inputs they mutate; the backward recomputes them into
    copies of those inputs (`mutated`), so they are applied once. A graph with
    random ops (dropout) replays the forward's generator state in the
    backward, so the recomputed forward draws the forward's masks."""
    import numpy as np
    import torch

    class KilnGraph(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *tensors):
            ctx.save_for_backward(*tensors)
            ctx.rng_state = np.zeros(2, dtype=np.int64) if fwd.is_random else None
            return tuple(fwd.run(list(tensors), rng_state_used=ctx.rng_state))

        @staticmethod
        def backward(ctx, *cotangents):
            tensors = [t.clone() if k in mutated else t for k, t in enumerate(ctx.saved_tensors)]
            outs = grad.run(list(tensors) + [c.contiguous() for c in cotangents], rng_state=ctx.rng_state)
            grads = outs[num_outputs:]
            return tuple(grads[grad_slot[k]] if k in grad_slot and ctx.needs_input_grad[k] else None
                         for k in range(len(tensors)))

    return KilnGraph


def split_function(fwd, bwd, grad_slot: Dict[int, int], num_outputs: int,
                   sources: Sequence[Tuple[str, int]]):
    """A torch.autograd.Function over the two halves of kiln's value and
    gradient (kiln-compile --grad --split): the forward module returns the
    outputs and the residuals, which are saved for backward together with the
    inputs and outputs the backward reads as they are; the backward module
    takes them and the cotangents and returns the gradients. The forward
    applies the graph's state updates (a training batch norm's running
    statistics) and draws its random numbers (dropout masks are residuals)
    once; nothing of it runs again in the backward."""
    import torch

    saved_sources = [(kind, k) for kind, k in sources if kind != "cotangent"]

    class KilnGraphSplit(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *tensors):
            outs = fwd.run(list(tensors))
            user, results = outs[:num_outputs], outs[num_outputs:]
            pick = {"input": tensors, "output": user, "result": results}
            ctx.save_for_backward(*[pick[kind][k] for kind, k in saved_sources])
            ctx.num_inputs = len(tensors)
            return tuple(user)

        @staticmethod
        def backward(ctx, *cotangents):
            grads = bwd.run(list(ctx.saved_tensors) + [c.contiguous() for c in cotangents])
            return tuple(grads[grad_slot[k]] if k in grad_slot and ctx.needs_input_grad[k] else None
                         for k in range(ctx.num_inputs))

    return KilnGraphSplit

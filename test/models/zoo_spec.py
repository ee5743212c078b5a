"""One model of the zoo (export_zoo.py): how to build it, its inputs, what is tested."""


class Spec:
    """name: the folder under BUILD/test/data/zoo; desc: one line for docs/zoo.md;
    make(): the module (called after torch.manual_seed(0)); inputs(g, b): the inputs
    at batch b from generator g; grad: also export gradient references;
    dynamic: try a symbolic batch dim (dim 0 of every input);
    seq: also a symbolic sequence length (dim 1 of every input, export_zoo.SEQ_RANGE;
    inputs(g, b, s) then makes inputs of length s), checked at three lengths and
    refused (exit 2) past its range;
    rtol/atol: the forward tolerance (kiln-run's defaults, as for the corpus)."""

    def __init__(self, name, desc, make, inputs, grad=False, dynamic=True, seq=False, rtol=1e-4, atol=1e-5,
                 grad_rtol=1e-4, grad_atol=1e-4):
        self.name, self.desc, self.make, self.inputs = name, desc, make, inputs
        self.grad, self.dynamic, self.seq = grad, dynamic, seq
        self.rtol, self.atol, self.grad_rtol, self.grad_atol = rtol, atol, grad_rtol, grad_atol

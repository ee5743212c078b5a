"""Samples for the core ATen ops that no OpInfo entry of torch's op database
reaches in an exported graph (backward ops, explicit padding ops, Scalar
overloads, ...). Each entry calls the op itself through torch.ops.aten with
small inputs and plays the part of an OpInfo for generate.py ("extra.<op>").
Inputs are made from the generator generate.py seeds; values stay in the ops'
domains (positive variances, valid indices).
"""


def extra_opinfos(torch):
    from torch.testing._internal.opinfo.core import SampleInput

    aten = torch.ops.aten
    floats = (torch.float32, torch.float64, torch.float16, torch.bfloat16)
    ints = (torch.int64, torch.int32, torch.uint8, torch.int8)

    def t(shape, dtype, low=-3.0, high=3.0):
        if dtype == torch.bool:
            return torch.rand(shape) > 0.5
        if dtype.is_floating_point:
            return (torch.rand(shape, dtype=torch.float64) * (high - low) + low).to(dtype)
        lo = 0 if dtype == torch.uint8 else int(low)
        return torch.randint(lo, max(int(high), lo + 1) + 1, shape, dtype=dtype)

    def positive(shape, dtype):
        return t(shape, dtype, 0.5, 2.0)

    # name -> (callable, dtypes, sample maker(dtype) -> [SampleInput])
    entries = {}

    def add(op, fn, dtypes, samples):
        entries[op] = (fn, dtypes, samples)

    add("_native_batch_norm_legit_no_training", aten._native_batch_norm_legit_no_training.default, floats[:2],
        lambda d: [SampleInput(t((2, 3, 4, 4), d), args=(t((3,), d), t((3,), d), t((3,), d), positive((3,), d),
                                                          0.1, 1e-5)),
                   SampleInput(t((4, 5), d), args=(None, None, t((5,), d), positive((5,), d), 0.1, 1e-3))])
    add("_native_batch_norm_legit.no_stats", aten._native_batch_norm_legit.no_stats, floats[:2],
        lambda d: [SampleInput(t((2, 3, 4, 4), d), args=(t((3,), d), t((3,), d), True, 0.1, 1e-5))])
    add("_native_batch_norm_legit", aten._native_batch_norm_legit.default, floats[:2],
        lambda d: [SampleInput(t((2, 3, 4), d), args=(t((3,), d), t((3,), d), t((3,), d), positive((3,), d),
                                                       False, 0.1, 1e-5))])
    for op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        add(op + ".Scalar", getattr(aten, op).Scalar, ints + (torch.bool,),
            lambda d: [SampleInput(t((3, 4), d), args=(True if d == torch.bool else 5,))])
    add("bitwise_xor.Tensor", aten.bitwise_xor.Tensor, ints + (torch.bool,),
        lambda d: [SampleInput(t((3, 4), d), args=(t((4,), d),))])
    add("div.Scalar_mode", aten.div.Scalar_mode, floats + ints[:2],
        lambda d: [SampleInput(t((3, 4), d, -9, 9), args=(2,), kwargs={"rounding_mode": "floor"}),
                   SampleInput(t((3, 4), d, -9, 9), args=(-3,), kwargs={"rounding_mode": "trunc"})])
    add("fill.Scalar", aten.fill.Scalar, floats + ints + (torch.bool,),
        lambda d: [SampleInput(t((2, 3), d), args=(1,))])
    add("prod.dim_int", aten.prod.dim_int, floats + ints[:2],
        lambda d: [SampleInput(t((3, 4), d, -2, 2), args=(1,)), SampleInput(t((2, 3, 2), d, -2, 2), args=(0, True))])
    add("reflection_pad1d", aten.reflection_pad1d.default, floats,
        lambda d: [SampleInput(t((2, 3, 6), d), args=([2, 1],))])
    add("reflection_pad2d", aten.reflection_pad2d.default, floats,
        lambda d: [SampleInput(t((1, 2, 4, 5), d), args=([1, 2, 2, 1],))])
    add("reflection_pad3d", aten.reflection_pad3d.default, floats,
        lambda d: [SampleInput(t((1, 2, 3, 4, 4), d), args=([1, 1, 2, 0, 1, 2],))])
    add("replication_pad2d", aten.replication_pad2d.default, floats,
        lambda d: [SampleInput(t((1, 2, 4, 5), d), args=([1, 2, 3, 0],))])
    add("replication_pad3d", aten.replication_pad3d.default, floats,
        lambda d: [SampleInput(t((1, 2, 3, 4, 4), d), args=([1, 0, 2, 1, 0, 2],))])
    add("scatter.value", aten.scatter.value, floats + ints,
        lambda d: [SampleInput(t((3, 5), d), args=(1, torch.tensor([[0, 4], [2, 1], [3, 3]]), 2))])
    add("select_scatter", aten.select_scatter.default, floats + ints + (torch.bool,),
        lambda d: [SampleInput(t((3, 4, 2), d), args=(t((3, 2), d), 1, 2)),
                   SampleInput(t((3, 4), d), args=(t((4,), d), 0, -1))])
    add("squeeze.dim", aten.squeeze.dim, floats + ints + (torch.bool,),
        lambda d: [SampleInput(t((3, 1, 4), d), args=(1,)), SampleInput(t((3, 4), d), args=(-1,))])
    add("upsample_nearest2d.vec", aten.upsample_nearest2d.vec, floats,
        lambda d: [SampleInput(t((1, 2, 3, 4), d), args=([6, 8], None)),
                   SampleInput(t((1, 2, 3, 4), d), args=(None, [1.5, 2.0]))])
    add("var.dim", aten.var.dim, floats[:2],
        lambda d: [SampleInput(t((3, 4), d), args=([1],)), SampleInput(t((2, 3, 4), d), args=([0, 2], False, True))])
    add("col2im", aten.col2im.default, floats[:2],
        lambda d: [SampleInput(t((1, 2 * 2 * 2, 12), d), args=([4, 5], [2, 2], [1, 1], [0, 0], [1, 1]))])
    add("_embedding_bag", aten._embedding_bag.default, floats[:2],
        lambda d: [SampleInput(t((10, 3), d), args=(torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]),
                                                    torch.tensor([0, 4]), False, 0)),
                   SampleInput(t((10, 3), d), args=(torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2, 5]),
                                                    False, 1))])
    add("convolution_backward", aten.convolution_backward.default, floats[:2],
        lambda d: [SampleInput(t((2, 4, 3, 3), d), args=(t((2, 3, 5, 5), d), t((4, 3, 3, 3), d), [4], [1, 1],
                                                          [0, 0], [1, 1], False, [0, 0], 1, [True, True, True]))])
    add("native_layer_norm_backward", aten.native_layer_norm_backward.default, floats[:2],
        lambda d: [SampleInput(t((2, 3, 4), d), args=(t((2, 3, 4), d), [4], t((2, 3, 1), d), positive((2, 3, 1), d),
                                                       t((4,), d), t((4,), d), [True, True, True]))])
    add("native_group_norm_backward", aten.native_group_norm_backward.default, floats[:2],
        lambda d: [SampleInput(t((2, 4, 3), d), args=(t((2, 4, 3), d), t((2, 2), d), positive((2, 2), d),
                                                       t((4,), d), 2, 4, 3, 2, [True, True, True]))])
    add("embedding_dense_backward", aten.embedding_dense_backward.default, floats[:2],
        lambda d: [SampleInput(t((2, 3, 4), d), args=(torch.tensor([[0, 2, 2], [5, 1, 0]]), 6, -1, False))])
    add("avg_pool2d_backward", aten.avg_pool2d_backward.default, floats[:2],
        lambda d: [SampleInput(t((1, 2, 3, 3), d), args=(t((1, 2, 6, 6), d), [2, 2], [2, 2], [0, 0], False,
                                                          True, None))])
    add("_adaptive_avg_pool2d_backward", aten._adaptive_avg_pool2d_backward.default, floats[:2],
        lambda d: [SampleInput(t((1, 2, 2, 3), d), args=(t((1, 2, 5, 7), d),))])

    class Extra:
        """Just enough of an OpInfo for generate.py."""

        def __init__(self, name, fn, dtypes, samples):
            self.name, self.variant_test_name, self.op = "extra." + name, "", fn
            self._dtypes, self._samples = set(dtypes), samples

        def supported_dtypes(self, device):
            return self._dtypes

        def sample_inputs(self, device, dtype):
            return self._samples(dtype) if dtype in self._dtypes else []

    return [Extra(name, fn, dts, samples) for name, (fn, dts, samples) in entries.items()]

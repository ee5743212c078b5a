//===- Ops/Pooling.cpp - import handlers: pooling ---------------------------===//
#include "../ImporterImpl.h"

namespace kiln::importer {

namespace {
/// ATen's "int or list of n ints" window arguments: [k] -> [k, ..., k].
SmallVector<int64_t> nOf(SmallVector<int64_t> v, size_t n) {
  if (v.size() == 1)
    v.resize(n, v[0]);
  return v;
}
} // namespace

void registerPoolingHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  // max_pool{2,3}d[_with_indices]: stride [] means the kernel size.
  auto maxPool = [&g](auto tag, size_t n) {
    using OpT = typename decltype(tag)::type;
    return [&g, n](const Object &node, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(node, "self", loc));
      KILN_TRY(kernel, g.intsArg(node, "kernel_size", std::nullopt, loc));
      KILN_TRY(stride, g.intsArg(node, "stride", SmallVector<int64_t>{}, loc));
      KILN_TRY(padding, g.intsArg(node, "padding", SmallVector<int64_t>{0}, loc));
      KILN_TRY(dilation, g.intsArg(node, "dilation", SmallVector<int64_t>{1}, loc));
      KILN_TRY(ceil, g.boolArg(node, "ceil_mode", false, loc));
      SmallVector<int64_t> k = nOf(*kernel, n);
      SmallVector<int64_t> s = stride->empty() ? k : nOf(*stride, n);
      return g.emitOp<OpT>(node, loc, *x, k, s, nOf(*padding, n), nOf(*dilation, n), *ceil);
    };
  };
  h["torch.ops.aten.max_pool2d.default"] = maxPool(OpTag<MaxPool2dOp>{}, 2);
  h["torch.ops.aten.max_pool2d_with_indices.default"] =
      maxPool(OpTag<MaxPool2dWithIndicesOp>{}, 2);
  h["torch.ops.aten.max_pool3d.default"] = maxPool(OpTag<MaxPool3dOp>{}, 3);
  h["torch.ops.aten.max_pool3d_with_indices.default"] =
      maxPool(OpTag<MaxPool3dWithIndicesOp>{}, 3);

  // avg_pool{2,3}d: stride [] means the kernel size; divisor_override may be None.
  auto avgPool = [&g](auto tag, size_t n) {
    using OpT = typename decltype(tag)::type;
    return [&g, n](const Object &node, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(node, "self", loc));
      KILN_TRY(kernel, g.intsArg(node, "kernel_size", std::nullopt, loc));
      KILN_TRY(stride, g.intsArg(node, "stride", SmallVector<int64_t>{}, loc));
      KILN_TRY(padding, g.intsArg(node, "padding", SmallVector<int64_t>{0}, loc));
      KILN_TRY(ceil, g.boolArg(node, "ceil_mode", false, loc));
      KILN_TRY(countPad, g.boolArg(node, "count_include_pad", true, loc));
      IntegerAttr divisor;
      if (!g.isNone(node, "divisor_override")) {
        KILN_TRY(d, g.intArg(node, "divisor_override", std::nullopt, loc));
        divisor = g.b.getI64IntegerAttr(*d);
      }
      SmallVector<int64_t> k = nOf(*kernel, n);
      SmallVector<int64_t> s = stride->empty() ? k : nOf(*stride, n);
      return g.emitOp<OpT>(node, loc, *x, k, s, nOf(*padding, n), *ceil, *countPad, divisor);
    };
  };
  h["torch.ops.aten.avg_pool2d.default"] = avgPool(OpTag<AvgPool2dOp>{}, 2);
  h["torch.ops.aten.avg_pool3d.default"] = avgPool(OpTag<AvgPool3dOp>{}, 3);
  h["torch.ops.aten.avg_pool2d_backward.default"] = [&g](const Object &node,
                                                         Location loc) -> LogicalResult {
    KILN_TRY(grad, g.tensorArg(node, "grad_output", loc));
    KILN_TRY(x, g.tensorArg(node, "self", loc));
    KILN_TRY(kernel, g.intsArg(node, "kernel_size", std::nullopt, loc));
    KILN_TRY(stride, g.intsArg(node, "stride", std::nullopt, loc));
    KILN_TRY(padding, g.intsArg(node, "padding", std::nullopt, loc));
    KILN_TRY(ceil, g.boolArg(node, "ceil_mode", std::nullopt, loc));
    KILN_TRY(countPad, g.boolArg(node, "count_include_pad", std::nullopt, loc));
    IntegerAttr divisor;
    if (!g.isNone(node, "divisor_override")) {
      KILN_TRY(d, g.intArg(node, "divisor_override", std::nullopt, loc));
      divisor = g.b.getI64IntegerAttr(*d);
    }
    SmallVector<int64_t> k = nOf(*kernel, 2);
    SmallVector<int64_t> s = stride->empty() ? k : nOf(*stride, 2);
    return g.emitOp<AvgPool2dBackwardOp>(node, loc, *grad, *x, k, s, nOf(*padding, 2), *ceil,
                                         *countPad, divisor);
  };

  // adaptive_avg_pool{2,3}d and the _adaptive_avg_pool{2,3}d core forms (same semantics).
  auto adaptive = [&g](auto tag, size_t n) {
    using OpT = typename decltype(tag)::type;
    return [&g, n](const Object &node, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(node, "self", loc));
      KILN_TRY(size, g.intsArg(node, "output_size", std::nullopt, loc));
      return g.emitOp<OpT>(node, loc, *x, nOf(*size, n));
    };
  };
  h["torch.ops.aten.adaptive_avg_pool2d.default"] = adaptive(OpTag<AdaptiveAvgPool2dOp>{}, 2);
  h["torch.ops.aten._adaptive_avg_pool2d.default"] = adaptive(OpTag<AdaptiveAvgPool2dOp>{}, 2);
  h["torch.ops.aten.adaptive_avg_pool3d.default"] = adaptive(OpTag<AdaptiveAvgPool3dOp>{}, 3);
  h["torch.ops.aten._adaptive_avg_pool3d.default"] = adaptive(OpTag<AdaptiveAvgPool3dOp>{}, 3);
}

} // namespace kiln::importer

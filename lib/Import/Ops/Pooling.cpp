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

/// A pooling window of n dims: kernel_size, stride (empty means the kernel
/// size) and padding, each widened to n entries.
struct Window {
  SmallVector<int64_t> kernel, stride, padding;
};

/// Reads a pooling op's kernel_size, stride and padding. The forward ops
/// default stride to [] (the kernel size) and padding to [0]; the backward ops
/// (`required`) have no defaults.
FailureOr<Window> windowArgs(GraphImporter &g, const Object &node, size_t n, bool required,
                             Location loc) {
  auto orDefault = [&](SmallVector<int64_t> v) {
    return required ? std::nullopt : std::optional<SmallVector<int64_t>>(std::move(v));
  };
  KILN_TRY(kernel, g.intsArg(node, "kernel_size", std::nullopt, loc));
  KILN_TRY(stride, g.intsArg(node, "stride", orDefault({}), loc));
  KILN_TRY(padding, g.intsArg(node, "padding", orDefault({0}), loc));
  Window w{nOf(*kernel, n), {}, nOf(*padding, n)};
  w.stride = stride->empty() ? w.kernel : nOf(*stride, n);
  return w;
}

/// divisor_override of the average pools: None, or the divisor as an attribute.
FailureOr<IntegerAttr> divisorOverrideArg(GraphImporter &g, const Object &node, Location loc) {
  if (g.isNone(node, "divisor_override"))
    return IntegerAttr();
  KILN_TRY(d, g.intArg(node, "divisor_override", std::nullopt, loc));
  return g.b.getI64IntegerAttr(*d);
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
      KILN_TRY(w, windowArgs(g, node, n, /*required=*/false, loc));
      KILN_TRY(dilation, g.intsArg(node, "dilation", SmallVector<int64_t>{1}, loc));
      KILN_TRY(ceil, g.boolArg(node, "ceil_mode", false, loc));
      return g.emitOp<OpT>(node, loc, *x, w->kernel, w->stride, w->padding, nOf(*dilation, n),
                           *ceil);
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
      KILN_TRY(w, windowArgs(g, node, n, /*required=*/false, loc));
      KILN_TRY(ceil, g.boolArg(node, "ceil_mode", false, loc));
      KILN_TRY(countPad, g.boolArg(node, "count_include_pad", true, loc));
      KILN_TRY(divisor, divisorOverrideArg(g, node, loc));
      return g.emitOp<OpT>(node, loc, *x, w->kernel, w->stride, w->padding, *ceil, *countPad,
                           *divisor);
    };
  };
  h["torch.ops.aten.avg_pool2d.default"] = avgPool(OpTag<AvgPool2dOp>{}, 2);
  h["torch.ops.aten.avg_pool3d.default"] = avgPool(OpTag<AvgPool3dOp>{}, 3);
  h["torch.ops.aten.avg_pool2d_backward.default"] = [&g](const Object &node,
                                                         Location loc) -> LogicalResult {
    KILN_TRY(grad, g.tensorArg(node, "grad_output", loc));
    KILN_TRY(x, g.tensorArg(node, "self", loc));
    KILN_TRY(w, windowArgs(g, node, 2, /*required=*/true, loc));
    KILN_TRY(ceil, g.boolArg(node, "ceil_mode", std::nullopt, loc));
    KILN_TRY(countPad, g.boolArg(node, "count_include_pad", std::nullopt, loc));
    KILN_TRY(divisor, divisorOverrideArg(g, node, loc));
    return g.emitOp<AvgPool2dBackwardOp>(node, loc, *grad, *x, w->kernel, w->stride, w->padding,
                                         *ceil, *countPad, *divisor);
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

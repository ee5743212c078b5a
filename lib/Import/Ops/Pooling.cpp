//===- Ops/Pooling.cpp - import handlers: pooling ---------------------------===//
#include "../ImporterImpl.h"

namespace kiln::importer {

void registerPoolingHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  auto maxPool = [&g](const Object &n, Location loc, bool withIndices) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(kernel, g.intsArg(n, "kernel_size", std::nullopt, loc));
    KILN_TRY(stride, g.intsArg(n, "stride", SmallVector<int64_t>{}, loc));
    KILN_TRY(padding, g.intsArg(n, "padding", SmallVector<int64_t>{0}, loc));
    KILN_TRY(dilation, g.intsArg(n, "dilation", SmallVector<int64_t>{1}, loc));
    KILN_TRY(ceil, g.boolArg(n, "ceil_mode", false, loc));
    SmallVector<int64_t> k = pairOf(*kernel);
    SmallVector<int64_t> s = stride->empty() ? k : pairOf(*stride); // ATen: stride=[] -> kernel
    if (withIndices)
      return g.emitOp<MaxPool2dWithIndicesOp>(n, loc, *x, k, s, pairOf(*padding), pairOf(*dilation),
                                            *ceil);
    return g.emitOp<MaxPool2dOp>(n, loc, *x, k, s, pairOf(*padding), pairOf(*dilation), *ceil);
  };
  h["torch.ops.aten.max_pool2d.default"] = [maxPool](const Object &n, Location loc) {
    return maxPool(n, loc, false);
  };
  h["torch.ops.aten.max_pool2d_with_indices.default"] = [maxPool](const Object &n,
                                                                  Location loc) {
    return maxPool(n, loc, true);
  };
  h["torch.ops.aten.adaptive_avg_pool2d.default"] = [&g](const Object &n,
                                                                 Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(size, g.intsArg(n, "output_size", std::nullopt, loc));
    return g.emitOp<AdaptiveAvgPool2dOp>(n, loc, *x, pairOf(*size));
  };
}

} // namespace kiln::importer

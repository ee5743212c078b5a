//===- Ops/Convolution.cpp - import handlers: convolutions ------------------===//
#include "../ImporterImpl.h"

namespace kiln::importer {

void registerConvolutionHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  h["torch.ops.aten.conv2d.default"] = [&g](const Object &n,
                                                    Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(w, g.tensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    KILN_TRY(stride, g.intsArg(n, "stride", SmallVector<int64_t>{1, 1}, loc));
    KILN_TRY(padding, g.intsArg(n, "padding", SmallVector<int64_t>{0, 0}, loc));
    KILN_TRY(dilation, g.intsArg(n, "dilation", SmallVector<int64_t>{1, 1}, loc));
    KILN_TRY(groups, g.intArg(n, "groups", 1, loc));
    return g.emitOp<Conv2dOp>(n, loc, *x, *w, *bias, pairOf(*stride), pairOf(*padding),
                            pairOf(*dilation), *groups);
  };
  h["torch.ops.aten.convolution.default"] = [&g](const Object &n,
                                                         Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(w, g.tensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    KILN_TRY(stride, g.intsArg(n, "stride", std::nullopt, loc));
    KILN_TRY(padding, g.intsArg(n, "padding", std::nullopt, loc));
    KILN_TRY(dilation, g.intsArg(n, "dilation", std::nullopt, loc));
    KILN_TRY(transposed, g.boolArg(n, "transposed", std::nullopt, loc));
    KILN_TRY(outPad, g.intsArg(n, "output_padding", std::nullopt, loc));
    KILN_TRY(groups, g.intArg(n, "groups", std::nullopt, loc));
    if (cast<RankedTensorType>(x->getType()).getRank() < 3 ||
        cast<RankedTensorType>(x->getType()).getRank() > 4)
      return g.fail(loc, "only 2-d convolutions are supported (aten.convolution with a rank-" +
                           std::to_string(cast<RankedTensorType>(x->getType()).getRank()) +
                           " input)");
    return g.emitOp<ConvolutionOp>(n, loc, *x, *w, *bias, pairOf(*stride), pairOf(*padding),
                                 pairOf(*dilation), *transposed, pairOf(*outPad), *groups);
  };
}

} // namespace kiln::importer

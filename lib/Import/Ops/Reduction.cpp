//===- Ops/Reduction.cpp - import handlers: reductions ----------------------===//
#include "../ImporterImpl.h"

namespace kiln::importer {

void registerReductionHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  h["torch.ops.aten.mean.dim"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    DenseI64ArrayAttr dims;
    if (!g.isNone(n, "dim")) {
      KILN_TRY(d, g.intsArg(n, "dim", std::nullopt, loc));
      dims = g.b.getDenseI64ArrayAttr(*d);
    }
    KILN_TRY(keep, g.boolArg(n, "keepdim", false, loc));
    if (!g.isNone(n, "dtype"))
      return g.fail(loc, "aten.mean.dim with an explicit dtype is not supported yet");
    return g.emitOp<MeanDimOp>(n, loc, *x, dims, *keep);
  };
}

} // namespace kiln::importer

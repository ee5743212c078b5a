//===- Ops/Linear.cpp - import handlers: matrix products --------------------===//
#include "../ImporterImpl.h"

namespace kiln::importer {

void registerLinearHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  h["torch.ops.aten.linear.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(w, g.tensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    return g.emitOp<LinearOp>(n, loc, *x, *w, *bias);
  };
  h["torch.ops.aten.addmm.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(self, g.tensorArg(n, "self", loc));
    KILN_TRY(m1, g.tensorArg(n, "mat1", loc));
    KILN_TRY(m2, g.tensorArg(n, "mat2", loc));
    KILN_TRY(beta, g.floatArg(n, "beta", 1.0, loc));
    KILN_TRY(alpha, g.floatArg(n, "alpha", 1.0, loc));
    return g.emitOp<AddmmOp>(n, loc, *self, *m1, *m2, g.b.getF64FloatAttr(*beta),
                           g.b.getF64FloatAttr(*alpha));
  };
}

} // namespace kiln::importer

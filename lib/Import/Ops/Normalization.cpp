//===- Ops/Normalization.cpp - import handlers: batch norm ------------------===//
#include "../ImporterImpl.h"

namespace kiln::importer {

void registerNormalizationHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  h["torch.ops.aten.batch_norm.default"] = [&g](const Object &n,
                                                  Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(w, g.optTensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    KILN_TRY(mean, g.optTensorArg(n, "running_mean", loc));
    KILN_TRY(var, g.optTensorArg(n, "running_var", loc));
    KILN_TRY(training, g.boolArg(n, "training", std::nullopt, loc));
    KILN_TRY(momentum, g.floatArg(n, "momentum", std::nullopt, loc));
    KILN_TRY(eps, g.floatArg(n, "eps", std::nullopt, loc));
    KILN_TRY(cudnn, g.boolArg(n, "cudnn_enabled", true, loc));
    return g.emitOp<BatchNormOp>(n, loc, *x, *w, *bias, *mean, *var, g.b.getBoolAttr(*training),
                               g.b.getF64FloatAttr(*momentum), g.b.getF64FloatAttr(*eps),
                               g.b.getBoolAttr(*cudnn));
  };
  h["torch.ops.aten._native_batch_norm_legit_no_training.default"] =
      [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(w, g.optTensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    KILN_TRY(mean, g.tensorArg(n, "running_mean", loc));
    KILN_TRY(var, g.tensorArg(n, "running_var", loc));
    KILN_TRY(momentum, g.floatArg(n, "momentum", std::nullopt, loc));
    KILN_TRY(eps, g.floatArg(n, "eps", std::nullopt, loc));
    return g.emitOp<NativeBatchNormLegitNoTrainingOp>(n, loc, *x, *w, *bias, *mean, *var,
                                                    g.b.getF64FloatAttr(*momentum),
                                                    g.b.getF64FloatAttr(*eps));
  };
}

} // namespace kiln::importer

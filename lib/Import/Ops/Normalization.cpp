//===- Ops/Normalization.cpp - import handlers: softmax and normalisation ---===//
#include "../ImporterImpl.h"

namespace kiln::importer {

/// Training batch norm that updates running statistics in place (batch_norm
/// and _native_batch_norm_legit with training): imported as
/// _native_batch_norm_legit_functional, binding the node's outputs to its
/// first results and writing the new statistics into the running tensors.
static LogicalResult importStatefulBatchNorm(GraphImporter &g, const Object &n, Location loc,
                                             Value x, Value w, Value bias, double momentum,
                                             double eps) {
  using namespace kiln::aten;
  KILN_TRY(meanVar, g.varOfArg(n, "running_mean", loc));
  KILN_TRY(varVar, g.varOfArg(n, "running_var", loc));
  KILN_TRY(types, g.resultTypes(n, loc));
  Value mean = g.readVar(*meanVar), var = g.readVar(*varVar);
  auto xTy = cast<RankedTensorType>(x.getType());
  if (xTy.getRank() < 2)
    return g.fail(loc, "batch norm expects an input of rank 2 or more");
  auto stat = RankedTensorType::get({xTy.getDimSize(1)}, xTy.getElementType());
  SmallVector<Type> all{(*types)[0], stat, stat, mean.getType(), var.getType()};
  for (auto [i, t] : llvm::enumerate(ArrayRef<Type>(*types).drop_front()))
    all[i + 1] = t;
  auto op = NativeBatchNormLegitFunctionalOp::create(
      g.b, loc, all, x, w, bias, mean, var, g.b.getBoolAttr(true),
      g.b.getF64FloatAttr(momentum), g.b.getF64FloatAttr(eps));
  for (auto [i, name] : llvm::enumerate(g.outputNames(n)))
    if (!name.empty() && i < op->getNumResults())
      g.varOf[name] = g.newVar(op->getResult(i));
  g.writeVar(*meanVar, op.getRunningMeanOut());
  g.writeVar(*varVar, op.getRunningVarOut());
  return success();
}

/// Whether a norm takes running statistics, and whether they may be None.
enum class Stats { Absent, Optional, Required };

/// The tensors of a batch or instance norm: input, optional weight and bias
/// and, as `stats` says, running_mean and running_var (null when absent/None).
struct NormOperands {
  Value x, w, bias, mean, var;
};
static FailureOr<NormOperands> readNormOperands(GraphImporter &g, const Object &n, Location loc,
                                                Stats stats) {
  KILN_TRY(x, g.tensorArg(n, "input", loc));
  KILN_TRY(w, g.optTensorArg(n, "weight", loc));
  KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
  NormOperands o{*x, *w, *bias, {}, {}};
  if (stats == Stats::Absent)
    return o;
  auto stat = [&](StringRef name) {
    return stats == Stats::Required ? g.tensorArg(n, name, loc) : g.optTensorArg(n, name, loc);
  };
  KILN_TRY(mean, stat("running_mean"));
  KILN_TRY(var, stat("running_var"));
  o.mean = *mean;
  o.var = *var;
  return o;
}

void registerNormalizationHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  const std::string p = "torch.ops.aten.";

  auto softmax = [&g](auto tag) {
    using OpT = typename decltype(tag)::type;
    return [&g](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      KILN_TRY(d, g.intArg(n, "dim", std::nullopt, loc));
      KILN_TRY(half, g.boolArg(n, "half_to_float", false, loc));
      return g.emitOp<OpT>(n, loc, *x, *d, *half);
    };
  };
  h[p + "_softmax.default"] = softmax(OpTag<SoftmaxOp>());
  h[p + "_log_softmax.default"] = softmax(OpTag<LogSoftmaxOp>());
  auto softmaxInt = [&g](auto tag) {
    using OpT = typename decltype(tag)::type;
    return [&g](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      KILN_TRY(d, g.intArg(n, "dim", std::nullopt, loc));
      KILN_TRY(dtype, optDtypeArg(g, n, "dtype", loc));
      return g.emitOp<OpT>(n, loc, *x, *d, *dtype ? TypeAttr::get(*dtype) : TypeAttr());
    };
  };
  h[p + "softmax.int"] = softmaxInt(OpTag<SoftmaxIntOp>());
  h[p + "log_softmax.int"] = softmaxInt(OpTag<LogSoftmaxIntOp>());

  /// normalized_shape: static entries, `?` for symbolic ones.
  auto normalizedShape = [&g](const Object &n, Location loc) -> FailureOr<SmallVector<int64_t>> {
    SmallVector<int64_t> statics;
    SmallVector<Value> dynamic;
    if (failed(g.symIntsArg(n, "normalized_shape", statics, dynamic, loc)))
      return failure();
    return statics;
  };
  h[p + "layer_norm.default"] = [&g, normalizedShape](const Object &n,
                                                      Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(shape, normalizedShape(n, loc));
    KILN_TRY(w, g.optTensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    KILN_TRY(eps, g.floatArg(n, "eps", 1e-5, loc));
    KILN_TRY(cudnn, g.boolArg(n, "cudnn_enable", true, loc));
    return g.emitOp<LayerNormOp>(n, loc, *x, *w, *bias, g.b.getDenseI64ArrayAttr(*shape), g.b.getF64FloatAttr(*eps),
                                 g.b.getBoolAttr(*cudnn));
  };
  h[p + "native_layer_norm.default"] = [&g, normalizedShape](const Object &n,
                                                             Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(shape, normalizedShape(n, loc));
    KILN_TRY(w, g.optTensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    KILN_TRY(eps, g.floatArg(n, "eps", std::nullopt, loc));
    return g.emitOp<NativeLayerNormOp>(n, loc, *x, *w, *bias, g.b.getDenseI64ArrayAttr(*shape), g.b.getF64FloatAttr(*eps));
  };
  h[p + "rms_norm.default"] = [&g, normalizedShape](const Object &n,
                                                    Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(shape, normalizedShape(n, loc));
    KILN_TRY(w, g.optTensorArg(n, "weight", loc));
    FloatAttr epsAttr;
    if (!g.isNone(n, "eps")) {
      KILN_TRY(eps, g.floatArg(n, "eps", std::nullopt, loc));
      epsAttr = g.b.getF64FloatAttr(*eps);
    }
    return g.emitOp<RmsNormOp>(n, loc, *x, *w, g.b.getDenseI64ArrayAttr(*shape), epsAttr);
  };
  h[p + "group_norm.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(groups, g.intArg(n, "num_groups", std::nullopt, loc));
    KILN_TRY(w, g.optTensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    KILN_TRY(eps, g.floatArg(n, "eps", 1e-5, loc));
    return g.emitOp<GroupNormOp>(n, loc, *x, *w, *bias, g.b.getI64IntegerAttr(*groups), g.b.getF64FloatAttr(*eps));
  };
  // N, C and HxW are the input's sizes (possibly symbolic): not kept.
  h[p + "native_group_norm.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(w, g.optTensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    KILN_TRY(groups, g.intArg(n, "group", std::nullopt, loc));
    KILN_TRY(eps, g.floatArg(n, "eps", std::nullopt, loc));
    return g.emitOp<NativeGroupNormOp>(n, loc, *x, *w, *bias, g.b.getI64IntegerAttr(*groups),
                                       g.b.getF64FloatAttr(*eps));
  };

  h[p + "batch_norm.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(o, readNormOperands(g, n, loc, Stats::Optional));
    KILN_TRY(training, g.boolArg(n, "training", std::nullopt, loc));
    KILN_TRY(momentum, g.floatArg(n, "momentum", std::nullopt, loc));
    KILN_TRY(eps, g.floatArg(n, "eps", std::nullopt, loc));
    KILN_TRY(cudnn, g.boolArg(n, "cudnn_enabled", true, loc));
    if (*training && o->mean && o->var)
      return importStatefulBatchNorm(g, n, loc, o->x, o->w, o->bias, *momentum, *eps);
    return g.emitOp<BatchNormOp>(n, loc, o->x, o->w, o->bias, o->mean, o->var,
                                 g.b.getBoolAttr(*training), g.b.getF64FloatAttr(*momentum),
                                 g.b.getF64FloatAttr(*eps), g.b.getBoolAttr(*cudnn));
  };
  h[p + "_native_batch_norm_legit_no_training.default"] =
      [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(o, readNormOperands(g, n, loc, Stats::Required));
    KILN_TRY(momentum, g.floatArg(n, "momentum", std::nullopt, loc));
    KILN_TRY(eps, g.floatArg(n, "eps", std::nullopt, loc));
    return g.emitOp<NativeBatchNormLegitNoTrainingOp>(n, loc, o->x, o->w, o->bias, o->mean,
                                                      o->var, g.b.getF64FloatAttr(*momentum),
                                                      g.b.getF64FloatAttr(*eps));
  };
  // native_batch_norm and _native_batch_norm_legit(.no_stats); in training
  // the running statistics are updated in place.
  auto nativeBatchNorm = [&g](bool hasStats) {
    return [&g, hasStats](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(o, readNormOperands(g, n, loc, hasStats ? Stats::Optional : Stats::Absent));
      KILN_TRY(training, g.boolArg(n, "training", std::nullopt, loc));
      KILN_TRY(momentum, g.floatArg(n, "momentum", std::nullopt, loc));
      KILN_TRY(eps, g.floatArg(n, "eps", std::nullopt, loc));
      if (*training && o->mean && o->var)
        return importStatefulBatchNorm(g, n, loc, o->x, o->w, o->bias, *momentum, *eps);
      return g.emitOp<NativeBatchNormOp>(n, loc, o->x, o->w, o->bias, o->mean, o->var,
                                         g.b.getBoolAttr(*training),
                                         g.b.getF64FloatAttr(*momentum),
                                         g.b.getF64FloatAttr(*eps));
    };
  };
  h[p + "native_batch_norm.default"] = nativeBatchNorm(true);
  h[p + "_native_batch_norm_legit.default"] = nativeBatchNorm(true);
  h[p + "_native_batch_norm_legit.no_stats"] = nativeBatchNorm(false);
  h[p + "_native_batch_norm_legit_functional.default"] =
      [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(o, readNormOperands(g, n, loc, Stats::Required));
    KILN_TRY(training, g.boolArg(n, "training", std::nullopt, loc));
    KILN_TRY(momentum, g.floatArg(n, "momentum", std::nullopt, loc));
    KILN_TRY(eps, g.floatArg(n, "eps", std::nullopt, loc));
    return g.emitOp<NativeBatchNormLegitFunctionalOp>(
        n, loc, o->x, o->w, o->bias, o->mean, o->var, g.b.getBoolAttr(*training),
        g.b.getF64FloatAttr(*momentum), g.b.getF64FloatAttr(*eps));
  };
  h[p + "instance_norm.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(o, readNormOperands(g, n, loc, Stats::Optional));
    KILN_TRY(useStats, g.boolArg(n, "use_input_stats", std::nullopt, loc));
    KILN_TRY(momentum, g.floatArg(n, "momentum", std::nullopt, loc));
    KILN_TRY(eps, g.floatArg(n, "eps", std::nullopt, loc));
    KILN_TRY(cudnn, g.boolArg(n, "cudnn_enabled", true, loc));
    return g.emitOp<InstanceNormOp>(n, loc, o->x, o->w, o->bias, o->mean, o->var,
                                    g.b.getBoolAttr(*useStats), g.b.getF64FloatAttr(*momentum),
                                    g.b.getF64FloatAttr(*eps), g.b.getBoolAttr(*cudnn));
  };
}

} // namespace kiln::importer

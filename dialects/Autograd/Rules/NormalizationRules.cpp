//===- NormalizationRules.cpp - derivatives of inference batch norm -------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// With running statistics (inference), batch norm is a per-channel affine
/// map of the input: aten.native_batch_norm_backward with train = false.
LogicalResult batchNormGrads(Operation *op, OpBuilder &b, Value g, Value x, Value weight,
                             Value bias, Value mean, Value var, double eps, bool needX,
                             bool needW, bool needB, Value &gx, Value &gw, Value &gb) {
  Location loc = op->getLoc();
  if (!mean || !var)
    return op->emitError("cannot differentiate '")
           << op->getName() << "' without running statistics yet";
  auto xTy = tensorType(x);
  auto cTy = RankedTensorType::get({xTy.getDimSize(1)}, xTy.getElementType());
  SmallVector<bool> mask{needX, needW && weight, needB && bias};
  auto bw = NativeBatchNormBackwardOp::create(b, loc, TypeRange{x.getType(), cTy, cTy}, g, x,
                                              weight, mean, var, b.getBoolAttr(false),
                                              b.getF64FloatAttr(eps), b.getDenseBoolArrayAttr(mask));
  if (mask[0])
    gx = bw.getGradInput();
  if (mask[1])
    gw = viewAs(b, loc, bw.getGradWeight(), weight);
  if (mask[2])
    gb = viewAs(b, loc, bw.getGradBias(), bias);
  return success();
}

LogicalResult noTrainingVjp(NativeBatchNormLegitNoTrainingOp op, OpBuilder &b,
                            ArrayRef<Value> cts, ArrayRef<bool> needed,
                            SmallVectorImpl<Value> &out) {
  // Operands: input, weight?, bias?, running_mean, running_var.
  unsigned i = 1;
  int wi = op.getWeight() ? i++ : -1, bi = op.getBias() ? i++ : -1;
  int mi = i++, vi = i++;
  if (needed[mi] || needed[vi])
    return op.emitError("cannot differentiate 'aten._native_batch_norm_legit_no_training' "
                        "with respect to its running statistics");
  if (!cts[0])
    return success(); // only the (empty) saved statistics were used
  Value gx, gw, gb;
  if (failed(batchNormGrads(op, b, cts[0], op.getInput(), op.getWeight(), op.getBias(),
                            op.getRunningMean(), op.getRunningVar(),
                            op.getEps().convertToDouble(), needed[0], wi >= 0 && needed[wi],
                            bi >= 0 && needed[bi], gx, gw, gb)))
    return failure();
  out[0] = gx;
  if (wi >= 0)
    out[wi] = gw;
  if (bi >= 0)
    out[bi] = gb;
  return success();
}

/// With running statistics batch norm is affine per channel:
/// t_x * w * invstd + (x - mean) * invstd * t_w + t_b, each term an inference
/// batch norm itself (the first with a zero mean, both without bias).
LogicalResult noTrainingJvp(NativeBatchNormLegitNoTrainingOp op, OpBuilder &b,
                            ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  unsigned i = 1;
  int wi = op.getWeight() ? i++ : -1, bi = op.getBias() ? i++ : -1;
  int mi = i++, vi = i++;
  if (ts[mi] || ts[vi])
    return op.emitError("cannot differentiate 'aten._native_batch_norm_legit_no_training' "
                        "with respect to its running statistics");
  auto norm = [&](Value x, Value w, Value mean) {
    return NativeBatchNormLegitNoTrainingOp::create(
               b, loc, op->getResultTypes(), x, w, Value(), mean, op.getRunningVar(),
               op.getMomentumAttr(), op.getEpsAttr())
        .getResult();
  };
  Value r;
  if (ts[0])
    r = norm(ts[0], op.getWeight(), zerosLike(b, loc, op.getRunningMean()));
  if (wi >= 0 && ts[wi]) {
    Value t = norm(op.getInput(), ts[wi], op.getRunningMean());
    r = r ? add(b, loc, r, t) : t;
  }
  if (bi >= 0 && ts[bi]) {
    auto rt = tensorType(op.getResult());
    SmallVector<int64_t> shape(rt.getRank(), 1);
    shape[1] = rt.getDimSize(1);
    Value tb = viewTo(b, loc, ts[bi], shape, {});
    r = r ? add(b, loc, r, tb) : expandAs(b, loc, tb, op.getResult());
  }
  out[0] = r;
  return success();
}

LogicalResult batchNormVjp(BatchNormOp op, OpBuilder &b, ArrayRef<Value> cts,
                           ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  if (op.getTraining())
    return op.emitError("cannot differentiate 'aten.batch_norm' in training mode yet");
  unsigned i = 1;
  int wi = op.getWeight() ? i++ : -1, bi = op.getBias() ? i++ : -1;
  for (unsigned k = i; k < op->getNumOperands(); ++k)
    if (needed[k])
      return op.emitError("cannot differentiate 'aten.batch_norm' with respect to its running "
                          "statistics");
  Value gx, gw, gb;
  if (failed(batchNormGrads(op, b, cts[0], op.getInput(), op.getWeight(), op.getBias(),
                            op.getRunningMean(), op.getRunningVar(),
                            op.getEps().convertToDouble(), needed[0], wi >= 0 && needed[wi],
                            bi >= 0 && needed[bi], gx, gw, gb)))
    return failure();
  out[0] = gx;
  if (wi >= 0)
    out[wi] = gw;
  if (bi >= 0)
    out[bi] = gb;
  return success();
}

} // namespace

void attachNormalizationRules(MLIRContext *ctx) {
  NativeBatchNormLegitNoTrainingOp::attachInterface<
      Rule<NativeBatchNormLegitNoTrainingOp, noTrainingVjp, noTrainingJvp>>(*ctx);
  BatchNormOp::attachInterface<Rule<BatchNormOp, batchNormVjp>>(*ctx);
}

} // namespace kiln::autograd::rules

//===- ATenNormalizationOps.cpp - verifiers of the aten normalisations ----===//
//
// Softmax along one dim; layer, RMS and group normalisation (the affine
// parameters and the saved statistics have ATen's shapes); batch and
// instance normalisation (per-channel operands of size C = dim 1).
//
//===----------------------------------------------------------------------===//
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;

namespace {
/// Shared by the four softmax ops: `dim` in range, the input's shape, and the
/// result element type `expected`.
LogicalResult verifySoftmax(Operation *op, Value self, int64_t dim, Type expected,
                            Value result) {
  auto inTy = rankedType(self);
  if (failed(normalizeDim(op, dim, inTy.getRank())))
    return failure();
  if (!isa<FloatType>(expected))
    return op->emitOpError("needs a floating-point input or dtype, got ") << expected;
  return verifyResult(op, result, inTy.getShape(), expected);
}

Type halfToFloatType(Operation *op, Value self, bool halfToFloat) {
  Type in = rankedType(self).getElementType();
  if (halfToFloat && (in.isF16() || in.isBF16()))
    return Float32Type::get(op->getContext());
  return in;
}

/// Normalised trailing dims: the input has at least as many dims, static
/// entries match, and `params` (weight, bias) have exactly that shape.
LogicalResult verifyNormalizedShape(Operation *op, Value input, ArrayRef<int64_t> normalized,
                                    ValueRange params) {
  auto inTy = rankedType(input);
  int64_t n = normalized.size(), rank = inTy.getRank();
  if (n == 0)
    return op->emitOpError("expects a non-empty normalized_shape");
  if (rank < n)
    return op->emitOpError("normalized_shape ")
           << shapeStr(normalized) << " has more dims than the input of rank " << rank;
  ArrayRef<int64_t> trailing = inTy.getShape().take_back(n);
  for (auto [want, have] : llvm::zip(normalized, trailing))
    if (want != kDyn && have != kDyn && want != have)
      return op->emitOpError("normalized_shape ")
             << shapeStr(normalized) << " does not match the input's trailing dims "
             << shapeStr(trailing);
  for (Value p : params) {
    if (!p)
      continue;
    auto pTy = rankedType(p);
    bool ok = pTy.getRank() == n;
    for (int64_t i = 0; ok && i < n; ++i)
      ok = pTy.getDimSize(i) == kDyn || trailing[i] == kDyn || pTy.getDimSize(i) == trailing[i];
    if (!ok)
      return op->emitOpError("expects weight and bias of shape ")
             << shapeStr(trailing) << ", got " << pTy;
  }
  return success();
}

/// Per-channel vectors of size C = dim 1 of the input.
LogicalResult verifyPerChannel(Operation *op, Value input, ValueRange perChannel) {
  auto inTy = rankedType(input);
  if (inTy.getRank() < 2)
    return op->emitOpError("expects an input of rank >= 2, got ") << inTy.getRank();
  int64_t c = inTy.getDimSize(1);
  for (Value v : perChannel) {
    if (!v)
      continue;
    auto t = rankedType(v);
    if (t.getRank() != 1 || (c != kDyn && t.getDimSize(0) != kDyn && t.getDimSize(0) != c))
      return op->emitOpError("expects per-channel operands of shape [") << c << "], got "
                                                                         << t;
  }
  return success();
}

/// A rank-1 saved statistic of size `size` (kDyn: any).
LogicalResult verifyStat(Operation *op, Value v, int64_t size) {
  return verifyResult(op, v, {size});
}
} // namespace

LogicalResult SoftmaxOp::verify() {
  return verifySoftmax(*this, getSelf(), getDim(),
                       halfToFloatType(*this, getSelf(), getHalfToFloat()), getResult());
}
LogicalResult LogSoftmaxOp::verify() {
  return verifySoftmax(*this, getSelf(), getDim(),
                       halfToFloatType(*this, getSelf(), getHalfToFloat()), getResult());
}
LogicalResult SoftmaxIntOp::verify() {
  return verifySoftmax(*this, getSelf(), getDim(),
                       getDtype() ? *getDtype() : getSelf().getType().getElementType(),
                       getResult());
}
LogicalResult LogSoftmaxIntOp::verify() {
  return verifySoftmax(*this, getSelf(), getDim(),
                       getDtype() ? *getDtype() : getSelf().getType().getElementType(),
                       getResult());
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifyNormalizedShape(*this, getInput(), getNormalizedShape(),
                                   {getWeight(), getBias()})))
    return failure();
  auto inTy = rankedType(getInput());
  return verifyResult(*this, getResult(), inTy.getShape(), inTy.getElementType());
}

LogicalResult NativeLayerNormOp::verify() {
  if (failed(verifyNormalizedShape(*this, getInput(), getNormalizedShape(),
                                   {getWeight(), getBias()})))
    return failure();
  auto inTy = rankedType(getInput());
  if (failed(verifyResult(*this, getResult(), inTy.getShape(), inTy.getElementType())))
    return failure();
  SmallVector<int64_t> statShape(inTy.getShape());
  for (int64_t i = inTy.getRank() - getNormalizedShape().size(); i < inTy.getRank(); ++i)
    statShape[i] = 1;
  if (failed(verifyResult(*this, getMean(), statShape)) ||
      failed(verifyResult(*this, getRstd(), statShape)))
    return failure();
  return success();
}

LogicalResult RmsNormOp::verify() {
  if (failed(verifyNormalizedShape(*this, getInput(), getNormalizedShape(), {getWeight()})))
    return failure();
  auto inTy = rankedType(getInput());
  return verifyResult(*this, getResult(), inTy.getShape(), inTy.getElementType());
}

/// Group norm: C divisible by the group count, per-channel affine parameters.
static LogicalResult verifyGroupNorm(Operation *op, Value input, Value weight, Value bias,
                                     int64_t groups, Value result) {
  if (failed(verifyPerChannel(op, input, {weight, bias})))
    return failure();
  auto inTy = rankedType(input);
  if (groups < 1)
    return op->emitOpError("expects a positive number of groups, got ") << groups;
  int64_t c = inTy.getDimSize(1);
  if (c != kDyn && c % groups != 0)
    return op->emitOpError("expects the channel count ")
           << c << " to be divisible by the number of groups " << groups;
  return verifyResult(op, result, inTy.getShape(), inTy.getElementType());
}

LogicalResult GroupNormOp::verify() {
  return verifyGroupNorm(*this, getInput(), getWeight(), getBias(), getNumGroups(),
                         getResult());
}

LogicalResult NativeGroupNormOp::verify() {
  if (failed(verifyGroupNorm(*this, getInput(), getWeight(), getBias(), getGroup(),
                             getResult())))
    return failure();
  SmallVector<int64_t> statShape{rankedType(getInput()).getDimSize(0), getGroup()};
  if (failed(verifyResult(*this, getMean(), statShape)) ||
      failed(verifyResult(*this, getRstd(), statShape)))
    return failure();
  return success();
}

/// The checks every batch norm shares: per-channel weight, bias and running
/// statistics; with `training` given (the ops whose statistics are optional),
/// running statistics in inference and both or neither; a result shaped like
/// the input.
template <typename OpT>
static LogicalResult verifyBatchNorm(OpT op, std::optional<bool> training) {
  Value mean = op.getRunningMean(), var = op.getRunningVar();
  if (failed(verifyPerChannel(op, op.getInput(), {op.getWeight(), op.getBias(), mean, var})))
    return failure();
  if (training && !*training && (!mean || !var))
    return op.emitOpError("in inference (training = false) needs running_mean and running_var");
  if (training && !mean != !var)
    return op.emitOpError("needs both running_mean and running_var or neither");
  auto inTy = rankedType(op.getInput());
  return verifyResult(op, op.getResult(), inTy.getShape(), inTy.getElementType());
}

LogicalResult BatchNormOp::verify() { return verifyBatchNorm(*this, getTraining()); }

LogicalResult NativeBatchNormLegitNoTrainingOp::verify() {
  return verifyBatchNorm(*this, std::nullopt);
}

LogicalResult NativeBatchNormOp::verify() {
  if (failed(verifyBatchNorm(*this, getTraining())))
    return failure();
  auto inTy = rankedType(getInput());
  int64_t statSize = getTraining() ? inTy.getDimSize(1) : kDyn;
  if (failed(verifyStat(*this, getSaveMean(), statSize)) ||
      failed(verifyStat(*this, getSaveInvstd(), statSize)))
    return failure();
  return success();
}

LogicalResult NativeBatchNormLegitFunctionalOp::verify() {
  if (failed(verifyBatchNorm(*this, std::nullopt)))
    return failure();
  auto inTy = rankedType(getInput());
  int64_t c = inTy.getDimSize(1);
  int64_t statSize = getTraining() ? c : kDyn;
  if (failed(verifyStat(*this, getSaveMean(), statSize)) ||
      failed(verifyStat(*this, getSaveInvstd(), statSize)) ||
      failed(verifyResult(*this, getRunningMeanOut(), {c},
                          rankedType(getRunningMean()).getElementType())) ||
      failed(verifyResult(*this, getRunningVarOut(), {c},
                          rankedType(getRunningVar()).getElementType())))
    return failure();
  return success();
}

LogicalResult InstanceNormOp::verify() {
  if (failed(verifyPerChannel(*this, getInput(),
                              {getWeight(), getBias(), getRunningMean(), getRunningVar()})))
    return failure();
  if (!getUseInputStats() && (!getRunningMean() || !getRunningVar()))
    return emitOpError("without use_input_stats needs running_mean and running_var");
  auto inTy = rankedType(getInput());
  return verifyResult(*this, getResult(), inTy.getShape(), inTy.getElementType());
}

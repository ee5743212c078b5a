//===- PoolingRules.cpp - derivatives of max and adaptive average pooling -===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

template <typename OpT>
Value maxPoolBackward(OpT op, OpBuilder &b, Value g, Value indices) {
  return MaxPool2dWithIndicesBackwardOp::create(
      b, op.getLoc(), op.getSelf().getType(), g, op.getSelf(), op.getKernelSizeAttr(),
      op.getStrideAttr(), op.getPaddingAttr(), op.getDilationAttr(), op.getCeilModeAttr(),
      indices);
}

/// The gradient goes to each window's argmax: recompute the forward with
/// indices.
LogicalResult maxPoolVjp(MaxPool2dOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                         SmallVectorImpl<Value> &out) {
  auto resTy = tensorType(op.getResult());
  auto indTy = RankedTensorType::get(resTy.getShape(), b.getI64Type());
  auto withIndices = MaxPool2dWithIndicesOp::create(
      b, op.getLoc(), TypeRange{resTy, indTy}, op.getSelf(), op.getKernelSizeAttr(),
      op.getStrideAttr(), op.getPaddingAttr(), op.getDilationAttr(), op.getCeilModeAttr());
  out[0] = maxPoolBackward(op, b, cts[0], withIndices.getIndices());
  return success();
}

LogicalResult maxPoolWithIndicesVjp(MaxPool2dWithIndicesOp op, OpBuilder &b,
                                    ArrayRef<Value> cts, ArrayRef<bool>,
                                    SmallVectorImpl<Value> &out) {
  if (cts[0])
    out[0] = maxPoolBackward(op, b, cts[0], op.getIndices());
  return success();
}

LogicalResult adaptiveAvgVjp(AdaptiveAvgPool2dOp op, OpBuilder &b, ArrayRef<Value> cts,
                             ArrayRef<bool>, SmallVectorImpl<Value> &out) {
  out[0] = AdaptiveAvgPool2dBackwardOp::create(b, op.getLoc(), op.getSelf().getType(), cts[0],
                                               op.getSelf());
  return success();
}

} // namespace

void attachPoolingRules(MLIRContext *ctx) {
  MaxPool2dOp::attachInterface<Rule<MaxPool2dOp, maxPoolVjp>>(*ctx);
  MaxPool2dWithIndicesOp::attachInterface<Rule<MaxPool2dWithIndicesOp, maxPoolWithIndicesVjp>>(
      *ctx);
  AdaptiveAvgPool2dOp::attachInterface<Rule<AdaptiveAvgPool2dOp, adaptiveAvgVjp>>(*ctx);
}

} // namespace kiln::autograd::rules

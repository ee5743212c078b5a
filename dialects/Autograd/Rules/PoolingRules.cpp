//===- PoolingRules.cpp - derivatives of max and adaptive average pooling -===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

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

/// The tangent at each window's argmax: a gather over the flattened planes.
Value gatherAt(OpBuilder &b, Location loc, Value t, Value indices, Value result) {
  auto tt = tensorType(t), it = tensorType(indices);
  int64_t r = tt.getRank();
  auto flat = [&](RankedTensorType ty) {
    SmallVector<int64_t> shape(ty.getShape().drop_back(2));
    int64_t h = ty.getDimSize(r - 2), w = ty.getDimSize(r - 1);
    shape.push_back(h == ShapedType::kDynamic || w == ShapedType::kDynamic ? ShapedType::kDynamic
                                                                          : h * w);
    return shape;
  };
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < r - 2; ++d)
    if (tt.isDynamicDim(d))
      dyn.push_back(tensor::DimOp::create(b, loc, t, d));
  SmallVector<Value> dynI;
  for (int64_t d = 0; d < r - 2; ++d)
    if (it.isDynamicDim(d))
      dynI.push_back(tensor::DimOp::create(b, loc, indices, d));
  Value tf = viewTo(b, loc, t, flat(tt), dyn);
  Value idf = viewTo(b, loc, indices, flat(it), dynI);
  auto gTy = RankedTensorType::get(tensorType(idf).getShape(), tt.getElementType());
  Value g = GatherOp::create(b, loc, gTy, tf, idf, b.getI64IntegerAttr(r - 2));
  return viewAs(b, loc, g, result);
}

LogicalResult maxPoolJvp(MaxPool2dOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  auto resTy = tensorType(op.getResult());
  auto indTy = RankedTensorType::get(resTy.getShape(), b.getI64Type());
  auto withIndices = MaxPool2dWithIndicesOp::create(
      b, op.getLoc(), TypeRange{resTy, indTy}, op.getSelf(), op.getKernelSizeAttr(),
      op.getStrideAttr(), op.getPaddingAttr(), op.getDilationAttr(), op.getCeilModeAttr());
  out[0] = gatherAt(b, op.getLoc(), ts[0], withIndices.getIndices(), op.getResult());
  return success();
}

LogicalResult adaptiveAvgJvp(AdaptiveAvgPool2dOp op, OpBuilder &b, ArrayRef<Value> ts,
                             SmallVectorImpl<Value> &out) {
  out[0] = AdaptiveAvgPool2dOp::create(b, op.getLoc(), op.getType(), ts[0], op.getOutputSizeAttr());
  return success();
}

LogicalResult maxPoolWithIndicesVjp(MaxPool2dWithIndicesOp op, OpBuilder &b,
                                    ArrayRef<Value> cts, ArrayRef<bool>,
                                    SmallVectorImpl<Value> &out) {
  if (cts[0])
    out[0] = maxPoolBackward(op, b, cts[0], op.getIndices());
  return success();
}

LogicalResult maxPoolWithIndicesJvp(MaxPool2dWithIndicesOp op, OpBuilder &b, ArrayRef<Value> ts,
                                    SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = gatherAt(b, op.getLoc(), ts[0], op.getIndices(), op.getResult());
  return success();
}

LogicalResult adaptiveAvgVjp(AdaptiveAvgPool2dOp op, OpBuilder &b, ArrayRef<Value> cts,
                             ArrayRef<bool>, SmallVectorImpl<Value> &out) {
  out[0] = AdaptiveAvgPool2dBackwardOp::create(b, op.getLoc(), op.getSelf().getType(), cts[0],
                                               op.getSelf());
  return success();
}

/// avg_pool2d is linear: its adjoint is avg_pool2d_backward with the same
/// windows and divisor, its tangent the pooled tangent.
LogicalResult avgPoolVjp(AvgPool2dOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                         SmallVectorImpl<Value> &out) {
  if (!isFloatTensor(op.getSelf().getType()))
    return op.emitError("cannot differentiate 'aten.avg_pool2d' of an integer tensor");
  out[0] = AvgPool2dBackwardOp::create(b, op.getLoc(), op.getSelf().getType(), cts[0], op.getSelf(),
                                       op.getKernelSizeAttr(), op.getStrideAttr(),
                                       op.getPaddingAttr(), op.getCeilModeAttr(),
                                       op.getCountIncludePadAttr(), op.getDivisorOverrideAttr());
  return success();
}
LogicalResult avgPoolJvp(AvgPool2dOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  out[0] = AvgPool2dOp::create(b, op.getLoc(), op.getType(), ts[0], op.getKernelSizeAttr(),
                               op.getStrideAttr(), op.getPaddingAttr(), op.getCeilModeAttr(),
                               op.getCountIncludePadAttr(), op.getDivisorOverrideAttr());
  return success();
}

} // namespace

void attachPoolingRules(MLIRContext *ctx) {
  AvgPool2dOp::attachInterface<Rule<AvgPool2dOp, avgPoolVjp, avgPoolJvp>>(*ctx);
  MaxPool2dOp::attachInterface<Rule<MaxPool2dOp, maxPoolVjp, maxPoolJvp>>(*ctx);
  MaxPool2dWithIndicesOp::attachInterface<
      Rule<MaxPool2dWithIndicesOp, maxPoolWithIndicesVjp, maxPoolWithIndicesJvp>>(*ctx);
  AdaptiveAvgPool2dOp::attachInterface<Rule<AdaptiveAvgPool2dOp, adaptiveAvgVjp, adaptiveAvgJvp>>(*ctx);
}

} // namespace kiln::autograd::rules

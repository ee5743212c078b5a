//===- PoolingRules.cpp - derivatives of max and average pooling ---------===//
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

/// 3-d max pooling: the cotangent goes to each window's argmax (a
/// scatter-add at the flat volume offsets the forward with indices
/// returns), the tangent is read there.
MaxPool3dWithIndicesOp maxPool3dIndices(MaxPool3dOp op, OpBuilder &b) {
  auto resTy = tensorType(op.getResult());
  auto indTy = RankedTensorType::get(resTy.getShape(), b.getI64Type());
  return MaxPool3dWithIndicesOp::create(b, op.getLoc(), TypeRange{resTy, indTy}, op.getSelf(),
                                        op.getKernelSizeAttr(), op.getStrideAttr(),
                                        op.getPaddingAttr(), op.getDilationAttr(),
                                        op.getCeilModeAttr());
}
LogicalResult maxPool3dVjp(MaxPool3dOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                           SmallVectorImpl<Value> &out) {
  out[0] = scatterFlat(b, op.getLoc(), cts[0], maxPool3dIndices(op, b).getIndices(), op.getSelf(), 3);
  return success();
}
LogicalResult maxPool3dJvp(MaxPool3dOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  out[0] = gatherFlat(b, op.getLoc(), ts[0], maxPool3dIndices(op, b).getIndices(), op.getResult(), 3);
  return success();
}
LogicalResult maxPool3dWithIndicesVjp(MaxPool3dWithIndicesOp op, OpBuilder &b,
                                      ArrayRef<Value> cts, ArrayRef<bool>,
                                      SmallVectorImpl<Value> &out) {
  if (cts[0])
    out[0] = scatterFlat(b, op.getLoc(), cts[0], op.getIndices(), op.getSelf(), 3);
  return success();
}
LogicalResult maxPool3dWithIndicesJvp(MaxPool3dWithIndicesOp op, OpBuilder &b, ArrayRef<Value> ts,
                                      SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = gatherFlat(b, op.getLoc(), ts[0], op.getIndices(), op.getResult(), 3);
  return success();
}

/// Checks the spatial dims (the last `n`) of a pooling's input and result
/// are static, as the taps of its adjoint are compile-time constants.
LogicalResult staticSpatial(Operation *op, Value x, Value y, int64_t n) {
  auto xTy = tensorType(x), yTy = tensorType(y);
  if (!isa<FloatType>(xTy.getElementType()))
    return op->emitError("cannot differentiate '") << op->getName() << "' of an integer tensor";
  for (int64_t d = xTy.getRank() - n; d < xTy.getRank(); ++d)
    if (xTy.isDynamicDim(d) || yTy.isDynamicDim(d))
      return op->emitError("cannot differentiate '")
             << op->getName() << "' with a dynamic spatial size yet";
  return success();
}

/// avg_pool3d is linear and its divisor a product of per-dim window extents
/// (or one given constant): the cotangent goes back one spatial dim at a
/// time, each window position receiving 1/extent along that dim.
LogicalResult avgPool3dVjp(AvgPool3dOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                           SmallVectorImpl<Value> &out) {
  if (failed(staticSpatial(op, op.getSelf(), op.getResult(), 3)))
    return failure();
  auto xTy = tensorType(op.getSelf()), yTy = tensorType(op.getResult());
  int64_t r = xTy.getRank();
  std::optional<int64_t> divisor = op.getDivisorOverride();
  bool includePad = op.getCountIncludePad();
  Value g = cts[0];
  for (int64_t i = 0; i < 3; ++i) {
    int64_t dim = r - 3 + i, in = xTy.getDimSize(dim), o = yTy.getDimSize(dim);
    int64_t k = op.getKernelSize()[i], s = op.getStride()[i], p = op.getPadding()[i];
    SmallVector<int64_t> index(k * o, -1);
    SmallVector<double> weight(k * o, 0.0);
    for (int64_t w = 0; w < o; ++w) {
      int64_t start = w * s - p, end = std::min(start + k, in + p);
      int64_t extent = includePad ? end - start
                                  : std::min(end, in) - std::max<int64_t>(start, 0);
      for (int64_t j = 0; j < k; ++j) {
        int64_t at = start + j;
        if (at < 0 || at >= in)
          continue;
        index[j * o + w] = at;
        weight[j * o + w] = divisor ? 1.0 : 1.0 / (double)extent;
      }
    }
    g = scatterTaps(b, op.getLoc(), g, dim, in, k, index, weight);
  }
  out[0] = divisor ? scale(b, op.getLoc(), g, 1.0 / (double)*divisor) : g;
  return success();
}

/// adaptive_avg_pool3d: window w along a dim of size H with O outputs spans
/// [floor(w*H/O), ceil((w+1)*H/O)); the average is separable, so the
/// cotangent goes back one dim at a time, 1/length to each window element.
LogicalResult adaptiveAvg3dVjp(AdaptiveAvgPool3dOp op, OpBuilder &b, ArrayRef<Value> cts,
                               ArrayRef<bool>, SmallVectorImpl<Value> &out) {
  if (failed(staticSpatial(op, op.getSelf(), op.getResult(), 3)))
    return failure();
  auto xTy = tensorType(op.getSelf());
  int64_t r = xTy.getRank();
  Value g = cts[0];
  for (int64_t i = 0; i < 3; ++i) {
    int64_t dim = r - 3 + i, in = xTy.getDimSize(dim), o = op.getOutputSize()[i];
    auto span = [&](int64_t w) {
      return std::make_pair(w * in / o, ((w + 1) * in + o - 1) / o);
    };
    int64_t k = 0;
    for (int64_t w = 0; w < o; ++w)
      k = std::max(k, span(w).second - span(w).first);
    SmallVector<int64_t> index(k * o, -1);
    SmallVector<double> weight(k * o, 0.0);
    for (int64_t w = 0; w < o; ++w) {
      auto [start, end] = span(w);
      for (int64_t j = 0; j < end - start; ++j) {
        index[j * o + w] = start + j;
        weight[j * o + w] = 1.0 / (double)(end - start);
      }
    }
    g = scatterTaps(b, op.getLoc(), g, dim, in, k, index, weight);
  }
  out[0] = g;
  return success();
}

} // namespace

void attachPoolingRules(MLIRContext *ctx) {
  AvgPool2dOp::attachInterface<Rule<AvgPool2dOp, avgPoolVjp, linearInSelfJvp<AvgPool2dOp>>>(*ctx);
  MaxPool2dOp::attachInterface<Rule<MaxPool2dOp, maxPoolVjp, maxPoolJvp>>(*ctx);
  MaxPool2dWithIndicesOp::attachInterface<
      Rule<MaxPool2dWithIndicesOp, maxPoolWithIndicesVjp, maxPoolWithIndicesJvp>>(*ctx);
  AdaptiveAvgPool2dOp::attachInterface<
      Rule<AdaptiveAvgPool2dOp, adaptiveAvgVjp, linearInSelfJvp<AdaptiveAvgPool2dOp>>>(*ctx);
  MaxPool3dOp::attachInterface<Rule<MaxPool3dOp, maxPool3dVjp, maxPool3dJvp>>(*ctx);
  MaxPool3dWithIndicesOp::attachInterface<
      Rule<MaxPool3dWithIndicesOp, maxPool3dWithIndicesVjp, maxPool3dWithIndicesJvp>>(*ctx);
  AvgPool3dOp::attachInterface<Rule<AvgPool3dOp, avgPool3dVjp, linearInSelfJvp<AvgPool3dOp>>>(*ctx);
  AdaptiveAvgPool3dOp::attachInterface<
      Rule<AdaptiveAvgPool3dOp, adaptiveAvg3dVjp, linearInSelfJvp<AdaptiveAvgPool3dOp>>>(*ctx);
}

} // namespace kiln::autograd::rules

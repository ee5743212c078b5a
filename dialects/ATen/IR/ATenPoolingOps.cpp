//===- ATenPoolingOps.cpp - verifiers of the aten pooling ops --------------===//
//
// Each verifier checks the window attributes (one entry per spatial dim), the
// input rank (with or without the batch dim) and dtype, and infers the result
// shape with ATen's output-size rule (ceil_mode drops a last window that would
// start in the right padding).
//
//===----------------------------------------------------------------------===//
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;

LogicalResult kiln::aten::detail::verifyPoolInput(Operation *op, StringRef what, Value input,
                                                  int spatial) {
  int64_t rank = rankedType(input).getRank();
  if (rank == spatial + 2 || rank == spatial + 1)
    return success();
  StringRef layout = spatial == 1 ? "CW" : spatial == 2 ? "CHW" : "CDHW";
  return op->emitOpError("expects a ")
         << spatial + 2 << "-d (N" << layout << ") or " << spatial + 1 << "-d (" << layout
         << ") " << what << ", got rank " << rank;
}

namespace {
/// Pooled shape of `self` for windows of `kernel` (dilation `dilation`, or 1s).
FailureOr<SmallVector<int64_t>> pooledShape(Operation *op, Value self, ArrayRef<int64_t> kernel,
                                            ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                                            ArrayRef<int64_t> dilation, bool ceilMode) {
  auto inTy = rankedType(self);
  size_t n = kernel.size();
  for (size_t i = 0; i < n; ++i)
    if (padding[i] * 2 > kernel[i])
      return op->emitOpError("padding should be at most half of the kernel size, got padding ")
             << padding[i] << " for kernel " << kernel[i];
  SmallVector<int64_t> shape(inTy.getShape().drop_back(n));
  for (size_t i = 0; i < n; ++i) {
    int64_t in = inTy.getDimSize(inTy.getRank() - n + i);
    int64_t d = dilation.empty() ? 1 : dilation[i];
    int64_t o = slidingWindowOutputSize(in, kernel[i], stride[i], padding[i], d, ceilMode);
    if (o != kDyn && o < 1)
      return op->emitOpError("window of size ")
             << d * (kernel[i] - 1) + 1 << " does not fit the padded input of size "
             << in + 2 * padding[i] << " along spatial dim " << i;
    shape.push_back(o);
  }
  return shape;
}

LogicalResult verifyMaxPool(Operation *op, Value self, ArrayRef<int64_t> kernel,
                            ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                            ArrayRef<int64_t> dilation, bool ceilMode, Value result,
                            int spatial) {
  if (failed(verifyPoolInput(op, "input", self, spatial)))
    return failure();
  Type elem = rankedType(self).getElementType();
  if (!isa<FloatType>(elem) && !(isa<IntegerType>(elem) && elem.getIntOrFloatBitWidth() > 1))
    return op->emitOpError("expects a float or integer input, got ") << elem;
  if (failed(verifyWindowAttr(op, "kernel_size", kernel, spatial, 1)) ||
      failed(verifyWindowAttr(op, "stride", stride, spatial, 1)) ||
      failed(verifyWindowAttr(op, "padding", padding, spatial, 0)) ||
      failed(verifyWindowAttr(op, "dilation", dilation, spatial, 1)))
    return failure();
  auto shape = pooledShape(op, self, kernel, stride, padding, dilation, ceilMode);
  if (failed(shape))
    return failure();
  return verifyResult(op, result, *shape, elem);
}

template <typename OpT> LogicalResult verifyMaxPoolOp(OpT op, int spatial) {
  return verifyMaxPool(op, op.getSelf(), op.getKernelSize(), op.getStride(), op.getPadding(),
                       op.getDilation(), op.getCeilMode(), op.getResult(), spatial);
}

template <typename OpT> LogicalResult verifyWithIndices(OpT op, int spatial) {
  if (rankedType(op.getIndices()).getShape() != rankedType(op.getResult()).getShape())
    return op.emitOpError("expects indices of the result's shape");
  return verifyMaxPoolOp(op, spatial);
}

template <typename OpT> LogicalResult verifyAvgPool(OpT op, int spatial) {
  if (failed(verifyPoolInput(op, "input", op.getSelf(), spatial)))
    return failure();
  Type elem = rankedType(op.getSelf()).getElementType();
  if (!isa<FloatType>(elem) && !elem.isSignlessInteger(64))
    return op.emitOpError("expects a float or int64 input, got ") << elem;
  if (failed(verifyWindowAttr(op, "kernel_size", op.getKernelSize(), spatial, 1)) ||
      failed(verifyWindowAttr(op, "stride", op.getStride(), spatial, 1)) ||
      failed(verifyWindowAttr(op, "padding", op.getPadding(), spatial, 0)))
    return failure();
  if (op.getDivisorOverride() && *op.getDivisorOverride() == 0)
    return op.emitOpError("expects a nonzero divisor_override");
  auto shape = pooledShape(op, op.getSelf(), op.getKernelSize(), op.getStride(), op.getPadding(),
                           {}, op.getCeilMode());
  if (failed(shape))
    return failure();
  return verifyResult(op, op.getResult(), *shape, elem);
}

template <typename OpT> LogicalResult verifyAdaptive(OpT op, int spatial) {
  if (failed(verifyPoolInput(op, "input", op.getSelf(), spatial)) ||
      failed(verifyWindowAttr(op, "output_size", op.getOutputSize(), spatial, 1)))
    return failure();
  auto inTy = rankedType(op.getSelf());
  SmallVector<int64_t> shape(inTy.getShape().drop_back(spatial));
  llvm::append_range(shape, op.getOutputSize());
  return verifyResult(op, op.getResult(), shape, inTy.getElementType());
}
} // namespace

LogicalResult MaxPool2dOp::verify() { return verifyMaxPoolOp(*this, 2); }
LogicalResult MaxPool3dOp::verify() { return verifyMaxPoolOp(*this, 3); }
LogicalResult MaxPool2dWithIndicesOp::verify() { return verifyWithIndices(*this, 2); }
LogicalResult MaxPool3dWithIndicesOp::verify() { return verifyWithIndices(*this, 3); }
LogicalResult AvgPool2dOp::verify() { return verifyAvgPool(*this, 2); }
LogicalResult AvgPool3dOp::verify() { return verifyAvgPool(*this, 3); }
LogicalResult AdaptiveAvgPool2dOp::verify() { return verifyAdaptive(*this, 2); }
LogicalResult AdaptiveAvgPool3dOp::verify() { return verifyAdaptive(*this, 3); }

LogicalResult AvgPool2dBackwardOp::verify() {
  if (failed(verifyPoolInput(*this, "self", getSelf(), 2)))
    return failure();
  if (rankedType(getGradOutput()).getRank() != rankedType(getSelf()).getRank())
    return emitOpError("expects grad_output of self's rank");
  if (failed(verifyPairAttr(*this, "kernel_size", getKernelSize(), 1)) ||
      failed(verifyPairAttr(*this, "stride", getStride(), 1)) ||
      failed(verifyPairAttr(*this, "padding", getPadding(), 0)))
    return failure();
  if (getDivisorOverride() && *getDivisorOverride() == 0)
    return emitOpError("expects a nonzero divisor_override");
  auto shape = pooledShape(*this, getSelf(), getKernelSize(), getStride(), getPadding(), {},
                           getCeilMode());
  if (failed(shape))
    return failure();
  ArrayRef<int64_t> g = rankedType(getGradOutput()).getShape();
  for (auto [a, e] : llvm::zip(g, *shape))
    if (a != kDyn && e != kDyn && a != e)
      return emitOpError("expects grad_output of the pooled shape ")
             << shapeStr(*shape) << ", got " << shapeStr(g);
  auto s = rankedType(getSelf());
  return verifyResult(*this, getResult(), s.getShape(), s.getElementType());
}

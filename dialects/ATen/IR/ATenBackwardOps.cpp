//===- ATenBackwardOps.cpp - verifiers of the backward-formula ops --------===//
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;

namespace {
/// Two shapes equal up to dynamic dims.
bool compatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (x != kDyn && y != kDyn && x != y)
      return false;
  return true;
}

/// grad_output and self of one shape; the result is self's shape and type.
LogicalResult verifySameShapeGrad(Operation *op, Value grad, Value self, Value result) {
  auto g = rankedType(grad), s = rankedType(self);
  if (!compatible(g.getShape(), s.getShape()))
    return op->emitOpError("expects grad_output of shape ")
           << shapeStr(g.getShape()) << " to match self of shape " << shapeStr(s.getShape());
  return verifyResult(op, result, s.getShape(), s.getElementType());
}

LogicalResult verifyMask(Operation *op, ArrayRef<bool> mask) {
  if (mask.size() != 3)
    return op->emitOpError("expects 3 output_mask entries, got ") << mask.size();
  return success();
}
} // namespace

LogicalResult ThresholdBackwardOp::verify() {
  return verifySameShapeGrad(*this, getGradOutput(), getSelf(), getResult());
}

LogicalResult GeluBackwardOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("expects approximate 'none' or 'tanh', got '") << getApproximate() << "'";
  return verifySameShapeGrad(*this, getGradOutput(), getSelf(), getResult());
}

LogicalResult SumToSizeOp::verify() {
  auto in = rankedType(getSelf()), out = rankedType(getResult());
  bool ok = out.getRank() <= in.getRank() && in.getElementType() == out.getElementType();
  for (int64_t i = 0; ok && i < out.getRank(); ++i) {
    int64_t o = out.getDimSize(i), s = in.getDimSize(in.getRank() - out.getRank() + i);
    ok = o == 1 || o == kDyn || s == kDyn || o == s;
  }
  if (!ok)
    return emitOpError("cannot sum ") << in << " to " << out;
  return success();
}

LogicalResult ConvolutionBackwardOp::verify() {
  auto g = rankedType(getGradOutput()), x = rankedType(getInput()), w = rankedType(getWeight());
  if (g.getRank() != 4 || x.getRank() != 4 || w.getRank() != 4)
    return emitOpError("expects 4-d (NCHW) grad_output, input and weight");
  if (failed(verifyMask(*this, getOutputMask())) ||
      failed(verifyPairAttr(*this, "stride", getStride(), 1)) ||
      failed(verifyPairAttr(*this, "padding", getPadding(), 0)) ||
      failed(verifyPairAttr(*this, "dilation", getDilation(), 1)))
    return failure();
  if (failed(verifyResult(*this, getGradInput(), x.getShape(), x.getElementType())) ||
      failed(verifyResult(*this, getGradWeight(), w.getShape(), w.getElementType())))
    return failure();
  return verifyResult(*this, getGradBias(), {getTransposed() ? kDyn : w.getDimSize(0)},
                      w.getElementType());
}

LogicalResult MaxPool2dWithIndicesBackwardOp::verify() {
  auto g = rankedType(getGradOutput()), s = rankedType(getSelf()),
       i = rankedType(getIndices());
  if (s.getRank() != 4 && s.getRank() != 3)
    return emitOpError("expects a 4-d (NCHW) or 3-d (CHW) self, got rank ") << s.getRank();
  if (!compatible(g.getShape(), i.getShape()) || g.getRank() != s.getRank())
    return emitOpError("expects grad_output and indices of one shape and self's rank");
  if (failed(verifyPairAttr(*this, "kernel_size", getKernelSize(), 1)) ||
      failed(verifyPairAttr(*this, "stride", getStride(), 1)) ||
      failed(verifyPairAttr(*this, "padding", getPadding(), 0)) ||
      failed(verifyPairAttr(*this, "dilation", getDilation(), 1)))
    return failure();
  return verifyResult(*this, getResult(), s.getShape(), s.getElementType());
}

LogicalResult AdaptiveAvgPool2dBackwardOp::verify() {
  auto g = rankedType(getGradOutput()), s = rankedType(getSelf());
  if (s.getRank() != 4 && s.getRank() != 3)
    return emitOpError("expects a 4-d (NCHW) or 3-d (CHW) self, got rank ") << s.getRank();
  if (g.getRank() != s.getRank())
    return emitOpError("expects grad_output of self's rank");
  return verifyResult(*this, getResult(), s.getShape(), s.getElementType());
}

LogicalResult NativeBatchNormBackwardOp::verify() {
  auto x = rankedType(getInput()), g = rankedType(getGradOut());
  if (x.getRank() < 2)
    return emitOpError("expects an input of rank >= 2, got ") << x.getRank();
  if (!compatible(g.getShape(), x.getShape()))
    return emitOpError("expects grad_out of shape ")
           << shapeStr(g.getShape()) << " to match input of shape " << shapeStr(x.getShape());
  if (failed(verifyMask(*this, getOutputMask())))
    return failure();
  int64_t c = x.getDimSize(1);
  for (Value v : {getWeight(), getRunningMean(), getRunningVar()}) {
    if (!v)
      continue;
    auto t = rankedType(v);
    if (t.getRank() != 1 || !compatible(t.getShape(), {c}))
      return emitOpError("expects per-channel operands of shape [") << c << "], got " << t;
  }
  if (failed(verifyResult(*this, getGradInput(), x.getShape(), x.getElementType())) ||
      failed(verifyResult(*this, getGradWeight(), {c}, x.getElementType())))
    return failure();
  return verifyResult(*this, getGradBias(), {c}, x.getElementType());
}

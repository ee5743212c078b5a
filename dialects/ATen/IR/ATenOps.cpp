//===- ATenOps.cpp - aten op verifiers and shape inference ----------------===//
//
// Each verifier infers the result shape from the operands and attributes as
// ATen would, and checks the declared result type against it (a dynamic dim
// on either side is compatible with anything).
//
//===----------------------------------------------------------------------===//
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace kiln::aten;
using kiln::aten::detail::kDyn;


int64_t kiln::aten::slidingWindowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                                            int64_t pad, int64_t dilation, bool ceilMode) {
  if (in == kDyn)
    return kDyn;
  int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1;
  int64_t out = (ceilMode ? (span + stride - 1) / stride : span / stride) + 1;
  // ATen drops a last window that would start inside the right padding only.
  if (ceilMode && (out - 1) * stride >= in + pad)
    --out;
  return out;
}

namespace kiln::aten::detail {
RankedTensorType rankedType(Value v) { return cast<RankedTensorType>(v.getType()); }

std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += d == kDyn ? "?" : std::to_string(d);
  }
  return s + "]";
}

/// Checks `result` against the inferred `expected` shape and element type.
LogicalResult verifyResult(Operation *op, Value result, ArrayRef<int64_t> expected,
                           Type expectedElem) {
  auto ty = rankedType(result);
  if (expectedElem && ty.getElementType() != expectedElem)
    return op->emitOpError("result element type ")
           << ty.getElementType() << " does not match operand element type " << expectedElem;
  if (ty.getRank() != (int64_t)expected.size())
    return op->emitOpError("result rank ")
           << ty.getRank() << " does not match the inferred rank " << expected.size();
  for (auto [a, e] : llvm::zip(ty.getShape(), expected))
    if (a != kDyn && e != kDyn && a != e)
      return op->emitOpError("result shape ")
             << shapeStr(ty.getShape()) << " does not match the inferred shape "
             << shapeStr(expected);
  return success();
}

LogicalResult verifyPairAttr(Operation *op, StringRef name, ArrayRef<int64_t> v, int64_t minV) {
  return verifyWindowAttr(op, name, v, 2, minV);
}

LogicalResult verifyWindowAttr(Operation *op, StringRef name, ArrayRef<int64_t> v, size_t n,
                               int64_t minV) {
  if (v.size() != n)
    return op->emitOpError() << "expects '" << name << "' to have " << n << " entries, got "
                             << v.size();
  for (int64_t x : v)
    if (x < minV)
      return op->emitOpError() << "expects '" << name << "' entries >= " << minV << ", got "
                               << x;
  return success();
}

/// Shared by conv2d and convolution (1-, 2- and 3-d, non-transposed and
/// transposed). The weight's rank gives the number of spatial dims k; the
/// input is [N, C, k dims] or unbatched [C, k dims]. `fixedSpatial` (2 for
/// conv2d) pins k.
LogicalResult verifyConv(Operation *op, Value input, Value weight, Value bias,
                         ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                         ArrayRef<int64_t> dilation, ArrayRef<int64_t> outputPadding,
                         bool transposed, int64_t groups, Value result,
                         int64_t fixedSpatial = 0) {
  auto inTy = rankedType(input), wTy = rankedType(weight);
  int64_t k = wTy.getRank() - 2;
  if (fixedSpatial) {
    if (inTy.getRank() != fixedSpatial + 2 && inTy.getRank() != fixedSpatial + 1)
      return op->emitOpError("expects a 4-d (NCHW) or 3-d (CHW) input, got rank ")
             << inTy.getRank();
    if (k != fixedSpatial)
      return op->emitOpError("expects a 4-d weight, got rank ") << wTy.getRank();
  } else {
    if (k < 1 || k > 3)
      return op->emitOpError("expects a 3-d, 4-d or 5-d weight (1 to 3 spatial dims), got rank ")
             << wTy.getRank();
    if (inTy.getRank() != k + 2 && inTy.getRank() != k + 1)
      return op->emitOpError("expects a ")
             << k + 2 << "-d (batched) or " << k + 1 << "-d (unbatched) input for a weight with "
             << k << " spatial dims, got rank " << inTy.getRank();
  }
  if (failed(verifyWindowAttr(op, "stride", stride, k, 1)) ||
      failed(verifyWindowAttr(op, "padding", padding, k, 0)) ||
      failed(verifyWindowAttr(op, "dilation", dilation, k, 1)))
    return failure();
  if (!outputPadding.empty() &&
      failed(verifyWindowAttr(op, "output_padding", outputPadding, k, 0)))
    return failure();
  if (groups < 1)
    return op->emitOpError("expects groups >= 1, got ") << groups;
  if (wTy.getElementType() != inTy.getElementType())
    return op->emitOpError("expects input and weight of one element type");
  Type elem = inTy.getElementType();
  if (elem.isInteger(1))
    return op->emitOpError("does not take bool tensors (ATen convolves floats and signed "
                           "integers)");
  bool batched = inTy.getRank() == k + 2;
  int64_t c = inTy.getDimSize(batched ? 1 : 0);
  int64_t wOut = wTy.getDimSize(0), wIn = wTy.getDimSize(1);
  int64_t outC = transposed ? (wIn == kDyn ? kDyn : wIn * groups) : wOut;
  int64_t expectIn = transposed ? wOut : (wIn == kDyn ? kDyn : wIn * groups);
  if (c != kDyn && expectIn != kDyn && c != expectIn)
    return op->emitOpError("input has ")
           << c << " channels but the weight expects " << expectIn << " (groups = " << groups
           << ")";
  if (!transposed && wOut != kDyn && wOut % groups != 0)
    return op->emitOpError("expects the weight's ") << wOut << " output channels to divide by groups = " << groups;
  if (transposed && wOut != kDyn && wOut % groups != 0)
    return op->emitOpError("expects the weight's ") << wOut << " input channels to divide by groups = " << groups;
  if (transposed)
    for (int64_t i = 0; i < (int64_t)outputPadding.size(); ++i)
      if (outputPadding[i] >= stride[i] && outputPadding[i] >= dilation[i])
        return op->emitOpError("expects output_padding smaller than stride or dilation, got ")
               << outputPadding[i] << " for stride " << stride[i] << " and dilation "
               << dilation[i];
  if (bias) {
    auto bTy = rankedType(bias);
    if (bTy.getRank() != 1 ||
        (bTy.getDimSize(0) != kDyn && outC != kDyn && bTy.getDimSize(0) != outC))
      return op->emitOpError("expects a bias of shape [") << outC << "]";
  }
  SmallVector<int64_t> shape;
  if (batched)
    shape.push_back(inTy.getDimSize(0));
  shape.push_back(outC);
  for (int64_t i = 0; i < k; ++i) {
    int64_t in = inTy.getDimSize(inTy.getRank() - k + i), kk = wTy.getDimSize(2 + i);
    if (in == kDyn || kk == kDyn) {
      shape.push_back(kDyn);
    } else if (transposed) {
      int64_t o = (in - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kk - 1) +
                  (outputPadding.empty() ? 0 : outputPadding[i]) + 1;
      if (o < 0)
        return op->emitOpError("transposed convolution of an input of size ")
               << in << " gives a negative output size " << o;
      shape.push_back(o);
    } else {
      int64_t o = slidingWindowOutputSize(in, kk, stride[i], padding[i], dilation[i], false);
      if (o < 1)
        return op->emitOpError("kernel of size ")
               << kk << " does not fit the padded input of size " << in + 2 * padding[i];
      shape.push_back(o);
    }
  }
  return verifyResult(op, result, shape, inTy.getElementType());
}

FailureOr<SmallVector<int64_t>> broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x == 1)
      out[i] = y;
    else if (y == 1)
      out[i] = x;
    else if (x == kDyn)
      out[i] = y;
    else if (y == kDyn || x == y)
      out[i] = x;
    else
      return failure();
  }
  return out;
}

LogicalResult verifyBinary(Operation *op) {
  auto a = rankedType(op->getOperand(0)), b = rankedType(op->getOperand(1));
  auto shape = broadcastShape(a.getShape(), b.getShape());
  if (failed(shape))
    return op->emitOpError("operand shapes ")
           << shapeStr(a.getShape()) << " and " << shapeStr(b.getShape())
           << " do not broadcast";
  Type elem = rankedType(op->getResult(0)).getElementType();
  if (!elem.isIntOrFloat())
    return op->emitOpError("needs an integer or float result");
  return verifyResult(op, op->getResult(0), *shape);
}

} // namespace kiln::aten::detail

using namespace kiln::aten::detail;

LogicalResult Conv2dOp::verify() {
  return verifyConv(*this, getInput(), getWeight(), getBias(), getStride(), getPadding(),
                    getDilation(), {}, false, getGroups(), getResult(), /*fixedSpatial=*/2);
}

LogicalResult ConvolutionOp::verify() {
  return verifyConv(*this, getInput(), getWeight(), getBias(), getStride(), getPadding(),
                    getDilation(), getOutputPadding(), getTransposed(), getGroups(),
                    getResult());
}

LogicalResult CallRuntimeOp::verify() {
  if (!getCallee().contains("::"))
    return emitOpError("callee '") << getCallee() << "' is not a qualified name (ns::op)";
  unsigned operandSlots = 0;
  auto operandSlot = [&](TypeAttr t) -> LogicalResult {
    if (operandSlots >= getNumOperands())
      return emitOpError("args name more operands than the op has");
    if (getOperand(operandSlots).getType() != t.getValue())
      return emitOpError("operand ") << operandSlots << " has type "
                                     << getOperand(operandSlots).getType() << ", args say "
                                     << t.getValue();
    ++operandSlots;
    return success();
  };
  for (Attribute a : getArgs()) {
    if (auto t = dyn_cast<TypeAttr>(a)) {
      if (failed(operandSlot(t)))
        return failure();
      continue;
    }
    if (auto list = dyn_cast<ArrayAttr>(a)) { // a Tensor[] argument: one operand per element
      for (Attribute e : list) {
        auto t = dyn_cast<TypeAttr>(e);
        if (!t)
          return emitOpError("a list argument holds ") << e << ", not a tensor type";
        if (failed(operandSlot(t)))
          return failure();
      }
      continue;
    }
    if (!isa<IntegerAttr, FloatAttr, UnitAttr, DenseI64ArrayAttr, DenseF64ArrayAttr,
             StringAttr>(a))
      return emitOpError("unsupported literal argument ") << a;
  }
  if (operandSlots != getNumOperands())
    return emitOpError("args name ") << operandSlots << " operands, the op has "
                                     << getNumOperands();
  bool tensors = llvm::all_of(getOperandTypes(), llvm::IsaPred<RankedTensorType>) &&
                 llvm::all_of(getResultTypes(), llvm::IsaPred<RankedTensorType>);
  bool buffers = llvm::all_of(getOperandTypes(), llvm::IsaPred<MemRefType>) &&
                 llvm::all_of(getResultTypes(), llvm::IsaPred<MemRefType>);
  if (!tensors && !buffers)
    return emitOpError("operands and results must be all ranked tensors or all memrefs");
  return success();
}

void CallRuntimeOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  // On tensors the call is a pure function of its operands; on buffers it
  // reads its operands, allocates its results and writes them. The write
  // matters: bufferization's dealloc canonicalization erases the defining op
  // of an unused buffer whose only effect is its allocation, which would
  // erase a multi-result call whose other results are still used.
  for (OpOperand &o : getOperation()->getOpOperands())
    if (isa<MemRefType>(o.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &o,
                           SideEffects::DefaultResource::get());
  for (OpResult r : getOperation()->getOpResults())
    if (isa<MemRefType>(r.getType())) {
      effects.emplace_back(MemoryEffects::Allocate::get(), r,
                           SideEffects::DefaultResource::get());
      effects.emplace_back(MemoryEffects::Write::get(), r,
                           SideEffects::DefaultResource::get());
    }
}

#define GET_OP_CLASSES
#include "ATen/IR/ATenOps.cpp.inc"

//===- ATenResamplingOps.cpp - verifiers of the aten upsample ops ----------===//
//
// One verifier for every upsample overload: an N, C and spatial-dims input of
// a float or uint8 dtype, an output size or positive scales per spatial dim,
// and the result shape they give (floor(input * scale) without output_size).
// The antialiased ops (ATenAntialiasOps.td) take float inputs only.
//
//===----------------------------------------------------------------------===//
#include "ATen/IR/ATenAntialiasOps.h"
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;

namespace {
template <typename OpT> LogicalResult verifyUpsample(OpT op, int spatial) {
  auto inTy = rankedType(op.getSelf());
  if (inTy.getRank() != spatial + 2) {
    StringRef layout = spatial == 1 ? "NCW" : spatial == 2 ? "NCHW" : "NCDHW";
    return op.emitOpError("expects a ")
           << spatial + 2 << "-d (" << layout << ") input, got rank " << inTy.getRank();
  }
  Type elem = inTy.getElementType();
  if (!isa<FloatType>(elem) && !elem.isUnsignedInteger(8))
    return op.emitOpError("expects a float or uint8 input, got ") << elem;
  auto size = op.getOutputSize();
  auto scales = op.getScales();
  if (!size && !scales)
    return op.emitOpError("expects output_size or scales");
  if (size && failed(verifyWindowAttr(op, "output_size", *size, spatial, 1)))
    return failure();
  if (scales && scales->size() != (size_t)spatial)
    return op.emitOpError("expects 'scales' to have ")
           << spatial << " entries, got " << scales->size();
  SmallVector<int64_t> shape(inTy.getShape().take_front(2));
  for (int i = 0; i < spatial; ++i) {
    if (size) {
      shape.push_back((*size)[i]);
      continue;
    }
    double s = (*scales)[i];
    if (!(s > 0))
      return op.emitOpError("expects positive scales when output_size is absent, got ") << s;
    int64_t in = inTy.getDimSize(2 + i);
    shape.push_back(in == kDyn ? kDyn : (int64_t)std::floor((double)in * s));
  }
  return verifyResult(op, op.getResult(), shape, elem);
}

template <typename OpT> LogicalResult verifyAntialias(OpT op) {
  Type elem = rankedType(op.getSelf()).getElementType();
  if (!isa<FloatType>(elem))
    return op.emitOpError("expects a float input, got ") << elem;
  return verifyUpsample(op, 2);
}
} // namespace

LogicalResult UpsampleNearest1dOp::verify() { return verifyUpsample(*this, 1); }
LogicalResult UpsampleNearest2dOp::verify() { return verifyUpsample(*this, 2); }
LogicalResult UpsampleNearest3dOp::verify() { return verifyUpsample(*this, 3); }
LogicalResult UpsampleNearestExact1dOp::verify() { return verifyUpsample(*this, 1); }
LogicalResult UpsampleNearestExact2dOp::verify() { return verifyUpsample(*this, 2); }
LogicalResult UpsampleNearestExact3dOp::verify() { return verifyUpsample(*this, 3); }
LogicalResult UpsampleLinear1dOp::verify() { return verifyUpsample(*this, 1); }
LogicalResult UpsampleBilinear2dOp::verify() { return verifyUpsample(*this, 2); }
LogicalResult UpsampleTrilinear3dOp::verify() { return verifyUpsample(*this, 3); }
LogicalResult UpsampleBicubic2dOp::verify() { return verifyUpsample(*this, 2); }
LogicalResult UpsampleBilinear2dAAOp::verify() { return verifyAntialias(*this); }
LogicalResult UpsampleBicubic2dAAOp::verify() { return verifyAntialias(*this); }

#define GET_OP_CLASSES
#include "ATen/IR/ATenAntialiasOps.cpp.inc"

//===- ATenRandomOps.cpp - verifier of the counter-based random op --------===//
#include "ATen/IR/ATenRandomOps.h"
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;

LogicalResult RandomOp::verify() {
  auto state = cast<RankedTensorType>(getState().getType());
  if (state.getRank() != 1 || state.getDimSize(0) != 2)
    return emitOpError("state must be a tensor<2xi64> [seed, offset], got ") << state;
  StringRef d = getDistribution();
  if (d != "uniform" && d != "normal")
    return emitOpError("distribution must be 'uniform' or 'normal', got '") << d << "'";
  if (getStream() < 0 || getStream() > 0xffff)
    return emitOpError("stream ") << getStream() << " is outside [0, 65535]";
  ArrayRef<int64_t> sizes = getStaticSizes();
  auto ty = cast<RankedTensorType>(getType());
  if ((int64_t)sizes.size() != ty.getRank())
    return emitOpError("has ") << sizes.size() << " sizes for a result of rank " << ty.getRank();
  int64_t numDyn = llvm::count(sizes, kDyn);
  if (numDyn != (int64_t)getSizes().size())
    return emitOpError("expects ") << numDyn << " dynamic size operands, got " << getSizes().size();
  for (int64_t s : sizes)
    if (s < 0 && s != kDyn)
      return emitOpError("invalid size ") << s;
  return verifyResult(*this, getResult(), sizes);
}

#define GET_OP_CLASSES
#include "ATen/IR/ATenRandomOps.cpp.inc"

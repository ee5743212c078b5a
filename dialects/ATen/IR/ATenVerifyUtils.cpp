//===- ATenVerifyUtils.cpp - helpers shared by the aten verifiers ---------===//
#include "ATenVerifyUtils.h"

using namespace mlir;

namespace kiln::aten::detail {

FailureOr<int64_t> normalizeDim(Operation *op, int64_t dim, int64_t rank) {
  int64_t bound = std::max<int64_t>(rank, 1);
  if (dim < -bound || dim >= bound)
    return (op->emitOpError("dim ") << dim << " is out of range for a tensor of rank " << rank,
            failure());
  return dim < 0 ? dim + bound : dim;
}

LogicalResult verifyElementType(Operation *op, StringRef what, Type actual, Type expected) {
  if (actual != expected)
    return op->emitOpError() << what << " element type " << actual << " should be "
                             << expected;
  return success();
}

SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> reduced,
                                  bool keepdim) {
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < (int64_t)shape.size(); ++i) {
    if (!llvm::is_contained(reduced, i))
      out.push_back(shape[i]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

bool broadcastsTo(ArrayRef<int64_t> shape, ArrayRef<int64_t> target) {
  if (shape.size() > target.size())
    return false;
  for (auto [s, t] : llvm::zip(llvm::reverse(shape), llvm::reverse(target)))
    if (s != 1 && s != kDyn && t != kDyn && s != t)
      return false;
  return true;
}

} // namespace kiln::aten::detail

//===- ATenVerifyUtils.cpp - helpers shared by the aten verifiers ---------===//
#include "ATenVerifyUtils.h"

using namespace mlir;

namespace kiln::aten::detail {

std::optional<int64_t> normalizeDim(int64_t d, int64_t rank) {
  int64_t r = std::max<int64_t>(rank, 1);
  if (d < -r || d >= r)
    return std::nullopt;
  return d < 0 ? d + r : d;
}

LogicalResult dimError(Operation *op, StringRef what, int64_t d, int64_t rank) {
  return op->emitOpError() << what << " " << d << " is out of range for a tensor of rank "
                           << rank;
}

FailureOr<int64_t> normalizeDim(Operation *op, int64_t dim, int64_t rank) {
  if (std::optional<int64_t> d = normalizeDim(dim, rank))
    return *d;
  (void)dimError(op, "dim", dim, rank);
  return failure();
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

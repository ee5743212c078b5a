//===- ATenIndexingOps.cpp - verifiers of the gather, scatter and pad ops -===//
//
// Shape inference as ATen does it for index_select, gather, scatter,
// advanced indexing (index.Tensor, index_put), nonzero, flip, roll, repeat,
// tril/triu and the pads.
//
//===----------------------------------------------------------------------===//
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;

namespace {

/// The shape index_tensor reads (and index_put writes), or failure.
FailureOr<SmallVector<int64_t>> advancedIndexShape(Operation *op, RankedTensorType selfTy,
                                                   ValueRange indices,
                                                   ArrayRef<int64_t> indexDims) {
  int64_t rank = selfTy.getRank();
  if (indices.empty())
    return (op->emitOpError("expects at least one index tensor"), failure());
  if (indices.size() != indexDims.size())
    return (op->emitOpError("has ") << indices.size() << " index tensors but "
                                    << indexDims.size() << " index_dims",
            failure());
  int64_t prev = -1;
  for (int64_t d : indexDims) {
    if (d < 0 || d >= rank || d <= prev)
      return (op->emitOpError("index_dims must be increasing dims of self (rank ")
                  << rank << ")",
              failure());
    prev = d;
  }
  SmallVector<int64_t> b;
  for (Value idx : indices) {
    auto s = broadcastShape(b, rankedType(idx).getShape());
    if (failed(s))
      return (op->emitOpError("index shapes ") << shapeStr(b) << " and "
                                               << shapeStr(rankedType(idx).getShape())
                                               << " do not broadcast",
              failure());
    b = *s;
  }
  bool adjacent = indexDims.back() - indexDims.front() + 1 == (int64_t)indexDims.size();
  SmallVector<int64_t> shape;
  if (adjacent) {
    llvm::append_range(shape, selfTy.getShape().take_front(indexDims.front()));
    llvm::append_range(shape, b);
    llvm::append_range(shape, selfTy.getShape().drop_front(indexDims.back() + 1));
  } else {
    llvm::append_range(shape, b);
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(indexDims, d))
        shape.push_back(selfTy.getDimSize(d));
  }
  return shape;
}

LogicalResult verifyPadding(Operation *op, RankedTensorType inTy, ArrayRef<int64_t> pad,
                            StringRef name) {
  if (pad.size() % 2)
    return op->emitOpError("expects an even number of ") << name << " entries, got "
                                                           << pad.size();
  if ((int64_t)pad.size() / 2 > inTy.getRank())
    return op->emitOpError("pads ") << pad.size() / 2 << " dims of a tensor of rank "
                                    << inTy.getRank();
  return success();
}

/// The padded shape: the i-th pair pads dim rank-1-i.
FailureOr<SmallVector<int64_t>> paddedShape(Operation *op, RankedTensorType inTy,
                                            ArrayRef<int64_t> pad) {
  SmallVector<int64_t> shape(inTy.getShape());
  int64_t rank = inTy.getRank();
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    int64_t d = rank - 1 - i;
    if (shape[d] == kDyn)
      continue;
    shape[d] += pad[2 * i] + pad[2 * i + 1];
    if (shape[d] < 0)
      return (op->emitOpError("padding makes dim ") << d << " of size " << inTy.getDimSize(d)
                                                    << " negative",
              failure());
  }
  return shape;
}
} // namespace

LogicalResult IndexSelectOp::verify() {
  auto inTy = rankedType(getSelf()), idxTy = rankedType(getIndex());
  int64_t rank = inTy.getRank();
  auto d = normalizeDim(getDim(), rank);
  if (!d)
    return dimError(*this, "dim", getDim(), rank);
  if (idxTy.getRank() > 1)
    return emitOpError("expects a 0-d or 1-d index, got rank ") << idxTy.getRank();
  SmallVector<int64_t> shape(inTy.getShape());
  if (rank > 0)
    shape[*d] = idxTy.getRank() == 0 ? 1 : idxTy.getDimSize(0);
  return verifyResult(*this, getResult(), shape, inTy.getElementType());
}

LogicalResult GatherOp::verify() {
  auto inTy = rankedType(getSelf()), idxTy = rankedType(getIndex());
  int64_t rank = inTy.getRank();
  auto d = normalizeDim(getDim(), rank);
  if (!d)
    return dimError(*this, "dim", getDim(), rank);
  // A 0-d self takes a 0-d or 1-d index (ATen treats scalars as 1-d here).
  if (idxTy.getRank() != rank && !(rank == 0 && idxTy.getRank() == 1))
    return emitOpError("expects an index of the rank of self (") << rank << "), got rank "
                                                                 << idxTy.getRank();
  for (int64_t i = 0; i < rank; ++i) {
    int64_t n = idxTy.getDimSize(i), s = inTy.getDimSize(i);
    if (i != *d && n != kDyn && s != kDyn && n > s)
      return emitOpError("index dim ") << i << " of size " << n
                                       << " is larger than self's (" << s << ")";
  }
  return verifyResult(*this, getResult(), idxTy.getShape(), inTy.getElementType());
}

LogicalResult ScatterOp::verify() {
  auto inTy = rankedType(getSelf()), idxTy = rankedType(getIndex()), srcTy = rankedType(getSrc());
  int64_t rank = inTy.getRank();
  auto d = normalizeDim(getDim(), rank);
  if (!d)
    return dimError(*this, "dim", getDim(), rank);
  StringRef r = getReduce();
  if (r != "none" && r != "sum" && r != "prod" && r != "mean" && r != "amax" && r != "amin")
    return emitOpError("unknown reduce '") << r << "' (none, sum, prod, mean, amax or amin)";
  if (idxTy.getRank() != rank)
    return emitOpError("expects an index of the rank of self (") << rank << "), got rank "
                                                                 << idxTy.getRank();
  if (srcTy.getElementType() != inTy.getElementType())
    return emitOpError("expects src of self's element type ") << inTy.getElementType();
  bool scalarSrc = srcTy.getRank() == 0 && rank > 0;
  if (!scalarSrc && srcTy.getRank() != rank)
    return emitOpError("expects src of the rank of self (or 0-d), got rank ") << srcTy.getRank();
  for (int64_t i = 0; i < rank; ++i) {
    int64_t n = idxTy.getDimSize(i), s = inTy.getDimSize(i);
    if (n == kDyn)
      continue;
    if (i != *d && s != kDyn && n > s)
      return emitOpError("index dim ") << i << " of size " << n
                                       << " is larger than self's (" << s << ")";
    if (!scalarSrc && srcTy.getDimSize(i) != kDyn && n > srcTy.getDimSize(i))
      return emitOpError("index dim ") << i << " of size " << n << " is larger than src's ("
                                       << srcTy.getDimSize(i) << ")";
  }
  return verifyResult(*this, getResult(), inTy.getShape(), inTy.getElementType());
}

LogicalResult IndexTensorOp::verify() {
  auto inTy = rankedType(getSelf());
  auto shape = advancedIndexShape(*this, inTy, getIndices(), getIndexDims());
  if (failed(shape))
    return failure();
  return verifyResult(*this, getResult(), *shape, inTy.getElementType());
}

LogicalResult IndexPutOp::verify() {
  auto inTy = rankedType(getSelf()), valTy = rankedType(getValues());
  auto shape = advancedIndexShape(*this, inTy, getIndices(), getIndexDims());
  if (failed(shape))
    return failure();
  if (valTy.getElementType() != inTy.getElementType())
    return emitOpError("expects values of self's element type ") << inTy.getElementType();
  auto b = broadcastShape(*shape, valTy.getShape());
  if (failed(b) || b->size() != shape->size() ||
      failed(verifyCompatibleShape(*b, *shape)))
    return emitOpError("values of shape ") << shapeStr(valTy.getShape())
                                           << " do not broadcast to the indexed shape "
                                           << shapeStr(*shape);
  return verifyResult(*this, getResult(), inTy.getShape(), inTy.getElementType());
}

LogicalResult NonzeroOp::verify() {
  auto inTy = rankedType(getSelf());
  return verifyResult(*this, getResult(), {kDyn, inTy.getRank()});
}

LogicalResult FlipOp::verify() {
  auto inTy = rankedType(getSelf());
  int64_t rank = inTy.getRank();
  SmallVector<bool> seen(std::max<int64_t>(rank, 1), false);
  for (int64_t d : getDims()) {
    auto n = normalizeDim(d, rank);
    if (!n)
      return dimError(*this, "dim", d, rank);
    if (seen[*n])
      return emitOpError("dim ") << *n << " appears more than once";
    seen[*n] = true;
  }
  return verifyResult(*this, getResult(), inTy.getShape(), inTy.getElementType());
}

LogicalResult RollOp::verify() {
  auto inTy = rankedType(getSelf());
  int64_t rank = inTy.getRank();
  if (getDims().empty() ? getShifts().size() != 1 : getShifts().size() != getDims().size())
    return emitOpError("expects one shift per dim (or one shift and no dims), got ")
           << getShifts().size() << " shifts and " << getDims().size() << " dims";
  for (int64_t d : getDims())
    if (!normalizeDim(d, rank))
      return dimError(*this, "dim", d, rank);
  return verifyResult(*this, getResult(), inTy.getShape(), inTy.getElementType());
}

LogicalResult RepeatOp::verify() {
  auto inTy = rankedType(getSelf());
  ArrayRef<int64_t> reps = getRepeats();
  int64_t rank = inTy.getRank(), n = reps.size();
  if (n < rank)
    return emitOpError("expects at least ") << rank << " repeats (the rank of self), got " << n;
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < n; ++i) {
    if (reps[i] < 0)
      return emitOpError("expects repeats >= 0, got ") << reps[i];
    int64_t s = i < n - rank ? 1 : inTy.getDimSize(i - (n - rank));
    shape.push_back(s == kDyn ? kDyn : s * reps[i]);
  }
  return verifyResult(*this, getResult(), shape, inTy.getElementType());
}

LogicalResult TrilOp::verify() {
  if (rankedType(getSelf()).getRank() < 2)
    return emitOpError("expects a tensor of rank >= 2");
  return success();
}

LogicalResult TriuOp::verify() {
  if (rankedType(getSelf()).getRank() < 2)
    return emitOpError("expects a tensor of rank >= 2");
  return success();
}

LogicalResult ConstantPadNdOp::verify() {
  auto inTy = rankedType(getSelf());
  if (failed(verifyPadding(*this, inTy, getPad(), "pad")))
    return failure();
  auto shape = paddedShape(*this, inTy, getPad());
  if (failed(shape))
    return failure();
  return verifyResult(*this, getResult(), *shape, inTy.getElementType());
}

/// Reflection needs pads smaller than the dim, replication a non-empty dim,
/// circular pads no larger than the dim; a negative pad crops.
static LogicalResult verifyGatherPad(Operation *op, Value self, ArrayRef<int64_t> padding,
                                     Value result, StringRef mode) {
  auto inTy = rankedType(self);
  if (failed(verifyPadding(op, inTy, padding, "padding")))
    return failure();
  int64_t rank = inTy.getRank();
  for (size_t i = 0; i < padding.size(); ++i) {
    int64_t p = padding[i], d = rank - 1 - (int64_t)i / 2, n = inTy.getDimSize(d);
    // A negative pad crops.
    if (n == kDyn || p <= 0)
      continue;
    if (mode == "reflection" && p >= n)
      return op->emitOpError("padding ") << p << " must be smaller than dim " << d
                                         << " of size " << n;
    if (mode == "replication" && n == 0)
      return op->emitOpError("cannot pad the empty dim ") << d;
    if (mode == "circular" && p > n)
      return op->emitOpError("padding ") << p << " must be at most dim " << d << " of size "
                                         << n;
  }
  auto shape = paddedShape(op, inTy, padding);
  if (failed(shape))
    return failure();
  return verifyResult(op, result, *shape, inTy.getElementType());
}

LogicalResult ReflectionPadOp::verify() {
  return verifyGatherPad(*this, getSelf(), getPadding(), getResult(), "reflection");
}
LogicalResult ReplicationPadOp::verify() {
  return verifyGatherPad(*this, getSelf(), getPadding(), getResult(), "replication");
}
LogicalResult CircularPadOp::verify() {
  return verifyGatherPad(*this, getSelf(), getPadding(), getResult(), "circular");
}

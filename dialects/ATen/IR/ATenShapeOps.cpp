//===- ATenShapeOps.cpp - verifiers of the view, shape and copy ops -------===//
//
// Shape inference as ATen does it for views (view, permute, unsqueeze,
// squeeze, expand, slice, select, diagonal, unfold, as_strided), their
// scatter inverses, cat and copy.
//
//===----------------------------------------------------------------------===//
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"

#include <limits>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;

namespace {
/// Length of slice [start, end) by step of a dim of `size` (all static), as ATen clamps.
int64_t sliceLength(int64_t size, int64_t start, int64_t end, int64_t step) {
  auto clampBound = [&](int64_t v) {
    if (v < 0)
      v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  int64_t s = clampBound(start), e = clampBound(end);
  return e <= s ? 0 : (e - s + step - 1) / step;
}

/// Inferred shape of slice_tensor / slice_scatter's slice.
FailureOr<SmallVector<int64_t>> sliceShape(Operation *op, RankedTensorType inTy, int64_t dim,
                                           ArrayRef<int64_t> bounds, int64_t step,
                                           size_t numDynamic) {
  auto d = normalizeDim(dim, inTy.getRank());
  if (!d || inTy.getRank() == 0)
    return ((void)dimError(op, "dim", dim, inTy.getRank()), failure());
  if (step < 1)
    return (op->emitOpError("expects a positive step, got ") << step, failure());
  if (bounds.size() != 2)
    return (op->emitOpError("expects 2 bounds (start, end), got ") << bounds.size(), failure());
  if ((size_t)llvm::count(bounds, kDyn) != numDynamic)
    return (op->emitOpError("expects ") << llvm::count(bounds, kDyn)
                                        << " dynamic bound operands, got " << numDynamic,
            failure());
  SmallVector<int64_t> shape(inTy.getShape());
  int64_t n = inTy.getDimSize(*d);
  shape[*d] = (n == kDyn || bounds[0] == kDyn || bounds[1] == kDyn)
                  ? kDyn
                  : sliceLength(n, bounds[0], bounds[1], step);
  return shape;
}

/// Inferred shape of select_int / select_scatter's slice.
FailureOr<SmallVector<int64_t>> selectShape(Operation *op, RankedTensorType inTy, int64_t dim,
                                            ArrayRef<int64_t> index, size_t numDynamic) {
  auto d = normalizeDim(dim, inTy.getRank());
  if (!d || inTy.getRank() == 0)
    return ((void)dimError(op, "dim", dim, inTy.getRank()), failure());
  if (index.size() != 1 || (size_t)llvm::count(index, kDyn) != numDynamic)
    return (op->emitOpError("expects one index, static or an operand"), failure());
  int64_t n = inTy.getDimSize(*d);
  if (index[0] != kDyn && n != kDyn && (index[0] < -n || index[0] >= n))
    return (op->emitOpError("index ") << index[0] << " is out of range for dim " << *d
                                      << " of size " << n,
            failure());
  SmallVector<int64_t> shape(inTy.getShape());
  shape.erase(shape.begin() + *d);
  return shape;
}

/// Inferred shape of diagonal / diagonal_scatter's diagonal.
FailureOr<SmallVector<int64_t>> diagonalShape(Operation *op, RankedTensorType inTy,
                                              int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t rank = inTy.getRank();
  auto d1 = normalizeDim(dim1, rank), d2 = normalizeDim(dim2, rank);
  if (rank < 2)
    return (op->emitOpError("expects a tensor of rank >= 2, got rank ") << rank, failure());
  if (!d1)
    return ((void)dimError(op, "dim1", dim1, rank), failure());
  if (!d2)
    return ((void)dimError(op, "dim2", dim2, rank), failure());
  if (*d1 == *d2)
    return (op->emitOpError("diagonal dimensions cannot be identical (") << dim1 << ", "
                                                                         << dim2 << ")",
            failure());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    if (i != *d1 && i != *d2)
      shape.push_back(inTy.getDimSize(i));
  int64_t n1 = inTy.getDimSize(*d1), n2 = inTy.getDimSize(*d2);
  if (n1 == kDyn || n2 == kDyn)
    shape.push_back(kDyn);
  else
    shape.push_back(std::max<int64_t>(
        0, offset >= 0 ? std::min(n1, n2 - offset) : std::min(n1 + offset, n2)));
  return shape;
}
} // namespace

LogicalResult PermuteOp::verify() {
  auto inTy = rankedType(getSelf());
  int64_t rank = inTy.getRank();
  if ((int64_t)getDims().size() != rank)
    return emitOpError("expects ") << rank << " permutation entries, got " << getDims().size();
  SmallVector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t d : getDims()) {
    int64_t n = d < 0 ? d + rank : d;
    if (n < 0 || n >= rank || seen[n])
      return emitOpError("dims is not a permutation of [0, ") << rank << ")";
    seen[n] = true;
    shape.push_back(inTy.getDimSize(n));
  }
  return verifyResult(*this, getResult(), shape, inTy.getElementType());
}

LogicalResult ViewOp::verify() {
  auto inTy = rankedType(getSelf()), outTy = rankedType(getResult());
  if (inTy.getElementType() != outTy.getElementType())
    return emitOpError("cannot change the element type");
  ArrayRef<int64_t> sizes = getStaticSizes();
  if ((int64_t)sizes.size() != outTy.getRank())
    return emitOpError("has ") << sizes.size() << " sizes for a result of rank "
                               << outTy.getRank();
  int64_t numDyn = llvm::count(sizes, kDyn);
  if (numDyn != (int64_t)getSizes().size())
    return emitOpError("expects ") << numDyn << " dynamic size operands, got "
                                   << getSizes().size();
  if (llvm::count(sizes, -1) > 1)
    return emitOpError("can infer at most one size (-1)");
  for (auto [s, r] : llvm::zip(sizes, outTy.getShape())) {
    if (s < -1 && s != kDyn)
      return emitOpError("invalid size ") << s;
    if (s >= 0 && r != kDyn && s != r)
      return emitOpError("size ") << s << " disagrees with the result type " << outTy;
  }
  if (inTy.hasStaticShape() && outTy.hasStaticShape() &&
      inTy.getNumElements() != outTy.getNumElements())
    return emitOpError("shape ")
           << shapeStr(outTy.getShape()) << " is invalid for input of "
           << inTy.getNumElements() << " elements";
  return success();
}

LogicalResult FlattenUsingIntsOp::verify() {
  auto inTy = rankedType(getSelf());
  int64_t rank = std::max<int64_t>(inTy.getRank(), 1);
  int64_t s = getStartDim() < 0 ? getStartDim() + rank : getStartDim();
  int64_t e = getEndDim() < 0 ? getEndDim() + rank : getEndDim();
  if (s < 0 || s >= rank || e < 0 || e >= rank)
    return emitOpError("dims out of range for a tensor of rank ") << inTy.getRank();
  if (s > e)
    return emitOpError("start_dim cannot come after end_dim");
  if (inTy.getRank() == 0)
    return verifyResult(*this, getResult(), {1}, inTy.getElementType());
  SmallVector<int64_t> shape(inTy.getShape().take_front(s));
  int64_t prod = 1;
  for (int64_t i = s; i <= e; ++i)
    prod = (prod == kDyn || inTy.getDimSize(i) == kDyn) ? kDyn : prod * inTy.getDimSize(i);
  shape.push_back(prod);
  llvm::append_range(shape, inTy.getShape().drop_front(e + 1));
  return verifyResult(*this, getResult(), shape, inTy.getElementType());
}

LogicalResult SymSizeIntOp::verify() {
  int64_t rank = rankedType(getSelf()).getRank();
  if (getDim() < -rank || getDim() >= rank)
    return emitOpError("dim ") << getDim() << " is out of range for a tensor of rank " << rank;
  return success();
}

LogicalResult UnsqueezeOp::verify() {
  auto inTy = rankedType(getSelf());
  int64_t rank = inTy.getRank();
  auto d = normalizeDim(getDim(), rank + 1);
  if (!d)
    return dimError(*this, "dim", getDim(), rank + 1);
  SmallVector<int64_t> shape(inTy.getShape());
  shape.insert(shape.begin() + *d, 1);
  return verifyResult(*this, getResult(), shape, inTy.getElementType());
}

LogicalResult SqueezeDimsOp::verify() {
  auto inTy = rankedType(getSelf());
  int64_t rank = inTy.getRank();
  SmallVector<bool> drop(rank, false);
  for (int64_t d : getDims()) {
    auto n = normalizeDim(d, rank);
    if (!n)
      return dimError(*this, "dim", d, rank);
    if (rank == 0)
      continue;
    if (drop[*n])
      return emitOpError("dim ") << *n << " appears more than once";
    if (inTy.getDimSize(*n) != 1)
      return emitOpError("squeezes dim ") << *n << " of size "
                                          << (inTy.isDynamicDim(*n) ? std::string("?")
                                                                    : std::to_string(inTy.getDimSize(*n)))
                                          << "; only static size-1 dims are listed";
    drop[*n] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i])
      shape.push_back(inTy.getDimSize(i));
  return verifyResult(*this, getResult(), shape, inTy.getElementType());
}

LogicalResult ExpandOp::verify() {
  auto inTy = rankedType(getSelf());
  ArrayRef<int64_t> sizes = getStaticSizes();
  int64_t rank = inTy.getRank(), outRank = sizes.size();
  if (outRank < rank)
    return emitOpError("expects at least ") << rank << " sizes, got " << outRank;
  if ((size_t)llvm::count(sizes, kDyn) != getSizes().size())
    return emitOpError("expects ") << llvm::count(sizes, kDyn) << " dynamic size operands, got "
                                   << getSizes().size();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < outRank; ++i) {
    int64_t s = sizes[i];
    if (s < -1 && s != kDyn)
      return emitOpError("invalid size ") << s;
    if (i < outRank - rank) {
      if (s == -1)
        return emitOpError("size -1 is not allowed for the new leading dim ") << i;
      shape.push_back(s);
      continue;
    }
    int64_t in = inTy.getDimSize(i - (outRank - rank));
    if (s == -1) {
      shape.push_back(in);
    } else {
      if (s != kDyn && in != kDyn && in != 1 && in != s)
        return emitOpError("cannot expand dim ")
               << i - (outRank - rank) << " of size " << in << " to size " << s;
      shape.push_back(s);
    }
  }
  return verifyResult(*this, getResult(), shape, inTy.getElementType());
}

LogicalResult SliceTensorOp::verify() {
  auto inTy = rankedType(getSelf());
  auto shape = sliceShape(*this, inTy, getDim(), getStaticBounds(), getStep(), getBounds().size());
  if (failed(shape))
    return failure();
  return verifyResult(*this, getResult(), *shape, inTy.getElementType());
}

LogicalResult SelectIntOp::verify() {
  auto inTy = rankedType(getSelf());
  auto shape = selectShape(*this, inTy, getDim(), getStaticIndex(), getIndex().size());
  if (failed(shape))
    return failure();
  return verifyResult(*this, getResult(), *shape, inTy.getElementType());
}

LogicalResult DiagonalOp::verify() {
  auto inTy = rankedType(getSelf());
  auto shape = diagonalShape(*this, inTy, getOffset(), getDim1(), getDim2());
  if (failed(shape))
    return failure();
  return verifyResult(*this, getResult(), *shape, inTy.getElementType());
}

LogicalResult UnfoldOp::verify() {
  auto inTy = rankedType(getSelf());
  int64_t rank = inTy.getRank();
  auto d = normalizeDim(getDimension(), rank);
  if (!d)
    return dimError(*this, "dimension", getDimension(), rank);
  if (getSize() < 0)
    return emitOpError("expects a size >= 0, got ") << getSize();
  if (getStep() < 1)
    return emitOpError("expects a step >= 1, got ") << getStep();
  SmallVector<int64_t> shape(inTy.getShape());
  int64_t n = rank == 0 ? 1 : inTy.getDimSize(*d);
  if (n != kDyn && getSize() > n)
    return emitOpError("window size ") << getSize() << " exceeds the dim's size " << n;
  int64_t windows = n == kDyn ? kDyn : (n - getSize()) / getStep() + 1;
  if (rank == 0)
    shape.push_back(getSize());
  else {
    shape[*d] = windows;
    shape.push_back(getSize());
  }
  return verifyResult(*this, getResult(), shape, inTy.getElementType());
}

LogicalResult AsStridedOp::verify() {
  auto inTy = rankedType(getSelf());
  if (getSize().size() != getStride().size())
    return emitOpError("expects as many strides as sizes, got ")
           << getStride().size() << " and " << getSize().size();
  if (!inTy.hasStaticShape())
    return emitOpError("needs an input of static shape");
  int64_t last = getStorageOffset();
  if (last < 0)
    return emitOpError("expects a storage offset >= 0, got ") << last;
  bool empty = false;
  for (auto [n, s] : llvm::zip(getSize(), getStride())) {
    if (n < 0 || s < 0)
      return emitOpError("expects sizes and strides >= 0");
    empty |= n == 0;
    last += (n - 1) * s;
  }
  if (!empty && last >= inTy.getNumElements())
    return emitOpError("addresses element ")
           << last << " of an input of " << inTy.getNumElements() << " elements";
  return verifyResult(*this, getResult(), getSize(), inTy.getElementType());
}

LogicalResult CopyOp::verify() {
  auto selfTy = rankedType(getSelf()), srcTy = rankedType(getSrc());
  auto shape = broadcastShape(selfTy.getShape(), srcTy.getShape());
  if (failed(shape) || shape->size() != selfTy.getShape().size())
    return emitOpError("src of shape ")
           << shapeStr(srcTy.getShape()) << " does not broadcast to self's shape "
           << shapeStr(selfTy.getShape());
  for (auto [s, i] : llvm::zip(*shape, selfTy.getShape()))
    if (s != kDyn && i != kDyn && s != i)
      return emitOpError("src of shape ")
             << shapeStr(srcTy.getShape()) << " does not broadcast to self's shape "
             << shapeStr(selfTy.getShape());
  return verifyResult(*this, getResult(), selfTy.getShape(), selfTy.getElementType());
}

LogicalResult CatOp::verify() {
  auto outTy = rankedType(getResult());
  int64_t rank = outTy.getRank();
  auto d = normalizeDim(getDim(), rank);
  if (getTensors().empty())
    return emitOpError("expects at least one tensor");
  if (!d || rank == 0)
    return dimError(*this, "dim", getDim(), rank);
  SmallVector<int64_t> shape;
  int64_t total = 0;
  for (Value t : getTensors()) {
    auto ty = rankedType(t);
    // ATen skips 1-d empty tensors whatever the others' rank.
    if (ty.getRank() == 1 && ty.getDimSize(0) == 0)
      continue;
    if (!ty.getElementType().isIntOrFloat() && !isa<IndexType>(ty.getElementType()))
      return emitOpError("needs integer or float tensors");
    if (ty.getRank() != rank)
      return emitOpError("expects tensors of rank ") << rank << ", got " << ty;
    if (shape.empty()) {
      shape.assign(ty.getShape().begin(), ty.getShape().end());
    } else {
      for (int64_t i = 0; i < rank; ++i) {
        if (i == *d)
          continue;
        int64_t a = shape[i], b = ty.getDimSize(i);
        if (a != kDyn && b != kDyn && a != b)
          return emitOpError("sizes of tensors must match except in dim ")
                 << *d << ": dim " << i << " is " << a << " and " << b;
        if (a == kDyn)
          shape[i] = b;
      }
    }
    int64_t n = ty.getDimSize(*d);
    total = (total == kDyn || n == kDyn) ? kDyn : total + n;
  }
  if (shape.empty()) // every input is 1-d and empty
    return verifyResult(*this, getResult(), {0});
  shape[*d] = total;
  return verifyResult(*this, getResult(), shape);
}

/// A scatter op once the shape of the view it writes is known: `src` has that
/// shape and self's dtype (the error names the view `what`), and the result
/// is shaped as self.
static LogicalResult verifyScatterSrc(Operation *op, RankedTensorType inTy,
                                      FailureOr<SmallVector<int64_t>> shape, Value src,
                                      Value result, StringRef what) {
  if (failed(shape))
    return failure();
  auto srcTy = rankedType(src);
  if (srcTy.getElementType() != inTy.getElementType() ||
      failed(verifyCompatibleShape(srcTy.getShape(), *shape)))
    return op->emitOpError("src ") << srcTy << " does not match the " << what << "'s shape "
                                   << shapeStr(*shape);
  return verifyResult(op, result, inTy.getShape(), inTy.getElementType());
}

LogicalResult SliceScatterOp::verify() {
  auto inTy = rankedType(getSelf());
  return verifyScatterSrc(
      *this, inTy,
      sliceShape(*this, inTy, getDim(), getStaticBounds(), getStep(), getBounds().size()),
      getSrc(), getResult(), "slice");
}

LogicalResult SelectScatterOp::verify() {
  auto inTy = rankedType(getSelf());
  return verifyScatterSrc(*this, inTy,
                          selectShape(*this, inTy, getDim(), getStaticIndex(), getIndex().size()),
                          getSrc(), getResult(), "slice");
}

LogicalResult DiagonalScatterOp::verify() {
  auto inTy = rankedType(getSelf());
  return verifyScatterSrc(*this, inTy,
                          diagonalShape(*this, inTy, getOffset(), getDim1(), getDim2()),
                          getSrc(), getResult(), "diagonal");
}

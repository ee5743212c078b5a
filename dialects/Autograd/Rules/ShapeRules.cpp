//===- ShapeRules.cpp - derivatives of views, permutes, expands, windows --===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// Ops that only reshape: the cotangent is viewed back to the input's shape.
template <typename OpT>
LogicalResult reshapeVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                         SmallVectorImpl<Value> &out) {
  if (needed[0])
    out[0] = viewAs(b, op.getLoc(), cts[0], op->getOperand(0));
  return success();
}
/// ... and the tangent is viewed forward to the result's shape.
template <typename OpT>
LogicalResult reshapeJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = viewAs(b, op.getLoc(), ts[0], op->getResult(0));
  return success();
}

LogicalResult permuteVjp(PermuteOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                         SmallVectorImpl<Value> &out) {
  ArrayRef<int64_t> dims = op.getDims();
  int64_t rank = dims.size();
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[(dims[i] % rank + rank) % rank] = i;
  out[0] = permute(b, op.getLoc(), cts[0], inverse);
  return success();
}
LogicalResult permuteJvp(PermuteOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = PermuteOp::create(b, op.getLoc(), op.getType(), ts[0], op.getDimsAttr());
  return success();
}

LogicalResult expandVjp(ExpandOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  if (needed[0])
    out[0] = sumTo(b, op.getLoc(), cts[0], op.getSelf().getType());
  return success();
}
LogicalResult expandJvp(ExpandOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = expandAs(b, op.getLoc(), ts[0], op.getResult());
  return success();
}

/// cat: each input's cotangent is its slice of the result's along `dim`.
LogicalResult catVjp(CatOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                     SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  int64_t rank = tensorType(op.getResult()).getRank();
  int64_t dim = (op.getDim() % rank + rank) % rank;
  int64_t staticStart = 0;
  Value start; // once a size is dynamic, the running offset is an index value
  for (auto [i, x] : llvm::enumerate(op.getTensors())) {
    auto ty = tensorType(x);
    if (ty.getRank() != rank) // a 1-d empty tensor ATen's cat skips
      continue;
    int64_t size = ty.getDimSize(dim);
    SmallVector<Value> bounds;
    SmallVector<int64_t> staticBounds;
    Value end;
    if (!start && size != ShapedType::kDynamic) {
      staticBounds = {staticStart, staticStart + size};
      staticStart += size;
    } else {
      if (!start)
        start = arith::ConstantIndexOp::create(b, loc, staticStart);
      end = arith::AddIOp::create(b, loc, start, tensor::DimOp::create(b, loc, x, dim));
      bounds = {start, end};
      staticBounds = {ShapedType::kDynamic, ShapedType::kDynamic};
    }
    if (needed[i])
      out[i] = SliceTensorOp::create(b, loc, ty, cts[0], bounds, b.getDenseI64ArrayAttr(staticBounds),
                                     b.getI64IntegerAttr(dim));
    if (end)
      start = end;
  }
  return success();
}
LogicalResult catJvp(CatOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  SmallVector<Value> parts;
  for (auto [x, t] : llvm::zip(op.getTensors(), ts))
    parts.push_back(t ? t : zerosLike(b, op.getLoc(), x));
  out[0] = CatOp::create(b, op.getLoc(), op.getType(), parts, op.getDimAttr());
  return success();
}

/// slice: the cotangent scattered into zeros at the slice's place.
LogicalResult sliceVjp(SliceTensorOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                       SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  out[0] = SliceScatterOp::create(b, op.getLoc(), op.getSelf().getType(),
                                  zerosLike(b, op.getLoc(), op.getSelf()), cts[0], op.getBounds(),
                                  op.getStaticBoundsAttr(), op.getDimAttr(), op.getStepAttr());
  return success();
}
LogicalResult sliceJvp(SliceTensorOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  out[0] = SliceTensorOp::create(b, op.getLoc(), op.getType(), ts[0], op.getBounds(),
                                 op.getStaticBoundsAttr(), op.getDimAttr(), op.getStepAttr());
  return success();
}

/// select: the cotangent written into zeros at the selected index.
LogicalResult selectVjp(SelectIntOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  out[0] = SelectScatterOp::create(b, op.getLoc(), op.getSelf().getType(),
                                   zerosLike(b, op.getLoc(), op.getSelf()), cts[0], op.getIndex(),
                                   op.getStaticIndexAttr(), op.getDimAttr());
  return success();
}
LogicalResult selectJvp(SelectIntOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = SelectIntOp::create(b, op.getLoc(), op.getType(), ts[0], op.getIndex(),
                                 op.getStaticIndexAttr(), op.getDimAttr());
  return success();
}

/// slice_scatter / select_scatter(self, src): self's cotangent is g with the
/// slice zeroed, src's the slice of g; both are linear in (self, src).
template <typename OpT, typename ViewOpT>
LogicalResult scatterViewVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                             SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = cts[0];
  ValueRange where = op->getOperands().drop_front(2);
  if (needed[0]) {
    SmallVector<Value> operands{g, zerosLike(b, loc, op.getSrc())};
    operands.append(where.begin(), where.end());
    out[0] = OpT::create(b, loc, TypeRange{op.getType()}, operands, op->getAttrs())->getResult(0);
  }
  if (needed[1]) {
    SmallVector<Value> operands{g};
    operands.append(where.begin(), where.end());
    out[1] = ViewOpT::create(b, loc, TypeRange{op.getSrc().getType()}, operands, op->getAttrs())
                 ->getResult(0);
  }
  return success();
}
template <typename OpT>
LogicalResult scatterViewJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  if (!ts[0] && !ts[1])
    return success();
  Value self = ts[0] ? ts[0] : zerosLike(b, loc, op.getSelf());
  Value src = ts[1] ? ts[1] : zerosLike(b, loc, op.getSrc());
  SmallVector<Value> operands{self, src};
  operands.append(op->getOperands().begin() + 2, op->getOperands().end());
  out[0] = OpT::create(b, loc, TypeRange{op.getType()}, operands, op->getAttrs())->getResult(0);
  return success();
}

/// diagonal: the cotangent is written back onto the diagonal of zeros.
LogicalResult diagonalVjp(DiagonalOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                          SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  Value self = op.getSelf();
  out[0] = DiagonalScatterOp::create(b, loc, TypeRange{self.getType()},
                                     ValueRange{zerosLike(b, loc, self), cts[0]}, op->getAttrs())
               ->getResult(0);
  return success();
}
LogicalResult diagonalJvp(DiagonalOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = DiagonalOp::create(b, op.getLoc(), TypeRange{op.getType()}, ValueRange{ts[0]}, op->getAttrs())
                 ->getResult(0);
  return success();
}

/// copy(self, src): the result is src broadcast to self's shape, so self gets
/// nothing and src the cotangent summed back to its shape (and dtype).
LogicalResult copyVjp(CopyOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                      SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  if (needed[0])
    out[0] = zerosLike(b, loc, op.getSelf());
  if (needed[1]) {
    Value g = cts[0];
    auto srcTy = tensorType(op.getSrc());
    if (tensorType(g).getElementType() != srcTy.getElementType())
      g = ToCopyOp::create(b, loc, RankedTensorType::get(tensorType(g).getShape(), srcTy.getElementType()), g);
    out[1] = sumTo(b, loc, g, srcTy);
  }
  return success();
}
LogicalResult copyJvp(CopyOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  if (ts[1] || ts[0])
    out[0] = CopyOp::create(b, loc, op.getType(), zerosLike(b, loc, op.getSelf()),
                            ts[1] ? ts[1] : zerosLike(b, loc, op.getSrc()));
  return success();
}

/// unfold(self, dim, size, step): window w's element k reads self[w * step + k]
/// along dim. The cotangent's window dim and trailing size dim, side by
/// side and flattened, are one read per position: scattered (added) back.
LogicalResult unfoldVjp(UnfoldOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  auto xTy = tensorType(op.getSelf());
  int64_t rank = xTy.getRank(), size = op.getSize(), step = op.getStep();
  if (rank == 0) { // a 0-d input unfolds to [size] (size 1): the cotangent itself
    out[0] = viewAs(b, loc, cts[0], op.getSelf());
    return success();
  }
  int64_t dim = (op.getDimension() % rank + rank) % rank;
  int64_t in = xTy.getDimSize(dim), windows = tensorType(op.getResult()).getDimSize(dim);
  if (ShapedType::isDynamic(in) || ShapedType::isDynamic(windows))
    return op.emitError("cannot differentiate 'aten.unfold' along a dynamic dim yet");
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d <= dim; ++d)
    perm.push_back(d);
  perm.push_back(rank);
  for (int64_t d = dim + 1; d < rank; ++d)
    perm.push_back(d);
  Value g = permute(b, loc, cts[0], perm);
  SmallVector<int64_t> flat(tensorType(g).getShape());
  flat[dim] = windows * size;
  flat.erase(flat.begin() + dim + 1);
  g = viewTo(b, loc, g, flat, dynamicDims(b, loc, g));
  SmallVector<int64_t> index;
  for (int64_t w = 0; w < windows; ++w)
    for (int64_t k = 0; k < size; ++k)
      index.push_back(w * step + k);
  out[0] = scatterTaps(b, loc, g, dim, in, 1, index, SmallVector<double>(index.size(), 1.0));
  return success();
}
LogicalResult unfoldJvp(UnfoldOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = UnfoldOp::create(b, op.getLoc(), op.getType(), ts[0], op.getDimensionAttr(),
                              op.getSizeAttr(), op.getStepAttr());
  return success();
}

/// as_strided of a contiguous tensor reads flat(self)[offset + i . stride]
/// for every index i of the result: the cotangent, flattened, is added
/// back at those flat positions (overlapping reads sum).
LogicalResult asStridedVjp(AsStridedOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                           SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  auto xTy = tensorType(op.getSelf());
  auto yTy = tensorType(op.getResult());
  if (!xTy.hasStaticShape() || !yTy.hasStaticShape())
    return op.emitError("cannot differentiate 'aten.as_strided' of a dynamic shape yet");
  ArrayRef<int64_t> size = op.getSize(), stride = op.getStride();
  SmallVector<int64_t> index{op.getStorageOffset()};
  for (auto [n, st] : llvm::zip(size, stride)) {
    SmallVector<int64_t> next;
    for (int64_t base : index)
      for (int64_t i = 0; i < n; ++i)
        next.push_back(base + i * st);
    index.swap(next);
  }
  int64_t total = xTy.getNumElements();
  Value g = viewTo(b, loc, cts[0], {yTy.getNumElements()}, {});
  if (index.empty()) { // an empty view: nothing read
    out[0] = zerosLike(b, loc, op.getSelf());
    return success();
  }
  Value flat = scatterTaps(b, loc, g, 0, total, 1, index, SmallVector<double>(index.size(), 1.0));
  out[0] = viewTo(b, loc, flat, xTy.getShape(), {});
  return success();
}
LogicalResult asStridedJvp(AsStridedOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = AsStridedOp::create(b, op.getLoc(), op.getType(), ts[0], op.getSizeAttr(),
                                 op.getStrideAttr(), op.getStorageOffsetAttr());
  return success();
}

} // namespace

void attachShapeRules(MLIRContext *ctx) {
  DiagonalOp::attachInterface<Rule<DiagonalOp, diagonalVjp, diagonalJvp>>(*ctx);
  DiagonalScatterOp::attachInterface<
      Rule<DiagonalScatterOp, scatterViewVjp<DiagonalScatterOp, DiagonalOp>,
           scatterViewJvp<DiagonalScatterOp>>>(*ctx);
  CopyOp::attachInterface<Rule<CopyOp, copyVjp, copyJvp>>(*ctx);
  SliceScatterOp::attachInterface<Rule<SliceScatterOp, scatterViewVjp<SliceScatterOp, SliceTensorOp>,
                                       scatterViewJvp<SliceScatterOp>>>(*ctx);
  SelectScatterOp::attachInterface<Rule<SelectScatterOp, scatterViewVjp<SelectScatterOp, SelectIntOp>,
                                        scatterViewJvp<SelectScatterOp>>>(*ctx);
  SelectIntOp::attachInterface<Rule<SelectIntOp, selectVjp, selectJvp>>(*ctx);
  ViewOp::attachInterface<Rule<ViewOp, reshapeVjp<ViewOp>, reshapeJvp<ViewOp>>>(*ctx);
  FlattenUsingIntsOp::attachInterface<Rule<FlattenUsingIntsOp, reshapeVjp<FlattenUsingIntsOp>,
                                           reshapeJvp<FlattenUsingIntsOp>>>(*ctx);
  UnsqueezeOp::attachInterface<
      Rule<UnsqueezeOp, reshapeVjp<UnsqueezeOp>, reshapeJvp<UnsqueezeOp>>>(*ctx);
  SqueezeDimsOp::attachInterface<
      Rule<SqueezeDimsOp, reshapeVjp<SqueezeDimsOp>, reshapeJvp<SqueezeDimsOp>>>(*ctx);
  PermuteOp::attachInterface<Rule<PermuteOp, permuteVjp, permuteJvp>>(*ctx);
  ExpandOp::attachInterface<Rule<ExpandOp, expandVjp, expandJvp>>(*ctx);
  CatOp::attachInterface<Rule<CatOp, catVjp, catJvp>>(*ctx);
  SliceTensorOp::attachInterface<Rule<SliceTensorOp, sliceVjp, sliceJvp>>(*ctx);
  UnfoldOp::attachInterface<Rule<UnfoldOp, unfoldVjp, unfoldJvp>>(*ctx);
  AsStridedOp::attachInterface<Rule<AsStridedOp, asStridedVjp, asStridedJvp>>(*ctx);
}

} // namespace kiln::autograd::rules

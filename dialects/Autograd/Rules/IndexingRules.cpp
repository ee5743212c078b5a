//===- IndexingRules.cpp - derivatives of gathers, flips and pads ---------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// Advanced indexing (and embedding, which imports as it): the cotangent is
/// added into zeros at the positions read (index_put with accumulate, so
/// repeated indices sum).
LogicalResult indexVjp(IndexTensorOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                       SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  out[0] = IndexPutOp::create(b, loc, x.getType(), zerosLike(b, loc, x), op.getIndices(), cts[0],
                              op.getIndexDimsAttr(), b.getBoolAttr(true));
  return success();
}

/// index_select along `dim`: index_put with accumulate along that dim.
LogicalResult indexSelectVjp(IndexSelectOp op, OpBuilder &b, ArrayRef<Value> cts,
                             ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf(), idx = op.getIndex();
  int64_t rank = tensorType(x).getRank();
  if (rank == 0 || tensorType(idx).getRank() != 1) { // 0-d forms: the cotangent itself
    out[0] = viewAs(b, loc, cts[0], x);
    return success();
  }
  int64_t dim = (op.getDim() % rank + rank) % rank;
  out[0] = IndexPutOp::create(b, loc, x.getType(), zerosLike(b, loc, x), ValueRange{idx}, cts[0],
                              b.getDenseI64ArrayAttr({dim}), b.getBoolAttr(true));
  return success();
}

/// gather: scatter-add of the cotangent at the gathered positions.
LogicalResult gatherVjp(GatherOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  out[0] = ScatterOp::create(b, loc, x.getType(), zerosLike(b, loc, x), op.getIndex(), cts[0],
                             op.getDimAttr(), b.getStringAttr("sum"), b.getBoolAttr(true));
  return success();
}

/// flip is its own inverse.
LogicalResult flipVjp(FlipOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  out[0] = FlipOp::create(b, op.getLoc(), op.getSelf().getType(), cts[0], op.getDimsAttr());
  return success();
}

/// roll back by the negated shifts.
LogicalResult rollVjp(RollOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  SmallVector<int64_t> back;
  for (int64_t s : op.getShifts())
    back.push_back(-s);
  out[0] = RollOp::create(b, op.getLoc(), op.getSelf().getType(), cts[0],
                          b.getDenseI64ArrayAttr(back), op.getDimsAttr());
  return success();
}

/// tril/triu keep the same triangle of the cotangent.
template <typename OpT>
LogicalResult triangleVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                          SmallVectorImpl<Value> &out) {
  out[0] = OpT::create(b, op.getLoc(), op.getType(), cts[0], op.getDiagonalAttr());
  return success();
}

/// constant_pad_nd: the cotangent cropped by the negated pads (the padding
/// value is a constant).
LogicalResult padVjp(ConstantPadNdOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                     SmallVectorImpl<Value> &out) {
  SmallVector<int64_t> back;
  for (int64_t p : op.getPad())
    back.push_back(-p);
  out[0] = ConstantPadNdOp::create(b, op.getLoc(), op.getSelf().getType(), cts[0],
                                   b.getDenseI64ArrayAttr(back), b.getF64FloatAttr(0.0));
  return success();
}
LogicalResult padJvp(ConstantPadNdOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = ConstantPadNdOp::create(b, op.getLoc(), op.getType(), ts[0], op.getPadAttr(),
                                     b.getF64FloatAttr(0.0));
  return success();
}

/// The shape index_tensor reads at index_put's positions (the shape its
/// values broadcast to): the broadcast index shape in place of adjacent
/// indexed dims, or first when they are apart.
SmallVector<int64_t> gatheredShape(IndexPutOp op) {
  auto selfTy = tensorType(op.getSelf());
  ArrayRef<int64_t> dims = op.getIndexDims();
  SmallVector<int64_t> bcast;
  for (Value idx : op.getIndices())
    bcast = broadcastShape(bcast, tensorType(idx).getShape());
  SmallVector<int64_t> shape;
  if (dims.back() - dims.front() + 1 == (int64_t)dims.size()) {
    llvm::append_range(shape, selfTy.getShape().take_front(dims.front()));
    llvm::append_range(shape, bcast);
    llvm::append_range(shape, selfTy.getShape().drop_front(dims.back() + 1));
  } else {
    llvm::append_range(shape, bcast);
    for (int64_t d = 0; d < selfTy.getRank(); ++d)
      if (!llvm::is_contained(dims, d))
        shape.push_back(selfTy.getDimSize(d));
  }
  return shape;
}

/// index_put(self, indices, values): self's cotangent is g (with the written
/// positions zeroed unless accumulating), the values' the gathered g summed
/// to their (broadcast) shape; linear in (self, values).
LogicalResult indexPutVjp(IndexPutOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                          SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = cts[0], values = op.getValues();
  if (needed[0])
    out[0] = op.getAccumulate()
                 ? g
                 : IndexPutOp::create(b, loc, op.getType(), g, op.getIndices(), zerosLike(b, loc, values),
                                      op.getIndexDimsAttr(), b.getBoolAttr(false))
                       .getResult();
  unsigned vi = 1 + op.getIndices().size();
  if (needed[vi]) {
    // As ATen: every value gets the cotangent at its position, also when a
    // repeated index (without accumulate) keeps only one of the writes.
    auto gathered = RankedTensorType::get(gatheredShape(op), tensorType(g).getElementType());
    Value v = IndexTensorOp::create(b, loc, gathered, g, op.getIndices(), op.getIndexDimsAttr());
    out[vi] = sumTo(b, loc, v, values.getType());
  }
  return success();
}
LogicalResult indexPutJvp(IndexPutOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  unsigned vi = 1 + op.getIndices().size();
  if (!ts[0] && !ts[vi])
    return success();
  Value self = ts[0] ? ts[0] : zerosLike(b, loc, op.getSelf());
  Value values = ts[vi] ? ts[vi] : zerosLike(b, loc, op.getValues());
  out[0] = IndexPutOp::create(b, loc, op.getType(), self, op.getIndices(), values,
                              op.getIndexDimsAttr(), op.getAccumulateAttr());
  return success();
}

/// The elements of src a scatter reads, shaped as its index: a 0-d src
/// (scatter.value) expanded, a larger one's leading block.
FailureOr<Value> srcAtIndex(ScatterOp op, OpBuilder &b, Value src) {
  Location loc = op.getLoc();
  Value index = op.getIndex();
  auto idxTy = tensorType(index), srcTy = tensorType(src);
  if (srcTy.getRank() == 0)
    return expandAs(b, loc, src, index);
  if (idxTy.getShape() == srcTy.getShape())
    return src;
  if (!idxTy.hasStaticShape() || !srcTy.hasStaticShape())
    return op.emitError("cannot differentiate 'aten.scatter' with respect to a src of another "
                        "shape than its index when a dim is dynamic");
  Value v = src;
  SmallVector<int64_t> shape(srcTy.getShape());
  for (int64_t d = 0; d < srcTy.getRank(); ++d) {
    if (shape[d] == idxTy.getDimSize(d))
      continue;
    shape[d] = idxTy.getDimSize(d);
    v = SliceTensorOp::create(b, loc, RankedTensorType::get(shape, srcTy.getElementType()), v,
                              ValueRange{}, b.getDenseI64ArrayAttr({0, shape[d]}),
                              b.getI64IntegerAttr(d), b.getI64IntegerAttr(1));
  }
  return v;
}

/// The cotangent of src from one shaped as the index: summed for a 0-d src,
/// zeros beyond the index's block of a larger src.
FailureOr<Value> srcFromIndex(ScatterOp op, OpBuilder &b, Value gathered) {
  Location loc = op.getLoc();
  Value src = op.getSrc();
  auto idxTy = tensorType(op.getIndex()), srcTy = tensorType(src);
  if (srcTy.getRank() == 0) {
    SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, idxTy.getRank()));
    return sumDims(b, loc, gathered, all, false);
  }
  if (idxTy.getShape() == srcTy.getShape())
    return gathered;
  if (!idxTy.hasStaticShape() || !srcTy.hasStaticShape())
    return op.emitError("cannot differentiate 'aten.scatter' with respect to a src of another "
                        "shape than its index when a dim is dynamic");
  // The leading block of src that the index covers; zeros beyond it.
  SmallVector<int64_t> pad;
  for (int64_t d = srcTy.getRank() - 1; d >= 0; --d) {
    pad.push_back(0);
    pad.push_back(srcTy.getDimSize(d) - idxTy.getDimSize(d));
  }
  return ConstantPadNdOp::create(b, loc, src.getType(), gathered, b.getDenseI64ArrayAttr(pad),
                                 b.getF64FloatAttr(0.0))
      .getResult();
}

/// Building blocks of the scatter rules, for one scatter op.
struct ScatterParts {
  ScatterOp op;
  OpBuilder &b;
  Location loc;
  Value index;
  Type elem;
  ScatterParts(ScatterOp op, OpBuilder &b)
      : op(op), b(b), loc(op.getLoc()), index(op.getIndex()),
        elem(tensorType(op.getResult()).getElementType()) {}
  Value scalar(double v) { return scalarTensor(b, loc, elem, v); }
  /// v at the index along the scatter's dim (shaped as the index).
  Value gather(Value v) {
    return GatherOp::create(b, loc,
                            RankedTensorType::get(tensorType(index).getShape(),
                                                  tensorType(v).getElementType()),
                            v, index, op.getDimAttr());
  }
  Value scatter(Value self, Value src, StringRef reduce, bool includeSelf) {
    return ScatterOp::create(b, loc, self.getType(), self, index, src, op.getDimAttr(),
                             b.getStringAttr(reduce), b.getBoolAttr(includeSelf));
  }
  Value eq(Value a, Value c) {
    auto shape = broadcastShape(tensorType(a).getShape(), tensorType(c).getShape());
    return EqTensorOp::create(b, loc, RankedTensorType::get(shape, b.getI1Type()), a, c);
  }
  Value asElem(Value mask) {
    return ToCopyOp::create(b, loc, RankedTensorType::get(tensorType(mask).getShape(), elem), mask);
  }
  /// g with the positions the scatter writes zeroed (their old value does
  /// not survive): 1 - (ones scattered into zeros).
  Value unwritten(Value g) {
    Value one = scalar(1.0);
    Value written = scatter(zerosLike(b, loc, g), one, "none", true);
    return mul(b, loc, g, sub(b, loc, one, written));
  }
};

/// The cotangents of self and of the src elements read (shaped as the
/// index) of scatter_reduce with prod, mean, amax or amin, given the
/// result's cotangent g, with ATen's conventions: mean divides by the number
/// of values combined; amax/amin share the gradient evenly among the self
/// and src values equal to the result; prod divides the product by each
/// factor, with a single zero factor getting the product of the others and
/// several zeros giving zero. Without include_self, the written positions of
/// self get none.
void scatterReducePartials(ScatterParts &p, Value g, Value srcI, Value &gSelf, Value &gSrcI) {
  ScatterOp op = p.op;
  OpBuilder &b = p.b;
  Location loc = p.loc;
  StringRef reduce = op.getReduce();
  bool incl = op.getIncludeSelf();
  Value self = op.getSelf(), result = op.getResult();
  Value one = p.scalar(1.0), zero = p.scalar(0.0);
  if (reduce == "mean") {
    Value base = incl ? expandAs(b, loc, one, g) : zerosLike(b, loc, g);
    Value n = p.scatter(base, expandAs(b, loc, one, p.index), "sum", true);
    n = MaximumOp::create(b, loc, TypeRange{n.getType()}, ValueRange{n, one});
    Value gd = div(b, loc, g, n);
    gSelf = incl ? gd : p.unwritten(gd);
    gSrcI = p.gather(gd);
    return;
  }
  if (reduce == "amax" || reduce == "amin") {
    Value selfIs = p.asElem(p.eq(self, result));
    Value srcIs = p.asElem(p.eq(srcI, p.gather(result)));
    Value n = p.scatter(selfIs, srcIs, "sum", true);
    Value gd = div(b, loc, g, n);
    gSelf = mul(b, loc, selfIs, gd);
    if (!incl)
      gSelf = p.unwritten(gSelf);
    gSrcI = mul(b, loc, srcIs, p.gather(gd));
    return;
  }
  // prod
  Value maskedSelf = where(b, loc, p.eq(self, zero), one, self);
  Value maskedSelfResult = p.scatter(maskedSelf, srcI, "prod", incl);
  gSelf = div(b, loc, mul(b, loc, g, maskedSelfResult), maskedSelf);
  if (!incl)
    gSelf = p.unwritten(gSelf);
  Value srcZero = p.eq(srcI, zero);
  Value zeros = p.gather(p.scatter(zerosLike(b, loc, self), p.asElem(srcZero), "sum", true));
  Value single = LogicalAndOp::create(b, loc, TypeRange{srcZero.getType()}, ValueRange{srcZero, p.eq(zeros, one)});
  Value maskedSrcResult = p.scatter(self, where(b, loc, single, one, srcI), "prod", incl);
  gSrcI = where(b, loc, single, p.gather(mul(b, loc, g, maskedSrcResult)),
                div(b, loc, p.gather(mul(b, loc, g, result)), where(b, loc, srcZero, one, srcI)));
}

/// scatter (reduce none) and scatter_add (reduce sum) are linear in
/// (self, src). self's cotangent is g, with the written positions zeroed
/// where their old value does not survive (reduce none, or include_self
/// false); src's is g gathered at the index (as ATen, also for a repeated
/// index that reduce none writes once), zero for the elements of src beyond
/// the index's shape, and summed for a 0-d src (scatter.value). The other
/// reductions go through scatterReducePartials.
LogicalResult scatterVjp(ScatterOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                         SmallVectorImpl<Value> &out) {
  ScatterParts p(op, b);
  StringRef reduce = op.getReduce();
  Value g = cts[0];
  if (reduce != "none" && reduce != "sum") {
    if (!isFloatTensor(op.getType()))
      return op.emitError("cannot differentiate 'aten.scatter' of an integer tensor");
    FailureOr<Value> srcI = srcAtIndex(op, b, op.getSrc());
    if (failed(srcI))
      return failure();
    Value gSelf, gSrcI;
    scatterReducePartials(p, g, *srcI, gSelf, gSrcI);
    if (needed[0])
      out[0] = gSelf;
    if (needed[2]) {
      FailureOr<Value> gSrc = srcFromIndex(op, b, gSrcI);
      if (failed(gSrc))
        return failure();
      out[2] = *gSrc;
    }
    return success();
  }
  if (needed[0])
    out[0] = reduce == "sum" && op.getIncludeSelf() ? g : p.unwritten(g);
  if (needed[2]) {
    FailureOr<Value> gSrc = srcFromIndex(op, b, p.gather(g));
    if (failed(gSrc))
      return failure();
    out[2] = *gSrc;
  }
  return success();
}
/// none, sum and mean are linear: the tangents are scattered the same way.
/// prod, amax and amin: the tangent of self times its partial derivative
/// plus the src tangents times theirs, added at the index (the partials are
/// the reverse rule's cotangents for a cotangent of ones).
LogicalResult scatterJvp(ScatterOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  StringRef reduce = op.getReduce();
  if (!ts[0] && !ts[2])
    return success();
  if (reduce == "none" || reduce == "sum" || reduce == "mean") {
    Value self = ts[0] ? ts[0] : zerosLike(b, loc, op.getSelf());
    Value src = ts[2] ? ts[2] : zerosLike(b, loc, op.getSrc());
    out[0] = ScatterOp::create(b, loc, op.getType(), self, op.getIndex(), src, op.getDimAttr(),
                               op.getReduceAttr(), op.getIncludeSelfAttr());
    return success();
  }
  if (!isFloatTensor(op.getType()))
    return op.emitError("cannot differentiate 'aten.scatter' of an integer tensor");
  ScatterParts p(op, b);
  FailureOr<Value> srcI = srcAtIndex(op, b, op.getSrc());
  if (failed(srcI))
    return failure();
  Value dSelf, dSrcI;
  scatterReducePartials(p, expandAs(b, loc, p.scalar(1.0), op.getResult()), *srcI, dSelf, dSrcI);
  Value t;
  if (ts[0])
    t = mul(b, loc, ts[0], dSelf);
  if (ts[2]) {
    FailureOr<Value> tI = srcAtIndex(op, b, ts[2]);
    if (failed(tI))
      return failure();
    Value added = p.scatter(zerosLike(b, loc, op.getResult()), mul(b, loc, *tI, dSrcI), "sum", true);
    addTo(b, loc, t, added);
  }
  out[0] = t;
  return success();
}

/// repeat: the result is self tiled r_d times along dim d (self padded with
/// leading 1s to the repeats' length); each element of self receives the sum
/// of its copies: g viewed as [r_0, s_0, r_1, s_1, ...] summed over the r_d.
LogicalResult repeatVjp(RepeatOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  auto xTy = tensorType(x);
  ArrayRef<int64_t> reps = op.getRepeats();
  int64_t lead = (int64_t)reps.size() - xTy.getRank();
  SmallVector<int64_t> split, tiles;
  SmallVector<Value> dyn;
  for (auto [d, r] : llvm::enumerate(reps)) {
    int64_t xd = (int64_t)d - lead;
    int64_t s = xd < 0 ? 1 : xTy.getDimSize(xd);
    split.push_back(r);
    split.push_back(s);
    tiles.push_back(2 * d);
    if (s == ShapedType::kDynamic)
      dyn.push_back(tensor::DimOp::create(b, loc, x, xd));
  }
  Value g = viewTo(b, loc, cts[0], split, dyn);
  out[0] = viewAs(b, loc, sumDims(b, loc, g, tiles, false), x);
  return success();
}

/// The reflection, replication and circular pads gather each padded dim
/// independently, so their adjoint goes dim by dim: the cotangent's middle
/// part is the input's, and each border part is added back where it was
/// read from (reflected: flipped, one in from the edge; replicated: summed
/// into the edge element; circular: the opposite end).
template <typename OpT>
LogicalResult gatherPadVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                           SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf(), g = cts[0];
  auto xTy = tensorType(x);
  int64_t rank = xTy.getRank();
  ArrayRef<int64_t> pads = op.getPadding();
  if (xTy.hasStaticShape() && xTy.getNumElements() == 0) { // nothing was read
    out[0] = zerosLike(b, loc, x);
    return success();
  }
  auto slice = [&](Value v, int64_t dim, int64_t lo, int64_t hi) -> Value {
    SmallVector<int64_t> shape(tensorType(v).getShape());
    shape[dim] = hi - lo;
    return SliceTensorOp::create(b, loc, RankedTensorType::get(shape, xTy.getElementType()), v,
                                 ValueRange{}, b.getDenseI64ArrayAttr({lo, hi}),
                                 b.getI64IntegerAttr(dim), b.getI64IntegerAttr(1));
  };
  auto padAt = [&](Value v, int64_t dim, int64_t lo, int64_t hi) -> Value {
    SmallVector<int64_t> pad(2 * (rank - dim), 0), shape(tensorType(v).getShape());
    pad[2 * (rank - 1 - dim)] = lo;
    pad[2 * (rank - 1 - dim) + 1] = hi;
    shape[dim] += lo + hi;
    return ConstantPadNdOp::create(b, loc, RankedTensorType::get(shape, xTy.getElementType()), v,
                                   b.getDenseI64ArrayAttr(pad), b.getF64FloatAttr(0.0));
  };
  auto flip = [&](Value v, int64_t dim) -> Value {
    return FlipOp::create(b, loc, v.getType(), v, b.getDenseI64ArrayAttr({dim}));
  };
  for (size_t k = 0; 2 * k + 1 < pads.size(); ++k) {
    int64_t dim = rank - 1 - (int64_t)k, lo = pads[2 * k], hi = pads[2 * k + 1];
    int64_t n = xTy.getDimSize(dim);
    if (n == ShapedType::kDynamic)
      return op.emitError("cannot differentiate '") << op->getName() << "' over a dynamic dim yet";
    if (lo < 0 || hi < 0) {
      // A negative pad crops: output position i reads x[j(i - lo)] with j the
      // pad's map into [0, n) (clamped, reflected or wrapped); the cotangent
      // is scatter-added at those positions.
      SmallVector<int64_t> index;
      for (int64_t i = 0; i < n + lo + hi; ++i) {
        int64_t j = i - lo;
        if (isa<ReplicationPadOp>(op))
          j = std::clamp<int64_t>(j, 0, n - 1);
        else if (isa<ReflectionPadOp>(op))
          j = j < 0 ? -j : (j >= n ? 2 * (n - 1) - j : j);
        else
          j = ((j % n) + n) % n;
        index.push_back(j);
      }
      g = scatterTaps(b, loc, g, dim, n, 1, index, SmallVector<double>(index.size(), 1.0));
      continue;
    }
    Value grad = slice(g, dim, lo, lo + n);
    if (lo > 0) {
      Value left = slice(g, dim, 0, lo);
      Value back;
      if (isa<ReflectionPadOp>(op))
        back = padAt(flip(left, dim), dim, 1, n - 1 - lo);
      else if (isa<ReplicationPadOp>(op))
        back = padAt(sumDims(b, loc, left, {dim}, true), dim, 0, n - 1);
      else
        back = padAt(left, dim, n - lo, 0);
      grad = add(b, loc, grad, back);
    }
    if (hi > 0) {
      Value right = slice(g, dim, lo + n, lo + n + hi);
      Value back;
      if (isa<ReflectionPadOp>(op))
        back = padAt(flip(right, dim), dim, n - 1 - hi, 1);
      else if (isa<ReplicationPadOp>(op))
        back = padAt(sumDims(b, loc, right, {dim}, true), dim, n - 1, 0);
      else
        back = padAt(right, dim, 0, n - hi);
      grad = add(b, loc, grad, back);
    }
    g = grad;
  }
  out[0] = g;
  return success();
}

} // namespace

void attachIndexingRules(MLIRContext *ctx) {
  ReflectionPadOp::attachInterface<
      Rule<ReflectionPadOp, gatherPadVjp<ReflectionPadOp>, linearInSelfJvp<ReflectionPadOp>>>(*ctx);
  ReplicationPadOp::attachInterface<
      Rule<ReplicationPadOp, gatherPadVjp<ReplicationPadOp>,
           linearInSelfJvp<ReplicationPadOp>>>(*ctx);
  CircularPadOp::attachInterface<
      Rule<CircularPadOp, gatherPadVjp<CircularPadOp>, linearInSelfJvp<CircularPadOp>>>(*ctx);
  RepeatOp::attachInterface<Rule<RepeatOp, repeatVjp, linearInSelfJvp<RepeatOp>>>(*ctx);
  IndexPutOp::attachInterface<Rule<IndexPutOp, indexPutVjp, indexPutJvp>>(*ctx);
  ScatterOp::attachInterface<Rule<ScatterOp, scatterVjp, scatterJvp>>(*ctx);
  IndexTensorOp::attachInterface<
      Rule<IndexTensorOp, indexVjp, linearInSelfJvp<IndexTensorOp>>>(*ctx);
  IndexSelectOp::attachInterface<
      Rule<IndexSelectOp, indexSelectVjp, linearInSelfJvp<IndexSelectOp>>>(*ctx);
  GatherOp::attachInterface<Rule<GatherOp, gatherVjp, linearInSelfJvp<GatherOp>>>(*ctx);
  FlipOp::attachInterface<Rule<FlipOp, flipVjp, linearInSelfJvp<FlipOp>>>(*ctx);
  RollOp::attachInterface<Rule<RollOp, rollVjp, linearInSelfJvp<RollOp>>>(*ctx);
  TrilOp::attachInterface<Rule<TrilOp, triangleVjp<TrilOp>, linearInSelfJvp<TrilOp>>>(*ctx);
  TriuOp::attachInterface<Rule<TriuOp, triangleVjp<TriuOp>, linearInSelfJvp<TriuOp>>>(*ctx);
  ConstantPadNdOp::attachInterface<Rule<ConstantPadNdOp, padVjp, padJvp>>(*ctx);
}

} // namespace kiln::autograd::rules

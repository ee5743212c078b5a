//===- Reduction.cpp - aten reductions and scans to linalg ----------------===//
//
// List reductions are one linalg.generic each (reduction loops over the
// reduced dims) into an accumulator of ATen's type: float32 for float16 and
// bfloat16, int64 for integer sums and products. Reductions that need more
// than one pass (mean, var, logsumexp, norms) add elementwise generics that
// the fusion pass merges. max.dim/argmax keep the value and the index of the
// first extremum in one generic with two results; cumsum/cumprod walk the
// scanned dim with scf.for, carrying a slice-sized accumulator.
//
//===----------------------------------------------------------------------===//
#include "LoopUtils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
Value add(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, l, x, y);
  if (x.getType().isInteger(1))
    return arith::OrIOp::create(b, l, x, y);
  return arith::AddIOp::create(b, l, x, y);
}

Value mul(OpBuilder &b, Location l, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MulFOp::create(b, l, x, y);
  if (x.getType().isInteger(1))
    return arith::AndIOp::create(b, l, x, y);
  return arith::MulIOp::create(b, l, x, y);
}

/// max/min that propagates NaN (ATen's semantics).
Value extremum(OpBuilder &b, Location l, Value x, Value y, bool isMax) {
  Type t = x.getType();
  if (isa<FloatType>(t))
    return isMax ? arith::MaximumFOp::create(b, l, x, y).getResult()
                 : arith::MinimumFOp::create(b, l, x, y).getResult();
  if (t.isInteger(1))
    return isMax ? arith::OrIOp::create(b, l, x, y).getResult()
                 : arith::AndIOp::create(b, l, x, y).getResult();
  return isMax ? arith::MaxSIOp::create(b, l, x, y).getResult()
               : arith::MinSIOp::create(b, l, x, y).getResult();
}

/// Unsigned integer tensors need a signless form first.
bool hasUnsigned(Operation *op) {
  auto isU = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && rt.getElementType().isUnsignedInteger();
  };
  return llvm::any_of(op->getOperandTypes(), isU) || llvm::any_of(op->getResultTypes(), isU);
}

/// keepdim, element conversion and the op's declared type.
Value finish(OpBuilder &b, Location loc, Value v, Value input, ArrayRef<int64_t> reduced,
             bool keepdim, Type resultType) {
  v = convertTensor(b, loc, v, cast<RankedTensorType>(resultType).getElementType());
  if (keepdim)
    v = restoreReducedDims(b, loc, v, input, reduced);
  return castTo(b, loc, v, resultType);
}

/// Elementwise map of one tensor.
Value mapOne(OpBuilder &b, Location loc, Value v, Type elem,
             function_ref<Value(OpBuilder &, Location, Value)> fn) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<int64_t> loops = identityLoops(rank);
  return buildMap(b, loc, {{v, loops}}, loops, rank, elem,
                  [&](OpBuilder &nb, Location nl, ValueRange a) { return fn(nb, nl, a[0]); });
}

/// sum(convert(x)) in `acc`, where x is first converted to `through`.
Value sumIn(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> reduced, Type through,
            Type acc) {
  return reduceDims(b, loc, input, reduced, acc, scalarConstant(b, loc, acc, 0.0),
                    [&](OpBuilder &nb, Location nl, Value a, Value x) {
                      x = convertScalarTo(nb, nl, convertScalarTo(nb, nl, x, through), acc);
                      return add(nb, nl, a, x);
                    });
}

template <typename OpT> struct ReduceBase : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpT>::OpAdaptor;
  LogicalResult matchAndRewrite(OpT op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (hasUnsigned(op))
      return rewriter.notifyMatchFailure(op, "unsigned integer tensors are not lowered yet");
    SmallVector<Value> results;
    if (failed(lower(op, op.getLoc(), adaptor.getSelf(), rewriter, results)))
      return failure();
    rewriter.replaceOp(op, results);
    return success();
  }
  /// Builds the op's results from `x`, its converted `self` operand, at `loc`.
  virtual LogicalResult lower(OpT op, Location loc, Value x, ConversionPatternRewriter &rewriter,
                              SmallVectorImpl<Value> &results) const = 0;
};

/// A reduction of `self` over the op's reduced dims to its one result:
/// `reduce` builds the reduced tensor, `finish` keeps the dims and gives it
/// the op's type.
template <typename OpT> struct ReduceToOne : ReduceBase<OpT> {
  using ReduceBase<OpT>::ReduceBase;
  LogicalResult lower(OpT op, Location loc, Value x, ConversionPatternRewriter &rewriter,
                      SmallVectorImpl<Value> &results) const final {
    SmallVector<int64_t> reduced = op.getReducedDims();
    Value v = reduce(op, rewriter, loc, x, reduced);
    results.push_back(finish(rewriter, loc, v, x, reduced, op.getKeepdim(), op.getType()));
    return success();
  }
  virtual Value reduce(OpT op, OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> reduced) const = 0;
};

struct SumLowering : ReduceToOne<SumDimIntListOp> {
  using ReduceToOne::ReduceToOne;
  Value reduce(SumDimIntListOp op, OpBuilder &b, Location loc, Value x,
               ArrayRef<int64_t> reduced) const override {
    Type r = op.getType().getElementType();
    return sumIn(b, loc, x, reduced, r, computeType(r));
  }
};

/// sum / count in the compute type.
struct MeanLowering : ReduceToOne<MeanDimOp> {
  using ReduceToOne::ReduceToOne;
  Value reduce(MeanDimOp op, OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> reduced) const override {
    Type r = op.getType().getElementType(), acc = computeType(r);
    Value s = sumIn(b, loc, x, reduced, r, acc);
    Value count = reducedCount(b, loc, x, reduced, acc);
    return mapOne(b, loc, s, r, [&](OpBuilder &nb, Location l, Value v) {
      return convertScalarTo(nb, l, arith::DivFOp::create(nb, l, v, count), r);
    });
  }
};

struct ProdLowering : ReduceToOne<ProdDimIntOp> {
  using ReduceToOne::ReduceToOne;
  Value reduce(ProdDimIntOp op, OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> reduced) const override {
    Type r = op.getType().getElementType(), acc = computeType(r);
    return reduceDims(b, loc, x, reduced, acc, scalarConstant(b, loc, acc, 1.0),
                      [&](OpBuilder &nb, Location l, Value a, Value v) {
                        v = convertScalarTo(nb, l, convertScalarTo(nb, l, v, r), acc);
                        return mul(nb, l, a, v);
                      });
  }
};

template <typename OpT, bool IsMax> struct ExtremumLowering : ReduceToOne<OpT> {
  using ReduceToOne<OpT>::ReduceToOne;
  Value reduce(OpT op, OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> reduced) const override {
    Type elem = op.getType().getElementType();
    Value init = IsMax ? lowestValue(b, loc, elem) : highestValue(b, loc, elem);
    return reduceDims(b, loc, x, reduced, elem, init, [&](OpBuilder &nb, Location l, Value a, Value v) {
      return extremum(nb, l, a, v, IsMax);
    });
  }
};

/// any: or of "is non-zero"; all: and.
template <typename OpT, bool IsAny> struct LogicalLowering : ReduceToOne<OpT> {
  using ReduceToOne<OpT>::ReduceToOne;
  Value reduce(OpT op, OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> reduced) const override {
    Type i1 = b.getI1Type();
    Value init = scalarConstant(b, loc, i1, IsAny ? 0.0 : 1.0);
    return reduceDims(b, loc, x, reduced, i1, init, [&](OpBuilder &nb, Location l, Value a, Value v) -> Value {
      v = convertScalarTo(nb, l, v, i1);
      return IsAny ? arith::OrIOp::create(nb, l, a, v).getResult() : arith::AndIOp::create(nb, l, a, v).getResult();
    });
  }
};

struct CountNonzeroLowering : ReduceToOne<CountNonzeroOp> {
  using ReduceToOne::ReduceToOne;
  Value reduce(CountNonzeroOp op, OpBuilder &b, Location loc, Value x,
               ArrayRef<int64_t> reduced) const override {
    Type i64 = b.getI64Type();
    return reduceDims(b, loc, x, reduced, i64, scalarConstant(b, loc, i64, 0),
                      [&](OpBuilder &nb, Location l, Value a, Value v) -> Value {
                        Value nz = convertScalarTo(nb, l, v, nb.getI1Type());
                        return arith::AddIOp::create(nb, l, a, arith::ExtUIOp::create(nb, l, i64, nz));
                      });
  }
};

/// log(sum(exp(x - m))) + m with m the max (0 where it is infinite, as ATen).
struct LogsumexpLowering : ReduceToOne<LogsumexpOp> {
  using ReduceToOne::ReduceToOne;
  Value reduce(LogsumexpOp op, OpBuilder &rw, Location loc, Value x, ArrayRef<int64_t> reduced) const override {
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    SmallVector<int64_t> kept = keptLoops(rank, reduced);
    Type r = op.getType().getElementType(), acc = computeType(r);
    Value m = reduceDims(rw, loc, x, reduced, acc, lowestValue(rw, loc, acc),
                         [&](OpBuilder &b, Location l, Value a, Value v) {
                           return extremum(b, l, a, convertScalarTo(b, l, v, acc), true);
                         });
    m = mapOne(rw, loc, m, acc, [&](OpBuilder &b, Location l, Value v) -> Value {
      Value inf = scalarConstant(b, l, acc, INFINITY);
      Value isInf = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                          math::AbsFOp::create(b, l, v), inf);
      return arith::SelectOp::create(b, l, isInf, scalarConstant(b, l, acc, 0.0), v);
    });
    SmallVector<OpFoldResult> keptSizes;
    for (int64_t d : kept)
      keptSizes.push_back(tensor::getMixedSize(rw, loc, x, d));
    Value init = filledTensor(rw, loc, keptSizes, acc, 0.0);
    Value s = buildGeneric(rw, loc, {{x, identityLoops(rank)}, {m, kept}}, init, kept, rank,
                           [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                             Value v = convertScalarTo(b, l, a[0], acc);
                             Value e = math::ExpOp::create(b, l, arith::SubFOp::create(b, l, v, a[1]));
                             return arith::AddFOp::create(b, l, a[2], e);
                           });
    SmallVector<int64_t> keptIds = identityLoops(kept.size());
    Value out = buildMap(rw, loc, {{s, keptIds}, {m, keptIds}}, keptIds, kept.size(), r,
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           Value v = arith::AddFOp::create(b, l, math::LogOp::create(b, l, a[0]), a[1]);
                           return convertScalarTo(b, l, v, r);
                         });
    return out;
  }
};

struct VectorNormLowering : ReduceToOne<LinalgVectorNormOp> {
  using ReduceToOne::ReduceToOne;
  Value reduce(LinalgVectorNormOp op, OpBuilder &rw, Location loc, Value x, ArrayRef<int64_t> reduced) const override {
    Type r = op.getType().getElementType(), acc = computeType(r);
    double ord = op.getOrd().convertToDouble();
    auto absOf = [&](OpBuilder &b, Location l, Value v) -> Value {
      v = convertScalarTo(b, l, convertScalarTo(b, l, v, r), acc);
      return math::AbsFOp::create(b, l, v);
    };
    Value n;
    if (std::isinf(ord)) {
      bool isMax = ord > 0;
      Value init = isMax ? scalarConstant(rw, loc, acc, 0.0)
                         : highestValue(rw, loc, acc);
      n = reduceDims(rw, loc, x, reduced, acc, init,
                     [&](OpBuilder &b, Location l, Value a, Value v) {
                       return extremum(b, l, a, absOf(b, l, v), isMax);
                     });
    } else {
      n = reduceDims(rw, loc, x, reduced, acc, scalarConstant(rw, loc, acc, 0.0),
                     [&](OpBuilder &b, Location l, Value a, Value v) -> Value {
                       Value t = absOf(b, l, v);
                       if (ord == 0.0)
                         t = arith::UIToFPOp::create(b, l, acc, convertScalarTo(b, l, t, b.getI1Type()));
                       else if (ord == 2.0)
                         t = arith::MulFOp::create(b, l, t, t);
                       else if (ord != 1.0)
                         t = math::PowFOp::create(b, l, t, scalarConstant(b, l, acc, ord));
                       return arith::AddFOp::create(b, l, a, t);
                     });
      if (ord != 0.0 && ord != 1.0)
        n = mapOne(rw, loc, n, acc, [&](OpBuilder &b, Location l, Value v) -> Value {
          if (ord == 2.0)
            return math::SqrtOp::create(b, l, v);
          return math::PowFOp::create(b, l, v, scalarConstant(b, l, acc, 1.0 / ord));
        });
    }
    return n;
  }
};

/// Two passes: the mean, then sum((x - mean)^2) / max(0, N - correction).
template <typename OpT, bool IsStd, bool WithMean> struct VarLowering : ReduceBase<OpT> {
  using ReduceBase<OpT>::ReduceBase;
  LogicalResult lower(OpT op, Location loc, Value x, ConversionPatternRewriter &rewriter,
                      SmallVectorImpl<Value> &results) const override {
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    SmallVector<int64_t> reduced = op.getReducedDims(), kept = keptLoops(rank, reduced);
    Type resTy = op->getResult(0).getType();
    Type r = cast<RankedTensorType>(resTy).getElementType(), acc = computeType(r);
    Value count = reducedCount(rewriter, loc, x, reduced, acc);
    Value s = sumIn(rewriter, loc, x, reduced, acc, acc);
    Value mean = mapOne(rewriter, loc, s, acc, [&](OpBuilder &b, Location l, Value v) -> Value {
      return arith::DivFOp::create(b, l, v, count);
    });
    SmallVector<OpFoldResult> keptSizes;
    for (int64_t d : kept)
      keptSizes.push_back(tensor::getMixedSize(rewriter, loc, x, d));
    Value init = filledTensor(rewriter, loc, keptSizes, acc, 0.0);
    Value sq = buildGeneric(rewriter, loc, {{x, identityLoops(rank)}, {mean, kept}}, init, kept,
                            rank, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                              Value d = arith::SubFOp::create(
                                  b, l, convertScalarTo(b, l, a[0], acc), a[1]);
                              return arith::AddFOp::create(b, l, a[2],
                                                           arith::MulFOp::create(b, l, d, d));
                            });
    double correction = op.getCorrection().convertToDouble();
    Value var = mapOne(rewriter, loc, sq, acc, [&](OpBuilder &b, Location l, Value v) -> Value {
      Value div = arith::MaximumFOp::create(
          b, l, arith::SubFOp::create(b, l, count, scalarConstant(b, l, acc, correction)),
          scalarConstant(b, l, acc, 0.0));
      Value q = arith::DivFOp::create(b, l, v, div);
      return IsStd ? math::SqrtOp::create(b, l, q).getResult() : q;
    });
    results.push_back(finish(rewriter, loc, var, x, reduced, op.getKeepdim(), resTy));
    if (WithMean)
      results.push_back(
          finish(rewriter, loc, mean, x, reduced, op.getKeepdim(), op->getResult(1).getType()));
    return success();
  }
};

/// Value and int64 index of the first extremum of `x` (rank >= 1) along
/// `dim`; NaN wins, as ATen.
std::pair<Value, Value> extremumWithIndex(OpBuilder &b, Location loc, Value x, int64_t dim,
                                          bool isMax) {
  auto ty = cast<RankedTensorType>(x.getType());
  int64_t rank = ty.getRank();
  Type elem = ty.getElementType(), i64 = b.getI64Type();
  SmallVector<int64_t> kept = keptLoops(rank, {dim});
  SmallVector<OpFoldResult> keptSizes;
  for (int64_t d : kept)
    keptSizes.push_back(tensor::getMixedSize(b, loc, x, d));
  Value vals = emptyTensor(b, loc, keptSizes, elem);
  vals = linalg::FillOp::create(b, loc, ValueRange{isMax ? lowestValue(b, loc, elem)
                                                         : highestValue(b, loc, elem)},
                                ValueRange{vals})
             .getResult(0);
  Value idxs = filledTensor(b, loc, keptSizes, i64, 0.0);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> keptExprs;
  for (int64_t d : kept)
    keptExprs.push_back(b.getAffineDimExpr(d));
  AffineMap keptMap = AffineMap::get(rank, 0, keptExprs, ctx);
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, ctx), keptMap, keptMap};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  iters[dim] = utils::IteratorType::reduction;
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{vals.getType(), idxs.getType()}, ValueRange{x}, ValueRange{vals, idxs},
      maps, iters, [&](OpBuilder &nb, Location l, ValueRange a) {
        Value v = a[0], best = a[1], bestIdx = a[2];
        Value take;
        if (auto ft = dyn_cast<FloatType>(elem)) {
          Value better = arith::CmpFOp::create(
              nb, l, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT, v, best);
          Value vNan = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v, v);
          Value bestNotNan = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::ORD, best, best);
          take = arith::OrIOp::create(nb, l, better,
                                      arith::AndIOp::create(nb, l, vNan, bestNotNan));
        } else if (elem.isInteger(1)) {
          take = isMax ? arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ugt, v, best)
                       : arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, v, best);
        } else {
          take = isMax ? arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt, v, best)
                       : arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, v, best);
        }
        Value i = arith::IndexCastOp::create(nb, l, i64, linalg::IndexOp::create(nb, l, dim));
        linalg::YieldOp::create(nb, l,
                                ValueRange{arith::SelectOp::create(nb, l, take, v, best),
                                           arith::SelectOp::create(nb, l, take, i, bestIdx)});
      });
  return {g.getResult(0), g.getResult(1)};
}

template <typename OpT, bool IsMax> struct ExtremumDimLowering : ReduceBase<OpT> {
  using ReduceBase<OpT>::ReduceBase;
  LogicalResult lower(OpT op, Location loc, Value x, ConversionPatternRewriter &rewriter,
                      SmallVectorImpl<Value> &results) const override {
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    if (rank == 0) {
      // A 0-d tensor is its own extremum, at index 0.
      results.push_back(castTo(rewriter, loc, x, op.getValues().getType()));
      Value zero = filledTensor(rewriter, loc, {}, rewriter.getI64Type(), 0.0);
      results.push_back(castTo(rewriter, loc, zero, op.getIndices().getType()));
      return success();
    }
    int64_t dim = op.getDim() < 0 ? op.getDim() + rank : op.getDim();
    auto [v, i] = extremumWithIndex(rewriter, loc, x, dim, IsMax);
    results.push_back(finish(rewriter, loc, v, x, {dim}, op.getKeepdim(),
                             op.getValues().getType()));
    results.push_back(finish(rewriter, loc, i, x, {dim}, op.getKeepdim(),
                             op.getIndices().getType()));
    return success();
  }
};

template <typename OpT, bool IsMax> struct ArgExtremumLowering : ReduceBase<OpT> {
  using ReduceBase<OpT>::ReduceBase;
  LogicalResult lower(OpT op, Location loc, Value x, ConversionPatternRewriter &rewriter,
                      SmallVectorImpl<Value> &results) const override {
    auto ty = cast<RankedTensorType>(x.getType());
    int64_t rank = ty.getRank();
    if (op.getDim() && rank > 0) {
      int64_t dim = *op.getDim() < 0 ? *op.getDim() + rank : *op.getDim();
      Value i = extremumWithIndex(rewriter, loc, x, dim, IsMax).second;
      results.push_back(finish(rewriter, loc, i, x, {dim}, op.getKeepdim(), op.getType()));
      return success();
    }
    // Over the flattened tensor.
    Value flat;
    if (rank == 0) {
      flat = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get({1}, ty.getElementType()), x,
          SmallVector<ReassociationIndices>{}, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    } else {
      ReassociationIndices all = identityLoops(rank);
      flat = tensor::CollapseShapeOp::create(rewriter, loc, x,
                                             SmallVector<ReassociationIndices>{all});
    }
    Value i = extremumWithIndex(rewriter, loc, flat, 0, IsMax).second;
    if (op.getKeepdim() && rank > 0)
      i = restoreReducedDims(rewriter, loc, i, x, identityLoops(rank));
    results.push_back(castTo(rewriter, loc, i, op.getType()));
    return success();
  }
};

/// out[..., k, ...] = acc_k, acc_k = acc_{k-1} op x[..., k, ...]; the
/// accumulator (a slice of the compute type) is the loop's carried value.
template <typename OpT, bool IsSum> struct ScanLowering : ReduceBase<OpT> {
  using ReduceBase<OpT>::ReduceBase;
  LogicalResult lower(OpT op, Location loc, Value x, ConversionPatternRewriter &rewriter,
                      SmallVectorImpl<Value> &results) const override {
    auto ty = cast<RankedTensorType>(x.getType());
    int64_t rank = ty.getRank();
    Type r = op.getType().getElementType(), acc = computeType(r);
    if (rank == 0) {
      results.push_back(convertAndCastTo(rewriter, loc, x, op.getType()));
      return success();
    }
    int64_t dim = op.getDim() < 0 ? op.getDim() + rank : op.getDim();
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, x), sliceSizes(sizes);
    sliceSizes[dim] = rewriter.getIndexAttr(1);
    Value out = emptyTensor(rewriter, loc, sizes, r);
    Value carry = filledTensor(rewriter, loc, sliceSizes, acc, IsSum ? 0.0 : 1.0);
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[dim]);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, ValueRange{out, carry},
        [&](OpBuilder &b, Location l, Value k, ValueRange iter) {
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          offsets[dim] = k;
          Value xs = tensor::ExtractSliceOp::create(b, l, x, offsets, sliceSizes, strides);
          Value outSlice =
              tensor::ExtractSliceOp::create(b, l, iter[0], offsets, sliceSizes, strides);
          // One generic updates the accumulator and writes the output slice,
          // both in place.
          MLIRContext *ctx = b.getContext();
          SmallVector<AffineMap> maps(3, AffineMap::getMultiDimIdentityMap(rank, ctx));
          SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
          auto update = linalg::GenericOp::create(
              b, l, TypeRange{iter[1].getType(), outSlice.getType()}, ValueRange{xs},
              ValueRange{iter[1], outSlice}, maps, iters,
              [&](OpBuilder &nb, Location nl, ValueRange a) {
                Value v = convertScalarTo(nb, nl, convertScalarTo(nb, nl, a[0], r), acc);
                Value next = IsSum ? add(nb, nl, a[1], v) : mul(nb, nl, a[1], v);
                linalg::YieldOp::create(nb, nl,
                                        ValueRange{next, convertScalarTo(nb, nl, next, r)});
              });
          Value next = update.getResult(0);
          Value updated = tensor::InsertSliceOp::create(b, l, update.getResult(1), iter[0], offsets,
                                                        sliceSizes, strides);
          scf::YieldOp::create(b, l, ValueRange{updated, next});
        });
    results.push_back(castTo(rewriter, loc, loop.getResult(0), op.getType()));
    return success();
  }
};
} // namespace

void kiln::populateReductionPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SumLowering, MeanLowering, ProdLowering, ExtremumLowering<AmaxOp, true>,
               ExtremumLowering<AminOp, false>, LogicalLowering<AnyDimsOp, true>,
               LogicalLowering<AllDimsOp, false>, CountNonzeroLowering, LogsumexpLowering,
               VectorNormLowering, VarLowering<VarCorrectionOp, false, false>,
               VarLowering<StdCorrectionOp, true, false>,
               VarLowering<VarMeanCorrectionOp, false, true>,
               VarLowering<StdMeanCorrectionOp, true, true>, ExtremumDimLowering<MaxDimOp, true>,
               ExtremumDimLowering<MinDimOp, false>, ArgExtremumLowering<ArgmaxOp, true>,
               ArgExtremumLowering<ArgminOp, false>, ScanLowering<CumsumOp, true>,
               ScanLowering<CumprodOp, false>>(ctx);
}

//===- Indexing.cpp - gathers, scatters and pads to linalg/scf/tensor -----===//
//
// Gathers (index_select, gather, index.Tensor) are one linalg.generic over
// the result whose body computes the source coordinates and reads them with
// tensor.extract (flip, roll, repeat, tril/triu and pads, whose coordinates
// are a function of the result's, are in Remap.cpp). Scatters (scatter, index_put) and nonzero write in an scf.for
// nest with the result as loop-carried tensor, which bufferizes in place.
// Every index read at run time is wrapped if negative and clamped into its
// dim, so no access is out of bounds.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {

/// An integer index element as an `index` value, wrapped if negative and
/// clamped to [0, n - 1].
Value clampIndex(OpBuilder &b, Location loc, Value elem, Value n) {
  Value i = isa<IndexType>(elem.getType())
                ? elem
                : arith::IndexCastOp::create(b, loc, b.getIndexType(), elem).getResult();
  Value zero = cIdx(b, loc, 0);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(b, loc, neg, arith::AddIOp::create(b, loc, i, n), i);
  Value last = arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, n, cIdx(b, loc, 1)),
                                      zero);
  return arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, i, zero), last);
}

/// A coordinate known to be >= 0 clamped to n - 1 (a loop index over an
/// index tensor that is larger than the tensor it addresses, which PyTorch rejects).
Value clampBelow(OpBuilder &b, Location loc, Value i, Value n) {
  return arith::MinSIOp::create(b, loc, i, arith::SubIOp::create(b, loc, n, cIdx(b, loc, 1)));
}

/// clampBelow, unless a loop of static `extent` cannot pass a static `dimSize`.
Value clampIfNeeded(OpBuilder &b, Location loc, Value i, int64_t extent, int64_t dimSize,
                    Value n) {
  if (extent != ShapedType::kDynamic && dimSize != ShapedType::kDynamic && extent <= dimSize)
    return i;
  return clampBelow(b, loc, i, n);
}

/// The sizes of `v` as OpFoldResults, for ifNonEmpty.
SmallVector<OpFoldResult> dimsOf(OpBuilder &b, Location loc, Value v) { return getSizes(b, loc, v); }

/// The broadcast of the index tensors' shapes (numpy rules): sizes and, per
/// index tensor, the map from the broadcast dims to its own.
struct IndexBroadcast {
  SmallVector<OpFoldResult> sizes;
  SmallVector<AffineMap> maps; // (broadcast dims) -> (index dims)
};

IndexBroadcast broadcastIndices(OpBuilder &b, Location loc, ValueRange indices,
                                RankedTensorType resultType, int64_t firstResultDim) {
  int64_t rank = 0;
  for (Value v : indices)
    rank = std::max<int64_t>(rank, cast<RankedTensorType>(v.getType()).getRank());
  IndexBroadcast r;
  for (int64_t i = 0; i < rank; ++i) {
    OpFoldResult size = b.getIndexAttr(1);
    if (!resultType.isDynamicDim(firstResultDim + i)) {
      size = b.getIndexAttr(resultType.getDimSize(firstResultDim + i));
    } else {
      for (Value v : indices) {
        auto ty = cast<RankedTensorType>(v.getType());
        int64_t d = i - (rank - ty.getRank());
        if (d >= 0 && ty.getDimSize(d) != 1) {
          size = getSizes(b, loc, v)[d];
          break;
        }
      }
    }
    r.sizes.push_back(size);
  }
  for (Value v : indices) {
    auto ty = cast<RankedTensorType>(v.getType());
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < ty.getRank(); ++d) {
      int64_t bd = d + (rank - ty.getRank());
      exprs.push_back(ty.getDimSize(d) == 1 && !isConstantIntValue(r.sizes[bd], 1)
                          ? b.getAffineConstantExpr(0)
                          : b.getAffineDimExpr(bd));
    }
    r.maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  return r;
}

/// Where advanced indexing puts the broadcast index dims in the result.
struct AdvancedLayout {
  bool adjacent;
  int64_t bStart;              // first result dim of the broadcast index dims
  int64_t bRank;               // their number
  SmallVector<int64_t> selfToResult; // per self dim not indexed: its result dim (-1 if indexed)
};

AdvancedLayout advancedLayout(int64_t selfRank, ArrayRef<int64_t> indexDims, int64_t bRank) {
  AdvancedLayout l;
  l.bRank = bRank;
  l.adjacent = indexDims.back() - indexDims.front() + 1 == (int64_t)indexDims.size();
  l.bStart = l.adjacent ? indexDims.front() : 0;
  l.selfToResult.assign(selfRank, -1);
  int64_t next = l.adjacent ? 0 : bRank;
  for (int64_t d = 0; d < selfRank; ++d) {
    if (llvm::is_contained(indexDims, d))
      continue;
    if (l.adjacent && d > indexDims.back())
      l.selfToResult[d] = d - (int64_t)indexDims.size() + bRank;
    else if (l.adjacent)
      l.selfToResult[d] = d;
    else
      l.selfToResult[d] = next++;
  }
  return l;
}

/// The result sizes of advanced indexing.
SmallVector<OpFoldResult> advancedSizes(ArrayRef<OpFoldResult> selfSizes,
                                        const AdvancedLayout &l,
                                        ArrayRef<OpFoldResult> bSizes) {
  int64_t outRank = llvm::count_if(l.selfToResult, [](int64_t r) { return r >= 0; }) + l.bRank;
  SmallVector<OpFoldResult> out(outRank);
  for (int64_t i = 0; i < l.bRank; ++i)
    out[l.bStart + i] = bSizes[i];
  for (auto [d, r] : llvm::enumerate(l.selfToResult))
    if (r >= 0)
      out[r] = selfSizes[d];
  return out;
}

/// The self coordinates of a result position of advanced indexing, given the
/// index elements read at that position.
SmallVector<Value> advancedCoords(OpBuilder &b, Location loc, ArrayRef<Value> resultIdx,
                                  const AdvancedLayout &l, ArrayRef<int64_t> indexDims,
                                  ValueRange indexElems, ArrayRef<Value> selfSizes) {
  SmallVector<Value> coords(l.selfToResult.size());
  for (auto [d, r] : llvm::enumerate(l.selfToResult))
    if (r >= 0)
      coords[d] = resultIdx[r];
  for (auto [k, d] : llvm::enumerate(indexDims))
    coords[d] = clampIndex(b, loc, indexElems[k], selfSizes[d]);
  return coords;
}

/// Replaces `op` (one result) with a gather from `self` into a tensor of
/// `sizes` (of self's element type): each element reads self at
/// `coords(b, loc, loopIndices, inputElements)`, `inputs` read through
/// `maps`. Where one of `guardDims` is 0 at run time there is nothing to read
/// and the result is an empty tensor of `sizes`.
LogicalResult replaceWithGather(ConversionPatternRewriter &rewriter, Operation *op, Value self,
                                ArrayRef<OpFoldResult> guardDims, ArrayRef<OpFoldResult> sizes,
                                ValueRange inputs, ArrayRef<AffineMap> maps,
                                function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                                ArrayRef<Value>, ValueRange)>
                                    coords) {
  Location loc = op->getLoc();
  Type elem = cast<RankedTensorType>(self.getType()).getElementType();
  Type resultType = op->getResult(0).getType();
  Value out = ifNonEmpty(
      rewriter, loc, guardDims, resultType,
      [&](OpBuilder &rb, Location rl) {
        return gatherGeneric(rb, rl, sizes, elem, inputs, maps,
                             [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange in) {
                               return tensor::ExtractOp::create(b, l, self, coords(b, l, idx, in))
                                   .getResult();
                             });
      },
      [&](OpBuilder &b, Location l) -> Value { return tensor::EmptyOp::create(b, l, sizes, elem); });
  rewriter.replaceOp(op, castTo(rewriter, loc, out, resultType));
  return success();
}

struct IndexSelectLowering : OpLowering<IndexSelectOp> {
  using OpLowering::OpLowering;
  LogicalResult lowerOp(IndexSelectOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter,
                        Location loc) const override {
    Value self = adaptor.getSelf(), index = adaptor.getIndex();
    auto selfTy = cast<RankedTensorType>(self.getType());
    int64_t rank = selfTy.getRank();
    if (rank == 0) {
      rewriter.replaceOp(op, castTo(rewriter, loc, self, op.getType()));
      return success();
    }
    int64_t d = normDim(op.getDim(), rank);
    auto idxTy = cast<RankedTensorType>(index.getType());
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, self);
    sizes[d] = idxTy.getRank() == 0 ? rewriter.getIndexAttr(1) : getSizes(rewriter, loc, index)[0];
    SmallVector<Value> selfSizes = sizeValues(rewriter, loc, self);
    AffineMap idxMap = AffineMap::get(rank, 0,
                                      idxTy.getRank() == 0 ? ArrayRef<AffineExpr>{}
                                                           : ArrayRef<AffineExpr>{rewriter.getAffineDimExpr(d)},
                                      rewriter.getContext());
    return replaceWithGather(rewriter, op, self, {getSizes(rewriter, loc, self)[d]}, sizes,
                             {index}, {idxMap},
                             [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange in) {
                               SmallVector<Value> coords(idx);
                               coords[d] = clampIndex(b, l, in[0], selfSizes[d]);
                               return coords;
                             });
  }
};

struct GatherLowering : OpLowering<GatherOp> {
  using OpLowering::OpLowering;
  LogicalResult lowerOp(GatherOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter,
                        Location loc) const override {
    Value self = adaptor.getSelf(), index = adaptor.getIndex();
    auto selfTy = cast<RankedTensorType>(self.getType());
    int64_t rank = selfTy.getRank(), d = normDim(op.getDim(), rank);
    SmallVector<Value> selfSizes = sizeValues(rewriter, loc, self);
    SmallVector<OpFoldResult> outSizes = getSizes(rewriter, loc, index);
    auto idxTy = cast<RankedTensorType>(index.getType());
    AffineMap identity = AffineMap::getMultiDimIdentityMap(idxTy.getRank(), rewriter.getContext());
    auto coords = [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange in) {
      SmallVector<Value> c;
      for (int64_t i = 0; i < rank; ++i)
        c.push_back(i == d ? clampIndex(b, l, in[0], selfSizes[d])
                           : clampIfNeeded(b, l, idx[i], idxTy.getDimSize(i), selfTy.getDimSize(i),
                                           selfSizes[i]));
      return c;
    };
    return replaceWithGather(rewriter, op, self, dimsOf(rewriter, loc, self), outSizes, {index},
                             {identity}, coords);
  }
};

struct IndexTensorLowering : OpConversionPattern<IndexTensorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(IndexTensorOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf();
    auto selfTy = cast<RankedTensorType>(self.getType());
    ArrayRef<int64_t> dims = op.getIndexDims();
    int64_t bRank = 0;
    for (Value v : adaptor.getIndices())
      bRank = std::max<int64_t>(bRank, cast<RankedTensorType>(v.getType()).getRank());
    AdvancedLayout layout = advancedLayout(selfTy.getRank(), dims, bRank);
    IndexBroadcast bc = broadcastIndices(rewriter, loc, adaptor.getIndices(), op.getType(),
                                         layout.bStart);
    SmallVector<OpFoldResult> sizes =
        advancedSizes(getSizes(rewriter, loc, self), layout, bc.sizes);
    int64_t outRank = sizes.size();
    // Index tensors are read through the result's broadcast dims.
    SmallVector<AffineMap> fixed;
    for (AffineMap m : bc.maps) {
      SmallVector<AffineExpr> exprs;
      for (AffineExpr e : m.getResults())
        exprs.push_back(e.shiftDims(m.getNumDims(), layout.bStart));
      fixed.push_back(AffineMap::get(outRank, 0, exprs, rewriter.getContext()));
    }
    SmallVector<Value> selfSizes = sizeValues(rewriter, loc, self);
    SmallVector<OpFoldResult> indexedDims;
    for (int64_t d : dims)
      indexedDims.push_back(getSizes(rewriter, loc, self)[d]);
    return replaceWithGather(rewriter, op, self, indexedDims, sizes, adaptor.getIndices(), fixed,
                             [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange in) {
                               return advancedCoords(b, l, idx, layout, dims, in, selfSizes);
                             });
  }
};

/// An scf.for nest over `sizes` carrying the values `init`; `body(b, loc,
/// ivs, carried)` returns the new carried values.
SmallVector<Value>
loopNestCarrying(OpBuilder &b, Location loc, ArrayRef<Value> sizes, ValueRange init,
                 function_ref<SmallVector<Value>(OpBuilder &, Location, ArrayRef<Value>, ValueRange)> body) {
  SmallVector<Value> ivs;
  std::function<SmallVector<Value>(OpBuilder &, Location, size_t, ValueRange)> build =
      [&](OpBuilder &nb, Location nl, size_t depth, ValueRange carried) -> SmallVector<Value> {
    if (depth == sizes.size())
      return body(nb, nl, ivs, carried);
    auto loop = scf::ForOp::create(nb, nl, cIdx(nb, nl, 0), sizes[depth], cIdx(nb, nl, 1), carried,
                                   [&](OpBuilder &lb, Location ll, Value iv, ValueRange args) {
                                     ivs.push_back(iv);
                                     SmallVector<Value> next = build(lb, ll, depth + 1, args);
                                     ivs.pop_back();
                                     scf::YieldOp::create(lb, ll, next);
                                   });
    return SmallVector<Value>(loop.getResults());
  };
  return build(b, loc, 0, init);
}

/// loopNestCarrying with one carried value (a tensor, or a count).
Value loopNest(OpBuilder &b, Location loc, ArrayRef<Value> sizes, Value init,
               function_ref<Value(OpBuilder &, Location, ArrayRef<Value>, Value)> body) {
  return loopNestCarrying(b, loc, sizes, ValueRange{init},
                          [&](OpBuilder &nb, Location nl, ArrayRef<Value> ivs, ValueRange carried) {
                            return SmallVector<Value>{body(nb, nl, ivs, carried[0])};
                          })[0];
}

/// The combination of two elements for a scatter reduction.
Value combine(OpBuilder &b, Location loc, StringRef reduce, Value acc, Value v) {
  Type t = v.getType();
  bool isFloat = isa<FloatType>(t);
  if (reduce == "sum" || reduce == "mean") {
    if (t.isInteger(1))
      return arith::OrIOp::create(b, loc, acc, v);
    return isFloat ? arith::AddFOp::create(b, loc, acc, v).getResult()
                   : arith::AddIOp::create(b, loc, acc, v).getResult();
  }
  if (reduce == "prod") {
    if (t.isInteger(1))
      return arith::AndIOp::create(b, loc, acc, v);
    return isFloat ? arith::MulFOp::create(b, loc, acc, v).getResult()
                   : arith::MulIOp::create(b, loc, acc, v).getResult();
  }
  if (reduce == "amax")
    return isFloat ? arith::MaximumFOp::create(b, loc, acc, v).getResult()
                   : arith::MaxSIOp::create(b, loc, acc, v).getResult();
  if (reduce == "amin")
    return isFloat ? arith::MinimumFOp::create(b, loc, acc, v).getResult()
                   : arith::MinSIOp::create(b, loc, acc, v).getResult();
  return v;
}

/// The identity of a reduction for element type `t`.
Value identity(OpBuilder &b, Location loc, StringRef reduce, Type t) {
  if (reduce == "prod")
    return t.isInteger(1) ? arith::ConstantIntOp::create(b, loc, 1, 1).getResult()
                          : scalarConstant(b, loc, t, 1.0);
  if (reduce == "amax" || reduce == "amin") {
    bool max = reduce == "amax";
    if (auto ft = dyn_cast<FloatType>(t))
      return arith::ConstantOp::create(
          b, loc, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), /*Negative=*/max)));
    unsigned w = t.getIntOrFloatBitWidth();
    APInt v = max ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w);
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, v));
  }
  return t.isInteger(1) ? arith::ConstantIntOp::create(b, loc, 0, 1).getResult()
                        : scalarConstant(b, loc, t, 0.0);
}

struct ScatterLowering : OpConversionPattern<ScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ScatterOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf(), index = adaptor.getIndex(), src = adaptor.getSrc();
    auto selfTy = cast<RankedTensorType>(self.getType());
    Type elem = selfTy.getElementType();
    int64_t rank = selfTy.getRank(), d = normDim(op.getDim(), rank);
    StringRef reduce = op.getReduce();
    bool scalarSrc = cast<RankedTensorType>(src.getType()).getRank() == 0;
    SmallVector<Value> selfSizes = sizeValues(rewriter, loc, self);
    SmallVector<Value> idxSizes = sizeValues(rewriter, loc, index);
    SmallVector<Value> srcSizes = sizeValues(rewriter, loc, src);
    auto idxTy = cast<RankedTensorType>(index.getType());
    auto srcTy = cast<RankedTensorType>(src.getType());
    auto position = [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) {
      SmallVector<Value> coords;
      for (int64_t i = 0; i < rank; ++i)
        coords.push_back(i == d ? clampIndex(b, l, tensor::ExtractOp::create(b, l, index, ivs),
                                             selfSizes[d])
                                : clampIfNeeded(b, l, ivs[i], idxTy.getDimSize(i),
                                                selfTy.getDimSize(i), selfSizes[i]));
      return coords;
    };
    auto srcValue = [&](OpBuilder &b, Location l, ArrayRef<Value> ivs) -> Value {
      SmallVector<Value> at;
      for (size_t i = 0; !scalarSrc && i < ivs.size(); ++i)
        at.push_back(clampIfNeeded(b, l, ivs[i], idxTy.getDimSize(i), srcTy.getDimSize(i),
                                   srcSizes[i]));
      return tensor::ExtractOp::create(b, l, src, at);
    };
    // Nothing is written where self or src is empty (an index would still be
    // out of bounds after clamping).
    SmallVector<OpFoldResult> guardDims = dimsOf(rewriter, loc, self);
    if (!scalarSrc)
      llvm::append_range(guardDims, dimsOf(rewriter, loc, src));
    auto compute = [&](OpBuilder &rewriter, Location loc) -> Value {
      Value out = self;
      // Positions that receive a value start from the identity without include_self.
      if (reduce != "none" && !op.getIncludeSelf())
        out = loopNest(rewriter, loc, idxSizes, out,
                       [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, Value acc) -> Value {
                         return tensor::InsertOp::create(b, l, identity(b, l, reduce, elem), acc,
                                                         position(b, l, ivs));
                       });
      Value counts;
      Type countTy = rewriter.getI64Type();
      // Untouched positions keep their value: with include_self they count once.
      if (reduce == "mean")
        counts = filledTensor(rewriter, loc, getSizes(rewriter, loc, self), countTy,
                              op.getIncludeSelf() ? 1.0 : 0.0);
      // One pass writing (or combining) every element; the counts ride along.
      SmallVector<Value> carried{out};
      if (counts)
        carried.push_back(counts);
      SmallVector<Value> results = loopNestCarrying(
          rewriter, loc, idxSizes, carried,
          [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, ValueRange acc) -> SmallVector<Value> {
          SmallVector<Value> pos = position(b, l, ivs);
          Value v = srcValue(b, l, ivs);
          if (reduce != "none")
            v = combine(b, l, reduce, tensor::ExtractOp::create(b, l, acc[0], pos), v);
          SmallVector<Value> next{tensor::InsertOp::create(b, l, v, acc[0], pos).getResult()};
          if (counts) {
            Value c = tensor::ExtractOp::create(b, l, acc[1], pos);
            c = arith::AddIOp::create(b, l, c, arith::ConstantIntOp::create(b, l, 1, 64));
            next.push_back(tensor::InsertOp::create(b, l, c, acc[1], pos));
          }
          return next;
          });
      out = results[0];
      if (counts) {
        // mean = sum / count where count > 0 (integers round down).
        Value cnt = results[1];
        auto outTy = cast<RankedTensorType>(out.getType());
        out = elementwise(rewriter, loc, {out, cnt}, outTy,
                          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                            Value c = args[1];
                            Value zero = arith::ConstantIntOp::create(b, l, 0, 64);
                            Value has = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, c, zero);
                            Value safe = arith::SelectOp::create(
                                b, l, has, c, arith::ConstantIntOp::create(b, l, 1, 64));
                            Value q;
                            if (auto ft = dyn_cast<FloatType>(elem)) {
                              q = arith::DivFOp::create(b, l, args[0],
                                                        arith::SIToFPOp::create(b, l, ft, safe));
                            } else {
                              Value s = safe;
                              if (elem.getIntOrFloatBitWidth() < 64)
                                s = arith::TruncIOp::create(b, l, elem, safe);
                              q = arith::FloorDivSIOp::create(b, l, args[0], s);
                            }
                            return arith::SelectOp::create(b, l, has, q, args[0]);
                          });
      }
      return out;
    };
    Value out = ifNonEmpty(rewriter, loc, guardDims, self.getType(), compute,
                           [&](OpBuilder &, Location) { return self; });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct IndexPutLowering : OpConversionPattern<IndexPutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(IndexPutOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf(), values = adaptor.getValues();
    auto selfTy = cast<RankedTensorType>(self.getType());
    ArrayRef<int64_t> dims = op.getIndexDims();
    ValueRange indices = adaptor.getIndices();
    int64_t bRank = 0;
    for (Value v : indices)
      bRank = std::max<int64_t>(bRank, cast<RankedTensorType>(v.getType()).getRank());
    AdvancedLayout layout = advancedLayout(selfTy.getRank(), dims, bRank);
    // The broadcast index sizes: from a dim of an index that is not 1.
    SmallVector<Value> bSizes;
    for (int64_t i = 0; i < bRank; ++i) {
      Value size = cIdx(rewriter, loc, 1);
      for (Value v : indices) {
        auto ty = cast<RankedTensorType>(v.getType());
        int64_t dd = i - (bRank - ty.getRank());
        if (dd >= 0 && ty.getDimSize(dd) != 1) {
          size = tensor::DimOp::create(rewriter, loc, v, dd);
          break;
        }
      }
      bSizes.push_back(size);
    }
    SmallVector<OpFoldResult> bOfr(bSizes.begin(), bSizes.end());
    SmallVector<OpFoldResult> sizesOfr = advancedSizes(getSizes(rewriter, loc, self), layout, bOfr);
    SmallVector<Value> sizes;
    for (OpFoldResult s : sizesOfr)
      sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, s));
    SmallVector<Value> selfSizes = sizeValues(rewriter, loc, self);
    auto valTy = cast<RankedTensorType>(values.getType());
    SmallVector<Value> valSizes = sizeValues(rewriter, loc, values);
    int64_t outRank = sizes.size();
    // Nothing is written when an indexed dim of self, or values, is empty.
    SmallVector<OpFoldResult> guardDims = dimsOf(rewriter, loc, values);
    for (int64_t d : dims)
      guardDims.push_back(getSizes(rewriter, loc, self)[d]);
    auto compute = [&](OpBuilder &rewriter, Location loc) -> Value {
    return loopNest(
        rewriter, loc, sizes, self,
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, Value acc) -> Value {
          // Index elements at the broadcast position.
          SmallVector<Value> elems;
          for (Value v : indices) {
            auto ty = cast<RankedTensorType>(v.getType());
            SmallVector<Value> at;
            for (int64_t dd = 0; dd < ty.getRank(); ++dd) {
              int64_t bd = dd + (bRank - ty.getRank());
              at.push_back(ty.getDimSize(dd) == 1 ? cIdx(b, l, 0) : ivs[layout.bStart + bd]);
            }
            elems.push_back(tensor::ExtractOp::create(b, l, v, at));
          }
          SmallVector<Value> pos = advancedCoords(b, l, ivs, layout, dims, elems, selfSizes);
          // values broadcast to the indexed shape (aligned at the right).
          SmallVector<Value> vat;
          for (int64_t dd = 0; dd < valTy.getRank(); ++dd) {
            int64_t od = dd + (outRank - valTy.getRank());
            vat.push_back(valTy.getDimSize(dd) == 1
                              ? cIdx(b, l, 0)
                              : clampIfNeeded(b, l, ivs[od],
                                              getConstantIntValue(sizesOfr[od]).value_or(
                                                  ShapedType::kDynamic),
                                              valTy.getDimSize(dd), valSizes[dd]));
          }
          Value v = tensor::ExtractOp::create(b, l, values, vat);
          if (op.getAccumulate())
            v = combine(b, l, "sum", tensor::ExtractOp::create(b, l, acc, pos), v);
          return tensor::InsertOp::create(b, l, v, acc, pos);
        });
    };
    Value out = ifNonEmpty(rewriter, loc, guardDims, self.getType(), compute,
                           [&](OpBuilder &, Location) { return self; });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

/// `v != 0` for an element of any type (uint8 through its storage).
Value isNonzero(OpBuilder &b, Location loc, Value v) {
  v = toStorage(b, loc, v);
  Type t = v.getType();
  if (t.isInteger(1))
    return v;
  if (auto ft = dyn_cast<FloatType>(t))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, scalarConstant(b, loc, ft, 0.0));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                               arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 0)));
}

struct NonzeroLowering : OpConversionPattern<NonzeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NonzeroOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf();
    int64_t rank = cast<RankedTensorType>(self.getType()).getRank();
    SmallVector<Value> sizes = sizeValues(rewriter, loc, self);
    // Pass 1: count the nonzero elements.
    Value count = loopNest(rewriter, loc, sizes, cIdx(rewriter, loc, 0),
                           [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, Value acc) -> Value {
                             Value nz = isNonzero(b, l, tensor::ExtractOp::create(b, l, self, ivs));
                             return arith::AddIOp::create(
                                 b, l, acc, arith::IndexCastUIOp::create(b, l, b.getIndexType(), nz));
                           });
    Value out = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{count, rewriter.getIndexAttr(rank)},
        rewriter.getI64Type());
    // Pass 2: write the coordinates in row-major order.
    SmallVector<Value> res = loopNestCarrying(
        rewriter, loc, sizes, ValueRange{out, cIdx(rewriter, loc, 0)},
        [&](OpBuilder &b, Location l, ArrayRef<Value> ivs, ValueRange acc) -> SmallVector<Value> {
          Value nz = isNonzero(b, l, tensor::ExtractOp::create(b, l, self, ivs));
          auto ifOp = scf::IfOp::create(
              b, l, nz,
              [&](OpBuilder &tb, Location tl) {
                Value t = acc[0];
                for (int64_t i = 0; i < rank; ++i) {
                  Value c = arith::IndexCastOp::create(tb, tl, tb.getI64Type(), ivs[i]);
                  t = tensor::InsertOp::create(tb, tl, c, t, ValueRange{acc[1], cIdx(tb, tl, i)});
                }
                Value n = arith::AddIOp::create(tb, tl, acc[1], cIdx(tb, tl, 1));
                scf::YieldOp::create(tb, tl, ValueRange{t, n});
              },
              [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, acc); });
          return SmallVector<Value>(ifOp.getResults());
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, res[0], op.getType()));
    return success();
  }
};

} // namespace

void kiln::populateIndexingPatterns(RewritePatternSet &patterns) {
  patterns.add<IndexSelectLowering, GatherLowering, IndexTensorLowering, ScatterLowering,
               IndexPutLowering, NonzeroLowering>(patterns.getContext());
  populateRemapPatterns(patterns);
}

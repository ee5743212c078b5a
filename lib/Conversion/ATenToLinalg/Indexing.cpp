//===- Indexing.cpp - gathers, scatters and pads to linalg/scf/tensor -----===//
//
// Gathers (index_select, gather, index.Tensor, flip, roll, repeat, the
// reflection/replication/circular pads) are one linalg.generic over the
// result whose body computes the source coordinates and reads them with
// tensor.extract. Scatters (scatter, index_put) and nonzero write in an scf.for
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
int64_t normDim(int64_t d, int64_t rank) { return d < 0 ? d + std::max<int64_t>(rank, 1) : d; }

Value cIdx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

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

/// The loop indices of the enclosing linalg.generic.
SmallVector<Value> loopIndices(OpBuilder &b, Location loc, int64_t rank) {
  SmallVector<Value> idx;
  for (int64_t i = 0; i < rank; ++i)
    idx.push_back(linalg::IndexOp::create(b, loc, i));
  return idx;
}

/// linalg.generic over `sizes` x `elem` whose inputs are `inputs` read
/// through `maps`; `body(b, loc, loopIndices, inputElements)` yields the element.
Value gatherGeneric(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elem,
                    ValueRange inputs, ArrayRef<AffineMap> maps,
                    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>, ValueRange)> body) {
  int64_t rank = sizes.size();
  Value init = emptyTensor(b, loc, sizes, elem);
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), inputs, ValueRange{init}, allMaps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               SmallVector<Value> idx = loopIndices(nb, nl, rank);
               linalg::YieldOp::create(nb, nl, body(nb, nl, idx, args.drop_back()));
             })
      .getResult(0);
}

/// Sizes as index values.
SmallVector<Value> sizeValues(OpBuilder &b, Location loc, Value t) {
  SmallVector<Value> out;
  for (OpFoldResult s : getSizes(b, loc, t))
    out.push_back(getValueOrCreateConstantIndexOp(b, loc, s));
  return out;
}

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

struct IndexSelectLowering : OpConversionPattern<IndexSelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(IndexSelectOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
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
    Value out = ifNonEmpty(
        rewriter, loc, {getSizes(rewriter, loc, self)[d]}, op.getType(),
        [&](OpBuilder &rb, Location rl) {
          return gatherGeneric(
              rb, rl, sizes, selfTy.getElementType(), {index}, {idxMap},
              [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange in) {
                SmallVector<Value> coords(idx);
                coords[d] = clampIndex(b, l, in[0], selfSizes[d]);
                return tensor::ExtractOp::create(b, l, self, coords).getResult();
              });
        },
        [&](OpBuilder &b, Location l) -> Value {
          return tensor::EmptyOp::create(b, l, sizes, selfTy.getElementType());
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf(), index = adaptor.getIndex();
    auto selfTy = cast<RankedTensorType>(self.getType());
    int64_t rank = selfTy.getRank(), d = normDim(op.getDim(), rank);
    SmallVector<Value> selfSizes = sizeValues(rewriter, loc, self);
    int64_t idxRank = cast<RankedTensorType>(index.getType()).getRank();
    SmallVector<OpFoldResult> outSizes = getSizes(rewriter, loc, index);
    Value out = ifNonEmpty(
        rewriter, loc, dimsOf(rewriter, loc, self), op.getType(),
        [&](OpBuilder &rb, Location rl) {
          return gatherGeneric(
              rb, rl, outSizes, selfTy.getElementType(), {index},
              {AffineMap::getMultiDimIdentityMap(idxRank, rewriter.getContext())},
              [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange in) {
                SmallVector<Value> coords;
                auto idxTy = cast<RankedTensorType>(index.getType());
                for (int64_t i = 0; i < rank; ++i)
                  coords.push_back(i == d ? clampIndex(b, l, in[0], selfSizes[d])
                                          : clampIfNeeded(b, l, idx[i], idxTy.getDimSize(i),
                                                          selfTy.getDimSize(i), selfSizes[i]));
                return tensor::ExtractOp::create(b, l, self, coords).getResult();
              });
        },
        [&](OpBuilder &b, Location l) -> Value {
          return tensor::EmptyOp::create(b, l, outSizes, selfTy.getElementType());
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
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
    Value out = ifNonEmpty(
        rewriter, loc, indexedDims, op.getType(),
        [&](OpBuilder &rb, Location rl) {
          return gatherGeneric(
              rb, rl, sizes, selfTy.getElementType(), adaptor.getIndices(), fixed,
              [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange in) {
                SmallVector<Value> coords = advancedCoords(b, l, idx, layout, dims, in, selfSizes);
                return tensor::ExtractOp::create(b, l, self, coords).getResult();
              });
        },
        [&](OpBuilder &b, Location l) -> Value {
          return tensor::EmptyOp::create(b, l, sizes, selfTy.getElementType());
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

/// An scf.for nest over `sizes` carrying `init`; `body(b, loc, ivs, carried)`
/// returns the new carried tensor.
Value loopNest(OpBuilder &b, Location loc, ArrayRef<Value> sizes, Value init,
               function_ref<Value(OpBuilder &, Location, ArrayRef<Value>, Value)> body) {
  SmallVector<Value> ivs;
  std::function<Value(OpBuilder &, Location, size_t, Value)> build =
      [&](OpBuilder &nb, Location nl, size_t depth, Value carried) -> Value {
    if (depth == sizes.size())
      return body(nb, nl, ivs, carried);
    auto loop = scf::ForOp::create(
        nb, nl, cIdx(nb, nl, 0), sizes[depth], cIdx(nb, nl, 1), ValueRange{carried},
        [&](OpBuilder &lb, Location ll, Value iv, ValueRange args) {
          ivs.push_back(iv);
          Value next = build(lb, ll, depth + 1, args[0]);
          ivs.pop_back();
          scf::YieldOp::create(lb, ll, next);
        });
    return loop.getResult(0);
  };
  return build(b, loc, 0, init);
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
      SmallVector<Value> ivs;
      std::function<SmallVector<Value>(OpBuilder &, Location, size_t, ValueRange)> build =
          [&](OpBuilder &b, Location l, size_t depth, ValueRange acc) -> SmallVector<Value> {
        if (depth == idxSizes.size()) {
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
        }
        auto loop = scf::ForOp::create(
            b, l, cIdx(b, l, 0), idxSizes[depth], cIdx(b, l, 1), acc,
            [&](OpBuilder &lb, Location ll, Value iv, ValueRange args) {
              ivs.push_back(iv);
              SmallVector<Value> next = build(lb, ll, depth + 1, args);
              ivs.pop_back();
              scf::YieldOp::create(lb, ll, next);
            });
        return SmallVector<Value>(loop.getResults());
      };
      SmallVector<Value> results = build(rewriter, loc, 0, carried);
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
    auto countOf = [&]() {
      SmallVector<Value> ivs;
      std::function<Value(OpBuilder &, Location, size_t, Value)> build =
          [&](OpBuilder &b, Location l, size_t depth, Value acc) -> Value {
        if (depth == sizes.size()) {
          Value nz = isNonzero(b, l, tensor::ExtractOp::create(b, l, self, ivs));
          return arith::AddIOp::create(b, l, acc,
                                       arith::IndexCastUIOp::create(b, l, b.getIndexType(), nz));
        }
        auto loop = scf::ForOp::create(b, l, cIdx(b, l, 0), sizes[depth], cIdx(b, l, 1),
                                       ValueRange{acc},
                                       [&](OpBuilder &lb, Location ll, Value iv, ValueRange args) {
                                         ivs.push_back(iv);
                                         Value next = build(lb, ll, depth + 1, args[0]);
                                         ivs.pop_back();
                                         scf::YieldOp::create(lb, ll, next);
                                       });
        return loop.getResult(0);
      };
      return build(rewriter, loc, 0, cIdx(rewriter, loc, 0));
    };
    Value count = countOf();
    Value out = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<OpFoldResult>{count, rewriter.getIndexAttr(rank)},
        rewriter.getI64Type());
    // Pass 2: write the coordinates in row-major order.
    SmallVector<Value> ivs;
    std::function<SmallVector<Value>(OpBuilder &, Location, size_t, ValueRange)> build =
        [&](OpBuilder &b, Location l, size_t depth, ValueRange acc) -> SmallVector<Value> {
      if (depth == sizes.size()) {
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
      }
      auto loop = scf::ForOp::create(b, l, cIdx(b, l, 0), sizes[depth], cIdx(b, l, 1), acc,
                                     [&](OpBuilder &lb, Location ll, Value iv, ValueRange args) {
                                       ivs.push_back(iv);
                                       SmallVector<Value> next = build(lb, ll, depth + 1, args);
                                       ivs.pop_back();
                                       scf::YieldOp::create(lb, ll, next);
                                     });
      return SmallVector<Value>(loop.getResults());
    };
    SmallVector<Value> res = build(rewriter, loc, 0, ValueRange{out, cIdx(rewriter, loc, 0)});
    rewriter.replaceOp(op, castTo(rewriter, loc, res[0], op.getType()));
    return success();
  }
};

/// A gather over self's own shape (or a padded one) whose source coordinate
/// in each dim is computed from the result coordinate.
using CoordFn = std::function<Value(OpBuilder &, Location, int64_t dim, Value i, Value n)>;
Value remap(OpBuilder &b, Location loc, Value self, ArrayRef<OpFoldResult> outSizes,
            CoordFn coord) {
  auto ty = cast<RankedTensorType>(self.getType());
  SmallVector<Value> inSizes = sizeValues(b, loc, self);
  return gatherGeneric(b, loc, outSizes, ty.getElementType(), {}, {},
                       [&](OpBuilder &nb, Location nl, ArrayRef<Value> idx, ValueRange) {
                         SmallVector<Value> coords;
                         for (int64_t d = 0; d < ty.getRank(); ++d)
                           coords.push_back(coord(nb, nl, d, idx[d], inSizes[d]));
                         return tensor::ExtractOp::create(nb, nl, self, coords).getResult();
                       });
}

struct FlipLowering : OpConversionPattern<FlipOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FlipOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value self = adaptor.getSelf();
    int64_t rank = cast<RankedTensorType>(self.getType()).getRank();
    SmallVector<bool> flip(std::max<int64_t>(rank, 1), false);
    for (int64_t d : op.getDims())
      flip[normDim(d, rank)] = true;
    Value out = remap(rewriter, op.getLoc(), self, getSizes(rewriter, op.getLoc(), self),
                      [&](OpBuilder &b, Location l, int64_t d, Value i, Value n) -> Value {
                        if (!flip[d])
                          return i;
                        return arith::SubIOp::create(
                            b, l, arith::SubIOp::create(b, l, n, cIdx(b, l, 1)), i);
                      });
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), out, op.getType()));
    return success();
  }
};

/// ((i - shift) mod n + n) mod n, for n > 0.
Value rolled(OpBuilder &b, Location l, Value i, int64_t shift, Value n) {
  Value s = arith::SubIOp::create(b, l, i, cIdx(b, l, shift));
  Value r = arith::RemSIOp::create(b, l, s, n);
  return arith::RemSIOp::create(b, l, arith::AddIOp::create(b, l, r, n), n);
}

struct RollLowering : OpConversionPattern<RollOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(RollOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf();
    auto ty = cast<RankedTensorType>(self.getType());
    int64_t rank = ty.getRank();
    if (op.getDims().empty()) {
      // Roll the row-major elements: flatten, roll dim 0, reshape back.
      SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, self);
      Value flat = self;
      if (rank != 1) {
        SmallVector<ReassociationIndices> reassoc;
        if (rank > 0) {
          reassoc.emplace_back();
          for (int64_t i = 0; i < rank; ++i)
            reassoc.back().push_back(i);
        }
        flat = rank == 0 ? tensor::ExpandShapeOp::create(
                               rewriter, loc, RankedTensorType::get({1}, ty.getElementType()), self,
                               SmallVector<ReassociationIndices>{},
                               ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)})
                               .getResult()
                         : tensor::CollapseShapeOp::create(rewriter, loc, self, reassoc).getResult();
      }
      int64_t shift = op.getShifts()[0];
      Value r = remap(rewriter, loc, flat, getSizes(rewriter, loc, flat),
                      [&](OpBuilder &b, Location l, int64_t, Value i, Value n) {
                        return rolled(b, l, i, shift, n);
                      });
      if (rank != 1) {
        auto flatTy = cast<RankedTensorType>(r.getType());
        SmallVector<ReassociationIndices> reassoc;
        if (rank > 0) {
          reassoc.emplace_back();
          for (int64_t i = 0; i < rank; ++i)
            reassoc.back().push_back(i);
        }
        r = rank == 0 ? tensor::CollapseShapeOp::create(rewriter, loc, ty, r,
                                                        SmallVector<ReassociationIndices>{})
                            .getResult()
                      : tensor::ExpandShapeOp::create(rewriter, loc, ty, r, reassoc, sizes)
                            .getResult();
        (void)flatTy;
      }
      rewriter.replaceOp(op, castTo(rewriter, loc, r, op.getType()));
      return success();
    }
    SmallVector<int64_t> shift(rank, 0);
    for (auto [s, d] : llvm::zip(op.getShifts(), op.getDims()))
      shift[normDim(d, rank)] += s;
    Value out = remap(rewriter, loc, self, getSizes(rewriter, loc, self),
                      [&](OpBuilder &b, Location l, int64_t d, Value i, Value n) -> Value {
                        return shift[d] == 0 ? i : rolled(b, l, i, shift[d], n);
                      });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct RepeatLowering : OpConversionPattern<RepeatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(RepeatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf();
    auto ty = cast<RankedTensorType>(self.getType());
    ArrayRef<int64_t> reps = op.getRepeats();
    int64_t rank = ty.getRank(), lead = reps.size() - rank;
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, self), outSizes;
    AffineExpr s0 = rewriter.getAffineSymbolExpr(0);
    for (int64_t i = 0; i < (int64_t)reps.size(); ++i)
      outSizes.push_back(i < lead ? rewriter.getIndexAttr(reps[i])
                                  : affine::makeComposedFoldedAffineApply(
                                        rewriter, loc, s0 * reps[i], {inSizes[i - lead]}));
    SmallVector<Value> inVals = sizeValues(rewriter, loc, self);
    Value out = gatherGeneric(rewriter, loc, outSizes, ty.getElementType(), {}, {},
                              [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange) {
                                SmallVector<Value> coords;
                                for (int64_t d = 0; d < rank; ++d)
                                  coords.push_back(
                                      arith::RemUIOp::create(b, l, idx[d + lead], inVals[d]));
                                return tensor::ExtractOp::create(b, l, self, coords).getResult();
                              });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

template <typename OpT, bool lower>
struct TriangleLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf();
    auto ty = cast<RankedTensorType>(self.getType());
    int64_t rank = ty.getRank(), k = op.getDiagonal();
    Type elem = ty.getElementType();
    Value out = gatherGeneric(
        rewriter, loc, getSizes(rewriter, loc, self), elem, {self},
        {AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext())},
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange in) -> Value {
          // keep j - i <= k (tril) or j - i >= k (triu)
          Value diff = arith::SubIOp::create(b, l, idx[rank - 1], idx[rank - 2]);
          Value keep = arith::CmpIOp::create(
              b, l, lower ? arith::CmpIPredicate::sle : arith::CmpIPredicate::sge, diff,
              cIdx(b, l, k));
          Value zero = elem.isInteger(1) ? arith::ConstantIntOp::create(b, l, 0, 1).getResult()
                                         : scalarConstant(b, l, elem, 0.0);
          return arith::SelectOp::create(b, l, keep, in[0], zero);
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct ConstantPadLowering : OpConversionPattern<ConstantPadNdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConstantPadNdOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf();
    auto ty = cast<RankedTensorType>(self.getType());
    int64_t rank = ty.getRank();
    ArrayRef<int64_t> pad = op.getPad();
    SmallVector<int64_t> low(rank, 0), high(rank, 0);
    for (size_t i = 0; i < pad.size() / 2; ++i) {
      low[rank - 1 - i] = pad[2 * i];
      high[rank - 1 - i] = pad[2 * i + 1];
    }
    // Negative pads crop first.
    if (llvm::any_of(pad, [](int64_t p) { return p < 0; })) {
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
          strides(rank, rewriter.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, self);
      AffineExpr s0 = rewriter.getAffineSymbolExpr(0);
      for (int64_t d = 0; d < rank; ++d) {
        int64_t cropLo = std::max<int64_t>(0, -low[d]), cropHi = std::max<int64_t>(0, -high[d]);
        offsets[d] = rewriter.getIndexAttr(cropLo);
        sizes[d] = affine::makeComposedFoldedAffineApply(rewriter, loc, s0 - cropLo - cropHi,
                                                         {sizes[d]});
        low[d] = std::max<int64_t>(0, low[d]);
        high[d] = std::max<int64_t>(0, high[d]);
      }
      self = extractSliceOrEmpty(rewriter, loc, self, offsets, sizes, strides);
    }
    Type elem = ty.getElementType();
    double v = op.getValue().convertToDouble();
    Value padValue = elem.isInteger(1)
                         ? arith::ConstantIntOp::create(rewriter, loc, v != 0.0, 1).getResult()
                         : scalarConstant(rewriter, loc, elem, v);
    auto srcTy = cast<RankedTensorType>(self.getType());
    SmallVector<int64_t> shape(srcTy.getShape());
    SmallVector<OpFoldResult> lo, hi;
    for (int64_t d = 0; d < rank; ++d) {
      if (shape[d] != ShapedType::kDynamic)
        shape[d] += low[d] + high[d];
      lo.push_back(rewriter.getIndexAttr(low[d]));
      hi.push_back(rewriter.getIndexAttr(high[d]));
    }
    Value out = tensor::PadOp::create(rewriter, loc, RankedTensorType::get(shape, elem), self, lo,
                                      hi, padValue);
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

enum class PadMode { Reflect, Replicate, Circular };

template <typename OpT, PadMode mode>
struct GatherPadLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf();
    auto ty = cast<RankedTensorType>(self.getType());
    int64_t rank = ty.getRank();
    ArrayRef<int64_t> padding = op.getPadding();
    SmallVector<int64_t> low(rank, 0), high(rank, 0);
    for (size_t i = 0; i < padding.size() / 2; ++i) {
      low[rank - 1 - i] = padding[2 * i];
      high[rank - 1 - i] = padding[2 * i + 1];
    }
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, self);
    SmallVector<OpFoldResult> padded;
    for (int64_t d = 0; d < rank; ++d)
      if (low[d] != 0 || high[d] != 0)
        padded.push_back(sizes[d]);
    AffineExpr s0 = rewriter.getAffineSymbolExpr(0);
    for (int64_t d = 0; d < rank; ++d)
      sizes[d] = affine::makeComposedFoldedAffineMax(
          rewriter, loc,
          AffineMap::get(0, 1, {s0 + low[d] + high[d], rewriter.getAffineConstantExpr(0)},
                         rewriter.getContext()),
          {sizes[d]});
    // A padded dim that is empty at run time has nothing to repeat.
    Value out = ifNonEmpty(rewriter, loc, padded, op.getType(), [&](OpBuilder &rewriter, Location loc) {
    return remap(
        rewriter, loc, self, sizes,
        [&](OpBuilder &b, Location l, int64_t d, Value i, Value n) -> Value {
          if (low[d] == 0 && high[d] == 0)
            return i;
          Value j = arith::SubIOp::create(b, l, i, cIdx(b, l, low[d]));
          Value zero = cIdx(b, l, 0), one = cIdx(b, l, 1);
          Value last = arith::SubIOp::create(b, l, n, one);
          if (mode == PadMode::Replicate)
            return arith::MinSIOp::create(b, l, arith::MaxSIOp::create(b, l, j, zero), last);
          if (mode == PadMode::Circular) {
            Value r = arith::RemSIOp::create(b, l, j, n);
            return arith::RemSIOp::create(b, l, arith::AddIOp::create(b, l, r, n), n);
          }
          // Reflect: |j| on the left, 2 (n - 1) - j on the right.
          Value neg = arith::SubIOp::create(b, l, zero, j);
          j = arith::MaxSIOp::create(b, l, j, neg);
          Value mirrored = arith::SubIOp::create(
              b, l, arith::MulIOp::create(b, l, last, cIdx(b, l, 2)), j);
          j = arith::MinSIOp::create(b, l, j, mirrored);
          // Inputs are verified to be larger than the pads; clamp anyway.
          return arith::MinSIOp::create(b, l, arith::MaxSIOp::create(b, l, j, zero), last);
        });
    }, [&](OpBuilder &b, Location l) -> Value {
      return tensor::EmptyOp::create(b, l, sizes, ty.getElementType());
    });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};
} // namespace

void kiln::populateIndexingPatterns(RewritePatternSet &patterns) {
  patterns.add<IndexSelectLowering, GatherLowering, IndexTensorLowering, ScatterLowering,
               IndexPutLowering, NonzeroLowering, FlipLowering, RollLowering, RepeatLowering,
               TriangleLowering<TrilOp, true>, TriangleLowering<TriuOp, false>,
               ConstantPadLowering, GatherPadLowering<ReflectionPadOp, PadMode::Reflect>,
               GatherPadLowering<ReplicationPadOp, PadMode::Replicate>,
               GatherPadLowering<CircularPadOp, PadMode::Circular>>(patterns.getContext());
}

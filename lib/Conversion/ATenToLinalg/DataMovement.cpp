//===- DataMovement.cpp - views and layout ops to tensor/linalg -----------===//
//
// Views are value ops here: reshapes become collapse/expand_shape (or
// tensor.reshape), slices extract_slice, expand a broadcasting generic,
// permute linalg.transpose; their scatter inverses insert_slice; cat is a chain
// of insert_slice into one buffer. Indices computed at run time (select,
// slice bounds) are normalised and clamped as ATen does, so nothing reads out
// of bounds.
//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
struct PermuteLowering : OpConversionPattern<PermuteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PermuteOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    int64_t rank = op.getDims().size();
    SmallVector<int64_t> perm;
    for (int64_t d : op.getDims())
      perm.push_back(d < 0 ? d + rank : d);
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input), outSizes;
    for (int64_t p : perm)
      outSizes.push_back(inSizes[p]);
    Value init = emptyTensor(rewriter, loc, outSizes, op.getType().getElementType());
    Value out = linalg::TransposeOp::create(rewriter, loc, input, init, perm).getResult()[0];
    out = castTo(rewriter, loc, out, op.getType());
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// Reshapes `input` to `sizes` with a collapse or expand when the shapes are
/// related by a reassociation, else with tensor.reshape.
Value reshapeTo(OpBuilder &b, Location loc, Value input, RankedTensorType resultType,
                ArrayRef<OpFoldResult> sizes) {
  auto inTy = cast<RankedTensorType>(input.getType());
  if (inTy.getRank() > resultType.getRank()) {
    if (auto reassoc = getReassociationIndicesForReshape(inTy, resultType))
      return tensor::CollapseShapeOp::create(b, loc, resultType, input, *reassoc);
  } else if (inTy.getRank() < resultType.getRank()) {
    // An expand that splits one dim into several symbolic ones ([B*S, 32] ->
    // [B, S, 32]) has strides that upstream's expand-strided-metadata cannot
    // derive: those go through tensor.reshape.
    auto reassoc = getReassociationIndicesForReshape(resultType, inTy);
    bool oneDynamicPerGroup =
        reassoc && llvm::all_of(*reassoc, [&](const ReassociationIndices &group) {
          return llvm::count_if(group, [&](int64_t d) { return resultType.isDynamicDim(d); }) <= 1;
        });
    if (oneDynamicPerGroup)
      return tensor::ExpandShapeOp::create(b, loc, resultType, input, *reassoc, sizes);
  }
  SmallVector<Value> dims;
  for (OpFoldResult s : sizes)
    dims.push_back(getValueOrCreateConstantIndexOp(b, loc, s));
  Value shape = tensor::FromElementsOp::create(b, loc, dims);
  return tensor::ReshapeOp::create(b, loc, resultType, input, shape);
}

struct ViewLowering : OpConversionPattern<ViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ViewOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    SmallVector<OpFoldResult> sizes;
    auto dynSizes = adaptor.getSizes();
    unsigned nextDyn = 0;
    int64_t inferAt = -1;
    for (auto [i, s] : llvm::enumerate(op.getStaticSizes())) {
      if (s == ShapedType::kDynamic) {
        sizes.push_back(dynSizes[nextDyn++]);
      } else if (s == -1) {
        inferAt = i;
        sizes.push_back(OpFoldResult());
      } else {
        sizes.push_back(rewriter.getIndexAttr(s));
      }
    }
    if (inferAt >= 0) {
      // The inferred size is numel(input) / prod(other sizes); folds when static.
      auto product = [&](ArrayRef<OpFoldResult> dims, int64_t skip) {
        Value p = arith::ConstantIndexOp::create(rewriter, loc, 1);
        for (auto [i, d] : llvm::enumerate(dims))
          if ((int64_t)i != skip)
            p = rewriter.createOrFold<arith::MulIOp>(
                loc, p, getValueOrCreateConstantIndexOp(rewriter, loc, d));
        return p;
      };
      Value numel = product(getSizes(rewriter, loc, input), -1);
      Value known = product(sizes, inferAt);
      sizes[inferAt] =
          getAsOpFoldResult(rewriter.createOrFold<arith::DivUIOp>(loc, numel, known));
    }
    // A size the result type knows statically is that constant, even when it
    // was computed (a -1 inferred from symbolic dims, a SymInt expression):
    // reshapes take their output sizes as constants wherever the type is static.
    for (auto [i, r] : llvm::enumerate(op.getType().getShape()))
      if (r != ShapedType::kDynamic)
        sizes[i] = rewriter.getIndexAttr(r);
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, input, op.getType(), sizes));
    return success();
  }
};

struct FlattenLowering : OpConversionPattern<FlattenUsingIntsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FlattenUsingIntsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getSelf();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    if (rank == 0) {
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
          op, op.getType(), input, SmallVector<ReassociationIndices>{},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
      return success();
    }
    int64_t s = op.getStartDim() < 0 ? op.getStartDim() + rank : op.getStartDim();
    int64_t e = op.getEndDim() < 0 ? op.getEndDim() + rank : op.getEndDim();
    if (s == e) {
      rewriter.replaceOp(op, input);
      return success();
    }
    SmallVector<ReassociationIndices> reassoc;
    for (int64_t i = 0; i < s; ++i)
      reassoc.push_back({i});
    ReassociationIndices merged;
    for (int64_t i = s; i <= e; ++i)
      merged.push_back(i);
    reassoc.push_back(merged);
    for (int64_t i = e + 1; i < rank; ++i)
      reassoc.push_back({i});
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(op, op.getType(), input, reassoc);
    return success();
  }
};

struct SymSizeLowering : OpConversionPattern<SymSizeIntOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SymSizeIntOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    int64_t rank = cast<RankedTensorType>(adaptor.getSelf().getType()).getRank();
    int64_t d = op.getDim() < 0 ? op.getDim() + rank : op.getDim();
    rewriter.replaceOpWithNewOp<tensor::DimOp>(op, adaptor.getSelf(), d);
    return success();
  }
};

/// Converts a scalar to `to` as ATen's casts do (bool and unsigned values convert as unsigned;
/// to bool is `!= 0`).
Value convertElement(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (to.isInteger(1)) {
    Value zero = isa<FloatType>(from) ? scalarConstant(b, loc, from, 0.0)
                                      : arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0))
                                            .getResult();
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  bool fromUnsigned = from.isInteger(1) || from.isUnsignedInteger();
  if (fromF && toF)
    return fromF.getWidth() < toF.getWidth() ? arith::ExtFOp::create(b, loc, to, v).getResult()
                                             : arith::TruncFOp::create(b, loc, to, v).getResult();
  if (!fromF && toF)
    return fromUnsigned ? arith::UIToFPOp::create(b, loc, to, v).getResult()
                        : arith::SIToFPOp::create(b, loc, to, v).getResult();
  if (fromF && !toF)
    return to.isUnsignedInteger() ? arith::FPToUIOp::create(b, loc, to, v).getResult()
                                  : arith::FPToSIOp::create(b, loc, to, v).getResult();
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return fromUnsigned ? arith::ExtUIOp::create(b, loc, to, v).getResult()
                        : arith::ExtSIOp::create(b, loc, to, v).getResult();
  if (fw > tw)
    return arith::TruncIOp::create(b, loc, to, v);
  return arith::BitcastOp::create(b, loc, to, v); // same width, other signedness
}

/// An index value for `ofr`.
Value indexValue(OpBuilder &b, Location loc, OpFoldResult ofr) {
  return getValueOrCreateConstantIndexOp(b, loc, ofr);
}

/// Mixed static/dynamic list -> OpFoldResults.
SmallVector<OpFoldResult> mixedList(OpBuilder &b, ArrayRef<int64_t> statics, ValueRange dynamic) {
  SmallVector<OpFoldResult> out;
  unsigned next = 0;
  for (int64_t s : statics)
    out.push_back(s == ShapedType::kDynamic ? OpFoldResult(dynamic[next++])
                                            : OpFoldResult(b.getIndexAttr(s)));
  return out;
}

/// ATen's slice bounds on a dim of size `n`: [start, len] after wrapping
/// negative bounds, clamping to [0, n] and rounding the length up by `step`.
std::pair<OpFoldResult, OpFoldResult> sliceStartLength(OpBuilder &b, Location loc,
                                                       OpFoldResult n, OpFoldResult start,
                                                       OpFoldResult end, int64_t step) {
  auto cn = getConstantIntValue(n), cs = getConstantIntValue(start), ce = getConstantIntValue(end);
  if (cn && cs && ce) {
    auto clampBound = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + *cn : v, 0, *cn); };
    int64_t s = clampBound(*cs), e = clampBound(*ce);
    int64_t len = e <= s ? 0 : (e - s + step - 1) / step;
    // An empty slice starts at 0 (static offsets must lie inside the dim).
    return {b.getIndexAttr(len == 0 ? 0 : s), b.getIndexAttr(len)};
  }
  Value nv = indexValue(b, loc, n);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto normalize = [&](OpFoldResult ofr) -> Value {
    if (auto c = getConstantIntValue(ofr)) {
      // A literal bound beyond any size clamps to the size.
      if (*c >= 0 && *c > (int64_t(1) << 62))
        return nv;
      if (*c >= 0) {
        Value v = arith::ConstantIndexOp::create(b, loc, *c);
        return arith::MinSIOp::create(b, loc, v, nv);
      }
    }
    Value v = indexValue(b, loc, ofr);
    Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, zero);
    Value wrapped = arith::AddIOp::create(b, loc, v, nv);
    v = arith::SelectOp::create(b, loc, neg, wrapped, v);
    v = arith::MaxSIOp::create(b, loc, v, zero);
    return arith::MinSIOp::create(b, loc, v, nv);
  };
  Value s = normalize(start), e = normalize(end);
  Value len = arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, e, s), zero);
  if (step != 1)
    len = arith::CeilDivSIOp::create(b, loc, len, arith::ConstantIndexOp::create(b, loc, step));
  return {getAsOpFoldResult(s), getAsOpFoldResult(len)};
}

/// The window aten.slice.Tensor (and slice_scatter) selects along dim `d` of
/// a tensor of `sizes`: the offsets, sizes and strides of its extract_slice /
/// insert_slice, the bounds wrapped and clamped as ATen does.
struct SliceWindow {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};
template <typename OpT>
SliceWindow sliceWindow(OpBuilder &b, Location loc, OpT op, ValueRange dynamicBounds,
                        SmallVector<OpFoldResult> sizes, int64_t d) {
  int64_t rank = sizes.size();
  SmallVector<OpFoldResult> bounds = mixedList(b, op.getStaticBounds(), dynamicBounds);
  auto [start, len] = sliceStartLength(b, loc, sizes[d], bounds[0], bounds[1], op.getStep());
  SliceWindow w{SmallVector<OpFoldResult>(rank, b.getIndexAttr(0)), std::move(sizes),
                SmallVector<OpFoldResult>(rank, b.getIndexAttr(1))};
  w.offsets[d] = start;
  w.sizes[d] = len;
  w.strides[d] = b.getIndexAttr(op.getStep());
  return w;
}

/// A select index on a dim of size `n`, wrapped if negative and clamped to [0, n-1].
OpFoldResult selectIndex(OpBuilder &b, Location loc, OpFoldResult n, OpFoldResult index) {
  auto cn = getConstantIntValue(n), ci = getConstantIntValue(index);
  if (cn && ci)
    return b.getIndexAttr(std::clamp<int64_t>(*ci < 0 ? *ci + *cn : *ci, 0, std::max<int64_t>(*cn - 1, 0)));
  Value nv = indexValue(b, loc, n), v = indexValue(b, loc, index);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value neg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, v, zero);
  v = arith::SelectOp::create(b, loc, neg, arith::AddIOp::create(b, loc, v, nv), v);
  v = arith::MaxSIOp::create(b, loc, v, zero);
  Value last = arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, nv, one), zero);
  return getAsOpFoldResult(arith::MinSIOp::create(b, loc, v, last).getResult());
}

/// The type of a tensor of `sizes` (static where they are constants).
RankedTensorType typeOfSizes(ArrayRef<OpFoldResult> sizes, Type elem) {
  SmallVector<int64_t> shape;
  for (OpFoldResult s : sizes)
    shape.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
  return RankedTensorType::get(shape, elem);
}

struct UnsqueezeLowering : OpConversionPattern<UnsqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(UnsqueezeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t d = normDim(op.getDim(), rank + 1);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    sizes.insert(sizes.begin() + d, rewriter.getIndexAttr(1));
    SmallVector<ReassociationIndices> reassoc;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t out = i < d ? i : i + 1;
      if (i == d)
        reassoc.push_back({d, d + 1});
      else if (i == rank - 1 && d == rank)
        reassoc.push_back({out, out + 1});
      else
        reassoc.push_back({out});
    }
    auto resultTy = typeOfSizes(sizes, op.getType().getElementType());
    Value out = tensor::ExpandShapeOp::create(rewriter, loc, resultTy, input, reassoc, sizes);
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct SqueezeDimsLowering : OpConversionPattern<SqueezeDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SqueezeDimsOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getSelf();
    auto inTy = cast<RankedTensorType>(input.getType());
    int64_t rank = inTy.getRank();
    if (rank == 0 || op.getDims().empty()) {
      rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), input, op.getType()));
      return success();
    }
    SmallVector<bool> drop(rank, false);
    for (int64_t d : op.getDims())
      drop[normDim(d, rank)] = true;
    SmallVector<ReassociationIndices> reassoc;
    ReassociationIndices pending;
    SmallVector<int64_t> shape;
    for (int64_t i = 0; i < rank; ++i) {
      pending.push_back(i);
      if (!drop[i]) {
        reassoc.push_back(pending);
        pending.clear();
        shape.push_back(inTy.getDimSize(i));
      }
    }
    if (!pending.empty() && !reassoc.empty())
      llvm::append_range(reassoc.back(), pending);
    auto resultTy = RankedTensorType::get(shape, inTy.getElementType());
    Value out = tensor::CollapseShapeOp::create(rewriter, op.getLoc(), resultTy, input, reassoc);
    rewriter.replaceOp(op, castTo(rewriter, op.getLoc(), out, op.getType()));
    return success();
  }
};

struct ExpandLowering : OpConversionPattern<ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ExpandOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> sizes = mixedList(rewriter, op.getStaticSizes(), adaptor.getSizes());
    int64_t lead = sizes.size() - inSizes.size();
    for (auto [i, s] : llvm::enumerate(sizes))
      if (getConstantIntValue(s) == std::optional<int64_t>(-1))
        s = inSizes[i - lead];
    Value out = broadcastTo(rewriter, loc, input, sizes);
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceTensorOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SliceTensorOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
    int64_t d = normDim(op.getDim(), rank);
    SliceWindow w = sliceWindow(rewriter, loc, op, adaptor.getBounds(), getSizes(rewriter, loc, input), d);
    Value out = extractSliceOrEmpty(rewriter, loc, input, w.offsets, w.sizes, w.strides);
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct SelectLowering : OpConversionPattern<SelectIntOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SelectIntOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    auto inTy = cast<RankedTensorType>(input.getType());
    int64_t rank = inTy.getRank();
    int64_t d = normDim(op.getDim(), rank);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    OpFoldResult index =
        mixedList(rewriter, op.getStaticIndex(), adaptor.getIndex())[0];
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)), strides(rank, rewriter.getIndexAttr(1));
    OpFoldResult dimSize = sizes[d];
    offsets[d] = selectIndex(rewriter, loc, dimSize, index);
    sizes[d] = rewriter.getIndexAttr(1);
    SmallVector<OpFoldResult> outSizes(sizes);
    outSizes.erase(outSizes.begin() + d);
    auto resultTy = typeOfSizes(outSizes, inTy.getElementType());
    // Nothing to read when the result or the selected dim is empty.
    auto empty = [&](OpBuilder &b, Location l) -> Value {
      return tensor::EmptyOp::create(b, l, outSizes, inTy.getElementType());
    };
    Value out =
        llvm::any_of(outSizes, [](OpFoldResult s) { return isZeroInteger(s); })
            ? empty(rewriter, loc)
            : ifNonEmpty(rewriter, loc, {dimSize}, resultTy,
                         [&](OpBuilder &b, Location l) -> Value {
                           return tensor::ExtractSliceOp::create(b, l, resultTy, input, offsets,
                                                                 sizes, strides);
                         },
                         empty);
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

/// A tensor of `outSizes` whose element at i is input[inExprs(i)]: a copy
/// through an affine index map (diagonals, sliding windows, as_strided).
Value copyThroughMap(OpBuilder &b, Location loc, Value input, ArrayRef<AffineExpr> inExprs,
                     ArrayRef<OpFoldResult> outSizes) {
  int64_t outRank = outSizes.size();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps{AffineMap::get(outRank, 0, inExprs, ctx),
                              AffineMap::getMultiDimIdentityMap(outRank, ctx)};
  Value init = emptyTensor(b, loc, outSizes, cast<RankedTensorType>(input.getType()).getElementType());
  SmallVector<utils::IteratorType> iters(outRank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(b, loc, init.getType(), ValueRange{input}, ValueRange{init}, maps, iters,
                                   [](OpBuilder &nb, Location l, ValueRange args) {
                                     linalg::YieldOp::create(nb, l, args[0]);
                                   })
      .getResult(0);
}

/// Diagonal length of dims of sizes n1, n2 at `offset`.
OpFoldResult diagonalLength(OpBuilder &b, Location loc, OpFoldResult n1, OpFoldResult n2,
                            int64_t offset) {
  AffineExpr s0 = b.getAffineSymbolExpr(0), s1 = b.getAffineSymbolExpr(1);
  AffineMap m = offset >= 0 ? AffineMap::get(0, 2, {s0, s1 - offset, b.getAffineConstantExpr(0)}, b.getContext())
                            : AffineMap::get(0, 2, {s0 + offset, s1, b.getAffineConstantExpr(0)}, b.getContext());
  // max(0, min(a, b))
  AffineMap first2 = m.getSubMap({0, 1});
  OpFoldResult mn = affine::makeComposedFoldedAffineMin(b, loc, first2, {n1, n2});
  return affine::makeComposedFoldedAffineMax(
      b, loc, AffineMap::get(0, 1, {s0, b.getAffineConstantExpr(0)}, b.getContext()), {mn});
}

struct DiagonalLowering : OpConversionPattern<DiagonalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DiagonalOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    auto inTy = cast<RankedTensorType>(input.getType());
    int64_t rank = inTy.getRank(), off = op.getOffset();
    int64_t d1 = normDim(op.getDim1(), rank), d2 = normDim(op.getDim2(), rank);
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input), outSizes;
    SmallVector<AffineExpr> inExprs(rank);
    int64_t loop = 0;
    for (int64_t i = 0; i < rank; ++i)
      if (i != d1 && i != d2) {
        inExprs[i] = rewriter.getAffineDimExpr(loop++);
        outSizes.push_back(inSizes[i]);
      }
    AffineExpr k = rewriter.getAffineDimExpr(loop);
    inExprs[d1] = k;
    inExprs[d2] = k;
    // Cut the square block the diagonal runs through, so both dims have the
    // loop's extent (linalg infers loop bounds from the operands' shapes).
    OpFoldResult len = diagonalLength(rewriter, loc, inSizes[d1], inSizes[d2], off);
    outSizes.push_back(len);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)), strides(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> blockSizes(inSizes);
    offsets[d1] = rewriter.getIndexAttr(std::max<int64_t>(0, -off));
    offsets[d2] = rewriter.getIndexAttr(std::max<int64_t>(0, off));
    blockSizes[d1] = blockSizes[d2] = len;
    input = extractSliceOrEmpty(rewriter, loc, input, offsets, blockSizes, strides);
    Value out = copyThroughMap(rewriter, loc, input, inExprs, outSizes);
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct UnfoldLowering : OpConversionPattern<UnfoldOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(UnfoldOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    auto inTy = cast<RankedTensorType>(input.getType());
    int64_t rank = inTy.getRank(), size = op.getSize(), step = op.getStep();
    SmallVector<OpFoldResult> outSizes = getSizes(rewriter, loc, input);
    SmallVector<AffineExpr> inExprs;
    AffineExpr last = rewriter.getAffineDimExpr(rank);
    if (rank > 0) {
      int64_t d = normDim(op.getDimension(), rank);
      AffineExpr s0 = rewriter.getAffineSymbolExpr(0);
      // A window larger than the dim (a program PyTorch rejects) gives none.
      outSizes[d] = affine::makeComposedFoldedAffineMax(
          rewriter, loc,
          AffineMap::get(0, 1, {(s0 - size).floorDiv(step) + 1, rewriter.getAffineConstantExpr(0)},
                         rewriter.getContext()),
          {outSizes[d]});
      for (int64_t i = 0; i < rank; ++i)
        inExprs.push_back(i == d ? rewriter.getAffineDimExpr(i) * step + last
                                 : rewriter.getAffineDimExpr(i));
    }
    outSizes.push_back(rewriter.getIndexAttr(size));
    Value out = copyThroughMap(rewriter, loc, input, inExprs, outSizes);
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct AsStridedLowering : OpConversionPattern<AsStridedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AsStridedOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    auto inTy = cast<RankedTensorType>(input.getType());
    // Row-major elements of the input as one dim.
    SmallVector<ReassociationIndices> reassoc;
    if (inTy.getRank() > 0) {
      reassoc.emplace_back();
      for (int64_t i = 0; i < inTy.getRank(); ++i)
        reassoc.back().push_back(i);
    }
    Value flat = inTy.getRank() == 1 ? input
                 : inTy.getRank() == 0
                     ? tensor::ExpandShapeOp::create(
                           rewriter, loc, RankedTensorType::get({1}, inTy.getElementType()), input,
                           SmallVector<ReassociationIndices>{}, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)})
                           .getResult()
                     : tensor::CollapseShapeOp::create(rewriter, loc, input, reassoc).getResult();
    AffineExpr e = rewriter.getAffineConstantExpr(op.getStorageOffset());
    for (auto [i, s] : llvm::enumerate(op.getStride()))
      e = e + rewriter.getAffineDimExpr(i) * s;
    SmallVector<OpFoldResult> outSizes;
    for (int64_t s : op.getSize())
      outSizes.push_back(rewriter.getIndexAttr(s));
    Value out = copyThroughMap(rewriter, loc, flat, {e}, outSizes);
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

/// `src` broadcast (numpy rules) to `sizes` and converted to `elem`.
Value broadcastConvert(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> sizes,
                       Type elem) {
  return broadcastGeneric(b, loc, src, sizes, elem, [&](OpBuilder &nb, Location nl, Value v) {
    return convertElement(nb, nl, v, elem);
  });
}

struct CopyLowering : OpConversionPattern<CopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CopyOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getSrc();
    Type elem = op.getType().getElementType();
    if (src.getType() == op.getType()) {
      rewriter.replaceOp(op, src);
      return success();
    }
    Value out = broadcastConvert(rewriter, loc, src, getSizes(rewriter, loc, adaptor.getSelf()), elem);
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct CatLowering : OpConversionPattern<CatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(CatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto outTy = op.getType();
    int64_t rank = outTy.getRank(), d = normDim(op.getDim(), rank);
    Type elem = outTy.getElementType();
    SmallVector<Value> parts;
    for (Value t : adaptor.getTensors()) {
      auto ty = cast<RankedTensorType>(t.getType());
      if (ty.getRank() == 1 && ty.getDimSize(0) == 0 && rank != 1)
        continue;
      if (ty.getElementType() != elem)
        t = broadcastConvert(rewriter, loc, t, getSizes(rewriter, loc, t), elem);
      parts.push_back(t);
    }
    if (parts.empty()) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, {rewriter.getIndexAttr(0)}, elem));
      return success();
    }
    SmallVector<OpFoldResult> outSizes = getSizes(rewriter, loc, parts[0]);
    AffineExpr s0 = rewriter.getAffineSymbolExpr(0), s1 = rewriter.getAffineSymbolExpr(1);
    for (Value p : ArrayRef<Value>(parts).drop_front())
      outSizes[d] = affine::makeComposedFoldedAffineApply(
          rewriter, loc, s0 + s1, {outSizes[d], getSizes(rewriter, loc, p)[d]});
    for (int64_t i = 0; i < rank; ++i)
      if (!outTy.isDynamicDim(i))
        outSizes[i] = rewriter.getIndexAttr(outTy.getDimSize(i));
    Value result = emptyTensor(rewriter, loc, outSizes, elem);
    OpFoldResult offset = rewriter.getIndexAttr(0);
    for (Value p : parts) {
      SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, p);
      if (llvm::any_of(sizes, [](OpFoldResult s) { return isZeroInteger(s); }))
        continue;
      SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)), strides(rank, rewriter.getIndexAttr(1));
      offsets[d] = offset;
      result = insertSliceOrDest(rewriter, loc, p, result, offsets, sizes, strides);
      offset = affine::makeComposedFoldedAffineApply(rewriter, loc, s0 + s1, {offset, sizes[d]});
    }
    rewriter.replaceOp(op, castTo(rewriter, loc, result, outTy));
    return success();
  }
};

struct SliceScatterLowering : OpConversionPattern<SliceScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SliceScatterOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf(), src = adaptor.getSrc();
    auto selfTy = cast<RankedTensorType>(self.getType());
    int64_t rank = selfTy.getRank(), d = normDim(op.getDim(), rank);
    SliceWindow w = sliceWindow(rewriter, loc, op, adaptor.getBounds(), getSizes(rewriter, loc, self), d);
    src = castTo(rewriter, loc, src, typeOfSizes(w.sizes, selfTy.getElementType()));
    Value out = insertSliceOrDest(rewriter, loc, src, self, w.offsets, w.sizes, w.strides);
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct SelectScatterLowering : OpConversionPattern<SelectScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SelectScatterOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf(), src = adaptor.getSrc();
    auto selfTy = cast<RankedTensorType>(self.getType());
    int64_t rank = selfTy.getRank(), d = normDim(op.getDim(), rank);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, self);
    OpFoldResult index = mixedList(rewriter, op.getStaticIndex(), adaptor.getIndex())[0];
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)), strides(rank, rewriter.getIndexAttr(1));
    offsets[d] = selectIndex(rewriter, loc, sizes[d], index);
    sizes[d] = rewriter.getIndexAttr(1);
    SmallVector<OpFoldResult> srcSizes(sizes);
    srcSizes.erase(srcSizes.begin() + d);
    src = castTo(rewriter, loc, src, typeOfSizes(srcSizes, selfTy.getElementType()));
    // An empty selected dim has no slice to write.
    Value out = ifNonEmpty(
        rewriter, loc, {getSizes(rewriter, loc, self)[d]}, self.getType(),
        [&](OpBuilder &b, Location l) {
          return insertSliceOrDest(b, l, src, self, offsets, sizes, strides);
        },
        [&](OpBuilder &, Location) { return self; });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};

struct DiagonalScatterLowering : OpConversionPattern<DiagonalScatterOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(DiagonalScatterOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf(), src = adaptor.getSrc();
    auto selfTy = cast<RankedTensorType>(self.getType());
    int64_t rank = selfTy.getRank(), off = op.getOffset();
    int64_t d1 = normDim(op.getDim1(), rank), d2 = normDim(op.getDim2(), rank);
    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, self);
    OpFoldResult len = diagonalLength(rewriter, loc, sizes[d1], sizes[d2], off);
    Value lastK = arith::MaxSIOp::create(
        rewriter, loc,
        arith::SubIOp::create(rewriter, loc, indexValue(rewriter, loc, len),
                              arith::ConstantIndexOp::create(rewriter, loc, 1)),
        arith::ConstantIndexOp::create(rewriter, loc, 0));
    // out[i] = (i[d2] - i[d1] == offset) ? src[others..., i[d1] - max(0, -offset)] : self[i]
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps(2, AffineMap::getMultiDimIdentityMap(rank, ctx));
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    // An empty diagonal leaves self as it is (and src has nothing to read).
    auto scatter = [&](OpBuilder &rewriter, Location loc) -> Value {
    Value init = emptyTensor(rewriter, loc, sizes, selfTy.getElementType());
    return
        linalg::GenericOp::create(
            rewriter, loc, init.getType(), ValueRange{self}, ValueRange{init}, maps, iters,
            [&](OpBuilder &b, Location l, ValueRange args) {
              SmallVector<Value> idx;
              for (int64_t i = 0; i < rank; ++i)
                idx.push_back(linalg::IndexOp::create(b, l, i));
              Value diff = arith::SubIOp::create(b, l, idx[d2], idx[d1]);
              Value onDiag = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, diff,
                                                   arith::ConstantIndexOp::create(b, l, off));
              Value k = arith::SubIOp::create(
                  b, l, idx[d1], arith::ConstantIndexOp::create(b, l, std::max<int64_t>(0, -off)));
              k = arith::MinSIOp::create(
                  b, l, arith::MaxSIOp::create(b, l, k, arith::ConstantIndexOp::create(b, l, 0)),
                  lastK);
              SmallVector<Value> srcIdx;
              for (int64_t i = 0; i < rank; ++i)
                if (i != d1 && i != d2)
                  srcIdx.push_back(idx[i]);
              srcIdx.push_back(k);
              Value s = tensor::ExtractOp::create(b, l, src, srcIdx);
              linalg::YieldOp::create(b, l, arith::SelectOp::create(b, l, onDiag, s, args[0]).getResult());
            })
            .getResult(0);
    };
    Value out = ifNonEmpty(rewriter, loc, {len}, self.getType(), scatter,
                           [&](OpBuilder &, Location) { return self; });
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};
} // namespace

void kiln::populateDataMovementPatterns(RewritePatternSet &patterns) {
  patterns.add<PermuteLowering, ViewLowering, FlattenLowering, SymSizeLowering, UnsqueezeLowering,
               SqueezeDimsLowering, ExpandLowering, SliceLowering, SelectLowering,
               DiagonalLowering, UnfoldLowering, AsStridedLowering, CopyLowering, CatLowering,
               SliceScatterLowering, SelectScatterLowering, DiagonalScatterLowering>(
      patterns.getContext());
}

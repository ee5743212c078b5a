//===- Remap.cpp - flip, roll, repeat, tril/triu and pads to linalg --------===//
//
// Ops whose every result element is one source element at coordinates
// computed from the result's own (or zero / a constant outside the source):
// one linalg.generic over the result reading the source with tensor.extract.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
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
struct TriangleLowering : OpLowering<OpT> {
  using OpLowering<OpT>::OpLowering;
  LogicalResult lowerOp(OpT op, typename OpT::Adaptor adaptor, ConversionPatternRewriter &rewriter,
                        Location loc) const override {
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

/// ATen's pad list (last dim first: low, high, then the dim before, ...) as
/// low and high pads per dim of a rank-`rank` tensor.
std::pair<SmallVector<int64_t>, SmallVector<int64_t>> padsPerDim(ArrayRef<int64_t> pad, int64_t rank) {
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    low[rank - 1 - i] = pad[2 * i];
    high[rank - 1 - i] = pad[2 * i + 1];
  }
  return {low, high};
}

struct ConstantPadLowering : OpConversionPattern<ConstantPadNdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConstantPadNdOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value self = adaptor.getSelf();
    auto ty = cast<RankedTensorType>(self.getType());
    int64_t rank = ty.getRank();
    ArrayRef<int64_t> pad = op.getPad();
    SmallVector<int64_t> low, high;
    std::tie(low, high) = padsPerDim(pad, rank);
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
struct GatherPadLowering : OpLowering<OpT> {
  using OpLowering<OpT>::OpLowering;
  LogicalResult lowerOp(OpT op, typename OpT::Adaptor adaptor, ConversionPatternRewriter &rewriter,
                        Location loc) const override {
    Value self = adaptor.getSelf();
    auto ty = cast<RankedTensorType>(self.getType());
    int64_t rank = ty.getRank();
    SmallVector<int64_t> low, high;
    std::tie(low, high) = padsPerDim(op.getPadding(), rank);
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
};} // namespace

void kiln::populateRemapPatterns(RewritePatternSet &patterns) {
  patterns.add<FlipLowering, RollLowering, RepeatLowering, TriangleLowering<TrilOp, true>,
               TriangleLowering<TriuOp, false>, ConstantPadLowering,
               GatherPadLowering<ReflectionPadOp, PadMode::Reflect>,
               GatherPadLowering<ReplicationPadOp, PadMode::Replicate>,
               GatherPadLowering<CircularPadOp, PadMode::Circular>>(patterns.getContext());
}

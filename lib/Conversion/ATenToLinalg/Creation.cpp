//===- Creation.cpp - aten tensor creation ops to linalg ------------------===//
//
// full is a linalg.fill; arange, linspace and eye are linalg.generic ops with
// no inputs whose bodies compute each element from its linalg.index.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {

/// A generic with no inputs producing `resultType` of `sizes`; `body` gets the
/// loop indices (as i64) and returns the element's storage value.
Value indexGeneric(OpBuilder &b, Location loc, RankedTensorType resultType,
                   ArrayRef<OpFoldResult> sizes,
                   function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  Type dtype = resultType.getElementType();
  Value init = emptyTensor(b, loc, sizes, dtype);
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, b.getContext())};
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  Value out = linalg::GenericOp::create(
                  b, loc, init.getType(), ValueRange{}, ValueRange{init}, maps, iters,
                  [&](OpBuilder &nb, Location nl, ValueRange) {
                    SmallVector<Value> idx;
                    for (int64_t d = 0; d < rank; ++d)
                      idx.push_back(arith::IndexCastOp::create(
                          nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, d)));
                    Value v = body(nb, nl, idx);
                    linalg::YieldOp::create(nb, nl, fromStorage(nb, nl, v, dtype));
                  })
                  .getResult(0);
  return castTo(b, loc, out, resultType);
}

/// The type ATen's range kernels accumulate in for `dtype`.
Type accumulationType(OpBuilder &b, Type dtype) {
  if (!isa<FloatType>(dtype))
    return b.getI64Type();
  return dtype.getIntOrFloatBitWidth() == 16 ? b.getF32Type() : b.getF64Type();
}

struct FullLowering : OpConversionPattern<FullOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(FullOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> sizes;
    unsigned next = 0;
    for (int64_t s : op.getStaticSizes())
      sizes.push_back(ShapedType::isDynamic(s) ? OpFoldResult(adaptor.getSizes()[next++])
                                               : OpFoldResult(rewriter.getIndexAttr(s)));
    Value r = filledTensorOf(rewriter, loc, sizes, op.getType().getElementType(),
                             op.getValue());
    rewriter.replaceOp(op, castTo(rewriter, loc, r, op.getType()));
    return success();
  }
};

struct ArangeLowering : OpConversionPattern<ArangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ArangeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultTy = op.getType();
    Type dtype = resultTy.getElementType();
    Type acc = accumulationType(rewriter, dtype);
    // Each bound as a value of the accumulation type, outside the loop.
    Attribute attrs[] = {op.getStartAttr(), op.getEndAttr(), op.getStepAttr()};
    SmallVector<Value> bounds;
    bool allInts = true;
    unsigned next = 0;
    SmallVector<Value> asI64;
    for (Attribute a : attrs) {
      Value v;
      if (!a) {
        v = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                       adaptor.getDynamicBounds()[next++]);
      } else if (auto i = dyn_cast<IntegerAttr>(a)) {
        v = arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(i.getInt()));
      } else {
        allInts = false;
        v = arith::ConstantOp::create(
            rewriter, loc, rewriter.getF64FloatAttr(cast<FloatAttr>(a).getValueAsDouble()));
      }
      asI64.push_back(v);
    }
    // Length: ceil((end - start) / step), from the result type when static.
    SmallVector<OpFoldResult> sizes;
    if (!resultTy.isDynamicDim(0)) {
      sizes.push_back(rewriter.getIndexAttr(resultTy.getDimSize(0)));
    } else if (allInts) {
      Value span = arith::SubIOp::create(rewriter, loc, asI64[1], asI64[0]);
      Value n = arith::CeilDivSIOp::create(rewriter, loc, span, asI64[2]);
      sizes.push_back(
          arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), n).getResult());
    } else {
      SmallVector<Value> f;
      for (auto [a, v] : llvm::zip(attrs, asI64))
        f.push_back(isa<FloatType>(v.getType())
                        ? v
                        : arith::SIToFPOp::create(rewriter, loc, rewriter.getF64Type(), v)
                              .getResult());
      Value q = arith::DivFOp::create(rewriter, loc,
                                      arith::SubFOp::create(rewriter, loc, f[1], f[0]), f[2]);
      Value n = arith::FPToSIOp::create(rewriter, loc, rewriter.getI64Type(),
                                        math::CeilOp::create(rewriter, loc, q));
      sizes.push_back(
          arith::IndexCastOp::create(rewriter, loc, rewriter.getIndexType(), n).getResult());
    }
    Type startTy = asI64[0].getType(), stepTy = asI64[2].getType();
    Value start = convertElement(rewriter, loc, asI64[0], startTy, acc);
    Value step = convertElement(rewriter, loc, asI64[2], stepTy, acc);
    Value r = indexGeneric(rewriter, loc, resultTy, sizes,
                           [&](OpBuilder &b, Location l, ValueRange idx) {
                             Value i = convertElement(b, l, idx[0], b.getI64Type(), acc);
                             Value v = isa<FloatType>(acc)
                                           ? arith::AddFOp::create(
                                                 b, l, start, arith::MulFOp::create(b, l, step, i))
                                                 .getResult()
                                           : arith::AddIOp::create(
                                                 b, l, start, arith::MulIOp::create(b, l, step, i))
                                                 .getResult();
                             return convertElement(b, l, v, acc, dtype);
                           });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct LinspaceLowering : OpConversionPattern<LinspaceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LinspaceOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultTy = op.getType();
    Type dtype = resultTy.getElementType();
    int64_t steps = op.getSteps();
    double start = op.getStart().convertToDouble(), end = op.getEnd().convertToDouble();
    SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(steps)};
    // Integers step in float64 from their truncated ends; floats in their own
    // type (float32 for 16-bit floats) from their rounded ends.
    bool isFloat = isa<FloatType>(dtype);
    Type st = !isFloat ? rewriter.getF64Type()
                       : dtype.getIntOrFloatBitWidth() == 16 ? rewriter.getF32Type() : dtype;
    Value r = indexGeneric(
        rewriter, loc, resultTy, sizes, [&](OpBuilder &b, Location l, ValueRange idx) {
          auto c = [&](double v) { return scalarConstant(b, l, st, v); };
          // The ends as the dtype holds them, then in the step type.
          auto end_ = [&](double v) {
            Value d = arith::ConstantOp::create(b, l, b.getF64FloatAttr(v));
            return convertElement(b, l, convertElement(b, l, d, b.getF64Type(), dtype), dtype,
                                  st);
          };
          Value s = end_(start), e = end_(end);
          if (steps == 1)
            return convertElement(b, l, s, st, dtype);
          Value step = arith::DivFOp::create(b, l, arith::SubFOp::create(b, l, e, s),
                                             c((double)(steps - 1)));
          Value i = convertElement(b, l, idx[0], b.getI64Type(), st);
          Value fromStart = arith::AddFOp::create(b, l, s, arith::MulFOp::create(b, l, step, i));
          Value back = arith::SubFOp::create(b, l, c((double)(steps - 1)), i);
          Value fromEnd = arith::SubFOp::create(b, l, e, arith::MulFOp::create(b, l, step, back));
          Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, idx[0],
                                              scalarConstant(b, l, b.getI64Type(), steps / 2));
          Value v = arith::SelectOp::create(b, l, first, fromStart, fromEnd);
          return convertElement(b, l, v, st, dtype);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct EyeLowering : OpConversionPattern<EyeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(EyeOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    RankedTensorType resultTy = op.getType();
    Type storage = storageType(resultTy.getElementType());
    SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(op.getN()),
                                    rewriter.getIndexAttr(op.getM())};
    Value r = indexGeneric(rewriter, op.getLoc(), resultTy, sizes,
                           [&](OpBuilder &b, Location l, ValueRange idx) {
                             Value diag = arith::CmpIOp::create(
                                 b, l, arith::CmpIPredicate::eq, idx[0], idx[1]);
                             return arith::SelectOp::create(b, l, diag,
                                                            scalarConstant(b, l, storage, 1),
                                                            scalarConstant(b, l, storage, 0));
                           });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void kiln::populateCreationPatterns(RewritePatternSet &patterns) {
  patterns.add<FullLowering, ArangeLowering, LinspaceLowering, EyeLowering>(
      patterns.getContext());
}

//===- Pooling.cpp - aten pooling ops to linalg pooling -------------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
LogicalResult lowerMaxPool(Operation *op, Value input, ArrayRef<int64_t> kernel,
                           ArrayRef<int64_t> stride, ArrayRef<int64_t> pad,
                           ArrayRef<int64_t> dil, bool ceilMode, RankedTensorType resultType,
                           ConversionPatternRewriter &rewriter, Value &result) {
  Location loc = op->getLoc();
  bool unbatched = cast<RankedTensorType>(input.getType()).getRank() == 3;
  if (unbatched)
    input = expandBatch(rewriter, loc, input);
  auto inTy = cast<RankedTensorType>(input.getType());
  Type elem = inTy.getElementType();
  SmallVector<int64_t> padHigh(pad);
  if (ceilMode) {
    // Extra high padding so the partial last window is computed; ATen's output size.
    for (int i = 0; i < 2; ++i) {
      int64_t in = inTy.getDimSize(2 + i);
      if (in == ShapedType::kDynamic)
        return rewriter.notifyMatchFailure(op, "ceil_mode pooling needs static spatial dims");
      int64_t out = slidingWindowOutputSize(in, kernel[i], stride[i], pad[i], dil[i], true);
      int64_t needed = (out - 1) * stride[i] + dil[i] * (kernel[i] - 1) + 1;
      padHigh[i] = std::max<int64_t>(pad[i], needed - in - pad[i]);
    }
  }
  double lowest = isa<FloatType>(elem) ? -std::numeric_limits<double>::infinity()
                                       : (double)std::numeric_limits<int64_t>::min();
  if (!isa<FloatType>(elem))
    return rewriter.notifyMatchFailure(op, "integer max pooling is not lowered yet");
  Value padded = padSpatial(rewriter, loc, input, pad, padHigh, lowest);
  SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
  SmallVector<OpFoldResult> outSizes{inSizes[0], inSizes[1]};
  for (int i = 0; i < 2; ++i)
    outSizes.push_back(windowOutputSize(rewriter, loc, inSizes[2 + i], kernel[i], stride[i],
                                        pad[i], padHigh[i], dil[i]));
  Value init = filledTensor(rewriter, loc, outSizes, elem, lowest);
  Value window = tensor::EmptyOp::create(rewriter, loc, kernel, elem);
  Value out = linalg::PoolingNchwMaxOp::create(rewriter, loc, init.getType(),
                                               ValueRange{padded, window}, ValueRange{init},
                                               i64Elements(rewriter, stride),
                                               i64Elements(rewriter, dil))
                  .getResult(0);
  result = finishSpatial(rewriter, loc, out, resultType, unbatched);
  return success();
}

struct MaxPool2dLowering : OpConversionPattern<MaxPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MaxPool2dOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value result;
    if (failed(lowerMaxPool(op, adaptor.getSelf(), op.getKernelSize(), op.getStride(),
                            op.getPadding(), op.getDilation(), op.getCeilMode(), op.getType(),
                            rewriter, result)))
      return failure();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Max pooling that also returns, per window, the flat offset h * W + w of
/// its maximum in the input plane: the first maximum in window order, a NaN
/// wins (as ATen's CPU kernel); padding is never chosen.
struct MaxPool2dWithIndicesLowering : OpConversionPattern<MaxPool2dWithIndicesOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MaxPool2dWithIndicesOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    bool unbatched = cast<RankedTensorType>(input.getType()).getRank() == 3;
    if (unbatched)
      input = expandBatch(rewriter, loc, input);
    auto inTy = cast<RankedTensorType>(input.getType());
    Type elem = inTy.getElementType();
    if (!isa<FloatType>(elem))
      return rewriter.notifyMatchFailure(op, "integer max pooling is not lowered yet");
    ArrayRef<int64_t> k = op.getKernelSize(), s = op.getStride(), p = op.getPadding(),
                      dl = op.getDilation();
    auto resTy = cast<RankedTensorType>(op.getResult().getType());
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> outSizes{inSizes[0], inSizes[1]};
    for (int i = 0; i < 2; ++i) {
      int64_t o = resTy.getDimSize(resTy.getRank() - 2 + i);
      if (o == ShapedType::kDynamic && op.getCeilMode())
        return rewriter.notifyMatchFailure(op, "ceil_mode pooling needs static spatial dims");
      outSizes.push_back(o != ShapedType::kDynamic
                             ? OpFoldResult(rewriter.getIndexAttr(o))
                             : windowOutputSize(rewriter, loc, inSizes[2 + i], k[i], s[i], p[i],
                                                p[i], dl[i]));
    }
    Value inDims[2] = {getValueOrCreateConstantIndexOp(rewriter, loc, inSizes[2]),
                       getValueOrCreateConstantIndexOp(rewriter, loc, inSizes[3])};
    Value vInit = filledTensor(rewriter, loc, outSizes, elem,
                               -std::numeric_limits<double>::infinity());
    Value iInit = filledTensor(rewriter, loc, outSizes, rewriter.getI64Type(), -1.0);
    Value taps = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{k[0], k[1]}, elem);
    MLIRContext *ctx = rewriter.getContext();
    AffineMap out = AffineMap::getMultiDimMapWithTargets(6, {0, 1, 2, 3}, ctx);
    SmallVector<AffineMap> maps{AffineMap::getMultiDimMapWithTargets(6, {4, 5}, ctx), out, out};
    SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
    iters.append(2, utils::IteratorType::reduction);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{vInit.getType(), iInit.getType()}, ValueRange{taps},
        ValueRange{vInit, iInit}, maps, iters, [&](OpBuilder &b, Location l, ValueRange a) {
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value valid = arith::ConstantIntOp::create(b, l, 1, 1);
          SmallVector<Value> pos;
          for (int i = 0; i < 2; ++i) {
            Value o = linalg::IndexOp::create(b, l, 2 + i), t = linalg::IndexOp::create(b, l, 4 + i);
            Value at = arith::SubIOp::create(
                b, l,
                arith::AddIOp::create(
                    b, l, arith::MulIOp::create(b, l, o, arith::ConstantIndexOp::create(b, l, s[i])),
                    arith::MulIOp::create(b, l, t, arith::ConstantIndexOp::create(b, l, dl[i]))),
                arith::ConstantIndexOp::create(b, l, p[i]));
            Value ok = arith::AndIOp::create(
                b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, at, zero),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, at, inDims[i]));
            valid = arith::AndIOp::create(b, l, valid, ok);
            pos.push_back(arith::SelectOp::create(b, l, ok, at, zero));
          }
          Value v = tensor::ExtractOp::create(
              b, l, input,
              ValueRange{linalg::IndexOp::create(b, l, 0), linalg::IndexOp::create(b, l, 1), pos[0],
                         pos[1]});
          Value flat = arith::IndexCastOp::create(
              b, l, b.getI64Type(),
              arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, pos[0], inDims[1]), pos[1]));
          Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, a[2],
                                              arith::ConstantIntOp::create(b, l, -1, 64));
          Value better = arith::OrIOp::create(
              b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, v, a[1]),
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, v, v));
          Value take = arith::AndIOp::create(b, l, valid, arith::OrIOp::create(b, l, first, better));
          linalg::YieldOp::create(b, l,
                                  ValueRange{arith::SelectOp::create(b, l, take, v, a[1]),
                                             arith::SelectOp::create(b, l, take, flat, a[2])});
        });
    Value vals = finishSpatial(rewriter, loc, generic.getResult(0), op.getResult().getType(), unbatched);
    Value inds = finishSpatial(rewriter, loc, generic.getResult(1), op.getIndices().getType(), unbatched);
    rewriter.replaceOp(op, {vals, inds});
    return success();
  }
};

/// Adaptive average pooling. Window i along a dim of size H with O outputs
/// spans [floor(i*H/O), ceil((i+1)*H/O)), as ATen defines it. When H is a
/// static multiple of O every window has the same size: a sum pool and a
/// division. Otherwise each output element sums its own window.
struct AdaptiveAvgPool2dLowering : OpConversionPattern<AdaptiveAvgPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AdaptiveAvgPool2dOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    bool unbatched = cast<RankedTensorType>(input.getType()).getRank() == 3;
    if (unbatched)
      input = expandBatch(rewriter, loc, input);
    auto inTy = cast<RankedTensorType>(input.getType());
    Type elem = inTy.getElementType();
    ArrayRef<int64_t> outHW = op.getOutputSize();
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> outSizes{inSizes[0], inSizes[1], rewriter.getIndexAttr(outHW[0]),
                                       rewriter.getIndexAttr(outHW[1])};
    bool even = true;
    for (int i = 0; i < 2; ++i)
      even &= !inTy.isDynamicDim(2 + i) && inTy.getDimSize(2 + i) % outHW[i] == 0;
    Value out = even ? evenWindows(rewriter, loc, input, outSizes, outHW, elem)
                     : unevenWindows(rewriter, loc, input, inSizes, outSizes, outHW, elem);
    rewriter.replaceOp(op, finishSpatial(rewriter, loc, out, op.getType(), unbatched));
    return success();
  }

  static Value evenWindows(OpBuilder &b, Location loc, Value input,
                           ArrayRef<OpFoldResult> outSizes, ArrayRef<int64_t> outHW, Type elem) {
    auto inTy = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> kernel{inTy.getDimSize(2) / outHW[0], inTy.getDimSize(3) / outHW[1]};
    Value init = filledTensor(b, loc, outSizes, elem, 0.0);
    Value window = tensor::EmptyOp::create(b, loc, kernel, elem);
    Value sum = linalg::PoolingNchwSumOp::create(b, loc, init.getType(), ValueRange{input, window},
                                                 ValueRange{init}, i64Elements(b, kernel),
                                                 i64Elements(b, {1, 1}))
                    .getResult(0);
    double count = (double)(kernel[0] * kernel[1]);
    return elementwise(b, loc, sum, cast<RankedTensorType>(sum.getType()),
                       [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                         return arith::DivFOp::create(nb, l, args[0],
                                                      scalarConstant(nb, l, elem, count));
                       });
  }

  static Value unevenWindows(OpBuilder &b, Location loc, Value input,
                             ArrayRef<OpFoldResult> inSizes, ArrayRef<OpFoldResult> outSizes,
                             ArrayRef<int64_t> outHW, Type elem) {
    SmallVector<Value> inDims;
    for (int i = 0; i < 2; ++i)
      inDims.push_back(getValueOrCreateConstantIndexOp(b, loc, inSizes[2 + i]));
    Value init = emptyTensor(b, loc, outSizes, elem);
    MLIRContext *ctx = b.getContext();
    SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{}, ValueRange{init},
               SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(4, ctx)}, iters,
               [&](OpBuilder &nb, Location l, ValueRange) {
                 Value n = linalg::IndexOp::create(nb, l, 0), c = linalg::IndexOp::create(nb, l, 1);
                 Value one = arith::ConstantIndexOp::create(nb, l, 1);
                 SmallVector<Value> starts, ends;
                 for (int i = 0; i < 2; ++i) {
                   Value o = linalg::IndexOp::create(nb, l, 2 + i);
                   Value outDim = arith::ConstantIndexOp::create(nb, l, outHW[i]);
                   Value lo = arith::DivUIOp::create(nb, l, arith::MulIOp::create(nb, l, o, inDims[i]),
                                                     outDim);
                   Value hi = arith::CeilDivUIOp::create(
                       nb, l,
                       arith::MulIOp::create(nb, l, arith::AddIOp::create(nb, l, o, one), inDims[i]),
                       outDim);
                   starts.push_back(lo);
                   ends.push_back(hi);
                 }
                 Value zero = scalarConstant(nb, l, elem, 0.0);
                 auto rows = scf::ForOp::create(
                     nb, l, starts[0], ends[0], one, ValueRange{zero},
                     [&](OpBuilder &rb, Location rl, Value h, ValueRange racc) {
                       auto cols = scf::ForOp::create(
                           rb, rl, starts[1], ends[1], one, racc,
                           [&](OpBuilder &cb, Location cl, Value w, ValueRange cacc) {
                             Value v = tensor::ExtractOp::create(cb, cl, input,
                                                                 ValueRange{n, c, h, w});
                             scf::YieldOp::create(
                                 cb, cl, ValueRange{arith::AddFOp::create(cb, cl, cacc[0], v)});
                           });
                       scf::YieldOp::create(rb, rl, cols.getResults());
                     });
                 Value count = arith::MulIOp::create(
                     nb, l, arith::SubIOp::create(nb, l, ends[0], starts[0]),
                     arith::SubIOp::create(nb, l, ends[1], starts[1]));
                 Value countF = arith::UIToFPOp::create(
                     nb, l, elem, arith::IndexCastUIOp::create(nb, l, nb.getI64Type(), count));
                 linalg::YieldOp::create(
                     nb, l, ValueRange{arith::DivFOp::create(nb, l, rows.getResult(0), countF)});
               })
        .getResult(0);
  }
};
} // namespace

void kiln::populatePoolingPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPool2dLowering, MaxPool2dWithIndicesLowering, AdaptiveAvgPool2dLowering>(patterns.getContext());
}

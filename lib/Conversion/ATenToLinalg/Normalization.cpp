//===- Normalization.cpp - inference batch norm to linalg -----------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
/// y = x * scale[c] + shift[c], scale = weight / sqrt(var + eps),
/// shift = bias - mean * scale: per-channel factors first, as ATen's CPU
/// inference kernel does, then one fused multiply-add per element.
struct InferenceBatchNormLowering : OpConversionPattern<NativeBatchNormLegitNoTrainingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NativeBatchNormLegitNoTrainingOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inTy = cast<RankedTensorType>(input.getType());
    Type elem = inTy.getElementType();
    double eps = op.getEps().convertToDouble();
    int64_t rank = inTy.getRank();
    MLIRContext *ctx = rewriter.getContext();

    // Per-channel scale and shift.
    Value mean = adaptor.getRunningMean(), var = adaptor.getRunningVar();
    Value weight = adaptor.getWeight(), bias = adaptor.getBias();
    SmallVector<Value> chanIns{mean, var};
    if (weight)
      chanIns.push_back(weight);
    if (bias)
      chanIns.push_back(bias);
    SmallVector<OpFoldResult> cSize{tensor::getMixedSize(rewriter, loc, input, 1)};
    Value scaleInit = emptyTensor(rewriter, loc, cSize, elem);
    Value shiftInit = emptyTensor(rewriter, loc, cSize, elem);
    auto id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    SmallVector<AffineMap> chanMaps(chanIns.size() + 2, id1);
    auto factors = linalg::GenericOp::create(
        rewriter, loc, TypeRange{scaleInit.getType(), shiftInit.getType()}, chanIns,
        ValueRange{scaleInit, shiftInit}, chanMaps, {utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value m = args[0], v = args[1];
          unsigned next = 2;
          Value w = weight ? args[next++] : Value();
          Value bi = bias ? args[next++] : Value();
          Value inv = math::RsqrtOp::create(
              b, l, arith::AddFOp::create(b, l, v, scalarConstant(b, l, elem, eps)));
          Value scale = w ? arith::MulFOp::create(b, l, w, inv).getResult() : inv;
          Value shift = arith::NegFOp::create(b, l, arith::MulFOp::create(b, l, m, scale));
          if (bi)
            shift = arith::AddFOp::create(b, l, bi, shift);
          linalg::YieldOp::create(b, l, ValueRange{scale, shift});
        });

    SmallVector<OpFoldResult> sizes = getSizes(rewriter, loc, input);
    Value init = emptyTensor(rewriter, loc, sizes, elem);
    auto idN = AffineMap::getMultiDimIdentityMap(rank, ctx);
    auto chan = AffineMap::get(rank, 0, {rewriter.getAffineDimExpr(1)}, ctx);
    SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
    Value out = linalg::GenericOp::create(
                    rewriter, loc, init.getType(),
                    ValueRange{input, factors.getResult(0), factors.getResult(1)},
                    ValueRange{init}, SmallVector<AffineMap>{idN, chan, chan, idN}, iters,
                    [&](OpBuilder &b, Location l, ValueRange args) {
                      Value y = arith::AddFOp::create(
                          b, l, arith::MulFOp::create(b, l, args[0], args[1]), args[2]);
                      linalg::YieldOp::create(b, l, y);
                    })
                    .getResult(0);
    out = castTo(rewriter, loc, out, op.getResult().getType());
    // Inference returns empty saved statistics.
    Value e1 = tensor::EmptyOp::create(rewriter, loc, op.getSaveMean().getType().getShape(), elem);
    Value e2 = tensor::EmptyOp::create(rewriter, loc, op.getSaveInvstd().getType().getShape(), elem);
    rewriter.replaceOp(op, {out, e1, e2});
    return success();
  }
};
} // namespace

void kiln::populateNormalizationPatterns(RewritePatternSet &patterns) {
  patterns.add<InferenceBatchNormLowering>(patterns.getContext());
}

//===- Linear.cpp - aten.linear and aten.addmm to linalg contractions -----===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
/// out[b..., n] = init[b..., n] + alpha * sum_k lhs[b..., k] * rhs(n, k)
/// `rhsTransposed` selects rhs as [n, k] (a weight) or [k, n] (a matrix).
Value contract(OpBuilder &b, Location loc, Value lhs, Value rhs, Value init, bool rhsTransposed,
               double alpha) {
  auto lhsTy = cast<RankedTensorType>(lhs.getType());
  int64_t batch = lhsTy.getRank() - 1, rank = batch + 2;
  MLIRContext *ctx = b.getContext();
  AffineExpr n = b.getAffineDimExpr(batch), k = b.getAffineDimExpr(batch + 1);
  SmallVector<AffineExpr> lhsExprs, outExprs;
  for (int64_t i = 0; i < batch; ++i) {
    lhsExprs.push_back(b.getAffineDimExpr(i));
    outExprs.push_back(b.getAffineDimExpr(i));
  }
  lhsExprs.push_back(k);
  outExprs.push_back(n);
  SmallVector<AffineExpr> rhsExprs =
      rhsTransposed ? SmallVector<AffineExpr>{n, k} : SmallVector<AffineExpr>{k, n};
  SmallVector<AffineMap> maps{AffineMap::get(rank, 0, lhsExprs, ctx),
                              AffineMap::get(rank, 0, rhsExprs, ctx),
                              AffineMap::get(rank, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iters(rank - 1, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  Type elem = lhsTy.getElementType();
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{lhs, rhs}, ValueRange{init}, maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value p = arith::MulFOp::create(nb, nl, args[0], args[1]);
               if (alpha != 1.0)
                 p = arith::MulFOp::create(nb, nl, p, scalarConstant(nb, nl, elem, alpha));
               linalg::YieldOp::create(nb, nl, arith::AddFOp::create(nb, nl, args[2], p).getResult());
             })
      .getResult(0);
}

struct LinearLowering : OpConversionPattern<LinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    auto wTy = cast<RankedTensorType>(weight.getType());
    if (wTy.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "1-d weights are not lowered yet");
    auto inTy = cast<RankedTensorType>(input.getType());
    if (inTy.getRank() < 1)
      return rewriter.notifyMatchFailure(op, "0-d input");
    SmallVector<OpFoldResult> outSizes = getSizes(rewriter, loc, input);
    outSizes.back() = tensor::getMixedSize(rewriter, loc, weight, 0);
    Type elem = op.getType().getElementType();
    Value init = adaptor.getBias() ? broadcastTo(rewriter, loc, adaptor.getBias(), outSizes)
                                   : filledTensor(rewriter, loc, outSizes, elem, 0.0);
    Value out = contract(rewriter, loc, input, weight, init, /*rhsTransposed=*/true, 1.0);
    out = castTo(rewriter, loc, out, op.getType());
    rewriter.replaceOp(op, out);
    return success();
  }
};

struct AddmmLowering : OpConversionPattern<AddmmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AddmmOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<OpFoldResult> outSizes{tensor::getMixedSize(rewriter, loc, adaptor.getMat1(), 0),
                                       tensor::getMixedSize(rewriter, loc, adaptor.getMat2(), 1)};
    Type elem = op.getType().getElementType();
    double beta = op.getBeta().convertToDouble(), alpha = op.getAlpha().convertToDouble();
    // beta = 0 ignores self entirely (NaN and inf in it do not propagate), as ATen does.
    Value init = beta == 0.0 ? filledTensor(rewriter, loc, outSizes, elem, 0.0)
                             : broadcastTo(rewriter, loc, adaptor.getSelf(), outSizes, beta);
    Value out = contract(rewriter, loc, adaptor.getMat1(), adaptor.getMat2(), init,
                         /*rhsTransposed=*/false, alpha);
    out = castTo(rewriter, loc, out, op.getType());
    rewriter.replaceOp(op, out);
    return success();
  }
};
} // namespace

void kiln::populateLinearPatterns(RewritePatternSet &patterns) {
  patterns.add<LinearLowering, AddmmLowering>(patterns.getContext());
}

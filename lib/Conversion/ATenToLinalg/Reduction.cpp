//===- Reduction.cpp - aten reductions to linalg.generic ------------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
struct MeanDimLowering : OpConversionPattern<MeanDimOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MeanDimOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    auto inTy = cast<RankedTensorType>(input.getType());
    Type elem = inTy.getElementType();
    int64_t rank = inTy.getRank();
    SmallVector<int64_t> reduced = op.getReducedDims();
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input), outSizes;
    SmallVector<int64_t> outShape;
    SmallVector<AffineExpr> outExprs;
    SmallVector<utils::IteratorType> iters;
    for (int64_t i = 0; i < rank; ++i) {
      bool r = llvm::is_contained(reduced, i);
      iters.push_back(r ? utils::IteratorType::reduction : utils::IteratorType::parallel);
      if (!r) {
        outSizes.push_back(inSizes[i]);
        outShape.push_back(inTy.getDimSize(i));
        outExprs.push_back(rewriter.getAffineDimExpr(i));
      }
    }
    MLIRContext *ctx = rewriter.getContext();
    Value init = filledTensor(rewriter, loc, outSizes, elem, 0.0);
    SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, ctx),
                                AffineMap::get(rank, 0, outExprs, ctx)};
    Value sum = linalg::GenericOp::create(rewriter, loc, init.getType(), ValueRange{input},
                                          ValueRange{init}, maps, iters,
                                          [&](OpBuilder &b, Location l, ValueRange args) {
                                            linalg::YieldOp::create(
                                                b, l, arith::AddFOp::create(b, l, args[1], args[0]).getResult());
                                          })
                    .getResult(0);
    // Number of reduced elements, as a float (dynamic-safe).
    AffineExpr prod = rewriter.getAffineConstantExpr(1);
    SmallVector<OpFoldResult> countOperands;
    for (auto [j, d] : llvm::enumerate(reduced)) {
      prod = prod * rewriter.getAffineSymbolExpr(j);
      countOperands.push_back(inSizes[d]);
    }
    OpFoldResult countOfr =
        affine::makeComposedFoldedAffineApply(rewriter, loc, prod, countOperands);
    Value count;
    if (auto c = getConstantIntValue(countOfr)) {
      count = scalarConstant(rewriter, loc, elem, (double)*c);
    } else {
      Value idx = cast<Value>(countOfr);
      Value i64 = arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), idx);
      count = arith::SIToFPOp::create(rewriter, loc, elem, i64);
    }
    Value mean = elementwise(rewriter, loc, sum, cast<RankedTensorType>(sum.getType()),
                             [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                               return arith::DivFOp::create(b, l, args[0], count);
                             });
    if (op.getKeepdim()) {
      // Put the reduced dims back as size-1 dims.
      SmallVector<ReassociationIndices> reassoc;
      SmallVector<int64_t> keptShape;
      SmallVector<OpFoldResult> keptSizes;
      // Each kept dim takes the reduced dims before it; the last takes those after too.
      ReassociationIndices group;
      int64_t kept = 0;
      for (int64_t i = 0; i < rank; ++i) {
        group.push_back(i);
        bool r = llvm::is_contained(reduced, i);
        keptShape.push_back(r ? 1 : inTy.getDimSize(i));
        keptSizes.push_back(r ? rewriter.getIndexAttr(1) : inSizes[i]);
        if (!r && ++kept < (int64_t)outShape.size()) {
          reassoc.push_back(group);
          group.clear();
        }
      }
      if (!outShape.empty())
        reassoc.push_back(group); // a rank-0 source takes an empty reassociation
      mean = tensor::ExpandShapeOp::create(rewriter, loc,
                                           RankedTensorType::get(keptShape, elem), mean,
                                           reassoc, keptSizes);
    }
    mean = castTo(rewriter, loc, mean, op.getType());
    rewriter.replaceOp(op, mean);
    return success();
  }
};
} // namespace

void kiln::populateReductionPatterns(RewritePatternSet &patterns) {
  patterns.add<MeanDimLowering>(patterns.getContext());
}

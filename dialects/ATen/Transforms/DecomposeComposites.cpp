//===- DecomposeComposites.cpp - composite ATen ops to Core ATen ----------===//
#include "ATen/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln::aten {
#define GEN_PASS_DEF_ATENDECOMPOSECOMPOSITES
#include "ATen/Transforms/Passes.h.inc"
} // namespace kiln::aten

using namespace mlir;
using namespace kiln::aten;

namespace {
struct Conv2dToConvolution : OpRewritePattern<Conv2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2dOp op, PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<ConvolutionOp>(
        op, op.getType(), op.getInput(), op.getWeight(), op.getBias(), op.getStride(),
        op.getPadding(), op.getDilation(), /*transposed=*/false,
        /*output_padding=*/ArrayRef<int64_t>{0, 0}, op.getGroups());
    return success();
  }
};

struct InferenceBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op, PatternRewriter &rewriter) const override {
    if (op.getTraining())
      return rewriter.notifyMatchFailure(op, "training-mode batch norm keeps its form");
    auto elem = op.getType().getElementType();
    auto empty = RankedTensorType::get({0}, elem);
    auto bn = NativeBatchNormLegitNoTrainingOp::create(
        rewriter, op.getLoc(), TypeRange{op.getType(), empty, empty}, op.getInput(),
        op.getWeight(), op.getBias(), op.getRunningMean(), op.getRunningVar(),
        op.getMomentum(), op.getEps());
    rewriter.replaceOp(op, bn.getResult());
    return success();
  }
};

struct GlobalAveragePool : OpRewritePattern<AdaptiveAvgPool2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AdaptiveAvgPool2dOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getOutputSize() != ArrayRef<int64_t>{1, 1})
      return rewriter.notifyMatchFailure(op, "output size is not 1x1");
    rewriter.replaceOpWithNewOp<MeanDimOp>(op, op.getType(), op.getSelf(),
                                           rewriter.getDenseI64ArrayAttr({-2, -1}),
                                           /*keepdim=*/true);
    return success();
  }
};

struct ATenDecomposeCompositesPass
    : kiln::aten::impl::ATenDecomposeCompositesBase<ATenDecomposeCompositesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<Conv2dToConvolution, InferenceBatchNorm, GlobalAveragePool>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

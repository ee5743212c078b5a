//===- DecomposeComposites.cpp - composite ATen ops to Core ATen ----------===//
#include "ATen/Transforms/Passes.h"
#include "ATen/Transforms/SequenceDecompositions.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln::aten {
#define GEN_PASS_DEF_ATENDECOMPOSECOMPOSITES
#include "ATen/Transforms/Passes.h.inc"
} // namespace kiln::aten

using namespace mlir;
using namespace kiln::aten;

namespace {
/// The inference form of batch-norm op `op` (training = false):
/// _native_batch_norm_legit_no_training on its operands, with result `types`.
template <typename OpT>
NativeBatchNormLegitNoTrainingOp inferenceBatchNorm(PatternRewriter &rewriter, OpT op,
                                                    TypeRange types) {
  return NativeBatchNormLegitNoTrainingOp::create(
      rewriter, op.getLoc(), types, op.getInput(), op.getWeight(), op.getBias(),
      op.getRunningMean(), op.getRunningVar(), op.getMomentum(), op.getEps());
}

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
    auto bn = inferenceBatchNorm(rewriter, op, TypeRange{op.getType(), empty, empty});
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
                                           /*keepdim=*/true, /*dtype=*/TypeAttr());
    return success();
  }
};

/// layer_norm -> native_layer_norm (its first result).
struct LayerNormToNative : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op, PatternRewriter &rewriter) const override {
    auto inTy = op.getInput().getType();
    SmallVector<int64_t> statShape(inTy.getShape());
    int64_t n = op.getNormalizedShape().size();
    for (int64_t i = inTy.getRank() - n; i < inTy.getRank(); ++i)
      statShape[i] = 1;
    auto statTy = RankedTensorType::get(statShape, inTy.getElementType());
    auto ln = NativeLayerNormOp::create(rewriter, op.getLoc(),
                                        TypeRange{op.getType(), statTy, statTy}, op.getInput(),
                                        op.getWeight(), op.getBias(), op.getNormalizedShape(),
                                        op.getEps());
    rewriter.replaceOp(op, ln.getResult());
    return success();
  }
};

/// group_norm -> native_group_norm (its first result).
struct GroupNormToNative : OpRewritePattern<GroupNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GroupNormOp op, PatternRewriter &rewriter) const override {
    auto inTy = op.getInput().getType();
    auto statTy = RankedTensorType::get({inTy.getDimSize(0), op.getNumGroups()},
                                        inTy.getElementType());
    auto gn = NativeGroupNormOp::create(rewriter, op.getLoc(),
                                        TypeRange{op.getType(), statTy, statTy}, op.getInput(),
                                        op.getWeight(), op.getBias(), op.getNumGroups(),
                                        op.getEps());
    rewriter.replaceOp(op, gn.getResult());
    return success();
  }
};

/// softmax.int / log_softmax.int without a dtype change -> _softmax / _log_softmax.
template <typename From, typename To> struct SoftmaxIntToCore : OpRewritePattern<From> {
  using OpRewritePattern<From>::OpRewritePattern;
  LogicalResult matchAndRewrite(From op, PatternRewriter &rewriter) const override {
    if (op.getType().getElementType() != op.getSelf().getType().getElementType())
      return rewriter.notifyMatchFailure(op, "converts the element type");
    rewriter.replaceOpWithNewOp<To>(op, op.getType(), op.getSelf(), op.getDim(), false);
    return success();
  }
};

/// Per-channel statistic type [size] of `input`'s element type.
RankedTensorType statType(Value input, int64_t size) {
  return RankedTensorType::get({size}, cast<RankedTensorType>(input.getType()).getElementType());
}

/// instance_norm with input statistics is group norm with one channel per
/// group; with running statistics it is inference batch norm.
struct InstanceNormDecomposition : OpRewritePattern<InstanceNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(InstanceNormOp op, PatternRewriter &rewriter) const override {
    auto inTy = op.getInput().getType();
    if (!op.getUseInputStats()) {
      auto bn = inferenceBatchNorm(
          rewriter, op,
          TypeRange{op.getType(), statType(op.getInput(), 0), statType(op.getInput(), 0)});
      rewriter.replaceOp(op, bn.getResult());
      return success();
    }
    int64_t c = inTy.getDimSize(1);
    if (c == ShapedType::kDynamic)
      return rewriter.notifyMatchFailure(op, "needs a static channel count");
    auto statTy = RankedTensorType::get({inTy.getDimSize(0), c}, inTy.getElementType());
    auto gn = NativeGroupNormOp::create(rewriter, op.getLoc(),
                                        TypeRange{op.getType(), statTy, statTy}, op.getInput(),
                                        op.getWeight(), op.getBias(), c, op.getEps());
    rewriter.replaceOp(op, gn.getResult());
    return success();
  }
};

/// Training batch_norm -> native_batch_norm with batch statistics.
struct TrainingBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op, PatternRewriter &rewriter) const override {
    if (!op.getTraining())
      return rewriter.notifyMatchFailure(op, "inference batch norm");
    int64_t c = op.getInput().getType().getDimSize(1);
    auto bn = NativeBatchNormOp::create(
        rewriter, op.getLoc(),
        TypeRange{op.getType(), statType(op.getInput(), c), statType(op.getInput(), c)},
        op.getInput(), op.getWeight(), op.getBias(), op.getRunningMean(), op.getRunningVar(),
        op.getTraining(), op.getMomentum(), op.getEps());
    rewriter.replaceOp(op, bn.getResult());
    return success();
  }
};

/// native_batch_norm and _native_batch_norm_legit_functional without
/// training are inference batch norm (running statistics returned as is).
struct NativeBatchNormInference : OpRewritePattern<NativeBatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NativeBatchNormOp op, PatternRewriter &rewriter) const override {
    if (op.getTraining())
      return rewriter.notifyMatchFailure(op, "training batch norm");
    rewriter.replaceOp(op, inferenceBatchNorm(rewriter, op, op->getResultTypes()));
    return success();
  }
};

struct FunctionalBatchNormInference : OpRewritePattern<NativeBatchNormLegitFunctionalOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NativeBatchNormLegitFunctionalOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getTraining())
      return rewriter.notifyMatchFailure(op, "training batch norm");
    auto bn = inferenceBatchNorm(rewriter, op, TypeRange(op->getResultTypes()).take_front(3));
    SmallVector<Value> results(bn->getResults());
    results.push_back(op.getRunningMean());
    results.push_back(op.getRunningVar());
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ATenDecomposeCompositesPass
    : kiln::aten::impl::ATenDecomposeCompositesBase<ATenDecomposeCompositesPass> {
  using ATenDecomposeCompositesBase::ATenDecomposeCompositesBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<Conv2dToConvolution, InferenceBatchNorm, GlobalAveragePool, LayerNormToNative,
                 GroupNormToNative, SoftmaxIntToCore<SoftmaxIntOp, SoftmaxOp>,
                 SoftmaxIntToCore<LogSoftmaxIntOp, LogSoftmaxOp>, InstanceNormDecomposition,
                 TrainingBatchNorm, NativeBatchNormInference, FunctionalBatchNormInference>(
        &getContext());
    populateSequenceDecompositions(patterns, unrollRecurrent);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

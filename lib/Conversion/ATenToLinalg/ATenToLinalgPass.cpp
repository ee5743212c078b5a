//===- ATenToLinalgPass.cpp - the convert-aten-to-linalg pass driver ------===//
#include "ATen/IR/ATenDialect.h"
#include "kiln/Conversion/ATenToLinalg.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln {
#define GEN_PASS_DEF_CONVERTATENTOLINALG
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
/// aten.random: Philox4x32-10 in a linalg.generic (Random.cpp).
void populateRandomPatterns(mlir::RewritePatternSet &patterns);
} // namespace kiln

void kiln::populateATenToLinalgPatterns(RewritePatternSet &patterns, bool convBackwardCalls) {
  populateElementwisePatterns(patterns);
  populateCreationPatterns(patterns);
  populateRandomPatterns(patterns);
  populateLinearPatterns(patterns);
  populateConvolutionPatterns(patterns);
  populateNormalizationPatterns(patterns);
  populatePoolingPatterns(patterns);
  populateResamplingPatterns(patterns);
  populateReductionPatterns(patterns);
  populateAttentionPatterns(patterns);
  populateDataMovementPatterns(patterns);
  populateIndexingPatterns(patterns);
  populateBackwardPatterns(patterns, convBackwardCalls);
  populateRuntimeCallPatterns(patterns);
  populateUnsignedPatterns(patterns);
}

namespace {
struct ConvertATenToLinalgPass
    : kiln::impl::ConvertATenToLinalgBase<ConvertATenToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect, arith::ArithDialect,
                           math::MathDialect, affine::AffineDialect, func::FuncDialect,
                           scf::SCFDialect>();
    target.addIllegalDialect<kiln::aten::ATenDialect>();
    target.addLegalDialect<bufferization::BufferizationDialect>();
    // Generic bodies move uint8 elements to signless storage through casts.
    target.addLegalOp<UnrealizedConversionCastOp>();
    // Runtime calls on buffers stay until kiln-lower-runtime-calls.
    target.addDynamicallyLegalOp<kiln::aten::CallRuntimeOp>([](kiln::aten::CallRuntimeOp op) {
      return llvm::all_of(op.getOperandTypes(), llvm::IsaPred<MemRefType>);
    });
    RewritePatternSet patterns(ctx);
    kiln::populateATenToLinalgPatterns(patterns, convBackwardCalls);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

//===- Rules.h - derivative rules of the aten ops ---------------*- C++ -*-===//
//
// Attaches DifferentiableOpInterface to aten ops through external models,
// one file per op family (<Family>Rules.cpp), so an op's rule lives beside
// its family's other rules and nowhere else.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_AUTOGRAD_RULES_RULES_H
#define KILN_DIALECTS_AUTOGRAD_RULES_RULES_H

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace kiln::autograd {
/// Registers every aten op's rules with `registry` (applied when the aten
/// dialect loads).
void registerATenGradientRules(mlir::DialectRegistry &registry);

namespace rules {
void attachElementwiseRules(mlir::MLIRContext *ctx);
void attachPiecewiseRules(mlir::MLIRContext *ctx);
void attachLinalgRules(mlir::MLIRContext *ctx);
void attachConvolutionRules(mlir::MLIRContext *ctx);
void attachNormalizationRules(mlir::MLIRContext *ctx);
void attachPoolingRules(mlir::MLIRContext *ctx);
void attachResamplingRules(mlir::MLIRContext *ctx);
void attachReductionRules(mlir::MLIRContext *ctx);
void attachShapeRules(mlir::MLIRContext *ctx);
void attachIndexingRules(mlir::MLIRContext *ctx);
void attachAttentionRules(mlir::MLIRContext *ctx);
void attachBackwardRules(mlir::MLIRContext *ctx);
void attachRuntimeRules(mlir::MLIRContext *ctx);
} // namespace rules
} // namespace kiln::autograd

#endif

//===- Rules.cpp - registration of the aten ops' derivative rules ---------===//
#include "Autograd/Rules/Rules.h"

#include "ATen/IR/ATenDialect.h"
#include "Autograd/IR/AutogradDialect.h"

#include "mlir/IR/DialectRegistry.h"

void kiln::autograd::registerATenGradientRules(mlir::DialectRegistry &registry) {
  registry.addExtension(+[](mlir::MLIRContext *ctx, aten::ATenDialect *) {
    rules::attachElementwiseRules(ctx);
    rules::attachPiecewiseRules(ctx);
    rules::attachLinalgRules(ctx);
    rules::attachConvolutionRules(ctx);
    rules::attachNormalizationRules(ctx);
    rules::attachPoolingRules(ctx);
    rules::attachResamplingRules(ctx);
    rules::attachReductionRules(ctx);
    rules::attachShapeRules(ctx);
    rules::attachIndexingRules(ctx);
    rules::attachAttentionRules(ctx);
    rules::attachBackwardRules(ctx);
    rules::attachRuntimeRules(ctx);
  });
}

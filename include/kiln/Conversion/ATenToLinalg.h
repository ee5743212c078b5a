//===- ATenToLinalg.h - aten to linalg patterns, by op family ---*- C++ -*-===//
#ifndef KILN_CONVERSION_ATENTOLINALG_H
#define KILN_CONVERSION_ATENTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace kiln {
void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
void populateCreationPatterns(mlir::RewritePatternSet &patterns);
void populateLinearPatterns(mlir::RewritePatternSet &patterns);
void populateConvolutionPatterns(mlir::RewritePatternSet &patterns);
void populateNormalizationPatterns(mlir::RewritePatternSet &patterns);
void populatePoolingPatterns(mlir::RewritePatternSet &patterns);
/// aten.upsample_* (nearest, nearest-exact, linear, cubic) to linalg.generic.
void populateResamplingPatterns(mlir::RewritePatternSet &patterns);
void populateReductionPatterns(mlir::RewritePatternSet &patterns);
void populateAttentionPatterns(mlir::RewritePatternSet &patterns);
void populateDataMovementPatterns(mlir::RewritePatternSet &patterns);
void populateIndexingPatterns(mlir::RewritePatternSet &patterns);
/// flip, roll, repeat, tril/triu and pads: gathers at coordinates computed from the result's.
void populateRemapPatterns(mlir::RewritePatternSet &patterns);
/// The gradient ops reverse-mode differentiation produces (ATenBackwardOps.td).
/// With `convBackwardCalls`, a convolution's input and weight gradients take
/// the forms the library-call passes match (marked kiln.conv_backward).
void populateBackwardPatterns(mlir::RewritePatternSet &patterns, bool convBackwardCalls = false);
/// aten.call_runtime on tensors -> its buffer form (to_buffer / to_tensor around it).
void populateRuntimeCallPatterns(mlir::RewritePatternSet &patterns);
/// uint8 operands of reductions, scans, products and scatters through int16.
void populateUnsignedPatterns(mlir::RewritePatternSet &patterns);
/// All of the above.
void populateATenToLinalgPatterns(mlir::RewritePatternSet &patterns, bool convBackwardCalls = false);
} // namespace kiln

#endif

//===- SequenceDecompositions.h - diff, 1-d adaptive pooling, RNNs -*- C++ -*-===//
#ifndef KILN_DIALECTS_ATEN_TRANSFORMS_SEQUENCEDECOMPOSITIONS_H
#define KILN_DIALECTS_ATEN_TRANSFORMS_SEQUENCEDECOMPOSITIONS_H

#include "mlir/IR/PatternMatch.h"

namespace kiln::aten {
/// Patterns of aten-decompose-composites for the composites of sequence
/// models: `diff` (slices and a subtraction), `adaptive_avg_pool1d` (2-d
/// pooling over a unit height) and `lstm/gru.input` (an scf.for over time of
/// linear and elementwise aten ops per layer and direction).
/// With `unrollRecurrent`, an lstm/gru whose sequence length is static is
/// unrolled over time instead (plain aten ops, which autograd differentiates).
void populateSequenceDecompositions(mlir::RewritePatternSet &patterns, bool unrollRecurrent = false);
} // namespace kiln::aten

#endif

//===- FuseElementwise.cpp - elementwise fusion without recomputation -----===//
#include "kiln/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kiln {
#define GEN_PASS_DEF_KILNFUSEELEMENTWISE
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {
/// Fuse only when the consumer reads each producer element once.
bool readsEachElementOnce(OpOperand *fusedOperand) {
  auto consumer = dyn_cast<linalg::LinalgOp>(fusedOperand->getOwner());
  Operation *producer = fusedOperand->get().getDefiningOp();
  if (!consumer || !producer)
    return false;
  AffineMap map = consumer.getMatchingIndexingMap(fusedOperand);
  return map.isPermutation();
}

struct KilnFuseElementwisePass
    : kiln::impl::KilnFuseElementwiseBase<KilnFuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, readsEachElementOnce);
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        patterns, [](OpOperand *) { return false; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

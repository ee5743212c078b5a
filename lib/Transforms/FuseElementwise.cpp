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
/// Whether `producer` only moves data: a generic whose body yields its
/// block arguments (a broadcast, a transpose, a copy), so evaluating it again
/// in another consumer costs no arithmetic.
bool onlyMovesData(Operation *producer) {
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!generic)
    return false;
  Block &body = generic.getRegion().front();
  return body.without_terminator().empty() &&
         llvm::all_of(body.getTerminator()->getOperands(), [&](Value v) { return isa<BlockArgument>(v); });
}

/// Fuse only when nothing is computed twice: the consumer reads each producer
/// element once, and the producer's results have no user but the consumer
/// (otherwise the producer stays for its other users and the fused consumer
/// recomputes it) unless the producer only moves data.
bool fusesWithoutRecompute(OpOperand *fusedOperand) {
  auto consumer = dyn_cast<linalg::LinalgOp>(fusedOperand->getOwner());
  Operation *producer = fusedOperand->get().getDefiningOp();
  if (!consumer || !producer)
    return false;
  if (!consumer.getMatchingIndexingMap(fusedOperand).isPermutation())
    return false;
  bool onlyThisConsumer = llvm::all_of(producer->getUsers(), [&](Operation *user) { return user == consumer; });
  return onlyThisConsumer || onlyMovesData(producer);
}

struct KilnFuseElementwisePass
    : kiln::impl::KilnFuseElementwiseBase<KilnFuseElementwisePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, fusesWithoutRecompute);
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        patterns, [](OpOperand *) { return false; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

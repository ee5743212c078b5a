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

/// The most ops (besides the terminator) a producer broadcast into its
/// consumer may compute per consumer element with recompute-broadcasts.
constexpr size_t kMaxRecomputedOps = 16;

/// Whether `producer` is a small elementwise computation that `consumer`, an
/// elementwise op reading it through a broadcast (a batch norm's per-channel
/// scale and shift computed from its weights), may recompute per element:
/// its arithmetic is cheap beside the consumer's memory traffic, and the
/// launch it saves costs more than that on a GPU.
bool cheapToRecompute(linalg::LinalgOp consumer, Operation *producer) {
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!generic || consumer.getNumParallelLoops() != consumer.getNumLoops())
    return false;
  size_t ops = 0;
  for (Operation &op : generic.getRegion().front().without_terminator()) {
    if (op.getNumRegions() || !isPure(&op))
      return false;
    ++ops;
  }
  return ops <= kMaxRecomputedOps;
}

/// Fuse only when nothing is computed twice: the consumer reads each producer
/// element once, and the producer's results have no user but the consumer
/// (otherwise the producer stays for its other users and the fused consumer
/// recomputes it) unless the producer only moves data. With
/// `recomputeBroadcasts`, an elementwise consumer may also recompute a
/// cheap producer it reads through a broadcast (cheapToRecompute).
bool fuses(OpOperand *fusedOperand, bool recomputeBroadcasts) {
  auto consumer = dyn_cast<linalg::LinalgOp>(fusedOperand->getOwner());
  Operation *producer = fusedOperand->get().getDefiningOp();
  if (!consumer || !producer)
    return false;
  bool onlyThisConsumer = llvm::all_of(producer->getUsers(), [&](Operation *user) { return user == consumer; });
  if (!consumer.getMatchingIndexingMap(fusedOperand).isPermutation())
    return recomputeBroadcasts && onlyThisConsumer && cheapToRecompute(consumer, producer);
  return onlyThisConsumer || onlyMovesData(producer);
}

struct KilnFuseElementwisePass
    : kiln::impl::KilnFuseElementwiseBase<KilnFuseElementwisePass> {
  using KilnFuseElementwiseBase::KilnFuseElementwiseBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    bool recompute = recomputeBroadcasts;
    linalg::populateElementwiseOpsFusionPatterns(patterns, [recompute](OpOperand *operand) {
      if (!fuses(operand, recompute))
        return false;
      // The fused op takes the consumer's location: make it name the
      // producer's nodes too, so diagnostics and --emit=dot see every node a
      // kernel computes.
      Operation *consumer = operand->getOwner();
      Operation *producer = operand->get().getDefiningOp();
      consumer->setLoc(FusedLoc::get(consumer->getContext(), {consumer->getLoc(), producer->getLoc()}));
      return true;
    });
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        patterns, [](OpOperand *) { return false; });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

//===- GPUMapLinalg.cpp - linalg ops on buffers as GPU kernel launches ----===//
#include "kiln/Transforms/Passes.h"

#include "mlir/Conversion/SCFToGPU/SCFToGPU.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln {
#define GEN_PASS_DEF_KILNMAPLINALGTOGPU
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

/// Loop order for a GPU launch: parallel loops first, in the order the
/// output's dimensions use them (so the linearized thread index walks the
/// output row-major), then the reduction loops in their own order.
SmallVector<unsigned> gpuLoopOrder(linalg::GenericOp op) {
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  SmallVector<unsigned> order;
  llvm::SmallDenseSet<unsigned> taken;
  if (op.getNumDpsInits() > 0) {
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    for (AffineExpr e : out.getResults())
      if (auto d = dyn_cast<AffineDimExpr>(e))
        if (iters[d.getPosition()] == utils::IteratorType::parallel &&
            taken.insert(d.getPosition()).second)
          order.push_back(d.getPosition());
  }
  for (unsigned i = 0; i < iters.size(); ++i)
    if (iters[i] == utils::IteratorType::parallel && taken.insert(i).second)
      order.push_back(i);
  for (unsigned i = 0; i < iters.size(); ++i)
    if (iters[i] != utils::IteratorType::parallel)
      order.push_back(i);
  return order;
}

bool isIdentity(ArrayRef<unsigned> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (i != p)
      return false;
  return true;
}

/// Product of the static trip counts of `loop`, or -1 if any is dynamic.
int64_t staticTripCount(scf::ParallelOp loop) {
  int64_t total = 1;
  for (auto [lb, ub, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lb), u = getConstantIntValue(ub),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return -1;
    total *= std::max<int64_t>(0, llvm::divideCeil(*u - *l, *s));
  }
  return total;
}

gpu::ParallelLoopDimMappingAttr mapTo(MLIRContext *ctx, gpu::Processor p) {
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  return gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id);
}

struct KilnMapLinalgToGPUPass : kiln::impl::KilnMapLinalgToGPUBase<KilnMapLinalgToGPUPass> {
  using Base::Base;

  /// Lowers one linalg op to a mapped scf.parallel nest; emits an error and
  /// fails if it cannot.
  LogicalResult mapOp(IRRewriter &rewriter, linalg::LinalgOp op) {
    MLIRContext *ctx = op->getContext();
    Location loc = op.getLoc();
    if (!op.hasPureBufferSemantics())
      return op->emitOpError("must be bufferized before it is mapped to the GPU");
    rewriter.setInsertionPoint(op);
    linalg::GenericOp generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, op);
      if (failed(g))
        return op->emitOpError("cannot be generalized for the GPU");
      generic = *g;
    }
    SmallVector<unsigned> order = gpuLoopOrder(generic);
    if (!isIdentity(order)) {
      FailureOr<linalg::GenericOp> g = linalg::interchangeGenericOp(rewriter, generic, order);
      if (failed(g))
        return generic.emitOpError("cannot reorder its loops for the GPU");
      generic = *g;
    }
    unsigned numParallel = generic.getNumParallelLoops();

    if (numParallel == 0) {
      // No parallel loop: one thread runs the whole op.
      Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto single = scf::ParallelOp::create(rewriter, loc, ValueRange{c0}, ValueRange{c1},
                                            ValueRange{c1});
      rewriter.moveOpBefore(generic, single.getBody()->getTerminator());
      rewriter.setInsertionPoint(generic);
      if (failed(linalg::linalgOpToLoops(rewriter, generic)))
        return generic.emitOpError("cannot be lowered to loops");
      rewriter.eraseOp(generic);
      return gpu::setMappingAttr(single, {mapTo(ctx, gpu::Processor::BlockX)});
    }

    FailureOr<linalg::LinalgLoops> loops = linalg::linalgOpToParallelLoops(rewriter, generic);
    if (failed(loops) || loops->empty())
      return generic.emitOpError("cannot be lowered to parallel loops");
    rewriter.eraseOp(generic);
    auto par = dyn_cast<scf::ParallelOp>(loops->front());
    if (!par || par.getNumLoops() != numParallel)
      return emitError(loc, "expected one scf.parallel over all parallel loops");

    // One linear index over every parallel loop.
    if (numParallel > 1) {
      Operation *next = par->getNextNode();
      std::vector<unsigned> all(numParallel);
      std::iota(all.begin(), all.end(), 0);
      collapseParallelLoops(rewriter, par, {all});
      par = cast<scf::ParallelOp>(next->getPrevNode());
    }
    int64_t trip = staticTripCount(par);
    int64_t tile = blockSize;
    if (trip >= 0 && trip < tile)
      tile = std::max<int64_t>(32, llvm::alignTo(trip, 32)); // whole warps
    auto [outer, inner] = scf::tileParallelLoop(par, {tile}, /*noMinMaxBounds=*/true);
    if (failed(gpu::setMappingAttr(outer, {mapTo(ctx, gpu::Processor::BlockX)})) ||
        failed(gpu::setMappingAttr(inner, {mapTo(ctx, gpu::Processor::ThreadX)})))
      return emitError(loc, "cannot set the GPU mapping");
    return success();
  }

  void runOnOperation() override {
    if (blockSize <= 0 || blockSize > 1024) {
      getOperation().emitError("block-size must be in [1, 1024], got ") << blockSize;
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>() && !op->getParentOfType<scf::ParallelOp>())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      if (failed(mapOp(rewriter, op)))
        return signalPassFailure();

    // Mapped loops become gpu.launch (upstream convert-parallel-loops-to-gpu).
    RewritePatternSet patterns(&getContext());
    populateParallelLoopToGPUPatterns(patterns);
    ConversionTarget target(getContext());
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    configureParallelLoopToGPULegality(target);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      return signalPassFailure();
    finalizeParallelLoopToGPUConversion(getOperation());
    // The conversion's own bookkeeping marker.
    getOperation().walk([](gpu::LaunchOp launch) { launch->removeAttr("SCFToGPU_visited"); });
  }
};

} // namespace

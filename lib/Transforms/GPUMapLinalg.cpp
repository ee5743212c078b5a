//===- GPUMapLinalg.cpp - linalg ops on buffers as GPU kernel launches ----===//
#include "GPUMapLinalg.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPU.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"
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
using namespace kiln::gpu_map;

namespace {

static gpu::ParallelLoopDimMappingAttr mapTo(MLIRContext *ctx, gpu::Processor p) {
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  return gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id);
}

struct KilnMapLinalgToGPUPass : kiln::impl::KilnMapLinalgToGPUBase<KilnMapLinalgToGPUPass> {
  using Base::Base;

  /// Generalizes `op` with its loops in GPU order (see gpuLoopOrder); emits
  /// an error and fails if it cannot.
  FailureOr<linalg::GenericOp> prepareOp(IRRewriter &rewriter, linalg::LinalgOp op) {
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
    return generic;
  }

  /// Lowers one prepared op to a mapped scf.parallel nest (with `fusion`'s
  /// prologue and epilogue in its threads, if any); emits an error and
  /// fails if it cannot.
  LogicalResult mapOp(IRRewriter &rewriter, linalg::GenericOp generic, const ReductionFusion *fusion = nullptr) {
    MLIRContext *ctx = generic->getContext();
    Location loc = generic.getLoc();
    unsigned numParallel = generic.getNumParallelLoops();
    if (subgroupReductions && subgroupSize > 1 && llvm::isPowerOf2_64(subgroupSize)) {
      int64_t rows = std::max<int64_t>(1, blockSize / subgroupSize);
      std::optional<SubgroupPlan> plan = planSubgroupReduction(generic, subgroupSize);
      if (!plan && fewOutputs > 0) {
        plan = planFewOutputReduction(generic, subgroupSize, fewOutputs);
        // Fewer outputs than a block's subgroups: no idle subgroups.
        SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
        int64_t outputs = 1;
        for (int64_t r : ArrayRef<int64_t>(ranges).take_front(numParallel))
          outputs *= r;
        if (plan)
          rows = std::min(rows, outputs);
      }
      if (plan) {
        if (fusion)
          prepareReductionFusion(generic, *fusion);
        rewriter.setInsertionPoint(generic);
        auto [outer, inner] = lowerToSubgroupRows(rewriter, generic, *plan, subgroupSize, rows, fusion);
        Value acc = generic.getDpsInitOperand(0)->get();
        rewriter.eraseOp(generic);
        if (fusion)
          finishReductionFusion(rewriter, acc, *fusion);
        if (failed(gpu::setMappingAttr(outer, {mapTo(ctx, gpu::Processor::BlockX)})) ||
            failed(gpu::setMappingAttr(inner, {mapTo(ctx, gpu::Processor::ThreadX), mapTo(ctx, gpu::Processor::ThreadY)})))
          return emitError(loc, "cannot set the GPU mapping");
        return success();
      }
    }
    // An output indexed by a reduction loop is written per iteration by the
    // thread that owns its parallel point; it must still name every parallel
    // loop, or two threads would write one element.
    for (OpOperand &out : generic.getDpsInitsMutable()) {
      if (!indexedByReduction(generic, out))
        continue;
      for (unsigned d = 0; d < numParallel; ++d)
        if (!generic.getMatchingIndexingMap(&out).isFunctionOfDim(d))
          return generic.emitOpError(
              "has an output indexed by a reduction loop but not by every parallel loop");
    }
    if (fusion)
      prepareReductionFusion(generic, *fusion);
    rewriter.setInsertionPoint(generic);
    if (std::optional<TransposePlan> transpose = fusion ? std::nullopt : planTransposeTile(generic)) {
      lowerToTransposeTile(rewriter, generic, *transpose);
      rewriter.eraseOp(generic);
      return success();
    }
    std::optional<VectorPlan> vectors = planVectorElementwise(generic, vectorBytes);
    std::optional<WindowPlan> window =
        vectors ? std::nullopt : planWindowTile(generic, windowOutputs, windowMinThreads);
    scf::ParallelOp par = vectors  ? lowerToVectorThreadLoops(rewriter, generic, *vectors, vectorBytes)
                          : window ? lowerToWindowThreadLoops(rewriter, generic, *window, fusion)
                                   : lowerToThreadLoops(rewriter, generic, fusion);
    Value acc = generic.getNumDpsInits() == 1 ? generic.getDpsInitOperand(0)->get() : Value();
    rewriter.eraseOp(generic);
    if (fusion)
      finishReductionFusion(rewriter, acc, *fusion);
    if (numParallel == 0)
      return gpu::setMappingAttr(par, {mapTo(ctx, gpu::Processor::BlockX)});

    // One linear index over every parallel loop.
    unsigned parLoops = par.getNumLoops();
    if (parLoops > 1) {
      Operation *next = par->getNextNode();
      std::vector<unsigned> all(parLoops);
      std::iota(all.begin(), all.end(), 0);
      collapseParallelLoops(rewriter, par, {all});
      par = cast<scf::ParallelOp>(next->getPrevNode());
    }
    int64_t trip = staticTripCount(par);
    int64_t tile = blockSize;
    if (trip >= 0 && trip < tile)
      tile = std::max<int64_t>(subgroupSize, llvm::alignTo(trip, subgroupSize)); // whole subgroups
    auto [outer, inner] = scf::tileParallelLoop(par, {tile}, /*noMinMaxBounds=*/true);
    if (failed(gpu::setMappingAttr(outer, {mapTo(ctx, gpu::Processor::BlockX)})) ||
        failed(gpu::setMappingAttr(inner, {mapTo(ctx, gpu::Processor::ThreadX)})))
      return emitError(loc, "cannot set the GPU mapping");
    return success();
  }

  void runOnOperation() override {
    if (blockSize <= 0 || blockSize > 1024) {
      getOperation().emitError("block-size must be in [1, 1024], got ") << static_cast<int>(blockSize);
      return signalPassFailure();
    }
    if (vectorBytes < 0 || vectorBytes > 128 || (vectorBytes > 1 && !llvm::isPowerOf2_64(vectorBytes))) {
      getOperation().emitError("vector-bytes must be 0 or a power of two up to 128, got ")
          << static_cast<int>(vectorBytes);
      return signalPassFailure();
    }
    if (subgroupSize <= 0 || subgroupSize > blockSize) {
      getOperation().emitError("subgroup-size must be in [1, block-size], got ") << static_cast<int>(subgroupSize);
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>() && !op->getParentOfType<scf::ParallelOp>())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> generics;
    for (linalg::LinalgOp op : ops) {
      FailureOr<linalg::GenericOp> generic = prepareOp(rewriter, op);
      if (failed(generic))
        return signalPassFailure();
      generics.push_back(*generic);
    }
    bool subgroups = subgroupReductions && subgroupSize > 1 && llvm::isPowerOf2_64(subgroupSize);
    llvm::SmallDenseSet<Operation *> grouped;
    if (subgroups && fuseRows) {
      int64_t rows = std::max<int64_t>(1, blockSize / subgroupSize);
      for (RowGroup &group : formRowGroups(generics, subgroupSize)) {
        for (linalg::GenericOp op : group.ops)
          grouped.insert(op);
        Location loc = group.ops.back().getLoc();
        auto [outer, inner] = lowerRowGroup(rewriter, group, subgroupSize, rows, vectorBytes);
        MLIRContext *ctx = &getContext();
        if (failed(gpu::setMappingAttr(outer, {mapTo(ctx, gpu::Processor::BlockX)})) ||
            failed(gpu::setMappingAttr(inner, {mapTo(ctx, gpu::Processor::ThreadX), mapTo(ctx, gpu::Processor::ThreadY)}))) {
          emitError(loc, "cannot set the GPU mapping");
          return signalPassFailure();
        }
      }
    }
    // Reductions that take the elementwise ops around them into their
    // threads (see ReductionFusion); those ops are no kernels of their own.
    llvm::SmallDenseSet<Operation *> single;
    for (linalg::GenericOp op : generics)
      if (!grouped.contains(op.getOperation()))
        single.insert(op.getOperation());
    // Windows that read a padded buffer read its source with bounds checks;
    // the fill and the copy are no kernels of their own.
    llvm::DenseMap<Operation *, SmallVector<PaddedBuffer>> padded = planPaddedReads(generics, single);
    llvm::DenseMap<Operation *, ReductionFusion> fusions;
    for (linalg::GenericOp op : generics) {
      if (!single.contains(op.getOperation()) || op.getNumReductionLoops() == 0)
        continue;
      std::optional<ReductionFusion> fusion = planReductionFusion(op, single);
      if (!fusion)
        continue;
      for (linalg::GenericOp absorbed : {fusion->prologue, fusion->epilogue})
        if (absorbed)
          single.erase(absorbed.getOperation());
      fusions[op.getOperation()] = *fusion;
      if (auto it = padded.find(op.getOperation()); it != padded.end())
        settlePaddedReads(op, fusion->epilogue, it->second, single);
    }
    for (linalg::GenericOp op : generics) {
      if (!single.contains(op.getOperation()))
        continue;
      auto it = fusions.find(op.getOperation());
      SmallVector<PaddedBuffer> pads = padded.lookup(op.getOperation());
      if (failed(mapOp(rewriter, op, it == fusions.end() ? nullptr : &it->second)))
        return signalPassFailure();
      finishPaddedReads(rewriter, pads);
    }

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

//===- GPUWindowTiles.cpp - sliding-window reductions with several outputs per GPU thread -===//
#include "GPUMapLinalg.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace kiln::gpu_map {

/// Whether some input of `op` reads position `p * s + r * t` (any affine form
/// of parallel loop `p` and a reduction loop: a window sliding along `p`).
static bool slidesAlong(linalg::GenericOp op, unsigned p) {
  unsigned numParallel = op.getNumParallelLoops();
  for (OpOperand *in : op.getDpsInputOperands()) {
    if (!isa<MemRefType>(in->get().getType()))
      continue;
    for (AffineExpr e : op.getMatchingIndexingMap(in).getResults()) {
      if (!e.isFunctionOfDim(p))
        continue;
      for (unsigned r = numParallel; r < op.getNumLoops(); ++r)
        if (e.isFunctionOfDim(r))
          return true;
    }
  }
  return false;
}

std::optional<WindowPlan> planWindowTile(linalg::GenericOp op, int64_t maxOutputs, int64_t minThreads) {
  unsigned numParallel = op.getNumParallelLoops(), numLoops = op.getNumLoops();
  if (maxOutputs < 2 || numParallel < 2 || numLoops == numParallel)
    return std::nullopt;
  for (unsigned i = 0; i < numParallel; ++i)
    if (op.getIteratorTypesArray()[i] != utils::IteratorType::parallel)
      return std::nullopt; // loops not in GPU order
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  for (OpOperand &out : op.getDpsInitsMutable())
    if (indexedByReduction(op, out) || !isa<MemRefType>(out.get().getType()))
      return std::nullopt;
  int64_t outputs = 1;
  for (int64_t r : ArrayRef<int64_t>(ranges).take_front(numParallel))
    outputs *= r;
  // The innermost parallel loop stays one element per thread (neighbouring
  // threads read neighbouring elements); the innermost loop before it that a
  // window slides along is tiled.
  for (int p = static_cast<int>(numParallel) - 2; p >= 0; --p) {
    if (!slidesAlong(op, p))
      continue;
    for (int64_t t = std::min(maxOutputs, ranges[p]); t >= 2; --t)
      if (ranges[p] % t == 0 && outputs / t >= minThreads)
        return WindowPlan{static_cast<unsigned>(p), t};
    return std::nullopt;
  }
  return std::nullopt;
}

scf::ParallelOp lowerToWindowThreadLoops(RewriterBase &rewriter, linalg::GenericOp op, const WindowPlan &plan,
                                         const ReductionFusion *fusion) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  unsigned numParallel = op.getNumParallelLoops(), numLoops = op.getNumLoops();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto cst = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  SmallVector<Value> lbs(numParallel, cst(0)), ubs, steps(numParallel, cst(1));
  for (unsigned i = 0; i < numParallel; ++i)
    ubs.push_back(cst(i == plan.loop ? ranges[i] / plan.outputs : ranges[i]));
  auto par = scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(par.getBody()->getTerminator());

  // The parallel indices of each of the thread's outputs: loop plan.loop at
  // iv * outputs + t.
  AffineExpr d0 = getAffineDimExpr(0, ctx);
  SmallVector<Value> parIvs(par.getInductionVars());
  SmallVector<SmallVector<Value>> at(plan.outputs, parIvs);
  for (int64_t t = 0; t < plan.outputs; ++t)
    at[t][plan.loop] = affine::AffineApplyOp::create(rewriter, loc, AffineMap::get(1, 0, d0 * plan.outputs + t),
                                                     ValueRange{parIvs[plan.loop]});
  SmallVector<Value> reductionIvs;
  auto ivsOf = [&](int64_t t) {
    SmallVector<Value> ivs(at[t]);
    llvm::append_range(ivs, reductionIvs);
    return ivs;
  };

  // Accumulators, output-major within each of the thread's outputs.
  unsigned numOuts = op.getNumDpsInits();
  SmallVector<Value> inits;
  for (int64_t t = 0; t < plan.outputs; ++t)
    for (OpOperand &out : op.getDpsInitsMutable())
      inits.push_back(fusion ? initialValue(rewriter, loc, op, at[t], fusion)
                             : loadOperand(rewriter, loc, op, out, at[t]));

  // One step of the reduction for every output of the thread: an input
  // element two outputs share (a window's overlap, a filter tap) is loaded
  // once per step after CSE.
  auto step = [&](ValueRange accs) {
    SmallVector<Value> next;
    for (int64_t t = 0; t < plan.outputs; ++t) {
      SmallVector<Value> ivs = ivsOf(t), args;
      for (OpOperand *in : op.getDpsInputOperands())
        args.push_back(loadOperand(rewriter, loc, op, *in, ivs));
      llvm::append_range(args, accs.slice(t * numOuts, numOuts));
      llvm::append_range(next, emitBody(rewriter, op, args, ivs));
    }
    return next;
  };
  // The innermost reduction loop is unrolled when short, so that the loads
  // of neighbouring outputs at neighbouring taps are visibly the same.
  constexpr int64_t kMaxUnrolledLoads = 64;
  std::function<SmallVector<Value>(unsigned, ValueRange)> nest = [&](unsigned loop,
                                                                      ValueRange accs) -> SmallVector<Value> {
    if (loop == numLoops)
      return step(accs);
    if (loop + 1 == numLoops && ranges[loop] * plan.outputs <= kMaxUnrolledLoads) {
      SmallVector<Value> cur(accs);
      for (int64_t k = 0; k < ranges[loop]; ++k) {
        reductionIvs.push_back(cst(k));
        cur = step(cur);
        reductionIvs.pop_back();
      }
      return cur;
    }
    auto forOp = scf::ForOp::create(rewriter, loc, cst(0), cst(ranges[loop]), cst(1), accs);
    OpBuilder::InsertionGuard inner(rewriter);
    rewriter.setInsertionPointToStart(forOp.getBody());
    reductionIvs.push_back(forOp.getInductionVar());
    SmallVector<Value> next = nest(loop + 1, forOp.getRegionIterArgs());
    reductionIvs.pop_back();
    scf::YieldOp::create(rewriter, loc, next);
    return SmallVector<Value>(forOp.getResults());
  };
  SmallVector<Value> results = nest(numParallel, inits);
  if (fusion) {
    for (int64_t t = 0; t < plan.outputs; ++t)
      storeResult(rewriter, loc, op, results[t], at[t], fusion);
    return par;
  }
  for (int64_t t = 0; t < plan.outputs; ++t)
    for (auto [k, out] : llvm::enumerate(op.getDpsInitsMutable()))
      memref::StoreOp::create(rewriter, loc, results[t * numOuts + k], out.get(),
                              indicesAt(rewriter, loc, op.getMatchingIndexingMap(&out), at[t]));
  return par;
}

} // namespace kiln::gpu_map

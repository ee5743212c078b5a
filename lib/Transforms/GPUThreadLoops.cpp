//===- GPUThreadLoops.cpp - linalg ops as one GPU thread per output element; shared loop helpers -===//
#include "GPUMapLinalg.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"

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

namespace kiln::gpu_map {

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

/// The index of `map`'s results at loop induction variables `ivs`.
SmallVector<Value> indicesAt(OpBuilder &b, Location loc, AffineMap map, ValueRange ivs) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults()) {
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      indices.push_back(ivs[d.getPosition()]);
      continue;
    }
    AffineMap one = AffineMap::get(map.getNumDims(), map.getNumSymbols(), e);
    indices.push_back(affine::AffineApplyOp::create(b, loc, one, ivs));
  }
  return indices;
}

/// The element of operand `operand` at loop position `ivs` (a scalar operand
/// is itself).
Value loadOperand(OpBuilder &b, Location loc, linalg::GenericOp op, OpOperand &operand,
                  ValueRange ivs) {
  if (!isa<MemRefType>(operand.get().getType()))
    return operand.get();
  SmallVector<Value> indices = indicesAt(b, loc, op.getMatchingIndexingMap(&operand), ivs);
  if (std::optional<Value> padded = loadPadded(b, loc, op, operand, indices))
    return *padded;
  return memref::LoadOp::create(b, loc, operand.get(), indices);
}

/// Emits `op`'s body at `ivs` with `args` for its block arguments; returns
/// the yielded values.
SmallVector<Value> emitBody(OpBuilder &b, linalg::GenericOp op, ValueRange args, ValueRange ivs) {
  IRMapping map;
  Block &body = op.getRegion().front();
  map.map(body.getArguments(), args);
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  SmallVector<Value> yielded;
  for (Value v : body.getTerminator()->getOperands())
    yielded.push_back(map.lookupOrDefault(v));
  return yielded;
}

/// Whether output `out` of `op` (loops in order: parallel, then reduction)
/// is indexed by a reduction loop: its elements are written once per
/// reduction iteration (an elementwise result a fusion kept alongside a
/// reduction), not accumulated.
bool indexedByReduction(linalg::GenericOp op, OpOperand &out) {
  AffineMap map = op.getMatchingIndexingMap(&out);
  for (unsigned d = op.getNumParallelLoops(); d < op.getNumLoops(); ++d)
    if (map.isFunctionOfDim(d))
      return true;
  return false;
}

/// Replaces `op` (loops in order: parallel, then reduction) with an
/// scf.parallel over its parallel loops in which each element loads its
/// output's initial values once, runs the reduction loops with the
/// accumulators in registers (scf.for iter_args) and stores once. Without
/// reduction loops, an output is read only if the body uses it. An output
/// indexed by a reduction loop is read (if used) and written at each
/// iteration of the innermost loop instead.
scf::ParallelOp lowerToThreadLoops(RewriterBase &rewriter, linalg::GenericOp op, const ReductionFusion *fusion) {
  Location loc = op.getLoc();
  unsigned numParallel = op.getNumParallelLoops(), numLoops = op.getNumLoops();
  SmallVector<Range> ranges =
      cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc);
  auto value = [&](OpFoldResult r) { return getValueOrCreateConstantIndexOp(rewriter, loc, r); };
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned i = 0; i < numParallel; ++i) {
    lbs.push_back(value(ranges[i].offset));
    ubs.push_back(value(ranges[i].size));
    steps.push_back(value(ranges[i].stride));
  }
  if (numParallel == 0) {
    // No parallel loop: one thread runs the whole op.
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    lbs = {c0};
    ubs = {c1};
    steps = {c1};
  }
  auto par = scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(par.getBody()->getTerminator());
  SmallVector<Value> ivs;
  if (numParallel > 0)
    llvm::append_range(ivs, par.getInductionVars());

  bool reduces = numLoops > numParallel;
  // The body's argument for output `out` at the current iteration: the
  // element itself if `read`, else poison (the body never reads it).
  auto outputArg = [&](OpOperand &out, bool read) -> Value {
    if (read)
      return loadOperand(rewriter, loc, op, out, ivs);
    unsigned i = out.getOperandNumber() - op.getNumDpsInputs();
    return ub::PoisonOp::create(rewriter, loc, op.getRegionOutputArgs()[i].getType());
  };
  auto store = [&](OpOperand &out, Value v) {
    memref::StoreOp::create(rewriter, loc, v, out.get(),
                            indicesAt(rewriter, loc, op.getMatchingIndexingMap(&out), ivs));
  };

  if (!reduces) {
    SmallVector<Value> args;
    for (OpOperand *in : op.getDpsInputOperands())
      args.push_back(loadOperand(rewriter, loc, op, *in, ivs));
    for (OpOperand &out : op.getDpsInitsMutable())
      args.push_back(outputArg(out, op.payloadUsesValueFromOperand(&out)));
    for (auto [out, v] : llvm::zip(op.getDpsInitsMutable(), emitBody(rewriter, op, args, ivs)))
      store(out, v);
    return par;
  }

  // Accumulated outputs are carried through the reduction loops; the others
  // are written at each innermost iteration.
  SmallVector<OpOperand *> carried;
  SmallVector<Value> inits;
  for (OpOperand &out : op.getDpsInitsMutable())
    if (!indexedByReduction(op, out)) {
      carried.push_back(&out);
      inits.push_back(fusion ? initialValue(rewriter, loc, op, ivs, fusion) : loadOperand(rewriter, loc, op, out, ivs));
    }
  std::function<SmallVector<Value>(unsigned, ValueRange)> nest =
      [&](unsigned loop, ValueRange accs) -> SmallVector<Value> {
    if (loop == numLoops) {
      SmallVector<Value> args;
      for (OpOperand *in : op.getDpsInputOperands())
        args.push_back(loadOperand(rewriter, loc, op, *in, ivs));
      unsigned next = 0;
      for (OpOperand &out : op.getDpsInitsMutable())
        args.push_back(indexedByReduction(op, out)
                           ? outputArg(out, op.payloadUsesValueFromOperand(&out))
                           : accs[next++]);
      SmallVector<Value> yielded = emitBody(rewriter, op, args, ivs), accumulated;
      for (auto [out, v] : llvm::zip(op.getDpsInitsMutable(), yielded)) {
        if (indexedByReduction(op, out))
          store(out, v);
        else
          accumulated.push_back(v);
      }
      return accumulated;
    }
    auto forOp = scf::ForOp::create(rewriter, loc, value(ranges[loop].offset),
                                    value(ranges[loop].size), value(ranges[loop].stride), accs);
    OpBuilder::InsertionGuard inner(rewriter);
    rewriter.setInsertionPointToStart(forOp.getBody());
    ivs.push_back(forOp.getInductionVar());
    SmallVector<Value> next = nest(loop + 1, forOp.getRegionIterArgs());
    ivs.pop_back();
    scf::YieldOp::create(rewriter, loc, next);
    return SmallVector<Value>(forOp.getResults());
  };
  SmallVector<Value> results = nest(numParallel, inits);
  if (fusion) {
    storeResult(rewriter, loc, op, results.front(), ivs, fusion);
    return par;
  }
  for (auto [out, v] : llvm::zip(carried, results))
    store(*out, v);
  return par;
}

} // namespace kiln::gpu_map

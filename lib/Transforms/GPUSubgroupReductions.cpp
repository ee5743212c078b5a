//===- GPUSubgroupReductions.cpp - row and few-output reductions shared by a GPU subgroup -===//
#include "GPUMapLinalg.h"

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

/// The combiners of `op`'s outputs: each output accumulated by exactly one
/// associative combiner on f32 or i32 with a neutral element, and never
/// indexed by a reduction loop. None otherwise.
static std::optional<SubgroupPlan> planCombiners(linalg::GenericOp op) {
  SubgroupPlan plan;
  Operation *yield = op.getBlock()->getTerminator();
  for (OpOperand &out : op.getDpsInitsMutable()) {
    if (indexedByReduction(op, out))
      return std::nullopt;
    unsigned i = out.getOperandNumber() - op.getNumDpsInputs();
    SmallVector<Operation *> combiners;
    if (!matchReduction(op.getRegionOutputArgs(), i, combiners) || combiners.size() != 1)
      return std::nullopt;
    Operation *c = combiners.front();
    if (c->getNumOperands() != 2 || c->getNumResults() != 1 || yield->getOperand(i) != c->getResult(0))
      return std::nullopt;
    Type t = c->getResult(0).getType();
    std::optional<TypedAttr> neutral = arith::getNeutralElement(c);
    if ((!t.isF32() && !t.isInteger(32)) || !neutral)
      return std::nullopt;
    plan.combiners.push_back(c);
    plan.neutral.push_back(*neutral);
  }
  return plan;
}

/// The plan if `op` (loops in order: parallel, then reduction) is a row
/// reduction a subgroup can share: at least one parallel loop and exactly one
/// reduction loop, at least `subgroupSize` long (or dynamic) and the last
/// index of some input (so lanes read neighbouring elements), every output
/// accumulated (not indexed by the reduction) by a single associative
/// combiner on f32 or i32 with a neutral element. None otherwise.
std::optional<SubgroupPlan> planSubgroupReduction(linalg::GenericOp op, int64_t subgroupSize) {
  unsigned numLoops = op.getNumLoops(), numParallel = op.getNumParallelLoops();
  if (numParallel == 0 || numLoops != numParallel + 1)
    return std::nullopt;
  int64_t trip = op.getStaticLoopRanges().back();
  if (trip != ShapedType::kDynamic && trip < subgroupSize)
    return std::nullopt;
  AffineExpr k = getAffineDimExpr(numLoops - 1, op.getContext());
  bool contiguous = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    AffineMap map = op.getMatchingIndexingMap(in);
    return map.getNumResults() > 0 && map.getResults().back() == k;
  });
  if (!contiguous)
    return std::nullopt;
  return planCombiners(op);
}

/// The plan if `op` (loops in order: parallel, then reduction) is a
/// reduction with few outputs and long reductions, which one thread per
/// output would run on a handful of blocks (a squeeze-excite or global
/// average pool over H and W at batch 1, a matrix-vector product): static
/// loops, at most `maxOutputs` outputs, at least a subgroup of reduction
/// iterations over one or more reduction loops read in any order, every
/// output accumulated by one associative combiner on f32 or i32 with a
/// neutral element. Each output then gets a subgroup, the lanes taking
/// strided parts of the reduction loops linearised. None otherwise.
std::optional<SubgroupPlan> planFewOutputReduction(linalg::GenericOp op, int64_t subgroupSize, int64_t maxOutputs) {
  unsigned numLoops = op.getNumLoops(), numParallel = op.getNumParallelLoops();
  if (numLoops == numParallel || op.getNumReductionLoops() != numLoops - numParallel)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t outputs = 1, reduced = 1;
  for (auto [i, r] : llvm::enumerate(ranges)) {
    if (ShapedType::isDynamic(r))
      return std::nullopt;
    (i < numParallel ? outputs : reduced) *= r;
  }
  if (reduced < subgroupSize)
    return std::nullopt;
  // Beyond `maxOutputs`: where one thread per output would still run few
  // threads (up to 16x `maxOutputs`: 256 blocks of 256) each a long loop
  // (at least 8 subgroups of iterations: an NHWC pool over H and W at a
  // large batch; a block's subgroups take neighbouring outputs, so they
  // share the cache lines they read), or where some input holds each
  // output's reduction elements together (the reduction loops its last
  // indices, in order: an NCHW pool at a large batch), which a subgroup
  // reads contiguously where one thread per output strides through them.
  // Both need a long reduction: a depthwise convolution's filter also holds
  // each output's (KH*KW) elements last, and a subgroup per output of 49
  // iterations made ConvNeXt-T's 7x7 ones 3.4x slower (H200).
  if (reduced < 8 * subgroupSize && outputs > maxOutputs)
    return std::nullopt;
  if (outputs > 16 * maxOutputs) {
    unsigned numReduction = numLoops - numParallel;
    bool trailing = llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *in) {
      AffineMap map = op.getMatchingIndexingMap(in);
      if (map.getNumResults() < numReduction)
        return false;
      for (unsigned r = 0; r < numReduction; ++r)
        if (map.getResult(map.getNumResults() - numReduction + r) != getAffineDimExpr(numParallel + r, op.getContext()))
          return false;
      return true;
    });
    if (!trailing)
      return std::nullopt;
  }
  return planCombiners(op);
}

/// `combiner` applied to (`acc`, `value`) at the builder's point.
Value combine(OpBuilder &b, Operation *combiner, Value acc, Value value) {
  IRMapping map;
  map.map(combiner->getOperand(0), acc);
  map.map(combiner->getOperand(1), value);
  return b.clone(*combiner, map)->getResult(0);
}

/// Reduces the row at `rowIvs` of `op` (loops: parallel, then the one
/// reduction loop) across a subgroup: each lane accumulates its elements
/// (`loop`) from the combiners' neutral elements, reading inputs through
/// `read`, then a butterfly of xor shuffles combines the lanes. Returns the
/// totals, identical in every lane (each step combines the same two values).
SmallVector<Value> reduceOnSubgroup(OpBuilder &b, Location loc, linalg::GenericOp op, const SubgroupPlan &plan,
                                    const LaneLoop &loop, ArrayRef<Value> rowIvs, int64_t subgroupSize,
                                    function_ref<Value(OpOperand &, ValueRange, int64_t)> read,
                                    ArrayRef<Value> reductionSizes) {
  SmallVector<Value> neutral;
  for (TypedAttr attr : plan.neutral)
    neutral.push_back(arith::ConstantOp::create(b, loc, attr));
  scf::ForOp forOp = loop.create(b, loc, neutral);
  {
    OpBuilder::InsertionGuard body(b);
    b.setInsertionPointToStart(forOp.getBody());
    SmallVector<SmallVector<Value>> ivs, args;
    for (int64_t u = 0; u < loop.slots(); ++u) {
      ivs.emplace_back(rowIvs);
      Value index = loop.index(b, loc, forOp, u);
      if (reductionSizes.size() <= 1) {
        ivs.back().push_back(index);
      } else {
        // The linear index over several reduction loops, innermost fastest.
        SmallVector<Value> red(reductionSizes.size());
        for (size_t d = reductionSizes.size(); d-- > 0;) {
          red[d] = d == 0 ? index : arith::RemUIOp::create(b, loc, index, reductionSizes[d]).getResult();
          if (d > 0)
            index = arith::DivUIOp::create(b, loc, index, reductionSizes[d]);
        }
        llvm::append_range(ivs.back(), red);
      }
      args.emplace_back();
      for (OpOperand *in : op.getDpsInputOperands())
        args.back().push_back(read(*in, ivs.back(), u));
    }
    SmallVector<Value> accs(forOp.getRegionIterArgs());
    for (int64_t u = 0; u < loop.slots(); ++u) {
      SmallVector<Value> all(args[u]);
      llvm::append_range(all, accs);
      accs = emitBody(b, op, all, ivs[u]);
    }
    scf::YieldOp::create(b, loc, accs);
  }
  SmallVector<Value> totals(forOp.getResults());
  Value width = arith::ConstantIntOp::create(b, loc, subgroupSize, 32);
  for (int64_t offset = subgroupSize / 2; offset >= 1; offset /= 2) {
    Value off = arith::ConstantIntOp::create(b, loc, offset, 32);
    for (auto [i, total] : llvm::enumerate(totals)) {
      Value other = gpu::ShuffleOp::create(b, loc, total, off, width, gpu::ShuffleMode::XOR).getResult(0);
      total = combine(b, plan.combiners[i], total, other);
    }
  }
  return totals;
}

SubgroupRowNest createSubgroupRowNest(RewriterBase &rewriter, Location loc, ArrayRef<OpFoldResult> rowSizes,
                                      int64_t subgroupSize, int64_t rows) {
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v).getResult(); };
  Value c0 = cst(0), c1 = cst(1), cRows = cst(rows), cLanes = cst(subgroupSize);
  SmallVector<Value> sizes;
  Value numRows = c1;
  for (OpFoldResult size : rowSizes) {
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, size));
    numRows = arith::MulIOp::create(rewriter, loc, numRows, sizes.back());
  }
  Value numBlocks = arith::CeilDivUIOp::create(rewriter, loc, numRows, cRows);
  SubgroupRowNest nest;
  nest.outer = scf::ParallelOp::create(rewriter, loc, ValueRange{c0}, ValueRange{numBlocks}, ValueRange{c1});
  rewriter.setInsertionPoint(nest.outer.getBody()->getTerminator());
  nest.inner = scf::ParallelOp::create(rewriter, loc, ValueRange{c0, c0}, ValueRange{cLanes, cRows},
                                       ValueRange{c1, c1});
  rewriter.setInsertionPoint(nest.inner.getBody()->getTerminator());
  nest.lane = nest.inner.getInductionVars()[0];
  Value row = arith::AddIOp::create(rewriter, loc,
                                    arith::MulIOp::create(rewriter, loc, nest.outer.getInductionVars()[0], cRows),
                                    nest.inner.getInductionVars()[1]);
  Value inRange = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, row, numRows);
  auto ifRow = scf::IfOp::create(rewriter, loc, inRange, /*withElseRegion=*/false);
  rewriter.setInsertionPointToStart(ifRow.thenBlock());
  nest.rowIvs.resize(sizes.size());
  Value rest = row;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    nest.rowIvs[d] = d == 0 ? rest : arith::RemUIOp::create(rewriter, loc, rest, sizes[d]).getResult();
    if (d > 0)
      rest = arith::DivUIOp::create(rewriter, loc, rest, sizes[d]);
  }
  return nest;
}

/// Replaces row reduction `op` (see planSubgroupReduction) with
/// scf.parallel (block) { scf.parallel (lane, r) { ... } }: row
/// `block * rows + r` of the collapsed parallel loops is reduced by the
/// `subgroupSize` lanes, each accumulating reduction indices lane, lane +
/// subgroupSize, ... from the neutral element; `gpu.shuffle xor` combines the
/// lanes (log2(subgroupSize) steps) and lane 0 folds in the initial value and
/// stores. The row guard is uniform across a subgroup, so every lane reaches
/// the shuffles.
std::pair<scf::ParallelOp, scf::ParallelOp> lowerToSubgroupRows(RewriterBase &rewriter, linalg::GenericOp op,
                                                                const SubgroupPlan &plan, int64_t subgroupSize,
                                                                int64_t rows, const ReductionFusion *fusion) {
  Location loc = op.getLoc();
  unsigned numParallel = op.getNumParallelLoops(), numLoops = op.getNumLoops();
  SmallVector<Range> ranges = cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc);
  SmallVector<OpFoldResult> rowSizes;
  for (unsigned d = 0; d < numParallel; ++d)
    rowSizes.push_back(ranges[d].size);
  OpBuilder::InsertionGuard guard(rewriter);
  SubgroupRowNest nest = createSubgroupRowNest(rewriter, loc, rowSizes, subgroupSize, rows);
  auto [outer, inner, lane, rowIvs] = nest;
  SmallVector<Value> ivs(rowIvs);
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  // Each lane's partial results, then the butterfly: every lane holds the
  // totals. Several reduction loops are walked as one linear index.
  SmallVector<Value> reductionSizes;
  OpFoldResult length = ranges[numLoops - 1].size;
  if (numLoops - numParallel > 1) {
    Value total = arith::ConstantIndexOp::create(rewriter, loc, 1);
    int64_t n = 1;
    for (unsigned d = numParallel; d < numLoops; ++d) {
      reductionSizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, ranges[d].size));
      total = arith::MulIOp::create(rewriter, loc, total, reductionSizes.back());
      std::optional<int64_t> r = getConstantIntValue(ranges[d].size);
      n = r && n >= 0 ? n * *r : -1;
    }
    length = n >= 0 ? OpFoldResult(rewriter.getIndexAttr(n)) : OpFoldResult(total);
  }
  LaneLoop loop(rewriter, loc, lane, length, subgroupSize);
  SmallVector<Value> totals = reduceOnSubgroup(
      rewriter, loc, op, plan, loop, ivs, subgroupSize,
      [&](OpOperand &in, ValueRange at, int64_t) { return loadOperand(rewriter, loc, op, in, at); }, reductionSizes);
  Value isLane0 = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane, c0);
  auto ifLane0 = scf::IfOp::create(rewriter, loc, isLane0, /*withElseRegion=*/false);
  rewriter.setInsertionPointToStart(ifLane0.thenBlock());
  if (fusion) {
    Value init = initialValue(rewriter, loc, op, ivs, fusion);
    storeResult(rewriter, loc, op, combine(rewriter, plan.combiners[0], init, totals[0]), ivs, fusion);
    return {outer, inner};
  }
  for (auto [i, out] : llvm::enumerate(op.getDpsInitsMutable())) {
    Value init = loadOperand(rewriter, loc, op, out, ivs);
    memref::StoreOp::create(rewriter, loc, combine(rewriter, plan.combiners[i], init, totals[i]), out.get(),
                            indicesAt(rewriter, loc, op.getMatchingIndexingMap(&out), ivs));
  }
  return {outer, inner};
}

} // namespace kiln::gpu_map

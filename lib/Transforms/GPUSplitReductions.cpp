//===- GPUSplitReductions.cpp - few-output reductions in two stages for the GPU ===//
//
// A reduction whose outputs are few and whose iterations are many makes its
// outermost reduction loops parallel loops of a partial result (filled with
// the combiner's neutral element), then reduces the partials along them into
// the op's own outputs. See kiln-gpu-split-reductions in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "kiln/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_KILNGPUSPLITREDUCTIONS
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct SplitLimits {
  int64_t maxOutputs, minIterations, partials, minPartialIterations;
};

/// What splitting `op` takes: the reduction loops that become parallel in the
/// first stage, and each output's combiner and neutral element.
struct SplitPlan {
  SmallVector<unsigned> loops;
  SmallVector<Operation *> combiners;
  SmallVector<TypedAttr> neutrals;
};

std::optional<SplitPlan> planSplit(linalg::GenericOp op, const SplitLimits &lim) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  int64_t outputs = 1, iterations = 1;
  llvm::SmallBitVector parallel(iters.size());
  for (auto [d, it] : llvm::enumerate(iters)) {
    if (it == utils::IteratorType::parallel) {
      parallel.set(d);
      outputs *= ranges[d];
    } else {
      iterations *= ranges[d];
    }
  }
  if (parallel.all() || outputs > lim.maxOutputs || iterations < lim.minIterations)
    return std::nullopt;
  // Every output is indexed by exactly the parallel loops, the same way.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation())
    return std::nullopt;
  llvm::SmallBitVector used(iters.size());
  for (AffineExpr e : outMap.getResults())
    used.set(cast<AffineDimExpr>(e).getPosition());
  if (used != parallel)
    return std::nullopt;
  SplitPlan plan;
  SmallVector<BlockArgument> outArgs(op.getRegionOutputArgs());
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (op.getMatchingIndexingMap(&init) != outMap)
      return std::nullopt;
    SmallVector<Operation *> combiners;
    unsigned i = init.getOperandNumber() - op.getNumDpsInputs();
    if (!matchReduction(outArgs, i, combiners) || combiners.size() != 1)
      return std::nullopt;
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combiners[0]);
    if (!neutral || combiners[0]->getNumResults() != 1)
      return std::nullopt;
    plan.combiners.push_back(combiners[0]);
    plan.neutrals.push_back(*neutral);
  }
  // Outermost reduction loops first, while the partials stay few enough and
  // each keeps enough iterations.
  for (auto [d, it] : llvm::enumerate(iters)) {
    if (it != utils::IteratorType::reduction)
      continue;
    if (outputs * ranges[d] > lim.partials || iterations / ranges[d] < lim.minPartialIterations)
      break;
    plan.loops.push_back(d);
    outputs *= ranges[d];
    iterations /= ranges[d];
  }
  if (plan.loops.empty())
    return std::nullopt;
  return plan;
}

void split(RewriterBase &rw, linalg::GenericOp op, const SplitPlan &plan) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  unsigned numLoops = iters.size();
  rw.setInsertionPoint(op);

  // Stage 1: the chosen loops become parallel dims of each partial result.
  SmallVector<AffineExpr> partialExprs(outMap.getResults());
  SmallVector<int64_t> partialShape;
  for (AffineExpr e : outMap.getResults())
    partialShape.push_back(ranges[cast<AffineDimExpr>(e).getPosition()]);
  for (unsigned d : plan.loops) {
    partialExprs.push_back(getAffineDimExpr(d, ctx));
    partialShape.push_back(ranges[d]);
    iters[d] = utils::IteratorType::parallel;
  }
  AffineMap partialMap = AffineMap::get(numLoops, 0, partialExprs, ctx);
  SmallVector<Value> partialInits;
  SmallVector<Type> partialTypes;
  for (auto [i, init] : llvm::enumerate(op.getDpsInits())) {
    Type elem = getElementTypeOrSelf(init.getType());
    Value empty = tensor::EmptyOp::create(rw, loc, partialShape, elem);
    Value neutral = arith::ConstantOp::create(rw, loc, plan.neutrals[i]);
    partialInits.push_back(linalg::FillOp::create(rw, loc, neutral, empty).getResult(0));
    partialTypes.push_back(partialInits.back().getType());
  }
  SmallVector<AffineMap> maps;
  for (OpOperand *in : op.getDpsInputOperands())
    maps.push_back(op.getMatchingIndexingMap(in));
  maps.append(op.getNumDpsInits(), partialMap);
  auto stage1 = linalg::GenericOp::create(rw, loc, partialTypes, op.getDpsInputs(), partialInits, maps,
                                          iters);
  rw.cloneRegionBefore(op.getRegion(), stage1.getRegion(), stage1.getRegion().begin());

  // Stage 2: the partials reduced along the chosen loops into the outputs.
  // Its loops: the output's dims in order, then the chosen loops.
  unsigned rank = outMap.getNumResults(), n2 = rank + plan.loops.size();
  SmallVector<AffineExpr> outExprs, inExprs;
  for (unsigned r = 0; r < n2; ++r)
    (r < rank ? outExprs : inExprs).push_back(getAffineDimExpr(r, ctx));
  AffineMap out2 = AffineMap::get(n2, 0, outExprs, ctx);
  AffineMap in2 = AffineMap::getMultiDimIdentityMap(n2, ctx);
  SmallVector<utils::IteratorType> iters2(rank, utils::IteratorType::parallel);
  iters2.append(plan.loops.size(), utils::IteratorType::reduction);
  SmallVector<AffineMap> maps2(op.getNumDpsInits(), in2);
  maps2.append(op.getNumDpsInits(), out2);
  SmallVector<Value> inits(op.getDpsInits());
  auto stage2 = linalg::GenericOp::create(
      rw, loc, op.getResultTypes(), stage1.getResults(), inits, maps2, iters2,
      [&](OpBuilder &b, Location l, ValueRange args) {
        unsigned k = plan.combiners.size();
        SmallVector<Value> yields;
        for (unsigned i = 0; i < k; ++i) {
          Operation *c = plan.combiners[i];
          BlockArgument outArg = op.getRegionOutputArgs()[i];
          IRMapping map;
          // The combiner reads the output's own value and one other value.
          for (Value operand : c->getOperands())
            map.map(operand, operand == outArg ? args[k + i] : args[i]);
          yields.push_back(b.clone(*c, map)->getResult(0));
        }
        linalg::YieldOp::create(b, l, yields);
      });
  rw.replaceOp(op, stage2.getResults());
}

struct KilnGPUSplitReductionsPass
    : kiln::impl::KilnGPUSplitReductionsBase<KilnGPUSplitReductionsPass> {
  using Base::Base;
  void runOnOperation() override {
    SplitLimits lim{maxOutputs, minIterations, partials, minPartialIterations};
    SmallVector<std::pair<linalg::GenericOp, SplitPlan>> work;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<SplitPlan> plan = planSplit(op, lim))
        work.emplace_back(op, std::move(*plan));
    });
    IRRewriter rw(&getContext());
    for (auto &[op, plan] : work)
      split(rw, op, plan);
  }
};

} // namespace

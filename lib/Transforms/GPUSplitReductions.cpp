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
  /// The partials' dims in loop order (the layout of the input the loops
  /// follow) rather than the outputs' dims, then the chosen loops.
  bool loopOrder = false;
  /// Set when no loop can be taken because the first reduction loop alone is
  /// too long: that loop and the number of pieces it can be cut into.
  std::optional<std::pair<unsigned, int64_t>> cut;
  SmallVector<Operation *> combiners;
  SmallVector<TypedAttr> neutrals;
};

/// The layout split (see planLayoutSplit): a reduction reading fewer elements
/// than this is left alone (a batch-1 squeeze-excite pool: two launches would
/// cost more than the strided reads they save),
constexpr int64_t kLayoutMinElements = int64_t(1) << 18;
/// loops are taken while the partials are fewer than this (a quarter of the
/// threads an H200's 132 SMs hold, enough to keep the loads in flight),
constexpr int64_t kLayoutEnoughPartials = int64_t(1) << 17;
/// at least this many partials or no split (fewer threads would not pay for
/// the second launch), never more than this, and each partial keeps at least
/// this many iterations.
constexpr int64_t kLayoutMinPartials = int64_t(1) << 15;
constexpr int64_t kLayoutMaxPartials = int64_t(1) << 21;
constexpr int64_t kLayoutMinPartialIterations = 4;

/// The plan's combiners if every output of `op` is indexed by exactly the
/// `parallel` loops, the same way, and accumulated by one associative
/// combiner with a neutral element. False otherwise.
static bool planCombiners(linalg::GenericOp op, const llvm::SmallBitVector &parallel, SplitPlan &plan) {
  // Every output is indexed by exactly the parallel loops, the same way.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation())
    return false;
  llvm::SmallBitVector used(parallel.size());
  for (AffineExpr e : outMap.getResults())
    used.set(cast<AffineDimExpr>(e).getPosition());
  if (used != parallel)
    return false;
  SmallVector<BlockArgument> outArgs(op.getRegionOutputArgs());
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (op.getMatchingIndexingMap(&init) != outMap)
      return false;
    SmallVector<Operation *> combiners;
    unsigned i = init.getOperandNumber() - op.getNumDpsInputs();
    if (!matchReduction(outArgs, i, combiners) || combiners.size() != 1)
      return false;
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combiners[0]);
    if (!neutral || combiners[0]->getNumResults() != 1)
      return false;
    plan.combiners.push_back(combiners[0]);
    plan.neutrals.push_back(*neutral);
  }
  return true;
}

/// The layout split: a reduction over the outer dims of a map whose innermost
/// dim is an output dim (an NHWC pool over H and W: a squeeze-excite or global
/// average pool at a large batch, a channels-last batch norm's statistics).
/// Its loops follow the input's layout (kiln-vector-friendly-loops), the last
/// one parallel and the last index of some input, and no input's last index is
/// a reduction loop. One thread per output reads coalesced along that dim but
/// has few threads, each a long loop; a subgroup per output has more lanes,
/// but they read elements a whole row apart. Here the outermost reduction
/// loops become parallel dims of the partials, in loop order (so the
/// partials keep the input's layout and the first stage's threads read
/// neighbouring elements), outermost first, until the partials are enough
/// threads for the GPU (see the constants for the bounds).
/// Every input is read through a projected permutation (no windows).
static std::optional<SplitPlan> planLayoutSplit(linalg::GenericOp op, ArrayRef<int64_t> ranges,
                                                const llvm::SmallBitVector &parallel, int64_t outputs,
                                                int64_t iterations) {
  unsigned last = ranges.size() - 1;
  if (!parallel.test(last) || outputs >= kLayoutEnoughPartials || outputs * iterations < kLayoutMinElements)
    return std::nullopt;
  bool coalesced = false;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    // Windows (a depthwise convolution, a pool with a kernel) are left to
    // their own kernel forms.
    if (!map.isProjectedPermutation())
      return std::nullopt;
    if (map.getNumResults() == 0)
      continue;
    AffineExpr inner = map.getResults().back();
    for (unsigned d = 0; d <= last; ++d)
      if (!parallel.test(d) && inner.isFunctionOfDim(d))
        return std::nullopt;
    coalesced |= inner == getAffineDimExpr(last, op.getContext());
  }
  if (!coalesced)
    return std::nullopt;
  SplitPlan plan;
  plan.loopOrder = true;
  for (unsigned d = 0; d <= last && outputs < kLayoutEnoughPartials; ++d) {
    if (parallel.test(d))
      continue;
    if (outputs * ranges[d] > kLayoutMaxPartials || iterations / ranges[d] < kLayoutMinPartialIterations)
      break;
    plan.loops.push_back(d);
    outputs *= ranges[d];
    iterations /= ranges[d];
  }
  if (plan.loops.empty() || outputs < kLayoutMinPartials || !planCombiners(op, parallel, plan))
    return std::nullopt;
  return plan;
}

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
  if (parallel.all())
    return std::nullopt;
  if (std::optional<SplitPlan> plan = planLayoutSplit(op, ranges, parallel, outputs, iterations))
    return plan;
  if (outputs > lim.maxOutputs || iterations < lim.minIterations)
    return std::nullopt;
  SplitPlan plan;
  if (!planCombiners(op, parallel, plan))
    return std::nullopt;
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
  if (plan.loops.empty()) {
    // The first reduction loop alone would make too many partials: cut it
    // into k pieces (k dividing it, as many as the partials allow, each
    // piece's partial keeping enough iterations).
    auto first = llvm::find(iters, utils::IteratorType::reduction);
    unsigned d = first - iters.begin();
    int64_t size = ranges[d];
    for (int64_t k = std::min<int64_t>(size - 1, lim.partials / outputs); k >= 2; --k)
      if (size % k == 0 && iterations / k >= lim.minPartialIterations) {
        plan.cut = std::make_pair(d, k);
        return plan;
      }
    return std::nullopt;
  }
  return plan;
}

/// `op` with reduction loop `d` cut into an outer loop of `k` and an inner one
/// (d = outer * (size / k) + inner): every input reading `d` as one plain
/// result is viewed through tensor.expand_shape with that dim split in two.
/// Null if an input uses `d` otherwise, or the body reads loop indices.
linalg::GenericOp cutLoop(RewriterBase &rw, linalg::GenericOp op, unsigned d, int64_t k) {
  if (!op.getBody()->getOps<linalg::IndexOp>().empty())
    return nullptr;
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t inner = ranges[d] / k;
  unsigned n = ranges.size();
  // Old loop j -> new loop: j before d, j + 1 after; d is the outer piece.
  auto shifted = [&](unsigned j) { return getAffineDimExpr(j <= d ? j : j + 1, ctx); };
  SmallVector<AffineExpr> repl;
  for (unsigned j = 0; j < n; ++j)
    repl.push_back(shifted(j));
  rw.setInsertionPoint(op);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap m = op.getMatchingIndexingMap(in);
    int pos = -1;
    for (auto [r, e] : llvm::enumerate(m.getResults())) {
      if (auto de = dyn_cast<AffineDimExpr>(e); de && de.getPosition() == d) {
        if (pos >= 0)
          return nullptr;
        pos = r;
      } else if (e.isFunctionOfDim(d)) {
        return nullptr;
      }
    }
    if (pos < 0) {
      inputs.push_back(in->get());
      maps.push_back(m.replaceDimsAndSymbols(repl, {}, n + 1, 0));
      continue;
    }
    auto ty = cast<RankedTensorType>(in->get().getType());
    SmallVector<int64_t> shape(ty.getShape());
    shape[pos] = inner;
    shape.insert(shape.begin() + pos, k);
    SmallVector<ReassociationIndices> groups;
    for (int64_t r = 0, o = 0; r < ty.getRank(); ++r) {
      groups.push_back(r == pos ? ReassociationIndices{o, o + 1} : ReassociationIndices{o});
      o += r == pos ? 2 : 1;
    }
    inputs.push_back(tensor::ExpandShapeOp::create(rw, loc, RankedTensorType::get(shape, ty.getElementType()),
                                                   in->get(), groups));
    SmallVector<AffineExpr> exprs;
    for (auto [r, e] : llvm::enumerate(m.getResults())) {
      if ((int)r == pos) {
        exprs.push_back(getAffineDimExpr(d, ctx));
        exprs.push_back(getAffineDimExpr(d + 1, ctx));
      } else {
        exprs.push_back(e.replaceDimsAndSymbols(repl, {}));
      }
    }
    maps.push_back(AffineMap::get(n + 1, 0, exprs, ctx));
  }
  for (OpOperand &init : op.getDpsInitsMutable())
    maps.push_back(op.getMatchingIndexingMap(&init).replaceDimsAndSymbols(repl, {}, n + 1, 0));
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  iters.insert(iters.begin() + d + 1, utils::IteratorType::reduction);
  auto cut = linalg::GenericOp::create(rw, loc, op.getResultTypes(), inputs, op.getDpsInits(), maps, iters);
  rw.cloneRegionBefore(op.getRegion(), cut.getRegion(), cut.getRegion().begin());
  rw.replaceOp(op, cut.getResults());
  return cut;
}

void split(RewriterBase &rw, linalg::GenericOp op, const SplitPlan &plan) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  unsigned numLoops = iters.size();
  rw.setInsertionPoint(op);

  // Stage 1: the chosen loops become parallel dims of each partial result,
  // after the output's dims or (loopOrder) among them in loop order.
  SmallVector<unsigned> partialDims;
  for (AffineExpr e : outMap.getResults())
    partialDims.push_back(cast<AffineDimExpr>(e).getPosition());
  llvm::append_range(partialDims, plan.loops);
  if (plan.loopOrder)
    llvm::sort(partialDims);
  SmallVector<AffineExpr> partialExprs;
  SmallVector<int64_t> partialShape;
  for (unsigned d : partialDims) {
    partialExprs.push_back(getAffineDimExpr(d, ctx));
    partialShape.push_back(ranges[d]);
  }
  for (unsigned d : plan.loops)
    iters[d] = utils::IteratorType::parallel;
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
  // Its loops: the output's dims in order, then the chosen loops; the
  // partials read in their own dim order.
  unsigned rank = outMap.getNumResults(), n2 = rank + plan.loops.size();
  SmallVector<AffineExpr> outExprs;
  for (unsigned r = 0; r < rank; ++r)
    outExprs.push_back(getAffineDimExpr(r, ctx));
  SmallVector<unsigned> stage2Loop(numLoops);
  for (auto [r, e] : llvm::enumerate(outMap.getResults()))
    stage2Loop[cast<AffineDimExpr>(e).getPosition()] = r;
  for (auto [j, d] : llvm::enumerate(plan.loops))
    stage2Loop[d] = rank + j;
  SmallVector<AffineExpr> inExprs;
  for (unsigned d : partialDims)
    inExprs.push_back(getAffineDimExpr(stage2Loop[d], ctx));
  AffineMap out2 = AffineMap::get(n2, 0, outExprs, ctx);
  AffineMap in2 = AffineMap::get(n2, 0, inExprs, ctx);
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
    for (auto &[op, plan] : work) {
      if (!plan.cut) {
        split(rw, op, plan);
        continue;
      }
      linalg::GenericOp cut = cutLoop(rw, op, plan.cut->first, plan.cut->second);
      std::optional<SplitPlan> again = cut ? planSplit(cut, lim) : std::nullopt;
      if (again && !again->cut)
        split(rw, cut, *again);
    }
  }
};

} // namespace

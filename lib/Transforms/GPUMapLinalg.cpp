//===- GPUMapLinalg.cpp - linalg ops on buffers as GPU kernel launches ----===//
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
  return memref::LoadOp::create(b, loc, operand.get(),
                                indicesAt(b, loc, op.getMatchingIndexingMap(&operand), ivs));
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
scf::ParallelOp lowerToThreadLoops(RewriterBase &rewriter, linalg::GenericOp op) {
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
      inits.push_back(loadOperand(rewriter, loc, op, out, ivs));
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
  for (auto [out, v] : llvm::zip(carried, results))
    store(*out, v);
  return par;
}

/// How an elementwise op runs several elements per thread: its innermost
/// loops (the run: loops `runStart` and after) have static sizes and are, in
/// every memref operand that uses them, that operand's trailing dims in
/// order, packed with unit stride; every other operand (a per-channel
/// weight, a scalar) does not use them. A thread then owns `width`
/// consecutive elements of the run: one vector load or store per operand
/// along the run, one scalar load per other operand.
struct VectorPlan {
  unsigned runStart = 0;
  int64_t runLength = 0; ///< product of the run's sizes
  int64_t width = 0;     ///< elements per thread: a power of two dividing runLength
  SmallVector<bool> alongRun; ///< per operand (by number): indexed by the run
};

/// The bytes of one element of `t` if a vector of them is a packed array of
/// them in memory (integers and floats of whole bytes), else 0 (i1, index).
int64_t packedElementBytes(Type t) {
  if (!t.isIntOrFloat() || t.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  return t.getIntOrFloatBitWidth() / 8;
}

/// Whether `map` (of a memref of type `type`) holds loops `runStart`..
/// `sizes.size() - 1` as its trailing results, in order, packed with unit
/// stride, no other result using them.
bool holdsRun(AffineMap map, MemRefType type, unsigned runStart, ArrayRef<int64_t> sizes) {
  unsigned n = sizes.size(), k = n - runStart, numResults = map.getNumResults();
  if (numResults < k)
    return false;
  for (unsigned j = 0; j < numResults - k; ++j)
    for (unsigned d = runStart; d < n; ++d)
      if (map.getResult(j).isFunctionOfDim(d))
        return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (unsigned j = k; j-- > 0;) {
    unsigned dim = numResults - k + j;
    auto d = dyn_cast<AffineDimExpr>(map.getResult(dim));
    if (!d || d.getPosition() != runStart + j || strides[dim] != expected)
      return false;
    expected *= sizes[runStart + j];
  }
  return true;
}

bool independentOfRun(AffineMap map, unsigned runStart) {
  for (unsigned d = runStart; d < map.getNumDims(); ++d)
    if (map.isFunctionOfDim(d))
      return false;
  return true;
}

/// The plan for `op` if it is elementwise (parallel loops only, after
/// gpuLoopOrder) and a run of its innermost loops can be vectorised (see
/// VectorPlan): the longest such run, and the widest power of two up to 8
/// elements and `maxBytes` bytes of its narrowest operand along the run that
/// divides the run's length and keeps every vector aligned where strides
/// and offsets are static (the others are checked as the kernel runs). None
/// otherwise: a dynamic innermost size, an operand that reads the innermost
/// loop strided or transposed, or broadcast along it but not along the whole
/// run, i1 or index elements along the run, a length no width divides.
std::optional<VectorPlan> planVectorElementwise(linalg::GenericOp op, int64_t maxBytes) {
  unsigned n = op.getNumLoops();
  if (n == 0 || op.getNumParallelLoops() != n || maxBytes < 2)
    return std::nullopt;
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  std::optional<VectorPlan> best;
  int64_t bestMinBytes = 0;
  for (unsigned runStart = n; runStart-- > 0;) {
    if (ShapedType::isDynamic(sizes[runStart]))
      break;
    VectorPlan plan;
    plan.runStart = runStart;
    plan.runLength = 1;
    for (unsigned d = runStart; d < n; ++d)
      plan.runLength *= sizes[d];
    int64_t minBytes = maxBytes;
    bool ok = true;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!type) {
        plan.alongRun.push_back(false);
        continue;
      }
      if (!op.isDpsInit(&operand) && independentOfRun(map, runStart)) {
        plan.alongRun.push_back(false);
        continue;
      }
      int64_t bytes = packedElementBytes(type.getElementType());
      if (!bytes || !holdsRun(map, type, runStart, sizes)) {
        ok = false;
        break;
      }
      minBytes = std::min(minBytes, bytes);
      plan.alongRun.push_back(true);
    }
    if (!ok)
      break;
    best = std::move(plan);
    bestMinBytes = minBytes;
  }
  if (!best)
    return std::nullopt;
  // Static strides and offsets must keep each vector aligned to its bytes
  // (at most maxBytes); a narrower vector needs less.
  auto alignedStatically = [&](int64_t width) {
    for (OpOperand &operand : op->getOpOperands()) {
      if (!best->alongRun[operand.getOperandNumber()])
        continue;
      auto type = cast<MemRefType>(operand.get().getType());
      int64_t bytes = packedElementBytes(type.getElementType());
      int64_t align = std::min(maxBytes, width * bytes);
      SmallVector<int64_t> strides;
      int64_t offset;
      (void)type.getStridesAndOffset(strides, offset);
      unsigned outer = strides.size() - (n - best->runStart);
      for (unsigned j = 0; j < outer; ++j)
        if (!ShapedType::isDynamic(strides[j]) && (strides[j] * bytes) % align != 0)
          return false;
      if (!ShapedType::isDynamic(offset) && (offset * bytes) % align != 0)
        return false;
    }
    return true;
  };
  if (bestMinBytes == 0)
    return std::nullopt;
  int64_t width = std::min<int64_t>(8, llvm::bit_floor(static_cast<uint64_t>(maxBytes / bestMinBytes)));
  while (width >= 2 && (best->runLength % width != 0 || !alignedStatically(width)))
    width /= 2;
  if (width < 2)
    return std::nullopt;
  best->width = width;
  return best;
}

/// i1: whether every vector that starts at a multiple of the vector's
/// elements along the last dim of `buffer` (unit stride) is aligned to
/// `align` bytes: its first element (aligned pointer plus offset) and its
/// other dynamic strides, as the kernel runs (static strides are checked
/// when the width is chosen).
Value vectorsAligned(OpBuilder &b, Location loc, Value buffer, int64_t align) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t bytes = packedElementBytes(type.getElementType());
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  Value mask = cst(align - 1), cBytes = cst(bytes), c0 = cst(0);
  auto isAligned = [&](Value byteCount) {
    Value low = arith::AndIOp::create(b, loc, byteCount, mask);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low, c0).getResult();
  };
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, buffer);
  Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
  Value ok = isAligned(
      arith::AddIOp::create(b, loc, ptr, arith::MulIOp::create(b, loc, meta.getOffset(), cBytes)));
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  for (unsigned d = 0; d + 1 < strides.size(); ++d)
    if (ShapedType::isDynamic(strides[d]))
      ok = arith::AndIOp::create(b, loc, ok, isAligned(arith::MulIOp::create(b, loc, meta.getStrides()[d], cBytes)));
  return ok;
}

/// Replaces elementwise `op` with an scf.parallel over its loops before the
/// run and one loop over the run's vectors (see VectorPlan): each iteration
/// loads `width` elements of each operand along the run with one aligned
/// vector.load (operands of more than one run dim are first viewed with the
/// run collapsed into one dim), the others once, runs the body per element
/// and stores each output's `width` results with one vector.store. Where a
/// base pointer, offset or stride known only at run time misaligns a vector,
/// the iteration takes the same elements one at a time instead.
scf::ParallelOp lowerToVectorThreadLoops(RewriterBase &rewriter, linalg::GenericOp op, const VectorPlan &plan,
                                         int64_t maxBytes) {
  Location loc = op.getLoc();
  unsigned n = op.getNumLoops(), runStart = plan.runStart, k = n - runStart;
  int64_t width = plan.width;
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  SmallVector<Range> ranges = cast<linalg::LinalgOp>(op.getOperation()).createLoopRanges(rewriter, loc);
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v).getResult(); };
  auto value = [&](OpFoldResult r) { return getValueOrCreateConstantIndexOp(rewriter, loc, r); };
  // Operands along the run, viewed with the run as their last dim.
  SmallVector<Value> views;
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    if (plan.alongRun[operand.getOperandNumber()] && k > 1) {
      unsigned rank = cast<MemRefType>(v.getType()).getRank();
      SmallVector<ReassociationIndices> groups;
      for (unsigned d = 0; d + k < rank; ++d)
        groups.push_back({static_cast<int64_t>(d)});
      groups.emplace_back();
      for (unsigned d = rank - k; d < rank; ++d)
        groups.back().push_back(d);
      v = memref::CollapseShapeOp::create(rewriter, loc, v, groups);
    }
    views.push_back(v);
  }
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned i = 0; i < runStart; ++i) {
    lbs.push_back(value(ranges[i].offset));
    ubs.push_back(value(ranges[i].size));
    steps.push_back(value(ranges[i].stride));
  }
  lbs.push_back(cst(0));
  ubs.push_back(cst(plan.runLength / width));
  steps.push_back(cst(1));
  auto par = scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(par.getBody()->getTerminator());
  SmallVector<Value> parIvs = par.getInductionVars();
  Value c0 = cst(0);
  Value first = arith::MulIOp::create(rewriter, loc, parIvs.back(), cst(width));
  // The loop indices of run element `r`, the run's loops split out of it.
  auto ivsAt = [&](Value r) {
    SmallVector<Value> ivs(ArrayRef<Value>(parIvs).drop_back());
    ivs.resize(n);
    for (unsigned d = n; d-- > runStart;) {
      ivs[d] = d == runStart ? r : arith::RemUIOp::create(rewriter, loc, r, cst(sizes[d])).getResult();
      if (d > runStart)
        r = arith::DivUIOp::create(rewriter, loc, r, cst(sizes[d]));
    }
    return ivs;
  };
  SmallVector<Value> outerIvs(ArrayRef<Value>(parIvs).drop_back());
  outerIvs.resize(n, c0); // the run's loops are not used by what they index
  // Where operand `operand` (along the run) holds run element `r`.
  auto runIndices = [&](OpOperand &operand, Value r) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    SmallVector<Value> indices =
        indicesAt(rewriter, loc, map.getSliceMap(0, map.getNumResults() - k), outerIvs);
    indices.push_back(r);
    return indices;
  };
  // Operands not along the run: one element (or the scalar) per thread.
  SmallVector<Value> fixed(op->getNumOperands());
  for (OpOperand &operand : op->getOpOperands()) {
    unsigned i = operand.getOperandNumber();
    if (plan.alongRun[i])
      continue;
    if (!isa<MemRefType>(operand.get().getType()))
      fixed[i] = operand.get();
    else
      fixed[i] = memref::LoadOp::create(rewriter, loc, operand.get(),
                                        indicesAt(rewriter, loc, op.getMatchingIndexingMap(&operand), outerIvs));
  }
  auto reads = [&](OpOperand &operand) {
    return !op.isDpsInit(&operand) || op.payloadUsesValueFromOperand(&operand);
  };
  auto poison = [&](OpOperand &out) -> Value {
    unsigned i = out.getOperandNumber() - op.getNumDpsInputs();
    return ub::PoisonOp::create(rewriter, loc, op.getRegionOutputArgs()[i].getType());
  };
  auto alignOf = [&](OpOperand &operand) {
    int64_t bytes = packedElementBytes(getElementTypeOrSelf(operand.get().getType()));
    return std::min(maxBytes, width * bytes);
  };
  // Every vector aligned: each view's first element, and its dynamic
  // strides outside the run.
  Value aligned = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
  for (OpOperand &operand : op->getOpOperands())
    if (plan.alongRun[operand.getOperandNumber()])
      aligned = arith::AndIOp::create(rewriter, loc, aligned,
                                      vectorsAligned(rewriter, loc, views[operand.getOperandNumber()], alignOf(operand)));
  auto ifAligned = scf::IfOp::create(rewriter, loc, aligned, /*withElseRegion=*/true);
  {
    // Vectors: load, run the body per element, store.
    rewriter.setInsertionPointToStart(ifAligned.thenBlock());
    SmallVector<Value> vectors(op->getNumOperands());
    for (OpOperand &operand : op->getOpOperands()) {
      unsigned i = operand.getOperandNumber();
      if (plan.alongRun[i] && reads(operand))
        vectors[i] = vector::LoadOp::create(
            rewriter, loc, VectorType::get({width}, getElementTypeOrSelf(operand.get().getType())), views[i],
            runIndices(operand, first), /*nontemporal=*/false, llvm::MaybeAlign(alignOf(operand)));
    }
    SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
    for (int64_t u = 0; u < width; ++u) {
      SmallVector<Value> args;
      for (OpOperand &operand : op->getOpOperands()) {
        unsigned i = operand.getOperandNumber();
        if (!reads(operand))
          args.push_back(poison(operand));
        else if (plan.alongRun[i])
          args.push_back(vector::ExtractOp::create(rewriter, loc, vectors[i], ArrayRef<int64_t>{u}));
        else
          args.push_back(fixed[i]);
      }
      Value r = u == 0 ? first : arith::AddIOp::create(rewriter, loc, first, cst(u)).getResult();
      for (auto [j, v] : llvm::enumerate(emitBody(rewriter, op, args, ivsAt(r))))
        results[j].push_back(v);
    }
    for (OpOperand &out : op.getDpsInitsMutable()) {
      SmallVector<Value> &elements = results[out.getOperandNumber() - op.getNumDpsInputs()];
      Value vec = vector::FromElementsOp::create(
          rewriter, loc, VectorType::get({width}, elements.front().getType()), elements);
      vector::StoreOp::create(rewriter, loc, vec, views[out.getOperandNumber()], runIndices(out, first),
                              /*nontemporal=*/false, llvm::MaybeAlign(alignOf(out)));
    }
  }
  {
    // Misaligned: the same elements one at a time.
    rewriter.setInsertionPointToStart(ifAligned.elseBlock());
    auto each = scf::ForOp::create(rewriter, loc, c0, cst(width), cst(1));
    rewriter.setInsertionPointToStart(each.getBody());
    Value r = arith::AddIOp::create(rewriter, loc, first, each.getInductionVar());
    SmallVector<Value> args;
    for (OpOperand &operand : op->getOpOperands()) {
      unsigned i = operand.getOperandNumber();
      if (!reads(operand))
        args.push_back(poison(operand));
      else if (plan.alongRun[i])
        args.push_back(memref::LoadOp::create(rewriter, loc, views[i], runIndices(operand, r)));
      else
        args.push_back(fixed[i]);
    }
    for (auto [out, v] : llvm::zip(op.getDpsInitsMutable(), emitBody(rewriter, op, args, ivsAt(r))))
      memref::StoreOp::create(rewriter, loc, v, views[out.getOperandNumber()], runIndices(out, r));
  }
  return par;
}

/// How a row reduction runs on a subgroup: per output, the op combining the
/// accumulator with each new value, and that op's neutral element.
struct SubgroupPlan {
  SmallVector<Operation *> combiners;
  SmallVector<TypedAttr> neutral;
};

/// The combiners of `op`'s outputs: each output accumulated by exactly one
/// associative combiner on f32 or i32 with a neutral element, and never
/// indexed by a reduction loop. None otherwise.
std::optional<SubgroupPlan> planCombiners(linalg::GenericOp op) {
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

/// The loop over the row elements a lane owns. With `width` 1: lane, lane +
/// subgroupSize, ... below the row length; where the length is a static
/// multiple of the subgroup, it counts a static number of steps, `unroll` at
/// a time, and each chunk loads all its elements before using any (an
/// elementwise op's or a reduction step's element depends on its own inputs
/// only), so a lane has that many loads in flight; otherwise it strides one
/// element at a time. With `width` > 1 (the length a static multiple of
/// subgroupSize * width) a lane owns vectors of `width` consecutive
/// elements instead: vector lane, lane + subgroupSize, ..., `unroll` vectors
/// an iteration. An iteration's elements are its slots: slot s is element
/// s % width of its vector s / width.
struct LaneLoop {
  Value lane, length, lanes;
  int64_t steps = 0, unroll = 1; ///< steps == 0: the strided form
  int64_t width = 1;

  LaneLoop(OpBuilder &b, Location loc, Value lane, OpFoldResult length, int64_t subgroupSize, int64_t width = 1)
      : lane(lane), width(width) {
    this->length = getValueOrCreateConstantIndexOp(b, loc, length);
    lanes = arith::ConstantIndexOp::create(b, loc, subgroupSize);
    std::optional<int64_t> n = getConstantIntValue(length);
    if (!n || *n % (subgroupSize * width) != 0) {
      this->width = 1;
      if (!n || *n % subgroupSize != 0)
        return;
    }
    steps = *n / (subgroupSize * this->width);
    // Up to 8 elements, or up to 32 in vectors, in flight per lane.
    for (int64_t u : {8, 4, 3, 2})
      if (steps % u == 0 && (this->width == 1 ? u != 3 : u * this->width <= 32)) {
        unroll = u;
        break;
      }
  }

  int64_t slots() const { return unroll * width; }

  scf::ForOp create(OpBuilder &b, Location loc, ValueRange inits) const {
    if (steps == 0)
      return scf::ForOp::create(b, loc, lane, length, lanes, inits);
    return scf::ForOp::create(b, loc, arith::ConstantIndexOp::create(b, loc, 0),
                              arith::ConstantIndexOp::create(b, loc, steps),
                              arith::ConstantIndexOp::create(b, loc, unroll), inits);
  }

  /// The first element of vector `u` (the element itself with width 1) in
  /// iteration `loop`.
  Value vectorStart(OpBuilder &b, Location loc, scf::ForOp loop, int64_t u) const {
    if (steps == 0)
      return loop.getInductionVar();
    Value step = loop.getInductionVar();
    if (u > 0)
      step = arith::AddIOp::create(b, loc, step, arith::ConstantIndexOp::create(b, loc, u));
    Value v = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, step, lanes), lane);
    if (width == 1)
      return v;
    return arith::MulIOp::create(b, loc, v, arith::ConstantIndexOp::create(b, loc, width));
  }

  /// The element index of slot `slot` in iteration `loop`.
  Value index(OpBuilder &b, Location loc, scf::ForOp loop, int64_t slot) const {
    Value start = vectorStart(b, loc, loop, slot / width);
    if (slot % width == 0)
      return start;
    return arith::AddIOp::create(b, loc, start, arith::ConstantIndexOp::create(b, loc, slot % width));
  }
};

/// Reduces the row at `rowIvs` of `op` (loops: parallel, then the one
/// reduction loop) across a subgroup: each lane accumulates its elements
/// (`loop`) from the combiners' neutral elements, reading inputs through
/// `read`, then a butterfly of xor shuffles combines the lanes. Returns the
/// totals, identical in every lane (each step combines the same two values).
SmallVector<Value> reduceOnSubgroup(OpBuilder &b, Location loc, linalg::GenericOp op, const SubgroupPlan &plan,
                                    const LaneLoop &loop, ArrayRef<Value> rowIvs, int64_t subgroupSize,
                                    function_ref<Value(OpOperand &, ValueRange, int64_t)> read,
                                    ArrayRef<Value> reductionSizes = {}) {
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

/// The loops of a subgroup-per-row kernel: scf.parallel (block) {
/// scf.parallel (lane, r) { if (row < rows of `sizes`) { ... } } }, row
/// `block * rows + r` of the collapsed row loops. Leaves the builder inside
/// the guard (callers hold an InsertionGuard). The guard is uniform across a
/// subgroup, so every lane of a row reaches its shuffles.
struct SubgroupRowNest {
  scf::ParallelOp outer, inner;
  Value lane;
  SmallVector<Value> rowIvs; ///< the row's indices, innermost loop fastest
};

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
                                                                int64_t rows) {
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
  for (auto [i, out] : llvm::enumerate(op.getDpsInitsMutable())) {
    Value init = loadOperand(rewriter, loc, op, out, ivs);
    memref::StoreOp::create(rewriter, loc, combine(rewriter, plan.combiners[i], init, totals[i]), out.get(),
                            indicesAt(rewriter, loc, op.getMatchingIndexingMap(&out), ivs));
  }
  return {outer, inner};
}

/// How one op of a row group (see RowGroup) runs for its row.
enum class RowKind {
  Row,       ///< loops: the rows only; every lane computes the row's value
  Elements,  ///< loops: the rows, then one parallel loop over the row's elements
  Reduction, ///< loops: the rows, then one reduction loop over the row's elements
};

/// A run of linalg ops (generalized, loops in GPU order) that share their
/// leading `numRows` parallel loops ("rows") and touch each row's data only
/// for that row: one subgroup per row runs them all in one kernel. A lane
/// owns the row elements lane, lane + subgroupSize, ... in every op, so an
/// element written by one op is read back by the same lane; a row-level
/// value (a reduction's result, a mean, a reciprocal) is kept in registers,
/// identical in every lane, and lane 0 stores it.
struct RowGroup {
  SmallVector<linalg::GenericOp> ops;
  SmallVector<RowKind> kinds;
  SmallVector<std::optional<SubgroupPlan>> plans;
  unsigned numRows = 0;
};

/// The memref `v` is a view of (a function argument or an allocation).
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

bool isRowMap(AffineMap map, unsigned numRows) {
  if (map.getNumResults() != numRows)
    return false;
  for (unsigned i = 0; i < numRows; ++i)
    if (map.getResult(i) != getAffineDimExpr(i, map.getContext()))
      return false;
  return true;
}

bool isElementMap(AffineMap map, unsigned numRows) {
  return map.getNumDims() == numRows + 1 && map.getNumResults() == numRows + 1 && map.isIdentity();
}

/// The map reads the same elements for every row (a weight, a bias).
bool isBroadcastMap(AffineMap map, unsigned numRows) {
  for (unsigned i = 0; i < numRows; ++i)
    if (map.isFunctionOfDim(i))
      return false;
  return true;
}

/// How `op` runs in a group of `numRows` rows whose elements number
/// `rowLength` (static loop sizes `rowSizes`), or none if it cannot.
std::optional<RowKind> classifyRowOp(linalg::GenericOp op, unsigned numRows, ArrayRef<int64_t> rowSizes,
                                     int64_t rowLength) {
  unsigned numLoops = op.getNumLoops(), numParallel = op.getNumParallelLoops();
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  if (numLoops < numRows || ArrayRef<int64_t>(sizes).take_front(numRows) != rowSizes)
    return std::nullopt;
  RowKind kind;
  if (numLoops == numRows && numParallel == numRows)
    kind = RowKind::Row;
  else if (numLoops == numRows + 1 && sizes.back() == rowLength)
    kind = numParallel == numLoops ? RowKind::Elements : RowKind::Reduction;
  else
    return std::nullopt;
  if (kind == RowKind::Reduction && numParallel != numRows)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool isOutput = op.isDpsInit(&operand);
    bool row = isRowMap(map, numRows), element = kind != RowKind::Row && isElementMap(map, numRows);
    if (isOutput) {
      // Elementwise ops write their elements; the others write row values.
      if (kind == RowKind::Elements ? !element : !row)
        return std::nullopt;
    } else if (!row && !element && !isBroadcastMap(map, numRows)) {
      return std::nullopt;
    }
  }
  return kind;
}

/// Whether `op` may join the run: nothing but pure ops between it and the
/// previous member, its row values read from memory are never written by the
/// group (a lane could otherwise read another lane's newer value), buffers it
/// writes are not read broadcast, and no buffer is seen through two views.
bool joinsRowGroup(linalg::GenericOp op, RowKind kind, RowGroup &group,
                   llvm::SmallDenseSet<Value> &rowValuesInRegisters, llvm::SmallDenseSet<Value> &rowValuesFromMemory,
                   llvm::SmallDenseSet<Value> &broadcastRead, llvm::SmallDenseSet<Value> &written,
                   llvm::DenseMap<Value, Value> &viewOfRoot) {
  unsigned numRows = group.numRows;
  auto sameView = [&](Value v) {
    auto [it, inserted] = viewOfRoot.try_emplace(rootBuffer(v), v);
    return inserted || it->second == v;
  };
  llvm::SmallDenseSet<Value> newFromMemory, newInRegisters, newBroadcast, newWritten;
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    if (!isa<MemRefType>(v.getType()))
      continue;
    if (!sameView(v))
      return false;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool isOutput = op.isDpsInit(&operand);
    bool reads = !isOutput || op.payloadUsesValueFromOperand(&operand) || kind == RowKind::Reduction;
    bool row = isRowMap(map, numRows);
    if (reads && row && !rowValuesInRegisters.contains(v))
      newFromMemory.insert(v);
    if (reads && !row && !(kind != RowKind::Row && isElementMap(map, numRows)))
      newBroadcast.insert(v);
    if (isOutput) {
      newWritten.insert(rootBuffer(v));
      if (row)
        newInRegisters.insert(v);
    }
  }
  for (Value v : newWritten)
    if (broadcastRead.contains(v) || llvm::any_of(newBroadcast, [&](Value b) { return rootBuffer(b) == v; }))
      return false;
  for (Value v : newBroadcast)
    if (written.contains(rootBuffer(v)))
      return false;
  for (Value v : newInRegisters)
    if (rowValuesFromMemory.contains(v) || newFromMemory.contains(v))
      return false;
  for (Value v : newFromMemory)
    rowValuesFromMemory.insert(v);
  for (Value v : newInRegisters)
    rowValuesInRegisters.insert(v);
  for (Value v : newBroadcast)
    broadcastRead.insert(rootBuffer(v));
  for (Value v : newWritten)
    written.insert(v);
  return true;
}

/// Groups `ops` (generalized, loops in GPU order, in program order) into row
/// groups: each row reduction with a subgroup plan seeds one, which takes in
/// the compatible ops right before and after it (at least two ops in all).
std::vector<RowGroup> formRowGroups(ArrayRef<linalg::GenericOp> ops, int64_t subgroupSize) {
  std::vector<RowGroup> groups;
  llvm::SmallDenseSet<Operation *> taken;
  // Only side-effect-free ops (allocations, views, constants) and frees may
  // sit between two members: the group runs where its last member was, and
  // the frees move after it.
  auto onlyPureBetween = [](Operation *first, Operation *second) {
    if (first->getBlock() != second->getBlock())
      return false;
    for (Operation *o = first->getNextNode(); o && o != second; o = o->getNextNode()) {
      if (isa<memref::AllocOp, memref::DeallocOp>(o) || isPure(o))
        continue;
      return false;
    }
    return true;
  };
  for (size_t seedIndex = 0; seedIndex < ops.size(); ++seedIndex) {
    linalg::GenericOp seed = ops[seedIndex];
    if (taken.contains(seed))
      continue;
    std::optional<SubgroupPlan> seedPlan = planSubgroupReduction(seed, subgroupSize);
    if (!seedPlan)
      continue;
    RowGroup group;
    group.numRows = seed.getNumParallelLoops();
    SmallVector<int64_t> sizes = seed.getStaticLoopRanges();
    if (llvm::any_of(sizes, ShapedType::isDynamic))
      continue;
    SmallVector<int64_t> rowSizes(sizes.begin(), sizes.begin() + group.numRows);
    int64_t rowLength = sizes.back();
    // The earliest op that may start the run.
    size_t first = seedIndex;
    while (first > 0 && !taken.contains(ops[first - 1]) &&
           onlyPureBetween(ops[first - 1], ops[first]) &&
           classifyRowOp(ops[first - 1], group.numRows, rowSizes, rowLength))
      --first;
    // Walk forward from there, the seed included, while ops may join.
    llvm::SmallDenseSet<Value> inRegisters, fromMemory, broadcastRead, written;
    llvm::DenseMap<Value, Value> viewOfRoot;
    for (size_t i = first; i < ops.size(); ++i) {
      linalg::GenericOp op = ops[i];
      if (taken.contains(op) || (i > first && !onlyPureBetween(ops[i - 1], op)))
        break;
      std::optional<RowKind> kind = classifyRowOp(op, group.numRows, rowSizes, rowLength);
      std::optional<SubgroupPlan> plan;
      if (kind == RowKind::Reduction && !(plan = planSubgroupReduction(op, subgroupSize)))
        kind = std::nullopt;
      if (!kind || !joinsRowGroup(op, *kind, group, inRegisters, fromMemory, broadcastRead, written, viewOfRoot)) {
        if (i <= seedIndex) {
          // An op before the seed cannot join: restart the run after it.
          group.ops.clear();
          group.kinds.clear();
          group.plans.clear();
          inRegisters.clear();
          fromMemory.clear();
          broadcastRead.clear();
          written.clear();
          viewOfRoot.clear();
          if (i == seedIndex)
            break;
          continue;
        }
        break;
      }
      group.ops.push_back(op);
      group.kinds.push_back(*kind);
      group.plans.push_back(plan);
    }
    if (group.ops.size() < 2 || !llvm::is_contained(group.ops, seed))
      continue;
    for (linalg::GenericOp op : group.ops)
      taken.insert(op);
    groups.push_back(std::move(group));
  }
  return groups;
}

/// The vector width of `group`'s element loops (see LaneLoop) and the
/// buffers read or written along them with their alignments: every memref
/// an op of the group indexes by the element loop must hold it as its last
/// dim, with unit stride and elements of whole bytes; the widest power of
/// two up to 8 elements and `maxBytes` of the narrowest of them whose
/// vectors tile the row across the subgroup and stay aligned where strides
/// and offsets are static. 1 (one element a lane) otherwise.
int64_t rowGroupWidth(const RowGroup &group, int64_t rowLength, int64_t subgroupSize, int64_t maxBytes,
                      llvm::MapVector<Value, int64_t> &buffers) {
  buffers.clear();
  if (maxBytes < 2)
    return 1;
  unsigned numRows = group.numRows;
  int64_t minBytes = maxBytes;
  for (linalg::GenericOp op : group.ops) {
    if (op.getNumLoops() != numRows + 1)
      continue;
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!type || !map.isFunctionOfDim(numRows))
        continue;
      SmallVector<int64_t> strides;
      int64_t offset;
      int64_t bytes = packedElementBytes(type.getElementType());
      if (!bytes || failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1 ||
          map.getResults().back() != getAffineDimExpr(numRows, op.getContext()) ||
          llvm::any_of(map.getResults().drop_back(), [&](AffineExpr e) { return e.isFunctionOfDim(numRows); }))
        return 1;
      minBytes = std::min(minBytes, bytes);
      buffers.insert({operand.get(), 0});
    }
  }
  auto alignedStatically = [&](int64_t width) {
    for (auto &[buffer, align] : buffers) {
      auto type = cast<MemRefType>(buffer.getType());
      int64_t bytes = packedElementBytes(type.getElementType());
      align = std::min(maxBytes, width * bytes);
      SmallVector<int64_t> strides;
      int64_t offset;
      (void)type.getStridesAndOffset(strides, offset);
      for (int64_t stride : ArrayRef<int64_t>(strides).drop_back())
        if (!ShapedType::isDynamic(stride) && (stride * bytes) % align != 0)
          return false;
      if (!ShapedType::isDynamic(offset) && (offset * bytes) % align != 0)
        return false;
    }
    return true;
  };
  if (buffers.empty())
    return 1;
  int64_t width = std::min<int64_t>(8, llvm::bit_floor(static_cast<uint64_t>(maxBytes / minBytes)));
  while (width >= 2 && (rowLength % (subgroupSize * width) != 0 || !alignedStatically(width)))
    width /= 2;
  if (width < 2)
    buffers.clear();
  return std::max<int64_t>(width, 1);
}

/// Emits `group` as one scf.parallel (block) { scf.parallel (lane, r) } nest
/// where its last op was, and erases its ops: row `block * rows + r` runs
/// every op in order (see RowGroup).
std::pair<scf::ParallelOp, scf::ParallelOp> lowerRowGroup(RewriterBase &rewriter, RowGroup &group,
                                                          int64_t subgroupSize, int64_t rows, int64_t vectorBytes) {
  linalg::GenericOp last = group.ops.back();
  Location loc = last.getLoc();
  rewriter.setInsertionPoint(last);
  auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v).getResult(); };
  SmallVector<int64_t> sizes = group.ops.front().getStaticLoopRanges();
  unsigned numRows = group.numRows;
  // The row length: the seed's, shared by every op with an element loop.
  int64_t rowLength = 0;
  for (linalg::GenericOp op : group.ops)
    if (op.getNumLoops() == numRows + 1)
      rowLength = op.getStaticLoopRanges().back();
  SmallVector<OpFoldResult> rowSizes;
  for (unsigned d = 0; d < numRows; ++d)
    rowSizes.push_back(rewriter.getIndexAttr(sizes[d]));
  OpBuilder::InsertionGuard guard(rewriter);
  SubgroupRowNest nest = createSubgroupRowNest(rewriter, loc, rowSizes, subgroupSize, rows);
  scf::ParallelOp outer = nest.outer, inner = nest.inner;
  Value lane = nest.lane;
  SmallVector<Value> rowIvs = nest.rowIvs;
  Value c0 = cst(0);
  Value isLane0 = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, lane, c0);
  // A row buffer allocated for the group alone (only the group and its
  // deallocation use it) need not be stored at all.
  llvm::SmallPtrSet<Operation *, 8> members;
  for (linalg::GenericOp op : group.ops)
    members.insert(op);
  auto groupOnly = [&](Value buffer) {
    return buffer.getDefiningOp<memref::AllocOp>() && llvm::all_of(buffer.getUsers(), [&](Operation *user) {
             return members.contains(user) || isa<memref::DeallocOp>(user);
           });
  };
  llvm::MapVector<Value, int64_t> vectorBuffers;
  int64_t width = rowGroupWidth(group, rowLength, subgroupSize, vectorBytes, vectorBuffers);
  // Emits every op of the group for the row, each lane's elements as `loop`
  // gives them, and lane 0's stores of the row values read after the group.
  auto emitGroup = [&](const LaneLoop &loop) {
    OpBuilder::InsertionGuard emitting(rewriter);
    // Each row value written so far in the group, by the buffer that holds it.
    llvm::DenseMap<Value, Value> rowValue;
    auto read = [&](linalg::GenericOp op, OpOperand &operand, ValueRange ivs) -> Value {
      if (auto it = rowValue.find(operand.get()); it != rowValue.end() &&
                                                  isRowMap(op.getMatchingIndexingMap(&operand), numRows))
        return it->second;
      return loadOperand(rewriter, loc, op, operand, ivs);
    };
    // The vectors the current op's loop body has loaded, by (buffer, vector).
    llvm::DenseMap<std::pair<Value, int64_t>, Value> loaded;
    // The element at loop slot `slot` (indices `ivs`): from a vector of the
    // buffer where the op reads it along the element loop.
    auto readSlot = [&](linalg::GenericOp op, OpOperand &operand, ValueRange ivs, int64_t slot) -> Value {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (loop.width == 1 || !isa<MemRefType>(operand.get().getType()) || !map.isFunctionOfDim(numRows))
        return read(op, operand, ivs);
      int64_t e = slot % loop.width;
      Value &vec = loaded[{operand.get(), slot / loop.width}];
      if (!vec) {
        SmallVector<Value> at(ivs);
        if (e > 0)
          at.back() = arith::SubIOp::create(rewriter, loc, at.back(), cst(e));
        vec = vector::LoadOp::create(rewriter, loc, VectorType::get({loop.width}, getElementTypeOrSelf(operand.get().getType())),
                                     operand.get(), indicesAt(rewriter, loc, map, at), /*nontemporal=*/false,
                                     llvm::MaybeAlign(vectorBuffers.lookup(operand.get())));
      }
      return vector::ExtractOp::create(rewriter, loc, vec, ArrayRef<int64_t>{e});
    };
    // Row buffers in the order the group first writes them; each is stored
    // once, its last value, at the end (the group never reads back from memory
    // a row buffer it writes).
    SmallVector<Value> rowBuffers;
    auto setRowValues = [&](linalg::GenericOp op, ArrayRef<Value> values) {
      for (auto [out, v] : llvm::zip(op.getDpsInits(), values)) {
        if (!rowValue.count(out))
          rowBuffers.push_back(out);
        rowValue[out] = v;
      }
    };
    for (auto [op, kind, plan] : llvm::zip(group.ops, group.kinds, group.plans)) {
      switch (kind) {
      case RowKind::Row: {
        SmallVector<Value> args;
        for (OpOperand &operand : op->getOpOperands()) {
          bool isOutput = op.isDpsInit(&operand);
          if (isOutput && !op.payloadUsesValueFromOperand(&operand)) {
            unsigned i = operand.getOperandNumber() - op.getNumDpsInputs();
            args.push_back(ub::PoisonOp::create(rewriter, loc, op.getRegionOutputArgs()[i].getType()));
            continue;
          }
          args.push_back(read(op, operand, rowIvs));
        }
        setRowValues(op, emitBody(rewriter, op, args, rowIvs));
        break;
      }
      case RowKind::Elements: {
        loaded.clear();
        scf::ForOp forOp = loop.create(rewriter, loc, {});
        OpBuilder::InsertionGuard body(rewriter);
        rewriter.setInsertionPointToStart(forOp.getBody());
        SmallVector<SmallVector<Value>> ivs, args;
        for (int64_t u = 0; u < loop.slots(); ++u) {
          ivs.emplace_back(rowIvs);
          ivs.back().push_back(loop.index(rewriter, loc, forOp, u));
          args.emplace_back();
          for (OpOperand &operand : op->getOpOperands()) {
            if (op.isDpsInit(&operand) && !op.payloadUsesValueFromOperand(&operand)) {
              unsigned i = operand.getOperandNumber() - op.getNumDpsInputs();
              args.back().push_back(ub::PoisonOp::create(rewriter, loc, op.getRegionOutputArgs()[i].getType()));
              continue;
            }
            args.back().push_back(readSlot(op, operand, ivs.back(), u));
          }
        }
        SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
        for (int64_t u = 0; u < loop.slots(); ++u)
          for (auto [i, v] : llvm::enumerate(emitBody(rewriter, op, args[u], ivs[u]))) {
            if (loop.width == 1)
              memref::StoreOp::create(rewriter, loc, v, op.getDpsInits()[i], ivs[u]);
            else
              results[i].push_back(v);
          }
        // Vectors: each output's elements of a vector stored together.
        for (auto [i, elements] : llvm::enumerate(results)) {
          Value out = op.getDpsInits()[i];
          for (int64_t u = 0; u < loop.unroll && loop.width > 1; ++u) {
            ArrayRef<Value> part = ArrayRef<Value>(elements).slice(u * loop.width, loop.width);
            Value vec = vector::FromElementsOp::create(
                rewriter, loc, VectorType::get({loop.width}, part.front().getType()), part);
            vector::StoreOp::create(rewriter, loc, vec, out, ivs[u * loop.width], /*nontemporal=*/false,
                                    llvm::MaybeAlign(vectorBuffers.lookup(out)));
          }
        }
        break;
      }
      case RowKind::Reduction: {
        linalg::GenericOp reduction = op;
        loaded.clear();
        SmallVector<Value> totals = reduceOnSubgroup(
            rewriter, loc, reduction, *plan, loop, rowIvs, subgroupSize,
            [&](OpOperand &in, ValueRange at, int64_t slot) { return readSlot(reduction, in, at, slot); });
        SmallVector<Value> values;
        for (auto [i, out] : llvm::enumerate(op.getDpsInitsMutable()))
          values.push_back(combine(rewriter, plan->combiners[i], read(op, out, rowIvs), totals[i]));
        setRowValues(op, values);
        break;
      }
      }
    }
    SmallVector<Value> stored = llvm::filter_to_vector(rowBuffers, [&](Value b) { return !groupOnly(b); });
    if (!stored.empty()) {
      auto ifLane0 = scf::IfOp::create(rewriter, loc, isLane0, /*withElseRegion=*/false);
      rewriter.setInsertionPointToStart(ifLane0.thenBlock());
      for (Value buffer : stored)
        memref::StoreOp::create(rewriter, loc, rowValue[buffer], buffer, rowIvs);
    }
  };
  // Vectors where every buffer the group reads or writes along the row is
  // aligned for them (known statically but for base pointers, dynamic
  // offsets and strides, checked here; the same in every lane of the
  // launch); one element a lane otherwise.
  LaneLoop vectors(rewriter, loc, lane, rewriter.getIndexAttr(rowLength), subgroupSize, width);
  LaneLoop elements(rewriter, loc, lane, rewriter.getIndexAttr(rowLength), subgroupSize);
  if (vectors.width == 1) {
    emitGroup(elements);
  } else {
    Value aligned = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
    for (auto [buffer, align] : vectorBuffers)
      aligned = arith::AndIOp::create(rewriter, loc, aligned, vectorsAligned(rewriter, loc, buffer, align));
    auto ifAligned = scf::IfOp::create(rewriter, loc, aligned, /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(ifAligned.thenBlock());
    emitGroup(vectors);
    rewriter.setInsertionPointToStart(ifAligned.elseBlock());
    emitGroup(elements);
  }
  // Buffers freed between the first and the last op are freed after the
  // group's kernel instead.
  SmallVector<Operation *> frees;
  for (Operation *o = group.ops.front()->getNextNode(); o && o != last.getOperation(); o = o->getNextNode())
    if (isa<memref::DeallocOp>(o))
      frees.push_back(o);
  for (Operation *free : llvm::reverse(frees))
    rewriter.moveOpAfter(free, outer);
  for (linalg::GenericOp op : llvm::reverse(group.ops))
    rewriter.eraseOp(op);
  return {outer, inner};
}

gpu::ParallelLoopDimMappingAttr mapTo(MLIRContext *ctx, gpu::Processor p) {
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

  /// Lowers one prepared op to a mapped scf.parallel nest; emits an error and
  /// fails if it cannot.
  LogicalResult mapOp(IRRewriter &rewriter, linalg::GenericOp generic) {
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
        rewriter.setInsertionPoint(generic);
        auto [outer, inner] = lowerToSubgroupRows(rewriter, generic, *plan, subgroupSize, rows);
        rewriter.eraseOp(generic);
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
    rewriter.setInsertionPoint(generic);
    std::optional<VectorPlan> vectors = planVectorElementwise(generic, vectorBytes);
    scf::ParallelOp par = vectors ? lowerToVectorThreadLoops(rewriter, generic, *vectors, vectorBytes)
                                  : lowerToThreadLoops(rewriter, generic);
    rewriter.eraseOp(generic);
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
    for (linalg::GenericOp op : generics)
      if (!grouped.contains(op.getOperation()) && failed(mapOp(rewriter, op)))
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

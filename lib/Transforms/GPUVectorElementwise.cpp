//===- GPUVectorElementwise.cpp - elementwise linalg ops with several elements per GPU thread in vectors -===//
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
static bool holdsRun(AffineMap map, MemRefType type, unsigned runStart, ArrayRef<int64_t> sizes) {
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

static bool independentOfRun(AffineMap map, unsigned runStart) {
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
  // The body's arguments: poison for an operand it does not read, `alongRun(operand)` for one
  // that varies along the run, its fixed value for the others.
  auto bodyArgs = [&](function_ref<Value(OpOperand &)> alongRun) {
    SmallVector<Value> args;
    for (OpOperand &operand : op->getOpOperands()) {
      unsigned i = operand.getOperandNumber();
      if (!reads(operand))
        args.push_back(poison(operand));
      else if (plan.alongRun[i])
        args.push_back(alongRun(operand));
      else
        args.push_back(fixed[i]);
    }
    return args;
  };
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
      SmallVector<Value> args = bodyArgs([&](OpOperand &operand) -> Value {
        return vector::ExtractOp::create(rewriter, loc, vectors[operand.getOperandNumber()],
                                         ArrayRef<int64_t>{u});
      });
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
    SmallVector<Value> args = bodyArgs([&](OpOperand &operand) -> Value {
      return memref::LoadOp::create(rewriter, loc, views[operand.getOperandNumber()], runIndices(operand, r));
    });
    for (auto [out, v] : llvm::zip(op.getDpsInitsMutable(), emitBody(rewriter, op, args, ivsAt(r))))
      memref::StoreOp::create(rewriter, loc, v, views[out.getOperandNumber()], runIndices(out, r));
  }
  return par;
}

} // namespace kiln::gpu_map

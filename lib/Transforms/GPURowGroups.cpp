//===- GPURowGroups.cpp - runs of row ops (softmax, norms) fused into one subgroup-per-row GPU kernel -===//
#include "BufferRoots.h"
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

static bool isRowMap(AffineMap map, unsigned numRows) {
  if (map.getNumResults() != numRows)
    return false;
  for (unsigned i = 0; i < numRows; ++i)
    if (map.getResult(i) != getAffineDimExpr(i, map.getContext()))
      return false;
  return true;
}

static bool isElementMap(AffineMap map, unsigned numRows) {
  return map.getNumDims() == numRows + 1 && map.getNumResults() == numRows + 1 && map.isIdentity();
}

/// The map reads the same elements for every row (a weight, a bias).
static bool isBroadcastMap(AffineMap map, unsigned numRows) {
  for (unsigned i = 0; i < numRows; ++i)
    if (map.isFunctionOfDim(i))
      return false;
  return true;
}

/// The map reads an input broadcast along some of the row loops: each
/// result is a loop (in order, each at most once) or 0, the row's element
/// loop, if read, last (a mask over the query and key positions that every
/// batch and head of a softmax shares, a bias per head and position).
static bool isPartialBroadcastMap(AffineMap map, unsigned numRows) {
  if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
    return false;
  int64_t last = -1;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      continue;
    if (static_cast<int64_t>(dim.getPosition()) <= last ||
        (dim.getPosition() == numRows && i + 1 != map.getNumResults()))
      return false;
    last = dim.getPosition();
  }
  return true;
}

/// How `op` runs in a group of `numRows` rows whose elements number
/// `rowLength` (static loop sizes `rowSizes`), or none if it cannot.
static std::optional<RowKind> classifyRowOp(linalg::GenericOp op, unsigned numRows, ArrayRef<int64_t> rowSizes,
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
    } else if (!row && !element && !isBroadcastMap(map, numRows) && !isPartialBroadcastMap(map, numRows)) {
      return std::nullopt;
    }
  }
  return kind;
}

/// Whether `op` may join the run: nothing but pure ops between it and the
/// previous member, its row values read from memory are never written by the
/// group (a lane could otherwise read another lane's newer value), buffers it
/// writes are not read broadcast, and no buffer is seen through two views.
static bool joinsRowGroup(linalg::GenericOp op, RowKind kind, RowGroup &group,
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
/// and offsets are static. 1 (one element a lane) otherwise. `buffers` gets
/// the operands read or written as vectors.
/// Whether an op of `group` writes `buffer` (or another view of its root).
static bool writtenByGroup(const RowGroup &group, Value buffer) {
  Value root = rootBuffer(buffer);
  for (linalg::GenericOp op : group.ops)
    for (Value out : op.getDpsInits())
      if (rootBuffer(out) == root)
        return true;
  return false;
}

static int64_t rowGroupWidth(const RowGroup &group, int64_t rowLength, int64_t subgroupSize, int64_t maxBytes,
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
      // An input of a type not packed in bytes (an i1 mask) is read an
      // element at a time while the others take vectors.
      if (!bytes && !op.isDpsInit(&operand) && !writtenByGroup(group, operand.get()))
        continue;
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
      if (loop.width == 1 || !isa<MemRefType>(operand.get().getType()) || !map.isFunctionOfDim(numRows) ||
          !vectorBuffers.count(operand.get()))
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

} // namespace kiln::gpu_map

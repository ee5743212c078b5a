//===- IndexingBatchRules.cpp - batching rules: gathers, scatters, pads, windows -===//
//
// Ops that index along named dims of every tensor operand (gather, the
// scatters, diagonal, unfold, roll) shift those dims past the batch, with
// every tensor operand batched (an unbatched one is broadcast along the
// batch: gather and scatter read index and source element by element).
// index_select with a shared index shifts its dim. Pads and tril/triu touch
// only the last dims, so the batch is one more leading dim;
// repeat puts unit dims after the batch for the repeats its sample lacks.
//
//===----------------------------------------------------------------------===//
#include "Autograd/Batching/BatchRules.h"

#include "ATen/IR/ATenDialect.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::batching::rules {
namespace {
using Result = FailureOr<BatchedResults>;

/// Every tensor operand batched, the integer attribute `dimAttr` shifted past
/// the batch (by the rank of operand 0's sample).
Result alongDims(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &batch,
                 OpBuilder &b, ArrayRef<StringRef> dimAttrs) {
  int64_t rank = sampleRank(operands[0], batched[0]);
  if (rank == 0)
    return failure();
  SmallVector<Value> ops;
  for (auto [v, isBatched] : llvm::zip(operands, batched))
    ops.push_back(materializeBatch(b, op->getLoc(), v, isBatched, batch));
  Operation *c = cloneWith(b, op, ops, batchedResultTypes(op, batch));
  for (StringRef name : dimAttrs)
    if (auto d = op->getAttrOfType<IntegerAttr>(name))
      c->setAttr(name, b.getI64IntegerAttr(shiftDim(d.getInt(), rank)));
  return allBatched(c->getResults());
}

BatchRule dimsRule(SmallVector<StringRef> dimAttrs) {
  return [=](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &batch,
             OpBuilder &b) { return alongDims(op, operands, batched, batch, b, dimAttrs); };
}

Result scatter(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &batch,
               OpBuilder &b) {
  // A 0-d source is one value written everywhere: per sample only if shared.
  if (sampleRank(operands[2], batched[2]) == 0) {
    if (batched[2] || sampleRank(operands[0], batched[0]) == 0)
      return failure();
    Location loc = op->getLoc();
    Value self = materializeBatch(b, loc, operands[0], batched[0], batch);
    Value index = materializeBatch(b, loc, operands[1], batched[1], batch);
    Operation *c = cloneWith(b, op, {self, index, operands[2]}, batchedResultTypes(op, batch));
    c->setAttr("dim", b.getI64IntegerAttr(
                          shiftDim(cast<ScatterOp>(op).getDim(), sampleRank(operands[0], batched[0]))));
    return allBatched(c->getResults());
  }
  return alongDims(op, operands, batched, batch, b, {"dim"});
}

/// Pads of the last dims: the batch is one more leading dim.
Result leadingDim(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &batch,
                  OpBuilder &b) {
  if (!batched[0])
    return failure();
  return allBatched(cloneWith(b, op, operands, batchedResultTypes(op, batch))->getResults());
}

/// index_select with a shared index: the dim shifts past the batch.
Result indexSelect(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &batch,
                   OpBuilder &b) {
  int64_t rank = sampleRank(operands[0], batched[0]);
  if (!batched[0] || batched[1] || rank == 0)
    return failure();
  Operation *c = cloneWith(b, op, operands, batchedResultTypes(op, batch));
  c->setAttr("dim", b.getI64IntegerAttr(shiftDim(cast<IndexSelectOp>(op).getDim(), rank)));
  return allBatched(c->getResults());
}

Result roll(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &batch,
            OpBuilder &b) {
  auto r = cast<RollOp>(op);
  int64_t rank = sampleRank(operands[0], true);
  // No dims: a roll of the flattened sample.
  if (r.getDims().empty() || rank == 0)
    return failure();
  SmallVector<int64_t> dims;
  for (int64_t d : r.getDims())
    dims.push_back(shiftDim(d, rank));
  Operation *c = cloneWith(b, op, operands, batchedResultTypes(op, batch));
  c->setAttr("dims", b.getDenseI64ArrayAttr(dims));
  return allBatched(c->getResults());
}

Result repeat(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &batch,
              OpBuilder &b) {
  ArrayRef<int64_t> repeats = cast<RepeatOp>(op).getRepeats();
  int64_t rank = sampleRank(operands[0], true);
  if ((int64_t)repeats.size() < rank)
    return failure();
  Value x = unsqueezeAfterBatch(b, op->getLoc(), operands[0], (int64_t)repeats.size() - rank);
  SmallVector<int64_t> r{1};
  r.append(repeats.begin(), repeats.end());
  Operation *c = cloneWith(b, op, {x}, batchedResultTypes(op, batch));
  c->setAttr("repeats", b.getDenseI64ArrayAttr(r));
  return allBatched(c->getResults());
}
} // namespace

void addIndexingBatchRules(BatchRuleTable &t) {
  t["aten.gather"] = dimsRule({"dim"});
  t["aten.scatter"] = scatter;
  t["aten.diagonal"] = dimsRule({"dim1", "dim2"});
  t["aten.unfold"] = dimsRule({"dimension"});
  t["aten.roll"] = roll;
  t["aten.repeat"] = repeat;
  t["aten.index_select"] = indexSelect;
  // Pads of the last dims, and the triangles of the last two.
  for (const char *n : {"constant_pad_nd", "reflection_pad", "replication_pad", "circular_pad", "tril", "triu"})
    t[std::string("aten.") + n] = leadingDim;
}
} // namespace kiln::batching::rules

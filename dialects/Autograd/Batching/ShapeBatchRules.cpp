//===- ShapeBatchRules.cpp - batching rules: views, reshapes and slices ---===//
//
// Shape ops see the batch as one more leading dim: their dims shift by one
// past it, and sizes they take gain the batch size in front (a dynamic
// batch is an `index` operand, so views of a symbolic batch stay symbolic).
//
//===----------------------------------------------------------------------===//
#include "Autograd/Batching/BatchRules.h"

#include "ATen/IR/ATenDialect.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::batching::rules {
namespace {
using Result = FailureOr<BatchedResults>;

/// Rules of ops whose first operand is the only tensor one, mapped by
/// `rewrite` (operand 0 batched; the others are sizes).
template <typename F> BatchRule onlySelf(F rewrite) {
  return [rewrite](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                   const Batch &batch, OpBuilder &b) -> Result {
    for (unsigned i = 1; i < operands.size(); ++i)
      if (batched[i])
        return failure();
    return rewrite(op, operands, batch, b);
  };
}

/// A clone of `op` on `operands` with batched result types, then `set` applied to it.
template <typename F>
Result cloneBatched(Operation *op, ArrayRef<Value> operands, const Batch &batch, OpBuilder &b, F set) {
  Operation *c = cloneWith(b, op, operands, batchedResultTypes(op, batch));
  set(c);
  return allBatched(c->getResults());
}

/// `sizes`/`static_sizes` with the batch size in front.
void prependBatch(OpBuilder &b, Operation *c, ValueRange dynSizes, ArrayRef<int64_t> staticSizes,
                  const Batch &batch, StringRef attrName) {
  SmallVector<int64_t> st{batch.staticSize};
  st.append(staticSizes.begin(), staticSizes.end());
  SmallVector<Value> dyn{c->getOperand(0)};
  if (ShapedType::isDynamic(batch.staticSize))
    dyn.push_back(batch.size);
  dyn.append(dynSizes.begin(), dynSizes.end());
  c->setOperands(dyn);
  c->setAttr(attrName, b.getDenseI64ArrayAttr(st));
}
} // namespace

void addShapeBatchRules(BatchRuleTable &t) {
  t["aten.permute"] = onlySelf([](Operation *op, ArrayRef<Value> operands, const Batch &batch,
                                  OpBuilder &b) -> Result {
    auto p = cast<PermuteOp>(op);
    int64_t rank = p.getDims().size();
    SmallVector<int64_t> dims{0};
    for (int64_t d : p.getDims())
      dims.push_back(shiftDim(d, rank));
    return cloneBatched(op, operands, batch, b,
                        [&](Operation *c) { c->setAttr("dims", b.getDenseI64ArrayAttr(dims)); });
  });
  t["aten.view"] = onlySelf([](Operation *op, ArrayRef<Value> operands, const Batch &batch,
                               OpBuilder &b) -> Result {
    auto v = cast<ViewOp>(op);
    return cloneBatched(op, operands, batch, b, [&](Operation *c) {
      prependBatch(b, c, operands.drop_front(), v.getStaticSizes(), batch, "static_sizes");
    });
  });
  t["aten.expand"] = onlySelf([](Operation *op, ArrayRef<Value> operands, const Batch &batch,
                                 OpBuilder &b) -> Result {
    auto e = cast<ExpandOp>(op);
    int64_t rank = cast<RankedTensorType>(e.getType()).getRank();
    SmallVector<Value> ops(operands);
    ops[0] = unsqueezeAfterBatch(b, op->getLoc(), ops[0], rank - sampleRank(ops[0], true));
    return cloneBatched(op, ops, batch, b, [&](Operation *c) {
      prependBatch(b, c, operands.drop_front(), e.getStaticSizes(), batch, "static_sizes");
    });
  });
  t["aten.flatten_using_ints"] = onlySelf([](Operation *op, ArrayRef<Value> operands,
                                             const Batch &batch, OpBuilder &b) -> Result {
    auto f = cast<FlattenUsingIntsOp>(op);
    int64_t rank = sampleRank(operands[0], true);
    if (rank == 0)
      return failure();
    return cloneBatched(op, operands, batch, b, [&](Operation *c) {
      c->setAttr("start_dim", b.getI64IntegerAttr(shiftDim(f.getStartDim(), rank)));
      c->setAttr("end_dim", b.getI64IntegerAttr(shiftDim(f.getEndDim(), rank)));
    });
  });
  t["aten.unsqueeze"] = onlySelf([](Operation *op, ArrayRef<Value> operands, const Batch &batch,
                                    OpBuilder &b) -> Result {
    int64_t rank = sampleRank(operands[0], true) + 1;
    int64_t dim = shiftDim(cast<UnsqueezeOp>(op).getDim(), rank);
    return cloneBatched(op, operands, batch, b,
                        [&](Operation *c) { c->setAttr("dim", b.getI64IntegerAttr(dim)); });
  });
  t["aten.squeeze_dims"] = onlySelf([](Operation *op, ArrayRef<Value> operands,
                                       const Batch &batch, OpBuilder &b) -> Result {
    int64_t rank = sampleRank(operands[0], true);
    SmallVector<int64_t> dims;
    for (int64_t d : cast<SqueezeDimsOp>(op).getDims())
      dims.push_back(shiftDim(d, rank));
    return cloneBatched(op, operands, batch, b,
                        [&](Operation *c) { c->setAttr("dims", b.getDenseI64ArrayAttr(dims)); });
  });
  // Ops with a `dim` attribute on their first operand's dims: shifted.
  auto dimOp = [](Operation *op, ArrayRef<Value> operands, const Batch &batch, OpBuilder &b) -> Result {
    int64_t rank = sampleRank(operands[0], true);
    int64_t dim = shiftDim(cast<IntegerAttr>(op->getAttr("dim")).getInt(), rank);
    return cloneBatched(op, operands, batch, b,
                        [&](Operation *c) { c->setAttr("dim", b.getI64IntegerAttr(dim)); });
  };
  t["aten.slice_tensor"] = onlySelf(dimOp);
  t["aten.select_int"] = onlySelf(dimOp);
  t["aten.sym_size_int"] = [](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                              const Batch &batch, OpBuilder &b) -> Result {
    int64_t rank = sampleRank(operands[0], true);
    Operation *c = b.clone(*op);
    c->setOperand(0, operands[0]);
    c->setAttr("dim", b.getI64IntegerAttr(shiftDim(cast<SymSizeIntOp>(op).getDim(), rank)));
    BatchedResults r;
    r.values.push_back(c->getResult(0));
    r.batched.push_back(false); // every sample has the same sizes
    return r;
  };
  // Scatters into a slice and cat: every tensor operand batched, dim shifted.
  auto allTensorsDim = [](unsigned numTensors) {
    return [numTensors](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                        const Batch &batch, OpBuilder &b) -> Result {
      unsigned n = numTensors ? numTensors : operands.size();
      SmallVector<Value> ops(operands);
      for (unsigned i = 0; i < operands.size(); ++i) {
        if (i >= n) {
          if (batched[i])
            return failure();
          continue;
        }
        ops[i] = materializeBatch(b, op->getLoc(), ops[i], batched[i], batch);
      }
      int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
      int64_t dim = shiftDim(cast<IntegerAttr>(op->getAttr("dim")).getInt(), rank);
      return cloneBatched(op, ops, batch, b,
                          [&](Operation *c) { c->setAttr("dim", b.getI64IntegerAttr(dim)); });
    };
  };
  t["aten.slice_scatter"] = allTensorsDim(2);
  t["aten.select_scatter"] = allTensorsDim(2);
  t["aten.cat"] = allTensorsDim(0);
  // Ops along listed dims of their only tensor operand.
  t["aten.flip"] = onlySelf([](Operation *op, ArrayRef<Value> operands, const Batch &batch,
                               OpBuilder &b) -> Result {
    int64_t rank = sampleRank(operands[0], true);
    SmallVector<int64_t> dims;
    for (int64_t d : cast<FlipOp>(op).getDims())
      dims.push_back(shiftDim(d, rank));
    return cloneBatched(op, operands, batch, b,
                        [&](Operation *c) { c->setAttr("dims", b.getDenseI64ArrayAttr(dims)); });
  });
}
} // namespace kiln::batching::rules

//===- BatchRules.h - batching rules of the aten ops (vmap) -----*- C++ -*-===//
//
// A batching rule rewrites one op of a function mapped by `autograd.vmap`
// into ops over batched values. Every batched value carries its batch dim at
// the front (dim 0) and otherwise the type the op had per sample; unbatched
// values are the op's own operands. Rules live in a table keyed by op name,
// one file per op family (<Family>BatchRules.cpp); an op without a rule (or
// whose rule declines) runs in a loop over the batch (autograd-batch).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_AUTOGRAD_BATCHING_BATCHRULES_H
#define KILN_DIALECTS_AUTOGRAD_BATCHING_BATCHRULES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"

#include <functional>

namespace kiln::batching {
using namespace mlir;

/// The batch a rule works on: its size as an `index` value, and statically
/// (ShapedType::kDynamic when it is not known).
struct Batch {
  Value size;
  int64_t staticSize;
};

/// What a rule returns: one value per result of the op, and whether it is
/// batched (a result that does not depend on the batch may stay unbatched).
struct BatchedResults {
  SmallVector<Value> values;
  SmallVector<bool> batched;
};

/// A rule: `op` (still in the per-sample function, for its attributes and
/// types), its operands mapped into the batched function (`operands[i]` is
/// batched iff `batched[i]`), the builder placed where the batched ops go.
/// Fails without building anything when it does not apply (the op then runs
/// in the loop over the batch).
using BatchRule = std::function<FailureOr<BatchedResults>(
    Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &batch,
    OpBuilder &b)>;
using BatchRuleTable = llvm::StringMap<BatchRule>;

/// The rule for ops named `opName` (e.g. "aten.linear"), or null.
const BatchRule *lookupBatchRule(StringRef opName);

namespace rules {
void addElementwiseBatchRules(BatchRuleTable &t);
void addShapeBatchRules(BatchRuleTable &t);
void addLinalgBatchRules(BatchRuleTable &t);
void addReductionBatchRules(BatchRuleTable &t);
void addNetworkBatchRules(BatchRuleTable &t);
void addRuntimeBatchRules(BatchRuleTable &t);
void addIndexingBatchRules(BatchRuleTable &t);
} // namespace rules

//===----------------------------------------------------------------------===//
// Building blocks shared by the rule families (BatchUtils.cpp).
//===----------------------------------------------------------------------===//

/// `t` (a per-sample type) with the batch dim in front.
RankedTensorType batchedType(Type t, const Batch &batch);
/// The per-sample rank of an operand: its rank, less one when batched.
int64_t sampleRank(Value v, bool batched);
/// A batched value `v` ([B, s...]) with `count` unit dims inserted after the batch.
Value unsqueezeAfterBatch(OpBuilder &b, Location loc, Value v, int64_t count);
/// `v` batched: itself if `batched`, else broadcast along a new leading batch dim.
Value materializeBatch(OpBuilder &b, Location loc, Value v, bool batched, const Batch &batch);
/// [B, N, s...] -> [B*N, s...] (aten.flatten_using_ints over dims 0 and 1).
Value foldBatch(OpBuilder &b, Location loc, Value v);
/// Removes the markers foldBatch uses to recognise unfoldBatch's views.
void dropBatchMarkers(Operation *root);
/// [B*N, s...] -> [B, N, s...] (aten.view; N is `n`, or inferred when dynamic).
Value unfoldBatch(OpBuilder &b, Location loc, Value v, const Batch &batch,
                  int64_t n = ShapedType::kDynamic);
/// `dim` of a per-sample rank-`rank` tensor (negative counts from the end)
/// normalised to [0, rank) and shifted past the batch dim.
int64_t shiftDim(int64_t dim, int64_t rank);
/// A copy of `op` with `operands` and result types `types`; attributes and
/// properties are kept.
Operation *cloneWith(OpBuilder &b, Operation *op, ValueRange operands, TypeRange types);
/// The types of `op`'s results with the batch dim in front.
SmallVector<Type> batchedResultTypes(Operation *op, const Batch &batch);
/// A rule result where every value is batched.
BatchedResults allBatched(ValueRange values);
} // namespace kiln::batching

#endif

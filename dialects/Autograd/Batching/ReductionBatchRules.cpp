//===- ReductionBatchRules.cpp - batching rules: reductions, scans, softmax -===//
//
// Reductions and ops along a dim shift their dims past the batch; "every
// dim" becomes every per-sample dim. A 0-d sample ([B] batched) is read as
// [B, 1] along dim 1 (ATen takes dim 0 or -1 of a scalar as that one
// element); argmax/argmin of the flattened sample flatten it after the batch. sum_to_size (the gradient of a
// broadcast) sums the leading per-sample dims its target lacks first, then
// sums to the target with the batch in front.
//
//===----------------------------------------------------------------------===//
#include "Autograd/Batching/BatchRules.h"
#include "Autograd/Rules/RuleUtils.h"

#include "ATen/IR/ATenDialect.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::batching::rules {
namespace {
using Result = FailureOr<BatchedResults>;

/// `op` on a 0-d sample: its operand [B] as [B, 1], along dim 1 (`dimAttr`
/// set as a list or an integer); reductions drop that dim (keepdim false),
/// other ops give [B, 1], squeezed back to [B].
Result scalarSample(Operation *op, ArrayRef<Value> operands, const Batch &batch, OpBuilder &b,
                    bool dimList) {
  Location loc = op->getLoc();
  SmallVector<Value> ops(operands);
  ops[0] = unsqueezeAfterBatch(b, loc, operands[0], 1);
  bool reduces = op->hasAttr("keepdim") || isa<ArgmaxOp, ArgminOp>(op);
  SmallVector<Type> types;
  for (Type t : op->getResultTypes()) {
    auto bt = batchedType(t, batch);
    types.push_back(reduces ? Type(bt)
                            : Type(RankedTensorType::get({bt.getShape()[0], 1}, bt.getElementType())));
  }
  Operation *c = cloneWith(b, op, ops, types);
  c->setAttr("dim", dimList ? Attribute(b.getDenseI64ArrayAttr({1})) : Attribute(b.getI64IntegerAttr(1)));
  if (reduces) {
    c->setAttr("keepdim", b.getBoolAttr(false));
    return allBatched(c->getResults());
  }
  SmallVector<Value> out;
  for (auto [r, t] : llvm::zip(c->getResults(), op->getResultTypes()))
    out.push_back(SqueezeDimsOp::create(b, loc, batchedType(t, batch), r, b.getDenseI64ArrayAttr({1})));
  return allBatched(out);
}

/// Reductions over an optional `dim` list (absent or empty: every dim).
Result reduceDims(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                  const Batch &batch, OpBuilder &b) {
  int64_t rank = sampleRank(operands[0], true);
  if (rank == 0)
    return scalarSample(op, operands, batch, b, /*dimList=*/true);
  auto dimAttr = op->getAttrOfType<DenseI64ArrayAttr>("dim");
  SmallVector<int64_t> dims;
  if (!dimAttr || dimAttr.empty()) {
    // prod reduces at most one dim: "every dim" runs in the loop.
    if (isa<ProdDimIntOp>(op) && rank > 1)
      return failure();
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d + 1);
  } else {
    for (int64_t d : dimAttr.asArrayRef())
      dims.push_back(shiftDim(d, rank));
  }
  Operation *c = cloneWith(b, op, operands, batchedResultTypes(op, batch));
  c->setAttr("dim", b.getDenseI64ArrayAttr(dims));
  return allBatched(c->getResults());
}

/// Ops along one `dim` of their only tensor operand (optional for argmax:
/// absent means the flattened tensor, which has no per-sample form here).
Result alongDim(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                const Batch &batch, OpBuilder &b) {
  auto dim = op->getAttrOfType<IntegerAttr>("dim");
  int64_t rank = sampleRank(operands[0], true);
  if (rank == 0)
    return scalarSample(op, operands, batch, b, /*dimList=*/false);
  if (!dim) {
    // argmax/argmin of the flattened sample: [B, s...] -> [B, N], along dim 1.
    auto keep = op->getAttrOfType<BoolAttr>("keepdim");
    if (!isa<ArgmaxOp, ArgminOp>(op) || (keep && keep.getValue()))
      return failure();
    auto tt = cast<RankedTensorType>(operands[0].getType());
    int64_t n = 1;
    for (int64_t d = 1; d < tt.getRank(); ++d)
      n = ShapedType::isDynamic(n) || tt.isDynamicDim(d) ? ShapedType::kDynamic : n * tt.getDimSize(d);
    Value flat = FlattenUsingIntsOp::create(
        b, op->getLoc(), RankedTensorType::get({tt.getShape()[0], n}, tt.getElementType()), operands[0],
        (int64_t)1, (int64_t)-1);
    Operation *c = cloneWith(b, op, {flat}, batchedResultTypes(op, batch));
    c->setAttr("dim", b.getI64IntegerAttr(1));
    return allBatched(c->getResults());
  }
  Operation *c = cloneWith(b, op, operands, batchedResultTypes(op, batch));
  c->setAttr("dim", b.getI64IntegerAttr(shiftDim(dim.getInt(), rank)));
  return allBatched(c->getResults());
}
} // namespace

void addReductionBatchRules(BatchRuleTable &t) {
  for (const char *n : {"sum_dim_intlist", "mean_dim", "prod_dim_int", "amax", "amin", "any_dims",
                        "all_dims", "count_nonzero", "logsumexp", "linalg_vector_norm",
                        "var_correction", "std_correction", "var_mean_correction",
                        "std_mean_correction"})
    t[std::string("aten.") + n] = reduceDims;
  for (const char *n : {"max_dim", "min_dim", "argmax", "argmin", "cumsum", "cumprod", "_softmax",
                        "_log_softmax", "softmax_int", "log_softmax_int"})
    t[std::string("aten.") + n] = alongDim;
  t["aten.sum_to_size"] = [](Operation *op, ArrayRef<Value> operands, ArrayRef<bool>,
                             const Batch &batch, OpBuilder &b) -> Result {
    Location loc = op->getLoc();
    Value x = operands[0];
    int64_t rx = sampleRank(x, true);
    auto target = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<int64_t> lead;
    for (int64_t d = 0; d < rx - target.getRank(); ++d)
      lead.push_back(d + 1);
    x = autograd::rules::sumDims(b, loc, x, lead, /*keepdim=*/false);
    Type rt = batchedType(target, batch);
    if (x.getType() != rt)
      x = SumToSizeOp::create(b, loc, rt, x);
    BatchedResults r;
    r.values.push_back(x);
    r.batched.push_back(true);
    return r;
  };
}
} // namespace kiln::batching::rules

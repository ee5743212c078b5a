//===- LinalgBatchRules.cpp - batching rules: linear, matmul and products -===//
//
// Products become one aten.matmul whose broadcast batch dims carry the vmap
// batch: batched operands get unit dims after their batch so both line up,
// and 1-d operands are a row (left) or column (right) that is squeezed away
// afterwards. linear with only its input batched stays a linear (it takes
// any leading dims); per-sample weights (as in per-sample gradients) go
// through the matmul form.
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

Value unsqueezeAt(OpBuilder &b, Location loc, Value v, int64_t dim) {
  auto tt = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(tt.getShape());
  shape.insert(shape.begin() + dim, 1);
  return UnsqueezeOp::create(b, loc, RankedTensorType::get(shape, tt.getElementType()), v, dim);
}

/// torch.matmul per sample of `x` and `y` (at least one batched): batched result.
Value batchedMatmul(OpBuilder &b, Location loc, Value x, bool xb, Value y, bool yb) {
  int64_t rx = sampleRank(x, xb), ry = sampleRank(y, yb);
  bool rowX = rx == 1, colY = ry == 1;
  if (rowX)
    x = unsqueezeAt(b, loc, x, xb ? 1 : 0), rx = 2;
  if (colY)
    y = unsqueezeAt(b, loc, y, yb ? 2 : 1), ry = 2;
  int64_t r = std::max(rx, ry);
  if (xb)
    x = unsqueezeAfterBatch(b, loc, x, r - rx);
  if (yb)
    y = unsqueezeAfterBatch(b, loc, y, r - ry);
  if (!xb) // an unbatched left operand broadcasts against the batch
    x = unsqueezeAt(b, loc, x, 0);
  if (!yb)
    y = unsqueezeAt(b, loc, y, 0);
  Value m = autograd::rules::matmul(b, loc, x, y);
  int64_t rank = cast<RankedTensorType>(m.getType()).getRank();
  SmallVector<int64_t> drop;
  if (rowX)
    drop.push_back(rank - 2);
  if (colY)
    drop.push_back(rank - 1);
  if (drop.empty())
    return m;
  auto tt = cast<RankedTensorType>(m.getType());
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(drop, d))
      shape.push_back(tt.getShape()[d]);
  return SqueezeDimsOp::create(b, loc, RankedTensorType::get(shape, tt.getElementType()), m,
                               b.getDenseI64ArrayAttr(drop));
}

Result product(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched, const Batch &,
               OpBuilder &b) {
  BatchedResults r;
  r.values.push_back(batchedMatmul(b, op->getLoc(), operands[0], batched[0], operands[1], batched[1]));
  r.batched.push_back(true);
  return r;
}
} // namespace

void addLinalgBatchRules(BatchRuleTable &t) {
  for (const char *n : {"aten.matmul", "aten.mm", "aten.bmm", "aten.mv", "aten.dot"})
    t[n] = product;
  t["aten.linear"] = [](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                        const Batch &batch, OpBuilder &b) -> Result {
    Location loc = op->getLoc();
    bool wb = batched[1], bb = operands.size() > 2 && batched[2];
    if (!wb && !bb) // the input's batch is one more leading dim
      return allBatched(cloneWith(b, op, operands, batchedResultTypes(op, batch))->getResults());
    Value w = operands[1];
    int64_t rw = sampleRank(w, wb);
    if (rw == 2) {
      SmallVector<int64_t> perm = wb ? SmallVector<int64_t>{0, 2, 1} : SmallVector<int64_t>{1, 0};
      w = autograd::rules::permute(b, loc, w, perm);
    }
    Value y = batchedMatmul(b, loc, operands[0], batched[0], w, wb);
    if (operands.size() > 2) {
      Value bias = operands[2];
      int64_t rank = sampleRank(y, true);
      if (bb)
        bias = unsqueezeAfterBatch(b, loc, bias, rank - sampleRank(bias, true));
      y = autograd::rules::add(b, loc, y, bias);
    }
    BatchedResults r;
    r.values.push_back(y);
    r.batched.push_back(true);
    return r;
  };
}
} // namespace kiln::batching::rules

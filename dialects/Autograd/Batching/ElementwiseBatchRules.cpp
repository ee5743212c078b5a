//===- ElementwiseBatchRules.cpp - batching rules: broadcasting elementwise ops -===//
//
// Every op of ATenElementwiseOps.td, and the elementwise backward ops, maps
// broadcast operands element by element. With the batch in front, an
// unbatched operand still broadcasts (shapes align at the right); a batched
// operand of lower per-sample rank than the result gets unit dims after its
// batch dim so that its batch lines up with the result's.
//
//===----------------------------------------------------------------------===//
#include "Autograd/Batching/BatchRules.h"

#include "ATen/IR/ATenDialect.h"

using namespace mlir;

namespace kiln::batching::rules {
namespace {
FailureOr<BatchedResults> elementwise(Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                                      const Batch &batch, OpBuilder &b) {
  if (op->getNumResults() != 1)
    return failure();
  int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
  SmallVector<Value> newOperands;
  for (auto [v, isBatched] : llvm::zip(operands, batched)) {
    if (!isa<RankedTensorType>(v.getType()))
      return failure();
    newOperands.push_back(isBatched ? unsqueezeAfterBatch(b, op->getLoc(), v, rank - sampleRank(v, true))
                                    : v);
  }
  Operation *c = cloneWith(b, op, newOperands, batchedResultTypes(op, batch));
  return allBatched(c->getResults());
}
} // namespace

void addElementwiseBatchRules(BatchRuleTable &t) {
  // The mnemonics of ATenElementwiseOps.td, then the elementwise backward ops.
  static const char *const names[] = {
      "relu", "gelu", "abs", "neg", "sign", "ceil", "floor", "round", "round_decimals", "trunc",
      "frac", "bitwise_not", "reciprocal", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2",
      "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
      "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "sigmoid", "logit", "silu", "mish",
      "hardswish", "hardsigmoid", "leaky_relu", "elu", "softplus", "hardtanh", "hardshrink",
      "softshrink", "threshold", "nan_to_num", "logical_not", "isnan", "isinf", "isfinite",
      "isposinf", "isneginf", "signbit", "add_tensor", "sub_tensor", "mul_tensor", "div_tensor",
      "div_tensor_mode", "fmod_tensor", "remainder_tensor", "pow_tensor_tensor", "maximum",
      "minimum", "fmax", "fmin", "atan2", "hypot", "copysign_tensor", "eq_tensor", "ne_tensor",
      "lt_tensor", "le_tensor", "gt_tensor", "ge_tensor", "logical_and", "logical_or",
      "logical_xor", "bitwise_and_tensor", "bitwise_or_tensor", "bitwise_xor_tensor",
      "bitwise_left_shift_tensor", "bitwise_right_shift_tensor", "where_self",
      "masked_fill_tensor", "clamp_tensor", "lerp_tensor", "addcmul", "addcdiv", "_to_copy"};
  for (const char *n : names)
    t[std::string("aten.") + n] = elementwise;
  // The backward ops take operands of one shape: all batched.
  auto sameShape = [](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                      const Batch &batch, OpBuilder &b) -> FailureOr<BatchedResults> {
    SmallVector<Value> ops;
    for (auto [v, isBatched] : llvm::zip(operands, batched))
      ops.push_back(materializeBatch(b, op->getLoc(), v, isBatched, batch));
    return allBatched(cloneWith(b, op, ops, batchedResultTypes(op, batch))->getResults());
  };
  t["aten.threshold_backward"] = sameShape;
  t["aten.gelu_backward"] = sameShape;
  // fill.Tensor takes self's shape: a batched value needs a batched self.
  t["aten.fill_tensor"] = [](Operation *op, ArrayRef<Value> operands, ArrayRef<bool> batched,
                             const Batch &batch, OpBuilder &b) -> FailureOr<BatchedResults> {
    SmallVector<Value> ops(operands);
    SmallVector<bool> bt(batched);
    ops[0] = materializeBatch(b, op->getLoc(), ops[0], bt[0], batch);
    bt[0] = true;
    return elementwise(op, ops, bt, batch, b);
  };
}
} // namespace kiln::batching::rules

//===- ShapeRules.cpp - derivatives of views, permutes and expands --------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// Ops that only reshape: the cotangent is viewed back to the input's shape.
template <typename OpT>
LogicalResult reshapeVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                         SmallVectorImpl<Value> &out) {
  if (needed[0])
    out[0] = viewAs(b, op.getLoc(), cts[0], op->getOperand(0));
  return success();
}
/// ... and the tangent is viewed forward to the result's shape.
template <typename OpT>
LogicalResult reshapeJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = viewAs(b, op.getLoc(), ts[0], op->getResult(0));
  return success();
}

LogicalResult permuteVjp(PermuteOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                         SmallVectorImpl<Value> &out) {
  ArrayRef<int64_t> dims = op.getDims();
  int64_t rank = dims.size();
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[(dims[i] % rank + rank) % rank] = i;
  out[0] = permute(b, op.getLoc(), cts[0], inverse);
  return success();
}
LogicalResult permuteJvp(PermuteOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = PermuteOp::create(b, op.getLoc(), op.getType(), ts[0], op.getDimsAttr());
  return success();
}

LogicalResult expandVjp(ExpandOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  if (needed[0])
    out[0] = sumTo(b, op.getLoc(), cts[0], op.getSelf().getType());
  return success();
}
LogicalResult expandJvp(ExpandOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = expandAs(b, op.getLoc(), ts[0], op.getResult());
  return success();
}

} // namespace

void attachShapeRules(MLIRContext *ctx) {
  ViewOp::attachInterface<Rule<ViewOp, reshapeVjp<ViewOp>, reshapeJvp<ViewOp>>>(*ctx);
  FlattenUsingIntsOp::attachInterface<Rule<FlattenUsingIntsOp, reshapeVjp<FlattenUsingIntsOp>,
                                           reshapeJvp<FlattenUsingIntsOp>>>(*ctx);
  UnsqueezeOp::attachInterface<
      Rule<UnsqueezeOp, reshapeVjp<UnsqueezeOp>, reshapeJvp<UnsqueezeOp>>>(*ctx);
  SqueezeDimsOp::attachInterface<
      Rule<SqueezeDimsOp, reshapeVjp<SqueezeDimsOp>, reshapeJvp<SqueezeDimsOp>>>(*ctx);
  PermuteOp::attachInterface<Rule<PermuteOp, permuteVjp, permuteJvp>>(*ctx);
  ExpandOp::attachInterface<Rule<ExpandOp, expandVjp, expandJvp>>(*ctx);
}

} // namespace kiln::autograd::rules

//===- ElementwiseRules.cpp - derivatives of the elementwise aten ops -----===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

LogicalResult reluVjp(ReluOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  if (!isFloatTensor(op.getType()))
    return op.emitError("cannot differentiate 'aten.relu' of an integer tensor");
  out[0] = ThresholdBackwardOp::create(b, op.getLoc(), op.getType(), cts[0], op.getSelf(),
                                       b.getF64FloatAttr(0.0));
  return success();
}
LogicalResult reluJvp(ReluOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = ThresholdBackwardOp::create(b, op.getLoc(), op.getType(), ts[0], op.getSelf(),
                                         b.getF64FloatAttr(0.0));
  return success();
}

LogicalResult geluVjp(GeluOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  out[0] = GeluBackwardOp::create(b, op.getLoc(), op.getType(), cts[0], op.getSelf(),
                                  op.getApproximateAttr());
  return success();
}
LogicalResult geluJvp(GeluOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = GeluBackwardOp::create(b, op.getLoc(), op.getType(), ts[0], op.getSelf(),
                                    op.getApproximateAttr());
  return success();
}

/// d(self + alpha * other) (sign -1 for sub).
template <typename OpT, int Sign>
LogicalResult addSubVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = cts[0];
  double alpha = op.getAlpha().convertToDouble();
  if (needed[0]) {
    if (failed(checkSameElementType(op, op.getSelf(), op.getResult())))
      return failure();
    out[0] = sumTo(b, loc, g, op.getSelf().getType());
  }
  if (needed[1]) {
    if (failed(checkSameElementType(op, op.getOther(), op.getResult())))
      return failure();
    out[1] = sumTo(b, loc, scale(b, loc, g, Sign * alpha), op.getOther().getType());
  }
  return success();
}
template <typename OpT, int Sign>
LogicalResult addSubJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value r;
  if (ts[0])
    r = expandAs(b, loc, ts[0], op.getResult());
  if (ts[1]) {
    Value t = scale(b, loc, ts[1], Sign * op.getAlpha().convertToDouble());
    r = r ? add(b, loc, r, t) : expandAs(b, loc, t, op.getResult());
  }
  out[0] = r;
  return success();
}

LogicalResult mulVjp(MulTensorOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                     SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  for (int i = 0; i < 2; ++i) {
    if (!needed[i])
      continue;
    Value self = op->getOperand(i), other = op->getOperand(1 - i);
    if (failed(checkSameElementType(op, self, op.getResult())))
      return failure();
    out[i] = sumTo(b, loc, mul(b, loc, cts[0], other), self.getType());
  }
  return success();
}
LogicalResult mulJvp(MulTensorOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value r;
  if (ts[0])
    r = mul(b, loc, ts[0], op.getOther());
  if (ts[1]) {
    Value t = mul(b, loc, ts[1], op.getSelf());
    r = r ? add(b, loc, r, t) : t;
  }
  out[0] = r ? expandAs(b, loc, r, op.getResult()) : r;
  return success();
}

/// d(a / c): g / c for a, -g * a / c^2 = -g * result / c for c.
LogicalResult divVjp(DivTensorOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                     SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = cts[0];
  if (needed[0]) {
    if (failed(checkSameElementType(op, op.getSelf(), op.getResult())))
      return failure();
    out[0] = sumTo(b, loc, div(b, loc, g, op.getOther()), op.getSelf().getType());
  }
  if (needed[1]) {
    if (failed(checkSameElementType(op, op.getOther(), op.getResult())))
      return failure();
    Value t = div(b, loc, mul(b, loc, g, op.getResult()), op.getOther());
    out[1] = sumTo(b, loc, scale(b, loc, t, -1.0), op.getOther().getType());
  }
  return success();
}
LogicalResult divJvp(DivTensorOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value r;
  if (ts[0])
    r = div(b, loc, ts[0], op.getOther());
  if (ts[1]) {
    Value t = scale(b, loc, div(b, loc, mul(b, loc, ts[1], op.getResult()), op.getOther()), -1.0);
    r = r ? add(b, loc, r, t) : t;
  }
  out[0] = r ? expandAs(b, loc, r, op.getResult()) : r;
  return success();
}

} // namespace

void attachElementwiseRules(MLIRContext *ctx) {
  ReluOp::attachInterface<Rule<ReluOp, reluVjp, reluJvp>>(*ctx);
  GeluOp::attachInterface<Rule<GeluOp, geluVjp, geluJvp>>(*ctx);
  AddTensorOp::attachInterface<Rule<AddTensorOp, addSubVjp<AddTensorOp, 1>,
                                    addSubJvp<AddTensorOp, 1>>>(*ctx);
  SubTensorOp::attachInterface<Rule<SubTensorOp, addSubVjp<SubTensorOp, -1>,
                                    addSubJvp<SubTensorOp, -1>>>(*ctx);
  MulTensorOp::attachInterface<Rule<MulTensorOp, mulVjp, mulJvp>>(*ctx);
  DivTensorOp::attachInterface<Rule<DivTensorOp, divVjp, divJvp>>(*ctx);
}

} // namespace kiln::autograd::rules

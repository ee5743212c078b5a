//===- LinalgRules.cpp - derivatives of linear and addmm ------------------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// a @ c^T for 2-d a [m, k] and c [n, k], as aten.linear.
Value matmulNT(OpBuilder &b, Location loc, Value a, Value c) {
  auto ta = tensorType(a), tc = tensorType(c);
  auto ty = RankedTensorType::get({ta.getDimSize(0), tc.getDimSize(0)}, ta.getElementType());
  return LinearOp::create(b, loc, ty, a, c, Value());
}

/// y = x @ W^T + b over the last dim of x.
LogicalResult linearVjp(LinearOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = cts[0], x = op.getInput(), w = op.getWeight();
  if (needed[0]) {
    // g @ W: linear(g, W^T), in x's shape.
    Value wt = permute(b, loc, w, {1, 0});
    out[0] = LinearOp::create(b, loc, x.getType(), g, wt, Value());
  }
  if (needed[1]) {
    // sum over the leading dims of g^T x: (g2^T) @ (x2^T)^T.
    Value g2 = flattenTo2d(b, loc, g), x2 = flattenTo2d(b, loc, x);
    Value gw = matmulNT(b, loc, permute(b, loc, g2, {1, 0}), permute(b, loc, x2, {1, 0}));
    out[1] = viewAs(b, loc, gw, w);
  }
  if (op.getBias() && needed[2])
    out[2] = sumTo(b, loc, g, op.getBias().getType());
  return success();
}
LogicalResult linearJvp(LinearOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value r;
  if (ts[0])
    r = LinearOp::create(b, loc, op.getType(), ts[0], op.getWeight(), Value());
  if (ts[1]) {
    Value t = LinearOp::create(b, loc, op.getType(), op.getInput(), ts[1], Value());
    r = r ? add(b, loc, r, t) : t;
  }
  if (op.getBias() && ts[2])
    r = r ? add(b, loc, r, ts[2]) : expandAs(b, loc, ts[2], op.getResult());
  out[0] = r;
  return success();
}

/// beta * self + alpha * mat1 @ mat2.
LogicalResult addmmVjp(AddmmOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                       SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = cts[0];
  double alpha = op.getAlpha().convertToDouble(), beta = op.getBeta().convertToDouble();
  if (needed[0])
    out[0] = sumTo(b, loc, scale(b, loc, g, beta), op.getSelf().getType());
  if (needed[1]) // alpha * g @ mat2^T
    out[1] = scale(b, loc, matmulNT(b, loc, g, op.getMat2()), alpha);
  if (needed[2]) // alpha * mat1^T @ g
    out[2] = scale(b, loc,
                   matmulNT(b, loc, permute(b, loc, op.getMat1(), {1, 0}),
                            permute(b, loc, g, {1, 0})),
                   alpha);
  for (int i = 1; i < 3; ++i)
    if (out[i] && out[i].getType() != op->getOperand(i).getType())
      out[i] = viewAs(b, loc, out[i], op->getOperand(i));
  return success();
}

LogicalResult addmmJvp(AddmmOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  double alpha = op.getAlpha().convertToDouble(), beta = op.getBeta().convertToDouble();
  Value r;
  if (ts[1])
    r = matmulNT(b, loc, ts[1], permute(b, loc, op.getMat2(), {1, 0}));
  if (ts[2]) {
    Value t = matmulNT(b, loc, op.getMat1(), permute(b, loc, ts[2], {1, 0}));
    r = r ? add(b, loc, r, t) : t;
  }
  if (r)
    r = scale(b, loc, r, alpha);
  if (ts[0]) {
    Value t = scale(b, loc, ts[0], beta);
    r = r ? add(b, loc, r, t) : expandAs(b, loc, t, op.getResult());
  }
  out[0] = r ? viewAs(b, loc, r, op.getResult()) : r;
  return success();
}

} // namespace

void attachLinalgRules(MLIRContext *ctx) {
  LinearOp::attachInterface<Rule<LinearOp, linearVjp, linearJvp>>(*ctx);
  AddmmOp::attachInterface<Rule<AddmmOp, addmmVjp, addmmJvp>>(*ctx);
}

} // namespace kiln::autograd::rules

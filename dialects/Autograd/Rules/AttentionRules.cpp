//===- AttentionRules.cpp - derivatives of scaled_dot_product_attention ---===//
//
// The rules recompute the attention probabilities P = softmax(Q K^T * scale
// + mask) with aten ops (the forward op never materialises them), then
// apply the chain rule through the two products and the softmax.
//
//===----------------------------------------------------------------------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// What the rules share: the (head-expanded) keys and values, the scale and
/// the probabilities.
struct Attention {
  Value k, v;     // with grouped-query attention, repeated to the query heads
  int64_t groups; // query heads per key/value head (1 without GQA)
  double scale;
  Value probs;    // [batch..., L, S]
};

/// Grouped-query attention: `x` [..., Hkv, S, E] with each head repeated
/// `groups` times, to [..., Hkv * groups, S, E].
Value repeatHeads(OpBuilder &b, Location loc, Value x, int64_t groups) {
  if (groups == 1)
    return x;
  auto ty = tensorType(x);
  int64_t rank = ty.getRank();
  SmallVector<int64_t> split(ty.getShape()), merged(ty.getShape());
  split.insert(split.begin() + rank - 2, groups);
  merged[rank - 3] = ty.getDimSize(rank - 3) * groups;
  SmallVector<int64_t> unit(ty.getShape());
  unit.insert(unit.begin() + rank - 2, 1);
  // The head dims are static, so every shape has x's dynamic dims in order.
  SmallVector<Value> dyn = dynamicDims(b, loc, x);
  Value u = viewTo(b, loc, x, unit, dyn);
  Value e = ExpandOp::create(b, loc, RankedTensorType::get(split, ty.getElementType()), u, dyn,
                             b.getDenseI64ArrayAttr(split));
  return viewTo(b, loc, e, merged, dyn);
}
/// The inverse for gradients: the `groups` query heads of each key/value
/// head summed.
Value sumHeads(OpBuilder &b, Location loc, Value g, int64_t groups) {
  if (groups == 1)
    return g;
  auto ty = tensorType(g);
  int64_t rank = ty.getRank();
  SmallVector<int64_t> split(ty.getShape());
  split[rank - 3] = ty.getDimSize(rank - 3) / groups;
  split.insert(split.begin() + rank - 2, groups);
  return sumDims(b, loc, viewTo(b, loc, g, split, dynamicDims(b, loc, g)), {rank - 2}, false);
}

/// Builds the shared pieces at the builder.
FailureOr<Attention> recompute(ScaledDotProductAttentionOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  Attention a;
  Value q = op.getQuery();
  auto qTy = tensorType(q);
  int64_t rank = qTy.getRank();
  Type elem = qTy.getElementType();
  if (op.getDropoutP().convertToDouble() != 0.0)
    return op.emitError("cannot differentiate 'aten.scaled_dot_product_attention' with "
                        "dropout_p != 0");
  a.groups = 1;
  if (op.getEnableGqa()) {
    int64_t hq = qTy.getDimSize(rank - 3), hk = tensorType(op.getKey()).getDimSize(rank - 3);
    if (hq == ShapedType::kDynamic || hk == ShapedType::kDynamic)
      return op.emitError("cannot differentiate grouped-query 'aten.scaled_dot_product_attention' "
                          "with dynamic head counts yet");
    a.groups = hq / hk;
  }
  if (op.getScale()) {
    a.scale = op.getScale()->convertToDouble();
  } else {
    int64_t e = qTy.getShape().back();
    if (e == ShapedType::kDynamic)
      return op.emitError("cannot differentiate 'aten.scaled_dot_product_attention' with a "
                          "dynamic embedding size and no scale yet");
    a.scale = 1.0 / std::sqrt((double)e);
  }
  a.k = repeatHeads(b, loc, op.getKey(), a.groups);
  a.v = repeatHeads(b, loc, op.getValue(), a.groups);
  Value scores = scale(b, loc, matmul(b, loc, q, transposeLast2(b, loc, a.k)), a.scale);
  auto sTy = tensorType(scores);
  int64_t sr = sTy.getRank();
  Value negInf = scalarTensor(b, loc, elem, -INFINITY);
  bool canMaskRows = false;
  if (Value m = op.getAttnMask()) {
    if (tensorType(m).getElementType().isInteger(1))
      scores = where(b, loc, m, scores, negInf);
    else
      scores = add(b, loc, scores, m);
    canMaskRows = true;
  }
  if (op.getIsCausal()) {
    // Key j is visible to query i when j <= i.
    auto i64 = b.getI64Type();
    auto arange = [&](int64_t dim) -> Value {
      int64_t n = sTy.getDimSize(dim);
      SmallVector<Value> dyn;
      TypedAttr end;
      if (n == ShapedType::kDynamic)
        dyn.push_back(tensor::DimOp::create(b, loc, scores, dim));
      else
        end = b.getI64IntegerAttr(n);
      return ArangeOp::create(b, loc, RankedTensorType::get({n}, i64), dyn, b.getI64IntegerAttr(0),
                              end, b.getI64IntegerAttr(1));
    };
    Value rows = arange(sr - 2), cols = arange(sr - 1);
    int64_t l = sTy.getDimSize(sr - 2), s = sTy.getDimSize(sr - 1);
    SmallVector<Value> dynL;
    if (l == ShapedType::kDynamic)
      dynL.push_back(tensor::DimOp::create(b, loc, scores, sr - 2));
    rows = viewTo(b, loc, rows, {l, 1}, dynL);
    auto keepTy = RankedTensorType::get({l, s}, b.getI1Type());
    Value keep = GeTensorOp::create(b, loc, keepTy, rows, cols);
    scores = where(b, loc, keep, scores, negInf);
  }
  Value p = SoftmaxOp::create(b, loc, scores.getType(), scores, b.getI64IntegerAttr(sr - 1),
                              b.getBoolAttr(false));
  if (canMaskRows) {
    // A row with every key masked attends to nothing (zeros, as the forward).
    Value rowMax = AmaxOp::create(b, loc,
                                  RankedTensorType::get(reducedShape(tensorType(scores), {sr - 1}, true), elem),
                                  scores, b.getDenseI64ArrayAttr({sr - 1}), b.getBoolAttr(true));
    auto boolTy = RankedTensorType::get(tensorType(rowMax).getShape(), b.getI1Type());
    Value live = GtTensorOp::create(b, loc, boolTy, rowMax, negInf);
    p = where(b, loc, live, p, scalarTensor(b, loc, elem, 0.0));
  }
  a.probs = p;
  return a;
}

/// The softmax chain rule: P * (dP - sum(dP * P)) over the keys.
Value softmaxBack(OpBuilder &b, Location loc, Value p, Value dp) {
  int64_t r = tensorType(p).getRank();
  return mul(b, loc, p, sub(b, loc, dp, sumDims(b, loc, mul(b, loc, dp, p), {r - 1}, true)));
}

LogicalResult sdpaVjp(ScaledDotProductAttentionOp op, OpBuilder &b, ArrayRef<Value> cts,
                      ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  for (int i = 0; i < 4 && i < (int)op->getNumOperands(); ++i)
    if (needed[i] && failed(checkSameElementType(op, op->getOperand(i), op.getResult())))
      return failure();
  auto a = recompute(op, b);
  if (failed(a))
    return failure();
  Value g = cts[0], p = a->probs, q = op.getQuery();
  if (needed[2]) {
    Value dv = matmul(b, loc, transposeLast2(b, loc, p), g);
    out[2] = sumTo(b, loc, sumHeads(b, loc, sumTo(b, loc, dv, a->v.getType()), a->groups),
                   op.getValue().getType());
  }
  bool needMask = op->getNumOperands() > 3 && needed[3];
  if (!needed[0] && !needed[1] && !needMask)
    return success();
  Value ds = softmaxBack(b, loc, p, matmul(b, loc, g, transposeLast2(b, loc, a->v)));
  if (needMask)
    out[3] = sumTo(b, loc, ds, op.getAttnMask().getType());
  ds = scale(b, loc, ds, a->scale);
  if (needed[0])
    out[0] = sumTo(b, loc, matmul(b, loc, ds, a->k), q.getType());
  if (needed[1]) {
    Value dk = matmul(b, loc, transposeLast2(b, loc, ds), q);
    out[1] = sumTo(b, loc, sumHeads(b, loc, sumTo(b, loc, dk, a->k.getType()), a->groups),
                   op.getKey().getType());
  }
  return success();
}

LogicalResult sdpaJvp(ScaledDotProductAttentionOp op, OpBuilder &b, ArrayRef<Value> ts,
                      SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  for (int i = 0; i < (int)op->getNumOperands(); ++i)
    if (ts[i] && failed(checkSameElementType(op, op->getOperand(i), op.getResult())))
      return failure();
  auto a = recompute(op, b);
  if (failed(a))
    return failure();
  Value p = a->probs, q = op.getQuery();
  Value tScores;
  if (ts[0])
    addTo(b, loc, tScores, scale(b, loc, matmul(b, loc, ts[0], transposeLast2(b, loc, a->k)), a->scale));
  if (ts[1]) {
    Value tk = repeatHeads(b, loc, ts[1], a->groups);
    addTo(b, loc, tScores, scale(b, loc, matmul(b, loc, q, transposeLast2(b, loc, tk)), a->scale));
  }
  if (op->getNumOperands() > 3 && ts[3])
    addTo(b, loc, tScores, ts[3]);
  Value r;
  if (tScores) {
    tScores = expandAs(b, loc, tScores, p);
    addTo(b, loc, r, matmul(b, loc, softmaxBack(b, loc, p, tScores), a->v));
  }
  if (ts[2])
    addTo(b, loc, r, matmul(b, loc, p, repeatHeads(b, loc, ts[2], a->groups)));
  out[0] = r ? expandAs(b, loc, r, op.getResult()) : r;
  return success();
}

} // namespace

void attachAttentionRules(MLIRContext *ctx) {
  ScaledDotProductAttentionOp::attachInterface<
      Rule<ScaledDotProductAttentionOp, sdpaVjp, sdpaJvp>>(*ctx);
}

} // namespace kiln::autograd::rules

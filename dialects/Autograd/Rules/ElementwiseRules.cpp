//===- ElementwiseRules.cpp - derivatives of the elementwise aten ops -----===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include <cmath>

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

LogicalResult reluVjp(ReluOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  if (!isFloatTensor(op.getType()))
    return op.emitError("cannot differentiate 'aten.relu' of an integer tensor");
  // Masked by the result (positive exactly where the input is), which the
  // next op usually needs as well, so the backward keeps one tensor, not two.
  out[0] = ThresholdBackwardOp::create(b, op.getLoc(), op.getType(), cts[0], op.getResult(),
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

/// threshold_backward(g, x) and gelu_backward(g, x) are linear in g; in x,
/// threshold's is piecewise constant (a zero derivative) and gelu's is
/// g * gelu''(x) = g * phi(x) * (2 - x^2) (the exact form; the tanh
/// approximation's second derivative is not built yet).
template <typename OpT> FailureOr<Value> secondDerivative(OpT op, OpBuilder &b);
template <>
FailureOr<Value> secondDerivative<ThresholdBackwardOp>(ThresholdBackwardOp op, OpBuilder &b) {
  return zerosLike(b, op.getLoc(), op.getSelf());
}
template <> FailureOr<Value> secondDerivative<GeluBackwardOp>(GeluBackwardOp op, OpBuilder &b) {
  if (op.getApproximate() != "none")
    return op.emitError("cannot differentiate 'aten.gelu_backward' with respect to its input "
                        "for approximate = '")
           << op.getApproximate() << "' yet";
  Location loc = op.getLoc();
  Value x = op.getSelf();
  Value x2 = mul(b, loc, x, x);
  Value phi = scale(b, loc, unary<ExpOp>(b, loc, scale(b, loc, x2, -0.5)), 1.0 / std::sqrt(2 * M_PI));
  return mul(b, loc, phi, sub(b, loc, scalarTensor(b, loc, tensorType(x).getElementType(), 2.0), x2));
}
template <typename OpT>
LogicalResult linearInGradVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                              SmallVectorImpl<Value> &out) {
  if (needed[0]) {
    Operation *copy = b.clone(*op.getOperation());
    copy->setOperand(0, cts[0]);
    out[0] = copy->getResult(0);
  }
  if (needed[1]) {
    auto d2 = secondDerivative(op, b);
    if (failed(d2))
      return failure();
    out[1] = mul(b, op.getLoc(), mul(b, op.getLoc(), cts[0], op->getOperand(0)), *d2);
  }
  return success();
}
template <typename OpT>
LogicalResult linearInGradJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Value r;
  if (ts[0]) {
    Operation *copy = b.clone(*op.getOperation());
    copy->setOperand(0, ts[0]);
    r = copy->getResult(0);
  }
  if (ts[1]) {
    auto d2 = secondDerivative(op, b);
    if (failed(d2))
      return failure();
    Value t = mul(b, op.getLoc(), mul(b, op.getLoc(), ts[1], op->getOperand(0)), *d2);
    r = r ? add(b, op.getLoc(), r, t) : t;
  }
  out[0] = r;
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
    addToExpanded(b, loc, r, t, op.getResult());
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
    addTo(b, loc, r, t);
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
    addTo(b, loc, r, t);
  }
  out[0] = r ? expandAs(b, loc, r, op.getResult()) : r;
  return success();
}

//===----------------------------------------------------------------------===//
// Unary ops: g_x = g * f'(x) and t_y = t * f'(x)
//===----------------------------------------------------------------------===//

Value cst(OpBuilder &b, Location loc, Value like, double v) {
  return scalarTensor(b, loc, tensorType(like).getElementType(), v);
}
Value cmp(OpBuilder &b, Location loc, Value x, Value c, bool greater) {
  auto ty = RankedTensorType::get(tensorType(x).getShape(), b.getI1Type());
  if (greater)
    return GtTensorOp::create(b, loc, ty, x, c);
  return LtTensorOp::create(b, loc, ty, x, c);
}
/// 1 where lo < x < hi, else 0 (either bound may be absent).
Value inside(OpBuilder &b, Location loc, Value x, std::optional<double> lo, std::optional<double> hi) {
  Value r = expandAs(b, loc, cst(b, loc, x, 1.0), x);
  if (lo)
    r = where(b, loc, cmp(b, loc, x, cst(b, loc, x, *lo), true), r, cst(b, loc, x, 0.0));
  if (hi)
    r = where(b, loc, cmp(b, loc, x, cst(b, loc, x, *hi), false), r, cst(b, loc, x, 0.0));
  return r;
}
Value sqr(OpBuilder &b, Location loc, Value v) { return mul(b, loc, v, v); }
/// 1 - v * v.
Value oneMinusSq(OpBuilder &b, Location loc, Value v) {
  return sub(b, loc, cst(b, loc, v, 1.0), sqr(b, loc, v));
}

/// The derivative f'(x) of each unary op, built from its input and result.
template <typename OpT> Value derivative(OpT op, OpBuilder &b, Location loc);
#define KILN_DERIV(OP, ...)                                                                      \
  template <> Value derivative<OP>(OP op, OpBuilder & b, Location loc) {                          \
    [[maybe_unused]] Value x = op.getSelf(), y = op.getResult();                                  \
    __VA_ARGS__                                                                                   \
  }
KILN_DERIV(NegOp, return cst(b, loc, x, -1.0);)
KILN_DERIV(ExpOp, return y;)
KILN_DERIV(Expm1Op, return add(b, loc, y, cst(b, loc, y, 1.0));)
KILN_DERIV(Exp2Op, return scale(b, loc, y, std::log(2.0));)
KILN_DERIV(LogOp, return unary<ReciprocalOp>(b, loc, x);)
KILN_DERIV(Log2Op, return unary<ReciprocalOp>(b, loc, scale(b, loc, x, std::log(2.0)));)
KILN_DERIV(Log10Op, return unary<ReciprocalOp>(b, loc, scale(b, loc, x, std::log(10.0)));)
KILN_DERIV(Log1pOp, return unary<ReciprocalOp>(b, loc, add(b, loc, x, cst(b, loc, x, 1.0)));)
KILN_DERIV(SqrtOp, return unary<ReciprocalOp>(b, loc, scale(b, loc, y, 2.0));)
KILN_DERIV(RsqrtOp, return scale(b, loc, mul(b, loc, y, sqr(b, loc, y)), -0.5);)
KILN_DERIV(ReciprocalOp, return scale(b, loc, sqr(b, loc, y), -1.0);)
KILN_DERIV(SinOp, return unary<CosOp>(b, loc, x);)
KILN_DERIV(CosOp, return scale(b, loc, unary<SinOp>(b, loc, x), -1.0);)
KILN_DERIV(TanOp, return add(b, loc, cst(b, loc, y, 1.0), sqr(b, loc, y));)
KILN_DERIV(TanhOp, return oneMinusSq(b, loc, y);)
KILN_DERIV(SinhOp, return unary<CoshOp>(b, loc, x);)
KILN_DERIV(CoshOp, return unary<SinhOp>(b, loc, x);)
KILN_DERIV(AsinOp, return unary<RsqrtOp>(b, loc, oneMinusSq(b, loc, x));)
KILN_DERIV(AcosOp, return scale(b, loc, unary<RsqrtOp>(b, loc, oneMinusSq(b, loc, x)), -1.0);)
KILN_DERIV(AtanOp,
           return unary<ReciprocalOp>(b, loc, add(b, loc, cst(b, loc, x, 1.0), sqr(b, loc, x)));)
KILN_DERIV(AsinhOp, return unary<RsqrtOp>(b, loc, add(b, loc, sqr(b, loc, x), cst(b, loc, x, 1.0)));)
KILN_DERIV(AcoshOp, return unary<RsqrtOp>(b, loc, sub(b, loc, sqr(b, loc, x), cst(b, loc, x, 1.0)));)
KILN_DERIV(AtanhOp, return unary<ReciprocalOp>(b, loc, oneMinusSq(b, loc, x));)
KILN_DERIV(ErfOp, return scale(b, loc, unary<ExpOp>(b, loc, scale(b, loc, sqr(b, loc, x), -1.0)),
                               2.0 / std::sqrt(M_PI));)
KILN_DERIV(ErfcOp, return scale(b, loc, unary<ExpOp>(b, loc, scale(b, loc, sqr(b, loc, x), -1.0)),
                                -2.0 / std::sqrt(M_PI));)
KILN_DERIV(ErfinvOp, return scale(b, loc, unary<ExpOp>(b, loc, sqr(b, loc, y)), std::sqrt(M_PI) / 2.0);)
KILN_DERIV(SigmoidOp, return mul(b, loc, y, sub(b, loc, cst(b, loc, y, 1.0), y));)
KILN_DERIV(SiluOp, {
  Value s = unary<SigmoidOp>(b, loc, x);
  return mul(b, loc, s, add(b, loc, cst(b, loc, x, 1.0), mul(b, loc, x, sub(b, loc, cst(b, loc, x, 1.0), s))));
})
KILN_DERIV(MishOp, {
  Value sp = SoftplusOp::create(b, loc, x.getType(), x, b.getF64FloatAttr(1.0), b.getF64FloatAttr(20.0));
  Value t = unary<TanhOp>(b, loc, sp);
  return add(b, loc, t, mul(b, loc, mul(b, loc, x, unary<SigmoidOp>(b, loc, x)), oneMinusSq(b, loc, t)));
})
KILN_DERIV(AbsOp, return unary<SignOp>(b, loc, x);)
KILN_DERIV(SoftplusOp, {
  double beta = op.getBeta().convertToDouble(), th = op.getThreshold().convertToDouble();
  Value bx = scale(b, loc, x, beta);
  return where(b, loc, cmp(b, loc, bx, cst(b, loc, x, th), true), cst(b, loc, x, 1.0),
               unary<SigmoidOp>(b, loc, bx));
})
KILN_DERIV(LeakyReluOp, return where(b, loc, cmp(b, loc, x, cst(b, loc, x, 0.0), true),
                                     cst(b, loc, x, 1.0),
                                     cst(b, loc, x, op.getNegativeSlope().convertToDouble()));)
KILN_DERIV(EluOp, {
  double alpha = op.getAlpha().convertToDouble(), sc = op.getScale().convertToDouble(),
         is = op.getInputScale().convertToDouble();
  Value neg = scale(b, loc, unary<ExpOp>(b, loc, scale(b, loc, x, is)), sc * alpha * is);
  return where(b, loc, cmp(b, loc, x, cst(b, loc, x, 0.0), true), cst(b, loc, x, sc), neg);
})
KILN_DERIV(HardtanhOp, return inside(b, loc, x, op.getMinVal().convertToDouble(),
                                     op.getMaxVal().convertToDouble());)
KILN_DERIV(HardsigmoidOp, return scale(b, loc, inside(b, loc, x, -3.0, 3.0), 1.0 / 6.0);)
KILN_DERIV(HardswishOp, {
  Value mid = scale(b, loc, add(b, loc, scale(b, loc, x, 2.0), cst(b, loc, x, 3.0)), 1.0 / 6.0);
  Value r = where(b, loc, cmp(b, loc, x, cst(b, loc, x, 3.0), true), cst(b, loc, x, 1.0), mid);
  return where(b, loc, cmp(b, loc, x, cst(b, loc, x, -3.0), false), cst(b, loc, x, 0.0), r);
})
KILN_DERIV(ThresholdOp, return inside(b, loc, x, op.getThreshold().convertToDouble(), std::nullopt);)
KILN_DERIV(FracOp, return cst(b, loc, x, 1.0);)
#undef KILN_DERIV

template <typename OpT>
LogicalResult unaryVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                       SmallVectorImpl<Value> &out) {
  if (failed(checkSameElementType(op, op.getSelf(), op.getResult())))
    return failure();
  Location loc = op.getLoc();
  out[0] = sumTo(b, loc, mul(b, loc, cts[0], derivative(op, b, loc)), op.getSelf().getType());
  return success();
}
template <typename OpT>
LogicalResult unaryJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  if (failed(checkSameElementType(op, op.getSelf(), op.getResult())))
    return failure();
  Location loc = op.getLoc();
  out[0] = expandAs(b, loc, mul(b, loc, ts[0], derivative(op, b, loc)), op.getResult());
  return success();
}

/// Piecewise-constant ops: a zero gradient.
template <typename OpT>
LogicalResult zeroVjp(OpT op, OpBuilder &b, ArrayRef<Value>, ArrayRef<bool> needed,
                      SmallVectorImpl<Value> &out) {
  for (auto [i, o] : llvm::enumerate(op->getOperands()))
    if (needed[i])
      out[i] = zerosLike(b, op.getLoc(), o);
  return success();
}
template <typename OpT>
LogicalResult zeroJvp(OpT op, OpBuilder &b, ArrayRef<Value>, SmallVectorImpl<Value> &out) {
  if (isFloatTensor(op.getResult().getType()))
    out[0] = zerosLike(b, op.getLoc(), op.getResult());
  return success();
}

//===----------------------------------------------------------------------===//
// Binary and selection ops: one partial derivative per operand
//===----------------------------------------------------------------------===//

/// The partial derivatives of a binary op with respect to operand `i`.
template <typename OpT> Value partial(OpT op, OpBuilder &b, Location loc, unsigned i);
template <> Value partial<PowTensorTensorOp>(PowTensorTensorOp op, OpBuilder &b, Location loc, unsigned i) {
  Value a = op.getSelf(), e = op.getOther(), y = op.getResult();
  if (i == 0) { // e * a^(e - 1)
    Type elem = tensorType(y).getElementType();
    if (tensorType(e).getElementType() != elem) // an integer exponent
      e = ToCopyOp::create(b, loc, RankedTensorType::get(tensorType(e).getShape(), elem), e);
    Value em1 = sub(b, loc, e, cst(b, loc, y, 1.0));
    auto ty = RankedTensorType::get(tensorType(y).getShape(), elem);
    return mul(b, loc, PowTensorTensorOp::create(b, loc, ty, a, em1), e);
  }
  // y * log(a), 0 where y is 0 (a = 0 with e > 0), as ATen.
  Value l = mul(b, loc, y, unary<LogOp>(b, loc, expandAs(b, loc, a, y)));
  auto boolTy = RankedTensorType::get(tensorType(y).getShape(), b.getI1Type());
  Value zero = EqTensorOp::create(b, loc, boolTy, y, cst(b, loc, y, 0.0));
  return where(b, loc, zero, cst(b, loc, y, 0.0), l);
}
/// maximum/minimum: the cotangent goes to the operand that is selected, split
/// evenly on ties.
template <typename OpT, bool Max> Value extremumPartial(OpT op, OpBuilder &b, Location loc, unsigned i) {
  Value a = op->getOperand(i), c = op->getOperand(1 - i), y = op.getResult();
  auto boolTy = RankedTensorType::get(tensorType(y).getShape(), b.getI1Type());
  Value wins = Max ? GtTensorOp::create(b, loc, boolTy, a, c).getResult()
                   : LtTensorOp::create(b, loc, boolTy, a, c).getResult();
  Value tie = EqTensorOp::create(b, loc, boolTy, a, c);
  return where(b, loc, wins, cst(b, loc, y, 1.0),
               where(b, loc, tie, cst(b, loc, y, 0.5), cst(b, loc, y, 0.0)));
}
template <> Value partial<MaximumOp>(MaximumOp op, OpBuilder &b, Location loc, unsigned i) {
  return extremumPartial<MaximumOp, true>(op, b, loc, i);
}
template <> Value partial<MinimumOp>(MinimumOp op, OpBuilder &b, Location loc, unsigned i) {
  return extremumPartial<MinimumOp, false>(op, b, loc, i);
}
template <> Value partial<Atan2Op>(Atan2Op op, OpBuilder &b, Location loc, unsigned i) {
  Value a = op.getSelf(), c = op.getOther();
  Value r2 = add(b, loc, sqr(b, loc, a), sqr(b, loc, c));
  return i == 0 ? div(b, loc, c, r2) : scale(b, loc, div(b, loc, a, r2), -1.0);
}
template <> Value partial<HypotOp>(HypotOp op, OpBuilder &b, Location loc, unsigned i) {
  return div(b, loc, op->getOperand(i), op.getResult());
}


/// addcmul(s, t1, t2, value) = s + value * t1 * t2 and addcdiv = s + value * t1 / t2:
/// g to s; value * g * t2 (addcmul) or value * g / t2 (addcdiv) to t1; value * g * t1
/// (addcmul) or -value * g * t1 / t2^2 (addcdiv) to t2, each summed to its operand's shape.
template <typename OpT, bool Div>
LogicalResult addcVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                      SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = cts[0], t1 = op.getTensor1(), t2 = op.getTensor2();
  double v = op.getValue().convertToDouble();
  for (int i = 0; i < 3; ++i)
    if (needed[i] && failed(checkSameElementType(op, op->getOperand(i), op.getResult())))
      return failure();
  if (needed[0])
    out[0] = sumTo(b, loc, g, op.getSelf().getType());
  Value vg = scale(b, loc, g, v);
  if (needed[1])
    out[1] = sumTo(b, loc, Div ? div(b, loc, vg, t2) : mul(b, loc, vg, t2), t1.getType());
  if (needed[2]) {
    Value d = Div ? scale(b, loc, div(b, loc, mul(b, loc, vg, t1), mul(b, loc, t2, t2)), -1.0)
                  : mul(b, loc, vg, t1);
    out[2] = sumTo(b, loc, d, t2.getType());
  }
  return success();
}
template <typename OpT, bool Div>
LogicalResult addcJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value t1 = op.getTensor1(), t2 = op.getTensor2(), r;
  double v = op.getValue().convertToDouble();
  auto acc = [&](Value t) { r = r ? add(b, loc, r, t) : t; };
  if (ts[0])
    acc(ts[0]);
  if (ts[1])
    acc(scale(b, loc, Div ? div(b, loc, ts[1], t2) : mul(b, loc, ts[1], t2), v));
  if (ts[2])
    acc(Div ? scale(b, loc, div(b, loc, mul(b, loc, ts[2], t1), mul(b, loc, t2, t2)), -v)
            : scale(b, loc, mul(b, loc, ts[2], t1), v));
  out[0] = r ? expandAs(b, loc, r, op.getResult()) : r;
  return success();
}

/// lerp(s, e, w) = s + w * (e - s): g * (1 - w) to s, g * w to e, g * (e - s) to w.
Value lerpPartial(LerpTensorOp op, OpBuilder &b, Location loc, unsigned i) {
  Value s = op.getSelf(), e = op.getEnd(), w = op.getWeight();
  if (i == 0)
    return sub(b, loc, cst(b, loc, w, 1.0), w);
  return i == 1 ? w : sub(b, loc, e, s);
}
LogicalResult lerpVjp(LerpTensorOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                      SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  for (unsigned i = 0; i < 3; ++i) {
    if (!needed[i])
      continue;
    Value x = op->getOperand(i);
    if (failed(checkSameElementType(op, x, op.getResult())))
      return failure();
    out[i] = sumTo(b, loc, expandAs(b, loc, mul(b, loc, cts[0], lerpPartial(op, b, loc, i)), op.getResult()),
                   x.getType());
  }
  return success();
}
LogicalResult lerpJvp(LerpTensorOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value r;
  for (unsigned i = 0; i < 3; ++i)
    if (ts[i]) {
      Value t = mul(b, loc, ts[i], lerpPartial(op, b, loc, i));
      addTo(b, loc, r, t);
    }
  out[0] = r ? expandAs(b, loc, r, op.getResult()) : r;
  return success();
}

/// where(c, a, o): the cotangent where c holds goes to a, elsewhere to o.
LogicalResult whereVjp(WhereSelfOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                       SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = cts[0], zero = cst(b, loc, g, 0.0);
  for (int i = 1; i < 3; ++i) {
    if (!needed[i])
      continue;
    if (failed(checkSameElementType(op, op->getOperand(i), op.getResult())))
      return failure();
    Value sel = i == 1 ? where(b, loc, op.getCondition(), g, zero)
                       : where(b, loc, op.getCondition(), zero, g);
    out[i] = sumTo(b, loc, sel, op->getOperand(i).getType());
  }
  return success();
}
LogicalResult whereJvp(WhereSelfOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  if (!ts[1] && !ts[2])
    return success();
  Value y = op.getResult();
  Value a = ts[1] ? ts[1] : cst(b, loc, y, 0.0), c = ts[2] ? ts[2] : cst(b, loc, y, 0.0);
  out[0] = expandAs(b, loc, where(b, loc, op.getCondition(), a, c), y);
  return success();
}

/// masked_fill(self, mask, value): self's cotangent where the mask is off,
/// the value's the sum of the rest.
LogicalResult maskedFillVjp(MaskedFillTensorOp op, OpBuilder &b, ArrayRef<Value> cts,
                            ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = cts[0], zero = cst(b, loc, g, 0.0);
  if (needed[0])
    out[0] = sumTo(b, loc, where(b, loc, op.getMask(), zero, g), op.getSelf().getType());
  if (needed[2]) {
    if (failed(checkSameElementType(op, op.getValue(), op.getResult())))
      return failure();
    out[2] = sumTo(b, loc, where(b, loc, op.getMask(), g, zero), op.getValue().getType());
  }
  return success();
}
LogicalResult maskedFillJvp(MaskedFillTensorOp op, OpBuilder &b, ArrayRef<Value> ts,
                            SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  if (!ts[0] && !ts[2])
    return success();
  Value y = op.getResult();
  Value a = ts[0] ? ts[0] : cst(b, loc, y, 0.0), v = ts[2] ? ts[2] : cst(b, loc, y, 0.0);
  out[0] = expandAs(b, loc, where(b, loc, op.getMask(), v, a), y);
  return success();
}

/// clamp(x, lo, hi) = min(max(x, lo), hi): with m = max(x, lo), the
/// cotangent goes to hi where m > hi, else to lo where x < lo, else to x.
void clampMasks(ClampTensorOp op, OpBuilder &b, Value &belowLo, Value &aboveHi) {
  Location loc = op.getLoc();
  Value x = op.getSelf(), m = x;
  auto boolTy = [&](Value a, Value c) {
    return RankedTensorType::get(broadcastShape(tensorType(a).getShape(), tensorType(c).getShape()),
                                 b.getI1Type());
  };
  if (Value lo = op.getMin()) {
    belowLo = LtTensorOp::create(b, loc, boolTy(x, lo), x, lo);
    m = where(b, loc, belowLo, lo, x);
  }
  if (Value hi = op.getMax())
    aboveHi = GtTensorOp::create(b, loc, boolTy(m, hi), m, hi);
}
LogicalResult clampVjp(ClampTensorOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                       SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  for (auto [i, o] : llvm::enumerate(op->getOperands()))
    if (needed[i] && failed(checkSameElementType(op, o, op.getResult())))
      return failure();
  Value belowLo, aboveHi, g = cts[0], zero = cst(b, loc, g, 0.0);
  clampMasks(op, b, belowLo, aboveHi);
  Value notHi = aboveHi ? where(b, loc, aboveHi, zero, g) : g;
  if (needed[0])
    out[0] = sumTo(b, loc, belowLo ? where(b, loc, belowLo, zero, notHi) : notHi,
                   op.getSelf().getType());
  unsigned i = 1;
  if (op.getMin()) {
    if (needed[i])
      out[i] = sumTo(b, loc, where(b, loc, belowLo, notHi, zero), op.getMin().getType());
    ++i;
  }
  if (op.getMax() && needed[i])
    out[i] = sumTo(b, loc, where(b, loc, aboveHi, g, zero), op.getMax().getType());
  return success();
}
LogicalResult clampJvp(ClampTensorOp op, OpBuilder &b, ArrayRef<Value> ts,
                       SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  for (auto [i, o] : llvm::enumerate(op->getOperands()))
    if (ts[i] && failed(checkSameElementType(op, o, op.getResult())))
      return failure();
  Value belowLo, aboveHi, y = op.getResult(), zero = cst(b, loc, y, 0.0);
  clampMasks(op, b, belowLo, aboveHi);
  unsigned i = 1;
  Value tLo, tHi;
  if (op.getMin())
    tLo = ts[i++];
  if (op.getMax())
    tHi = ts[i];
  Value t = ts[0] ? ts[0] : zero;
  if (belowLo)
    t = where(b, loc, belowLo, tLo ? tLo : zero, t);
  if (aboveHi)
    t = where(b, loc, aboveHi, tHi ? tHi : zero, t);
  out[0] = expandAs(b, loc, t, y);
  return success();
}

/// _to_copy between float dtypes: the cotangent converted back.
LogicalResult toCopyVjp(ToCopyOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                        SmallVectorImpl<Value> &out) {
  if (!isFloatTensor(op.getSelf().getType()))
    return success();
  Value g = cts[0];
  out[0] = g.getType() == op.getSelf().getType()
               ? g
               : ToCopyOp::create(b, op.getLoc(), op.getSelf().getType(), g).getResult();
  return success();
}
LogicalResult toCopyJvp(ToCopyOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0] && isFloatTensor(op.getType()))
    out[0] = ts[0].getType() == op.getType()
                 ? ts[0]
                 : ToCopyOp::create(b, op.getLoc(), op.getType(), ts[0]).getResult();
  return success();
}

} // namespace

void attachElementwiseRules(MLIRContext *ctx) {
#define KILN_UNARY(OP) OP::attachInterface<Rule<OP, unaryVjp<OP>, unaryJvp<OP>>>(*ctx);
  KILN_UNARY(NegOp) KILN_UNARY(ExpOp) KILN_UNARY(Expm1Op) KILN_UNARY(Exp2Op) KILN_UNARY(LogOp)
  KILN_UNARY(Log2Op) KILN_UNARY(Log10Op) KILN_UNARY(Log1pOp) KILN_UNARY(SqrtOp) KILN_UNARY(RsqrtOp)
  KILN_UNARY(ReciprocalOp) KILN_UNARY(SinOp) KILN_UNARY(CosOp) KILN_UNARY(TanOp) KILN_UNARY(TanhOp)
  KILN_UNARY(SinhOp) KILN_UNARY(CoshOp) KILN_UNARY(AsinOp) KILN_UNARY(AcosOp) KILN_UNARY(AtanOp)
  KILN_UNARY(AsinhOp) KILN_UNARY(AcoshOp) KILN_UNARY(AtanhOp) KILN_UNARY(ErfOp) KILN_UNARY(ErfcOp)
  KILN_UNARY(ErfinvOp)
  KILN_UNARY(SigmoidOp) KILN_UNARY(SiluOp) KILN_UNARY(MishOp) KILN_UNARY(AbsOp)
  KILN_UNARY(SoftplusOp) KILN_UNARY(LeakyReluOp) KILN_UNARY(EluOp) KILN_UNARY(HardtanhOp)
  KILN_UNARY(HardsigmoidOp) KILN_UNARY(HardswishOp) KILN_UNARY(ThresholdOp) KILN_UNARY(FracOp)
#undef KILN_UNARY
#define KILN_ZERO(OP) OP::attachInterface<Rule<OP, zeroVjp<OP>, zeroJvp<OP>>>(*ctx);
  KILN_ZERO(FloorOp) KILN_ZERO(CeilOp) KILN_ZERO(RoundOp) KILN_ZERO(TruncOp) KILN_ZERO(SignOp)
#undef KILN_ZERO
#define KILN_BINARY(OP) \
  OP::attachInterface<Rule<OP, pointwiseVjp<OP, partial<OP>>, pointwiseJvp<OP, partial<OP>>>>(*ctx);
  KILN_BINARY(PowTensorTensorOp) KILN_BINARY(MaximumOp) KILN_BINARY(MinimumOp)
  KILN_BINARY(Atan2Op) KILN_BINARY(HypotOp)
#undef KILN_BINARY
  WhereSelfOp::attachInterface<Rule<WhereSelfOp, whereVjp, whereJvp>>(*ctx);
  LerpTensorOp::attachInterface<Rule<LerpTensorOp, lerpVjp, lerpJvp>>(*ctx);
  AddcmulOp::attachInterface<Rule<AddcmulOp, addcVjp<AddcmulOp, false>, addcJvp<AddcmulOp, false>>>(*ctx);
  AddcdivOp::attachInterface<Rule<AddcdivOp, addcVjp<AddcdivOp, true>, addcJvp<AddcdivOp, true>>>(*ctx);
  MaskedFillTensorOp::attachInterface<Rule<MaskedFillTensorOp, maskedFillVjp, maskedFillJvp>>(*ctx);
  ClampTensorOp::attachInterface<Rule<ClampTensorOp, clampVjp, clampJvp>>(*ctx);
  ToCopyOp::attachInterface<Rule<ToCopyOp, toCopyVjp, toCopyJvp>>(*ctx);
  ReluOp::attachInterface<Rule<ReluOp, reluVjp, reluJvp>>(*ctx);
  GeluOp::attachInterface<Rule<GeluOp, geluVjp, geluJvp>>(*ctx);
  ThresholdBackwardOp::attachInterface<Rule<ThresholdBackwardOp, linearInGradVjp<ThresholdBackwardOp>,
                                            linearInGradJvp<ThresholdBackwardOp>>>(*ctx);
  GeluBackwardOp::attachInterface<Rule<GeluBackwardOp, linearInGradVjp<GeluBackwardOp>,
                                       linearInGradJvp<GeluBackwardOp>>>(*ctx);
  AddTensorOp::attachInterface<Rule<AddTensorOp, addSubVjp<AddTensorOp, 1>,
                                    addSubJvp<AddTensorOp, 1>>>(*ctx);
  SubTensorOp::attachInterface<Rule<SubTensorOp, addSubVjp<SubTensorOp, -1>,
                                    addSubJvp<SubTensorOp, -1>>>(*ctx);
  MulTensorOp::attachInterface<Rule<MulTensorOp, mulVjp, mulJvp>>(*ctx);
  DivTensorOp::attachInterface<Rule<DivTensorOp, divVjp, divJvp>>(*ctx);
}

} // namespace kiln::autograd::rules

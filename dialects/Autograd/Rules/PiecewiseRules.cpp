//===- PiecewiseRules.cpp - derivatives of the piecewise elementwise ops --===//
//
// Ops whose derivative is a mask or a step: rounding division and rounding
// (zero), remainder and fmod (the dividend passes through, the divisor gets
// minus the rounded quotient), the NaN-ignoring fmax/fmin, copysign,
// nan_to_num, the shrinks and logit (masked outside its domain), each as
// PyTorch's derivatives.yaml defines it. Operands are broadcast, so every
// partial is taken at the result's shape and summed back to the operand's.
//
//===----------------------------------------------------------------------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

Value cst(OpBuilder &b, Location loc, Value like, double v) {
  return scalarTensor(b, loc, tensorType(like).getElementType(), v);
}
RankedTensorType boolLike(OpBuilder &b, Value a, Value c) {
  return RankedTensorType::get(broadcastShape(tensorType(a).getShape(), tensorType(c).getShape()),
                               b.getI1Type());
}
/// 1 where `mask` holds, else 0, in the float type of `like`.
Value ones(OpBuilder &b, Location loc, Value mask, Value like) {
  return where(b, loc, mask, cst(b, loc, like, 1.0), cst(b, loc, like, 0.0));
}
/// a op c for a comparison op.
template <typename CmpOp> Value compare(OpBuilder &b, Location loc, Value a, Value c) {
  return CmpOp::create(b, loc, boolLike(b, a, c), a, c);
}
Value logicalOr(OpBuilder &b, Location loc, Value a, Value c) {
  return LogicalOrOp::create(b, loc, boolLike(b, a, c), a, c);
}
Value isnan(OpBuilder &b, Location loc, Value a) {
  return IsnanOp::create(b, loc, RankedTensorType::get(tensorType(a).getShape(), b.getI1Type()), a);
}

/// The partial derivative of the op with respect to operand `i`, at the
/// result's shape (broadcast is fine; the rule expands and sums it).
template <typename OpT> Value partial(OpT op, OpBuilder &b, Location loc, unsigned i);

/// remainder(a, c) = a - floor(a / c) * c, fmod(a, c) = a - trunc(a / c) * c.
template <typename OpT> Value remainderPartial(OpT op, OpBuilder &b, Location loc, unsigned i,
                                               StringRef mode) {
  Value y = op.getResult();
  if (i == 0)
    return cst(b, loc, y, 1.0);
  Value q = DivTensorModeOp::create(b, loc, y.getType(), op.getSelf(), op.getOther(), b.getStringAttr(mode));
  return scale(b, loc, q, -1.0);
}
template <> Value partial<RemainderTensorOp>(RemainderTensorOp op, OpBuilder &b, Location loc, unsigned i) {
  return remainderPartial(op, b, loc, i, "floor");
}
template <> Value partial<FmodTensorOp>(FmodTensorOp op, OpBuilder &b, Location loc, unsigned i) {
  return remainderPartial(op, b, loc, i, "trunc");
}
/// fmax picks self where self >= other or other is NaN, else other (fmin: <=).
template <typename OpT, bool Max> Value fextremumPartial(OpT op, OpBuilder &b, Location loc, unsigned i) {
  Value a = op.getSelf(), c = op.getOther(), y = op.getResult();
  Value pick = Max ? compare<GeTensorOp>(b, loc, a, c) : compare<LeTensorOp>(b, loc, a, c);
  Value self = logicalOr(b, loc, pick, isnan(b, loc, c));
  return i == 0 ? ones(b, loc, self, y) : where(b, loc, self, cst(b, loc, y, 0.0), cst(b, loc, y, 1.0));
}
template <> Value partial<FmaxOp>(FmaxOp op, OpBuilder &b, Location loc, unsigned i) {
  return fextremumPartial<FmaxOp, true>(op, b, loc, i);
}
template <> Value partial<FminOp>(FminOp op, OpBuilder &b, Location loc, unsigned i) {
  return fextremumPartial<FminOp, false>(op, b, loc, i);
}
/// copysign(a, c): result / a (0 where a is 0) for a; nothing flows to c.
template <> Value partial<CopysignTensorOp>(CopysignTensorOp op, OpBuilder &b, Location loc, unsigned i) {
  Value a = op.getSelf(), y = op.getResult();
  if (i == 1)
    return cst(b, loc, y, 0.0);
  Value zero = compare<EqTensorOp>(b, loc, a, cst(b, loc, a, 0.0));
  return where(b, loc, zero, cst(b, loc, y, 0.0), div(b, loc, y, a));
}
/// The rounded quotient and the rounded value are steps: a zero derivative.
template <> Value partial<DivTensorModeOp>(DivTensorModeOp op, OpBuilder &b, Location loc, unsigned) {
  return cst(b, loc, op.getResult(), 0.0);
}
template <> Value partial<RoundDecimalsOp>(RoundDecimalsOp op, OpBuilder &b, Location loc, unsigned) {
  return cst(b, loc, op.getResult(), 0.0);
}
/// nan_to_num passes the gradient where the input is finite.
template <> Value partial<NanToNumOp>(NanToNumOp op, OpBuilder &b, Location loc, unsigned) {
  Value x = op.getSelf();
  auto ty = RankedTensorType::get(tensorType(x).getShape(), b.getI1Type());
  return ones(b, loc, IsfiniteOp::create(b, loc, ty, x), op.getResult());
}
/// hardshrink and softshrink pass it where |x| > lambd.
template <typename OpT> Value shrinkPartial(OpT op, OpBuilder &b, Location loc) {
  Value x = op.getSelf();
  double l = op.getLambd().convertToDouble();
  Value out = logicalOr(b, loc, compare<GtTensorOp>(b, loc, x, cst(b, loc, x, l)),
                        compare<LtTensorOp>(b, loc, x, cst(b, loc, x, -l)));
  return ones(b, loc, out, op.getResult());
}
template <> Value partial<HardshrinkOp>(HardshrinkOp op, OpBuilder &b, Location loc, unsigned) {
  return shrinkPartial(op, b, loc);
}
template <> Value partial<SoftshrinkOp>(SoftshrinkOp op, OpBuilder &b, Location loc, unsigned) {
  return shrinkPartial(op, b, loc);
}
/// logit: 1 / (x (1 - x)) inside [lo, hi]; outside, NaN without eps (the
/// function is undefined there) and 0 with eps (the input was clamped).
template <> Value partial<LogitOp>(LogitOp op, OpBuilder &b, Location loc, unsigned) {
  Value x = op.getSelf();
  std::optional<double> eps;
  if (auto e = op.getEps())
    eps = e->convertToDouble();
  double lo = eps ? *eps : 0.0, hi = eps ? 1.0 - *eps : 1.0;
  Value d = unary<ReciprocalOp>(b, loc, mul(b, loc, x, sub(b, loc, cst(b, loc, x, 1.0), x)));
  Value outside = logicalOr(b, loc, compare<LtTensorOp>(b, loc, x, cst(b, loc, x, lo)),
                            compare<GtTensorOp>(b, loc, x, cst(b, loc, x, hi)));
  double fill = eps ? 0.0 : std::numeric_limits<double>::quiet_NaN();
  return where(b, loc, outside, cst(b, loc, x, fill), d);
}


} // namespace

void attachPiecewiseRules(MLIRContext *ctx) {
#define KILN_PIECEWISE(OP) \
  OP::attachInterface<Rule<OP, pointwiseVjp<OP, partial<OP>>, pointwiseJvp<OP, partial<OP>>>>(*ctx);
  KILN_PIECEWISE(RemainderTensorOp) KILN_PIECEWISE(FmodTensorOp) KILN_PIECEWISE(FmaxOp)
  KILN_PIECEWISE(FminOp) KILN_PIECEWISE(CopysignTensorOp) KILN_PIECEWISE(DivTensorModeOp)
  KILN_PIECEWISE(RoundDecimalsOp) KILN_PIECEWISE(NanToNumOp) KILN_PIECEWISE(HardshrinkOp)
  KILN_PIECEWISE(SoftshrinkOp) KILN_PIECEWISE(LogitOp)
#undef KILN_PIECEWISE
}

} // namespace kiln::autograd::rules

//===- ReductionRules.cpp - derivatives of the reductions -----------------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// d sum: the cotangent broadcast over the reduced dims.
LogicalResult sumVjp(SumDimIntListOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                     SmallVectorImpl<Value> &out) {
  out[0] = unreduce(b, op.getLoc(), cts[0], op.getSelf(), op.getReducedDims(), op.getKeepdim());
  return success();
}

/// d mean: the cotangent spread evenly over the reduced dims.
LogicalResult meanVjp(MeanDimOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value self = op.getSelf();
  SmallVector<int64_t> dims = op.getReducedDims();
  Value g = keepDims(b, loc, cts[0], self, dims, op.getKeepdim());
  out[0] = expandAs(b, loc, div(b, loc, g, countOf(b, loc, self, dims)), self);
  return success();
}

/// amax/amin: the cotangent shared evenly by the elements equal to the
/// extremum (ATen's rule for ties).
template <typename OpT>
void extremumMask(OpT op, OpBuilder &b, Value &mask, Value &share) {
  Location loc = op.getLoc();
  Value x = op.getSelf();
  SmallVector<int64_t> dims = op.getReducedDims();
  Value y = keepDims(b, loc, op.getResult(), x, dims, op.getKeepdim());
  auto boolTy = RankedTensorType::get(tensorType(x).getShape(), b.getI1Type());
  mask = EqTensorOp::create(b, loc, boolTy, x, y);
  Type elem = tensorType(x).getElementType();
  Value ones = where(b, loc, mask, scalarTensor(b, loc, elem, 1.0), scalarTensor(b, loc, elem, 0.0));
  share = div(b, loc, ones, sumDims(b, loc, ones, dims, true));
}
template <typename OpT>
LogicalResult extremumVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                          SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value mask, share;
  extremumMask(op, b, mask, share);
  Value g = keepDims(b, loc, cts[0], op.getSelf(), op.getReducedDims(), op.getKeepdim());
  out[0] = mul(b, loc, share, g);
  return success();
}
template <typename OpT>
LogicalResult extremumJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  Value mask, share;
  extremumMask(op, b, mask, share);
  Value t = sumDims(b, op.getLoc(), mul(b, op.getLoc(), share, ts[0]), op.getReducedDims(),
                    op.getKeepdim());
  out[0] = t;
  return success();
}

/// max.dim/min.dim: the cotangent goes to the element the index names.
template <typename OpT>
LogicalResult extremumDimVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                             SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value x = op.getSelf();
  int64_t rank = tensorType(x).getRank();
  if (rank == 0) {
    out[0] = cts[0];
    return success();
  }
  int64_t dim = (op.getDim() % rank + rank) % rank;
  Value g = keepDims(b, loc, cts[0], x, {dim}, op.getKeepdim());
  Value idx = keepDims(b, loc, op.getIndices(), x, {dim}, op.getKeepdim());
  out[0] = ScatterOp::create(b, loc, x.getType(), zerosLike(b, loc, x), idx, g,
                             b.getI64IntegerAttr(dim), b.getStringAttr("none"), b.getBoolAttr(true));
  return success();
}
template <typename OpT>
LogicalResult extremumDimJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts,
                             SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  int64_t rank = tensorType(x).getRank();
  if (rank == 0) {
    out[0] = ts[0];
    return success();
  }
  int64_t dim = (op.getDim() % rank + rank) % rank;
  Value idx = keepDims(b, loc, op.getIndices(), x, {dim}, op.getKeepdim());
  auto keptTy = RankedTensorType::get(tensorType(idx).getShape(), tensorType(x).getElementType());
  Value t = GatherOp::create(b, loc, keptTy, ts[0], idx, b.getI64IntegerAttr(dim));
  out[0] = viewAs(b, loc, t, op.getValues());
  return success();
}

/// What var and std differentiate through: x - mean(x) over the reduced
/// dims (kept as unit dims), and N - correction.
template <typename OpT>
std::pair<Value, Value> centredAndDenominator(OpT op, OpBuilder &b, Location loc,
                                              ArrayRef<int64_t> dims) {
  Value x = op.getSelf();
  Type elem = tensorType(x).getElementType();
  Value centred = sub(b, loc, x, meanDims(b, loc, x, dims, true));
  Value denom = sub(b, loc, countOf(b, loc, x, dims),
                    scalarTensor(b, loc, elem, op.getCorrection().convertToDouble()));
  return {centred, denom};
}

/// var: 2 (x - mean) / (N - correction) per unit of cotangent; std divides
/// that by 2 std.
template <typename OpT, bool IsStd>
LogicalResult varVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                     SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value x = op.getSelf();
  SmallVector<int64_t> dims = op.getReducedDims();
  auto [centred, denom] = centredAndDenominator(op, b, loc, dims);
  Value g = keepDims(b, loc, cts[0], x, dims, op.getKeepdim());
  if (IsStd)
    g = div(b, loc, g, keepDims(b, loc, op.getResult(), x, dims, op.getKeepdim()));
  else
    g = scale(b, loc, g, 2.0);
  out[0] = mul(b, loc, centred, div(b, loc, g, denom));
  return success();
}
template <typename OpT, bool IsStd>
LogicalResult varJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  SmallVector<int64_t> dims = op.getReducedDims();
  auto [centred, denom] = centredAndDenominator(op, b, loc, dims);
  Value t = div(b, loc, sumDims(b, loc, mul(b, loc, centred, ts[0]), dims, true), denom);
  t = IsStd ? div(b, loc, t, keepDims(b, loc, op.getResult(), x, dims, true)) : scale(b, loc, t, 2.0);
  out[0] = viewAs(b, loc, t, op.getResult());
  return success();
}

/// var_mean / std_mean: the var (std) rule for the first result's
/// cotangent plus the mean rule for the second's.
template <typename OpT, bool IsStd>
LogicalResult varMeanVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                         SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value x = op.getSelf();
  SmallVector<int64_t> dims = op.getReducedDims();
  Value gx;
  if (cts[0]) {
    SmallVector<Value> part(1);
    if (failed(varVjp<OpT, IsStd>(op, b, {cts[0]}, needed, part)))
      return failure();
    gx = part[0];
  }
  if (cts[1]) {
    Value g = keepDims(b, loc, cts[1], x, dims, op.getKeepdim());
    Value m = expandAs(b, loc, div(b, loc, g, countOf(b, loc, x, dims)), x);
    addTo(b, loc, gx, m);
  }
  out[0] = gx;
  return success();
}
template <typename OpT, bool IsStd>
LogicalResult varMeanJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  SmallVector<Value> part(1);
  if (failed(varJvp<OpT, IsStd>(op, b, ts, part)))
    return failure();
  out[0] = part[0];
  out[1] = MeanDimOp::create(b, op.getLoc(), op.getMean().getType(), ts[0], op.getDimAttr(),
                             op.getKeepdimAttr(), TypeAttr());
  return success();
}

/// logsumexp: softmax of the input per unit of cotangent.
Value logsumexpWeights(LogsumexpOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  Value x = op.getSelf();
  Value y = keepDims(b, loc, op.getResult(), x, op.getReducedDims(), op.getKeepdim());
  return unary<ExpOp>(b, loc, sub(b, loc, x, y));
}
LogicalResult logsumexpVjp(LogsumexpOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                           SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value g = keepDims(b, loc, cts[0], op.getSelf(), op.getReducedDims(), op.getKeepdim());
  out[0] = mul(b, loc, logsumexpWeights(op, b), g);
  return success();
}
LogicalResult logsumexpJvp(LogsumexpOp op, OpBuilder &b, ArrayRef<Value> ts,
                           SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = sumDims(b, op.getLoc(), mul(b, op.getLoc(), logsumexpWeights(op, b), ts[0]),
                     op.getReducedDims(), op.getKeepdim());
  return success();
}

/// sum_to_size (the gradient of broadcasting): its own adjoint is the
/// broadcast back; it is linear, so the tangent is summed the same way.
LogicalResult sumToSizeVjp(SumToSizeOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                           SmallVectorImpl<Value> &out) {
  out[0] = expandAs(b, op.getLoc(), cts[0], op.getSelf());
  return success();
}
LogicalResult sumToSizeJvp(SumToSizeOp op, OpBuilder &b, ArrayRef<Value> ts,
                           SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = sumTo(b, op.getLoc(), ts[0], op.getType());
  return success();
}

/// cumsum / cumprod along `dim` (in [0, rank)) with `v`'s type.
template <typename OpT> Value scanAlong(OpBuilder &b, Location loc, Value v, int64_t dim) {
  return OpT::create(b, loc, v.getType(), v, b.getI64IntegerAttr(dim), TypeAttr());
}
/// sum_{j >= k} v_j along `dim`: a cumsum of the flipped tensor, flipped back.
Value reverseCumsum(OpBuilder &b, Location loc, Value v, int64_t dim) {
  DenseI64ArrayAttr dims = b.getDenseI64ArrayAttr({dim});
  Value flipped = FlipOp::create(b, loc, v.getType(), v, dims);
  return FlipOp::create(b, loc, v.getType(), scanAlong<CumsumOp>(b, loc, flipped, dim), dims);
}
/// Elementwise a == c (broadcast), a bool tensor.
Value equal(OpBuilder &b, Location loc, Value a, Value c) {
  auto shape = broadcastShape(tensorType(a).getShape(), tensorType(c).getShape());
  return EqTensorOp::create(b, loc, RankedTensorType::get(shape, b.getI1Type()), a, c);
}
/// `dim` of an op on `v` normalised to [0, rank).
int64_t normalisedDim(Value v, int64_t dim) {
  int64_t rank = tensorType(v).getRank();
  return (dim % rank + rank) % rank;
}

/// A cumulative product along `dim` split at its first zero, which makes
/// every later product zero: `none` marks the positions with no zero up to
/// and including them, `first` the first zero; `safe` is x where `none`
/// and 1 elsewhere, `before` its cumulative product (at the first zero: the
/// product of the elements before it) and `after` the cumulative product of
/// the elements after the first zero (1 up to it).
struct ZeroSplit {
  Value none, first, safe, before, after;
};
ZeroSplit splitAtFirstZero(OpBuilder &b, Location loc, Value x, int64_t dim) {
  Type elem = tensorType(x).getElementType();
  Value zero = scalarTensor(b, loc, elem, 0.0), one = scalarTensor(b, loc, elem, 1.0);
  Value isZero = where(b, loc, equal(b, loc, x, zero), one, zero);
  Value zerosSoFar = scanAlong<CumsumOp>(b, loc, isZero, dim);
  ZeroSplit s;
  s.none = equal(b, loc, zerosSoFar, zero);
  s.first = equal(b, loc, mul(b, loc, isZero, zerosSoFar), one);
  s.safe = where(b, loc, s.none, x, one);
  s.before = scanAlong<CumprodOp>(b, loc, s.safe, dim);
  s.after = scanAlong<CumprodOp>(b, loc, where(b, loc, s.none, one, where(b, loc, s.first, one, x)),
                                 dim);
  return s;
}

/// The cotangent of x for y = cumprod(x) along `dim` and cotangent g:
/// dx_k = sum_{j >= k} g_j prod_{i <= j, i != k} x_i. Before the first zero
/// that is sum_{j >= k} g_j y_j / x_k (y is zero from the first zero on); at
/// the first zero it is the product before it times sum_{j >= k} g_j times
/// the product of the elements after it up to j; after it, zero. No
/// division ever meets a zero, so inputs with zeros get ATen's gradient.
Value cumprodCotangent(OpBuilder &b, Location loc, Value x, Value y, Value g, int64_t dim) {
  ZeroSplit s = splitAtFirstZero(b, loc, x, dim);
  Value zero = scalarTensor(b, loc, tensorType(x).getElementType(), 0.0);
  Value beforeZero = div(b, loc, reverseCumsum(b, loc, mul(b, loc, g, y), dim), s.safe);
  Value atZero = mul(b, loc, s.before, reverseCumsum(b, loc, mul(b, loc, g, s.after), dim));
  return where(b, loc, s.none, beforeZero, where(b, loc, s.first, atZero, zero));
}
/// The tangent of y = cumprod(x) along t: dy_j = sum_{k <= j} t_k
/// prod_{i <= j, i != k} x_i, split at the first zero as above.
Value cumprodTangent(OpBuilder &b, Location loc, Value x, Value y, Value t, int64_t dim) {
  ZeroSplit s = splitAtFirstZero(b, loc, x, dim);
  Value zero = scalarTensor(b, loc, tensorType(x).getElementType(), 0.0);
  Value beforeZero = mul(
      b, loc, y,
      scanAlong<CumsumOp>(b, loc, where(b, loc, s.none, div(b, loc, t, s.safe), zero), dim));
  Value atZero = mul(
      b, loc,
      scanAlong<CumsumOp>(b, loc, where(b, loc, s.first, mul(b, loc, s.before, t), zero), dim),
      s.after);
  return add(b, loc, beforeZero, atZero);
}

/// cumsum: the cotangent summed from the end (a reverse cumsum).
LogicalResult cumsumVjp(CumsumOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                        SmallVectorImpl<Value> &out) {
  out[0] = tensorType(op.getSelf()).getRank() == 0
               ? cts[0]
               : reverseCumsum(b, op.getLoc(), cts[0], normalisedDim(op.getSelf(), op.getDim()));
  return success();
}

/// cumprod: see cumprodCotangent / cumprodTangent.
LogicalResult cumprodVjp(CumprodOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                         SmallVectorImpl<Value> &out) {
  Value x = op.getSelf();
  out[0] = tensorType(x).getRank() == 0
               ? cts[0]
               : cumprodCotangent(b, op.getLoc(), x, op.getResult(), cts[0],
                                  normalisedDim(x, op.getDim()));
  return success();
}
LogicalResult cumprodJvp(CumprodOp op, OpBuilder &b, ArrayRef<Value> ts,
                         SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  Value x = op.getSelf();
  out[0] = tensorType(x).getRank() == 0
               ? ts[0]
               : cumprodTangent(b, op.getLoc(), x, op.getResult(), ts[0],
                                normalisedDim(x, op.getDim()));
  return success();
}

/// prod over one dim (or all, flattened): the last element of a cumulative
/// product, so d prod / d x_k = prod_{i != k} x_i is cumprod's cotangent for
/// a cotangent that is 1 at the last position only (zeros handled the same
/// way). `x` is flattened to 1-d when every dim is reduced; returns those
/// products shaped as `x`.
Value prodOthers(ProdDimIntOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  Value x = op.getSelf();
  SmallVector<int64_t> dims = op.getReducedDims();
  auto ty = tensorType(x);
  Value flat = x;
  int64_t dim = dims.front();
  if (dims.size() > 1) {
    int64_t n = ty.hasStaticShape() ? ty.getNumElements() : ShapedType::kDynamic;
    flat = FlattenUsingIntsOp::create(b, loc, RankedTensorType::get({n}, ty.getElementType()), x,
                                      b.getI64IntegerAttr(0), b.getI64IntegerAttr(-1));
    dim = 0;
  }
  Type elem = ty.getElementType();
  Value zero = scalarTensor(b, loc, elem, 0.0), one = scalarTensor(b, loc, elem, 1.0);
  Value last = equal(b, loc, reverseCumsum(b, loc, expandAs(b, loc, one, flat), dim), one);
  Value lastOnly = where(b, loc, last, one, zero);
  Value others =
      cumprodCotangent(b, loc, flat, scanAlong<CumprodOp>(b, loc, flat, dim), lastOnly, dim);
  return viewAs(b, loc, others, x);
}
LogicalResult prodVjp(ProdDimIntOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value x = op.getSelf();
  if (tensorType(x).getRank() == 0) {
    out[0] = cts[0];
    return success();
  }
  Value others = prodOthers(op, b);
  Value g = keepDims(b, loc, cts[0], x, op.getReducedDims(), op.getKeepdim());
  out[0] = mul(b, loc, expandAs(b, loc, g, x), others);
  return success();
}
LogicalResult prodJvp(ProdDimIntOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  if (tensorType(x).getRank() == 0) {
    out[0] = ts[0];
    return success();
  }
  Value others = prodOthers(op, b);
  Value t = sumDims(b, loc, mul(b, loc, ts[0], others), op.getReducedDims(), false);
  out[0] = viewAs(b, loc, t, op.getResult());
  return success();
}

/// linalg_vector_norm, y = (sum |x|^p)^(1/p): the weights w with
/// dy = sum(w * dx) over the reduced dims, shaped as x. For a finite p != 0,
/// w = sign(x) |x|^(p-1) / y^(p-1), zero where x is zero and where y is zero
/// (as ATen masks them); for p = +-inf, sign(x) shared evenly among the
/// elements whose |x| is the extremum; for p = 0 (a count), zero.
Value normWeights(LinalgVectorNormOp op, OpBuilder &b) {
  Location loc = op.getLoc();
  Value x = op.getSelf();
  SmallVector<int64_t> dims = op.getReducedDims();
  Type elem = tensorType(x).getElementType();
  double p = op.getOrd().convertToDouble();
  Value zero = scalarTensor(b, loc, elem, 0.0), one = scalarTensor(b, loc, elem, 1.0);
  if (p == 0.0)
    return zerosLike(b, loc, x);
  Value absX = unary<AbsOp>(b, loc, x), signX = unary<SignOp>(b, loc, x);
  Value y = keepDims(b, loc, op.getResult(), x, dims, op.getKeepdim());
  if (std::isinf(p)) {
    Value hits = where(b, loc, equal(b, loc, absX, y), one, zero);
    return mul(b, loc, signX, div(b, loc, hits, sumDims(b, loc, hits, dims, true)));
  }
  auto pow = [&](Value v, double e) {
    return PowTensorTensorOp::create(b, loc, v.getType(), v, scalarTensor(b, loc, elem, e));
  };
  Value scaled = where(b, loc, equal(b, loc, x, zero), zero, mul(b, loc, signX, pow(absX, p - 1)));
  Value inv = where(b, loc, equal(b, loc, y, zero), zero, div(b, loc, one, pow(y, p - 1)));
  return mul(b, loc, scaled, inv);
}
LogicalResult normVjp(LinalgVectorNormOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  Value g = keepDims(b, op.getLoc(), cts[0], op.getSelf(), op.getReducedDims(), op.getKeepdim());
  out[0] = mul(b, op.getLoc(), normWeights(op, b), g);
  return success();
}
LogicalResult normJvp(LinalgVectorNormOp op, OpBuilder &b, ArrayRef<Value> ts,
                      SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = viewAs(b, op.getLoc(),
                    sumDims(b, op.getLoc(), mul(b, op.getLoc(), normWeights(op, b), ts[0]),
                            op.getReducedDims(), op.getKeepdim()),
                    op.getResult());
  return success();
}

} // namespace

void attachReductionRules(MLIRContext *ctx) {
  LinalgVectorNormOp::attachInterface<SelfDtypeRule<LinalgVectorNormOp, normVjp, normJvp>>(*ctx);
  CumsumOp::attachInterface<SelfDtypeRule<CumsumOp, cumsumVjp, linearInSelfJvp<CumsumOp>>>(*ctx);
  CumprodOp::attachInterface<SelfDtypeRule<CumprodOp, cumprodVjp, cumprodJvp>>(*ctx);
  ProdDimIntOp::attachInterface<SelfDtypeRule<ProdDimIntOp, prodVjp, prodJvp>>(*ctx);
  SumToSizeOp::attachInterface<Rule<SumToSizeOp, sumToSizeVjp, sumToSizeJvp>>(*ctx);
  SumDimIntListOp::attachInterface<SelfDtypeRule<SumDimIntListOp, sumVjp, linearInSelfJvp<SumDimIntListOp>>>(
      *ctx);
  MeanDimOp::attachInterface<SelfDtypeRule<MeanDimOp, meanVjp, linearInSelfJvp<MeanDimOp>>>(*ctx);
  AmaxOp::attachInterface<Rule<AmaxOp, extremumVjp<AmaxOp>, extremumJvp<AmaxOp>>>(*ctx);
  AminOp::attachInterface<Rule<AminOp, extremumVjp<AminOp>, extremumJvp<AminOp>>>(*ctx);
  MaxDimOp::attachInterface<Rule<MaxDimOp, extremumDimVjp<MaxDimOp>, extremumDimJvp<MaxDimOp>>>(*ctx);
  MinDimOp::attachInterface<Rule<MinDimOp, extremumDimVjp<MinDimOp>, extremumDimJvp<MinDimOp>>>(*ctx);
  VarCorrectionOp::attachInterface<
      SelfDtypeRule<VarCorrectionOp, varVjp<VarCorrectionOp, false>, varJvp<VarCorrectionOp, false>>>(*ctx);
  StdCorrectionOp::attachInterface<
      SelfDtypeRule<StdCorrectionOp, varVjp<StdCorrectionOp, true>, varJvp<StdCorrectionOp, true>>>(*ctx);
  LogsumexpOp::attachInterface<SelfDtypeRule<LogsumexpOp, logsumexpVjp, logsumexpJvp>>(*ctx);
  VarMeanCorrectionOp::attachInterface<SelfDtypeRule<
      VarMeanCorrectionOp, varMeanVjp<VarMeanCorrectionOp, false>, varMeanJvp<VarMeanCorrectionOp, false>>>(
      *ctx);
  StdMeanCorrectionOp::attachInterface<SelfDtypeRule<
      StdMeanCorrectionOp, varMeanVjp<StdMeanCorrectionOp, true>, varMeanJvp<StdMeanCorrectionOp, true>>>(
      *ctx);
}

} // namespace kiln::autograd::rules

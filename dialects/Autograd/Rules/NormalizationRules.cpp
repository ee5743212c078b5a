//===- NormalizationRules.cpp - derivatives of softmax and the norms -----===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <array>
#include <cmath>
#include <tuple>

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// The operand numbers of the operands that follow the input, given each
/// one's value: 1, 2, ... in order over those present, -1 for an absent
/// (optional) one.
template <typename... Vs> std::array<int, sizeof...(Vs)> operandNumbersAfterInput(Vs... operands) {
  int next = 1;
  return {(operands ? next++ : -1)...};
}

/// With running statistics (inference), batch norm is a per-channel affine
/// map of the input: aten.native_batch_norm_backward with train = false.
LogicalResult batchNormGrads(Operation *op, OpBuilder &b, Value g, Value x, Value weight,
                             Value bias, Value mean, Value var, double eps, bool needX,
                             bool needW, bool needB, Value &gx, Value &gw, Value &gb) {
  Location loc = op->getLoc();
  if (!mean || !var)
    return op->emitError("cannot differentiate '")
           << op->getName() << "' without running statistics yet";
  auto xTy = tensorType(x);
  auto cTy = RankedTensorType::get({xTy.getDimSize(1)}, xTy.getElementType());
  SmallVector<bool> mask{needX, needW && weight, needB && bias};
  auto bw = NativeBatchNormBackwardOp::create(b, loc, TypeRange{x.getType(), cTy, cTy}, g, x,
                                              weight, mean, var, b.getBoolAttr(false),
                                              b.getF64FloatAttr(eps), b.getDenseBoolArrayAttr(mask));
  if (mask[0])
    gx = bw.getGradInput();
  if (mask[1])
    gw = viewAs(b, loc, bw.getGradWeight(), weight);
  if (mask[2])
    gb = viewAs(b, loc, bw.getGradBias(), bias);
  return success();
}

/// Inference batch norm y = (x - r) w / sqrt(v + eps) + b with respect to its running
/// statistics r and v (ATen refuses these; kiln's --grad differentiates every float input):
/// d r = -w s sum(g), d v = -w s^3 sum(g (x - r)) / 2 per channel, s = 1 / sqrt(v + eps).
void runningStatGrads(OpBuilder &b, Location loc, Value g, Value x, Value weight, Value mean,
                      Value var, double eps, bool needMean, bool needVar, Value &gm, Value &gv) {
  auto xTy = tensorType(x);
  Type elem = xTy.getElementType();
  SmallVector<int64_t> others, shape(xTy.getRank(), 1);
  for (int64_t d = 0; d < xTy.getRank(); ++d)
    if (d != 1)
      others.push_back(d);
  shape[1] = xTy.getDimSize(1);
  SmallVector<Value> dyn;
  if (ShapedType::isDynamic(shape[1]))
    dyn.push_back(tensor::DimOp::create(b, loc, x, 1));
  Value s = unary<RsqrtOp>(b, loc, add(b, loc, var, scalarTensor(b, loc, elem, eps)));
  Value ws = weight ? mul(b, loc, viewAs(b, loc, weight, mean), s) : s;
  if (needMean)
    gm = scale(b, loc, mul(b, loc, ws, sumDims(b, loc, g, others, false)), -1.0);
  if (needVar) {
    Value centred = sub(b, loc, x, viewTo(b, loc, mean, shape, dyn));
    Value t = sumDims(b, loc, mul(b, loc, g, centred), others, false);
    gv = scale(b, loc, mul(b, loc, mul(b, loc, ws, mul(b, loc, s, s)), t), -0.5);
  }
}

/// batchNormGrads of an op with batch norm's operands (input, weight?, bias?,
/// running_mean, running_var) and eps; `wi` and `bi` are the operand numbers
/// of the weight and the bias, -1 where there is none.
template <typename OpT>
LogicalResult batchNormOpGrads(OpT op, OpBuilder &b, Value g, ArrayRef<bool> needed, int wi,
                               int bi, Value &gx, Value &gw, Value &gb) {
  return batchNormGrads(op, b, g, op.getInput(), op.getWeight(), op.getBias(),
                        op.getRunningMean(), op.getRunningVar(), op.getEps().convertToDouble(),
                        needed[0], wi >= 0 && needed[wi], bi >= 0 && needed[bi], gx, gw, gb);
}

LogicalResult noTrainingVjp(NativeBatchNormLegitNoTrainingOp op, OpBuilder &b,
                            ArrayRef<Value> cts, ArrayRef<bool> needed,
                            SmallVectorImpl<Value> &out) {
  // Operands: input, weight?, bias?, running_mean, running_var.
  auto [wi, bi, mi, vi] =
      operandNumbersAfterInput(op.getWeight(), op.getBias(), op.getRunningMean(), op.getRunningVar());
  if (!cts[0])
    return success(); // only the saved statistics were used: ATen gives them no gradient
  Value gx, gw, gb;
  if (failed(batchNormOpGrads(op, b, cts[0], needed, wi, bi, gx, gw, gb)))
    return failure();
  runningStatGrads(b, op.getLoc(), cts[0], op.getInput(), op.getWeight(), op.getRunningMean(),
                   op.getRunningVar(), op.getEps().convertToDouble(), needed[mi], needed[vi],
                   out[mi], out[vi]);
  out[0] = gx;
  if (wi >= 0)
    out[wi] = gw;
  if (bi >= 0)
    out[bi] = gb;
  return success();
}

/// With running statistics batch norm is affine per channel:
/// t_x * w * invstd + (x - mean) * invstd * t_w + t_b, each term an inference
/// batch norm itself (the first with a zero mean, both without bias).
LogicalResult noTrainingJvp(NativeBatchNormLegitNoTrainingOp op, OpBuilder &b,
                            ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  auto [wi, bi, mi, vi] =
      operandNumbersAfterInput(op.getWeight(), op.getBias(), op.getRunningMean(), op.getRunningVar());
  if (ts[mi] || ts[vi])
    return op.emitError("cannot differentiate 'aten._native_batch_norm_legit_no_training' "
                        "with respect to its running statistics");
  auto norm = [&](Value x, Value w, Value mean) {
    return NativeBatchNormLegitNoTrainingOp::create(
               b, loc, op->getResultTypes(), x, w, Value(), mean, op.getRunningVar(),
               op.getMomentumAttr(), op.getEpsAttr())
        .getResult();
  };
  Value r;
  if (ts[0])
    r = norm(ts[0], op.getWeight(), zerosLike(b, loc, op.getRunningMean()));
  if (wi >= 0 && ts[wi]) {
    Value t = norm(op.getInput(), ts[wi], op.getRunningMean());
    addTo(b, loc, r, t);
  }
  if (bi >= 0 && ts[bi]) {
    auto rt = tensorType(op.getResult());
    SmallVector<int64_t> shape(rt.getRank(), 1);
    shape[1] = rt.getDimSize(1);
    Value tb = viewTo(b, loc, ts[bi], shape, {});
    addToExpanded(b, loc, r, tb, op.getResult());
  }
  out[0] = r;
  return success();
}

LogicalResult batchNormVjp(BatchNormOp op, OpBuilder &b, ArrayRef<Value> cts,
                           ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  if (op.getTraining())
    return op.emitError("cannot differentiate 'aten.batch_norm' in training mode yet");
  auto [wi, bi, mi, vi] =
      operandNumbersAfterInput(op.getWeight(), op.getBias(), op.getRunningMean(), op.getRunningVar());
  Value gx, gw, gb;
  if (failed(batchNormOpGrads(op, b, cts[0], needed, wi, bi, gx, gw, gb)))
    return failure();
  out[0] = gx;
  if (wi >= 0)
    out[wi] = gw;
  if (bi >= 0)
    out[bi] = gb;
  Value gm, gv;
  runningStatGrads(b, op.getLoc(), cts[0], op.getInput(), op.getWeight(), op.getRunningMean(),
                   op.getRunningVar(), op.getEps().convertToDouble(), mi >= 0 && needed[mi],
                   vi >= 0 && needed[vi], gm, gv);
  if (gm)
    out[mi] = gm;
  if (gv)
    out[vi] = gv;
  return success();
}

/// native_batch_norm and _native_batch_norm_legit_functional. In training
/// the statistics are the batch's, over every dim but the channel (dim 1):
/// mu = mean(x), s = 1 / sqrt(var(x) + eps) (biased), xh = (x - mu) s,
/// y = xh w + b; the saved mean and inverse std are mu and s, and the
/// functional form also returns the new running statistics (1 - m) r + m mu
/// and (1 - m) v + m var(x) N / (N - 1). Every result's cotangent is taken
/// (usually only y has one). Without training it is inference batch norm.
template <typename OpT> struct BatchNormParts {
  Location loc;
  Value x, weight, mu, s, d, xh, n; // d = x - mu; mu, s and n shaped [1, C, 1, ...]
  SmallVector<int64_t> dims;        // every dim but 1
  int wi = -1, bi = -1, mi = -1, vi = -1;
  BatchNormParts(OpT op, OpBuilder &b) : loc(op.getLoc()), x(op.getInput()), weight(op.getWeight()) {
    std::tie(wi, bi, mi, vi) = std::tuple_cat(
        operandNumbersAfterInput(op.getWeight(), op.getBias(), op.getRunningMean(), op.getRunningVar()));
    int64_t rank = tensorType(x).getRank();
    for (int64_t k = 0; k < rank; ++k)
      if (k != 1)
        dims.push_back(k);
    mu = channel(b, op->getResult(1));
    s = channel(b, op->getResult(2));
    d = sub(b, loc, x, mu);
    xh = mul(b, loc, d, s);
    n = countOf(b, loc, x, dims);
  }
  /// A per-channel [C] tensor viewed as [1, C, 1, ...].
  Value channel(OpBuilder &b, Value c) {
    auto xt = tensorType(x);
    SmallVector<int64_t> shape(xt.getRank(), 1);
    shape[1] = xt.getDimSize(1);
    SmallVector<Value> dyn;
    if (xt.isDynamicDim(1))
      dyn.push_back(tensor::DimOp::create(b, loc, x, 1));
    return viewTo(b, loc, c, shape, dyn);
  }
};

template <typename OpT>
LogicalResult trainingBatchNormVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                                   SmallVectorImpl<Value> &out) {
  if (!op.getTraining()) {
    // Inference: an affine map per channel with the running statistics.
    BatchNormParts<OpT> p(op, b);
    if (!cts[0])
      return success();
    Value gx, gw, gb;
    if (failed(batchNormOpGrads(op, b, cts[0], needed, p.wi, p.bi, gx, gw, gb)))
      return failure();
    Value gm, gv;
    runningStatGrads(b, p.loc, cts[0], op.getInput(), op.getWeight(), op.getRunningMean(),
                     op.getRunningVar(), op.getEps().convertToDouble(),
                     p.mi >= 0 && needed[p.mi], p.vi >= 0 && needed[p.vi], gm, gv);
    if (gm)
      out[p.mi] = gm;
    if (gv)
      out[p.vi] = gv;
    out[0] = gx;
    if (p.wi >= 0)
      out[p.wi] = gw;
    if (p.bi >= 0)
      out[p.bi] = gb;
    return success();
  }
  BatchNormParts<OpT> p(op, b);
  Location loc = p.loc;
  Value gx;
  if (Value g = cts[0]) {
    Value gw = p.weight ? mul(b, loc, g, p.channel(b, p.weight)) : g;
    Value centred = sub(b, loc, sub(b, loc, gw, meanDims(b, loc, gw, p.dims, true)),
                        mul(b, loc, p.xh, meanDims(b, loc, mul(b, loc, gw, p.xh), p.dims, true)));
    addTo(b, loc, gx, mul(b, loc, p.s, centred));
    if (p.wi >= 0 && needed[p.wi])
      out[p.wi] = viewAs(b, loc, sumDims(b, loc, mul(b, loc, g, p.xh), p.dims, false), p.weight);
    if (p.bi >= 0 && needed[p.bi])
      out[p.bi] = viewAs(b, loc, sumDims(b, loc, g, p.dims, false), op.getBias());
  }
  // The saved mean and inverse std and the new running statistics are outputs ATen marks
  // non-differentiable (output_differentiability), so their cotangents add nothing.
  if (needed[0] && gx)
    out[0] = gx.getType() == p.x.getType() ? gx : expandAs(b, loc, gx, p.x);
  return success();
}

template <typename OpT>
LogicalResult trainingBatchNormJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts,
                                   SmallVectorImpl<Value> &out) {
  if (!op.getTraining())
    return op.emitError("cannot differentiate '")
           << op->getName() << "' without training in forward mode: it has no tangent rule";
  BatchNormParts<OpT> p(op, b);
  Location loc = p.loc;
  Type elem = tensorType(p.x).getElementType();
  double m = op.getMomentum().convertToDouble();
  auto toC = [&](Value v) { return viewAs(b, loc, v, op->getResult(1)); };
  Value tx = ts[0];
  Value tMu, tVar, tS; // [1, C, 1, ...]; tVar of the biased variance
  Value ty;
  if (tx) {
    tMu = meanDims(b, loc, tx, p.dims, true);
    tVar = scale(b, loc, meanDims(b, loc, mul(b, loc, p.d, tx), p.dims, true), 2.0);
    tS = scale(b, loc, mul(b, loc, mul(b, loc, p.s, mul(b, loc, p.s, p.s)), tVar), -0.5);
    Value tXh = add(b, loc, mul(b, loc, sub(b, loc, tx, tMu), p.s), mul(b, loc, p.d, tS));
    ty = p.weight ? mul(b, loc, tXh, p.channel(b, p.weight)) : tXh;
    out[1] = toC(tMu);
    out[2] = toC(tS);
  }
  if (p.wi >= 0 && ts[p.wi])
    addTo(b, loc, ty, mul(b, loc, p.xh, p.channel(b, ts[p.wi])));
  if (p.bi >= 0 && ts[p.bi])
    addTo(b, loc, ty, p.channel(b, ts[p.bi]));
  if (ty)
    out[0] = ty.getType() == p.x.getType() ? ty : expandAs(b, loc, ty, p.x);
  if (op->getNumResults() > 3) {
    Value rm, rv;
    if (tMu)
      rm = scale(b, loc, toC(tMu), m);
    if (p.mi >= 0 && ts[p.mi])
      addTo(b, loc, rm, scale(b, loc, ts[p.mi], 1.0 - m));
    if (tVar) {
      Value n = p.n;
      Value unbiased = div(b, loc, mul(b, loc, tVar, n), sub(b, loc, n, scalarTensor(b, loc, elem, 1.0)));
      rv = scale(b, loc, toC(unbiased), m);
    }
    if (p.vi >= 0 && ts[p.vi])
      addTo(b, loc, rv, scale(b, loc, ts[p.vi], 1.0 - m));
    out[3] = rm;
    out[4] = rv;
  }
  return success();
}

/// The softmax dim of `op`, normalised (none for a 0-d input).
template <typename OpT> SmallVector<int64_t> softmaxDims(OpT op) {
  int64_t rank = tensorType(op.getSelf()).getRank();
  if (rank == 0)
    return {};
  return {(op.getDim() % rank + rank) % rank};
}

/// softmax: y * (g - sum(g * y)) along the dim (the same map on tangents).
template <typename OpT> Value softmaxGrad(OpT op, OpBuilder &b, Value g) {
  Location loc = op.getLoc();
  Value y = op.getResult();
  return mul(b, loc, y, sub(b, loc, g, sumDims(b, loc, mul(b, loc, g, y), softmaxDims(op), true)));
}
template <typename OpT>
LogicalResult softmaxVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                         SmallVectorImpl<Value> &out) {
  if (failed(checkSameElementType(op, op.getSelf(), op.getResult())))
    return failure();
  out[0] = softmaxGrad(op, b, cts[0]);
  return success();
}
template <typename OpT>
LogicalResult softmaxJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0]) {
    if (failed(checkSameElementType(op, op.getSelf(), op.getResult())))
      return failure();
    out[0] = softmaxGrad(op, b, ts[0]);
  }
  return success();
}

/// log_softmax: g - exp(y) * sum(g) for the cotangent, t - sum(exp(y) * t)
/// for the tangent.
template <typename OpT>
LogicalResult logSoftmaxVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                            SmallVectorImpl<Value> &out) {
  if (failed(checkSameElementType(op, op.getSelf(), op.getResult())))
    return failure();
  Location loc = op.getLoc();
  Value p = unary<ExpOp>(b, loc, op.getResult());
  out[0] = sub(b, loc, cts[0], mul(b, loc, p, sumDims(b, loc, cts[0], softmaxDims(op), true)));
  return success();
}
template <typename OpT>
LogicalResult logSoftmaxJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts,
                            SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  if (failed(checkSameElementType(op, op.getSelf(), op.getResult())))
    return failure();
  Location loc = op.getLoc();
  Value p = unary<ExpOp>(b, loc, op.getResult());
  out[0] = sub(b, loc, ts[0], sumDims(b, loc, mul(b, loc, p, ts[0]), softmaxDims(op), true));
  return success();
}

/// The pieces of layer norm's derivatives: the normalised dims (trailing),
/// the leading ones, and x_hat = (x - mean) * rstd.
struct LayerNormParts {
  SmallVector<int64_t> normDims, leadDims;
  Value xhat;
  int wi = -1, bi = -1;
};
LayerNormParts layerNormParts(NativeLayerNormOp op, OpBuilder &b) {
  LayerNormParts p;
  Location loc = op.getLoc();
  int64_t rank = tensorType(op.getInput()).getRank();
  int64_t k = op.getNormalizedShape().size();
  for (int64_t d = 0; d < rank; ++d)
    (d >= rank - k ? p.normDims : p.leadDims).push_back(d);
  p.xhat = mul(b, loc, sub(b, loc, op.getInput(), op.getMean()), op.getRstd());
  std::tie(p.wi, p.bi) = std::tuple_cat(operandNumbersAfterInput(op.getWeight(), op.getBias()));
  return p;
}

/// y = x_hat * w + b with x_hat = (x - mean) * rstd over the trailing dims:
/// g_x = rstd * (g_hat - mean(g_hat) - x_hat * mean(g_hat * x_hat)) with
/// g_hat = g * w; g_w = sum(g * x_hat) and g_b = sum(g) over the leading
/// dims. The mean and rstd results are outputs ATen marks non-differentiable
/// (output_differentiability), so their cotangents add nothing.
LogicalResult layerNormVjp(NativeLayerNormOp op, OpBuilder &b, ArrayRef<Value> cts,
                           ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  LayerNormParts p = layerNormParts(op, b);
  Value x = op.getInput(), rstd = op.getRstd(), g = cts[0];
  Value gx;
  if (g && needed[0]) {
    Value gh = op.getWeight() ? mul(b, loc, g, op.getWeight()) : g;
    Value inner = sub(b, loc, sub(b, loc, gh, meanDims(b, loc, gh, p.normDims, true)),
                      mul(b, loc, p.xhat, meanDims(b, loc, mul(b, loc, gh, p.xhat), p.normDims, true)));
    gx = mul(b, loc, rstd, inner);
  }
  if (needed[0])
    out[0] = gx ? gx : zerosLike(b, loc, x);
  if (p.wi >= 0 && needed[p.wi])
    out[p.wi] = g ? sumDims(b, loc, mul(b, loc, g, p.xhat), p.leadDims, false)
                  : zerosLike(b, loc, op.getWeight());
  if (p.bi >= 0 && needed[p.bi])
    out[p.bi] = g ? sumDims(b, loc, g, p.leadDims, false) : zerosLike(b, loc, op.getBias());
  return success();
}

/// With u = t - mean(t): t_x_hat = rstd * (u - x_hat * mean(x_hat * u)),
/// t_mean = mean(t), t_rstd = -rstd^2 * mean(x_hat * u).
LogicalResult layerNormJvp(NativeLayerNormOp op, OpBuilder &b, ArrayRef<Value> ts,
                           SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  LayerNormParts p = layerNormParts(op, b);
  Value rstd = op.getRstd(), ty;
  if (ts[0]) {
    Value mt = meanDims(b, loc, ts[0], p.normDims, true);
    Value u = sub(b, loc, ts[0], mt);
    Value c = meanDims(b, loc, mul(b, loc, p.xhat, u), p.normDims, true);
    Value txh = mul(b, loc, rstd, sub(b, loc, u, mul(b, loc, p.xhat, c)));
    ty = op.getWeight() ? mul(b, loc, txh, op.getWeight()) : txh;
    out[1] = mt;
    out[2] = scale(b, loc, mul(b, loc, mul(b, loc, rstd, rstd), c), -1.0);
  }
  if (p.wi >= 0 && ts[p.wi]) {
    Value t = mul(b, loc, p.xhat, ts[p.wi]);
    addTo(b, loc, ty, t);
  }
  if (p.bi >= 0 && ts[p.bi])
    addToExpanded(b, loc, ty, ts[p.bi], op.getResult());
  out[0] = ty;
  return success();
}

/// rms_norm: y = x * r * w with r = rsqrt(mean(x^2) + eps) over the trailing
/// dims: g_x = r * g_h - x * r^3 * mean(g_h * x) with g_h = g * w, and
/// g_w = sum(g * x * r) over the leading dims.
struct RmsParts {
  SmallVector<int64_t> normDims, leadDims;
  Value r; // rsqrt(mean(x^2) + eps), the normalised dims kept as 1
};
RmsParts rmsParts(RmsNormOp op, OpBuilder &b) {
  RmsParts p;
  Location loc = op.getLoc();
  Value x = op.getInput();
  auto ty = tensorType(x);
  int64_t rank = ty.getRank(), k = op.getNormalizedShape().size();
  for (int64_t d = 0; d < rank; ++d)
    (d >= rank - k ? p.normDims : p.leadDims).push_back(d);
  Type elem = ty.getElementType();
  // An absent eps is the dtype's machine epsilon, as ATen's default.
  double eps = op.getEps()        ? op.getEps()->convertToDouble()
               : elem.isF64()     ? 2.220446049250313e-16
               : elem.isF16()     ? 0.0009765625
               : elem.isBF16()    ? 0.0078125
                                  : 1.1920928955078125e-07;
  Value ms = meanDims(b, loc, mul(b, loc, x, x), p.normDims, true);
  p.r = unary<RsqrtOp>(b, loc, add(b, loc, ms, scalarTensor(b, loc, elem, eps)));
  return p;
}
LogicalResult rmsNormVjp(RmsNormOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                         SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  RmsParts p = rmsParts(op, b);
  Value x = op.getInput(), g = cts[0], w = op.getWeight();
  if (needed[0]) {
    Value gh = w ? mul(b, loc, g, w) : g;
    Value r3 = mul(b, loc, p.r, mul(b, loc, p.r, p.r));
    Value c = meanDims(b, loc, mul(b, loc, gh, x), p.normDims, true);
    out[0] = sub(b, loc, mul(b, loc, gh, p.r), mul(b, loc, x, mul(b, loc, r3, c)));
  }
  if (w && needed[1])
    out[1] = sumDims(b, loc, mul(b, loc, g, mul(b, loc, x, p.r)), p.leadDims, false);
  return success();
}
LogicalResult rmsNormJvp(RmsNormOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  RmsParts p = rmsParts(op, b);
  Value x = op.getInput(), w = op.getWeight(), r;
  if (ts[0]) {
    Value r3 = mul(b, loc, p.r, mul(b, loc, p.r, p.r));
    Value dr = scale(b, loc, mul(b, loc, r3, meanDims(b, loc, mul(b, loc, x, ts[0]), p.normDims, true)),
                     -1.0);
    r = add(b, loc, mul(b, loc, ts[0], p.r), mul(b, loc, x, dr));
    if (w)
      r = mul(b, loc, r, w);
  }
  if (w && ts[1]) {
    Value t = mul(b, loc, mul(b, loc, x, p.r), ts[1]);
    addTo(b, loc, r, t);
  }
  out[0] = r;
  return success();
}

/// native_group_norm over [N, C, *] in G groups is layer norm over the last
/// dim of the input viewed as [N, G, C / G * prod(*)], with a per-channel
/// weight and bias.
struct GroupParts {
  Value xg, xhatg, rstd; // [N, G, M] and [N, G, 1]
  SmallVector<int64_t> grouped, chanShape, reduceForParams;
  SmallVector<Value> dynN;
  int wi = -1, bi = -1;
};
FailureOr<GroupParts> groupParts(NativeGroupNormOp op, OpBuilder &b) {
  GroupParts p;
  Location loc = op.getLoc();
  Value x = op.getInput();
  auto ty = tensorType(x);
  int64_t rank = ty.getRank(), groups = op.getGroup(), m = 1;
  for (int64_t d = 1; d < rank; ++d) {
    if (ty.isDynamicDim(d))
      return op.emitError("cannot differentiate 'aten.native_group_norm' with a dynamic channel "
                          "or spatial dim yet");
    m *= ty.getDimSize(d);
  }
  if (ty.isDynamicDim(0))
    p.dynN.push_back(tensor::DimOp::create(b, loc, x, 0));
  int64_t n = ty.getDimSize(0);
  p.grouped = {n, groups, m / groups};
  p.xg = viewTo(b, loc, x, p.grouped, p.dynN);
  p.rstd = viewTo(b, loc, op.getRstd(), {n, groups, 1}, p.dynN);
  Value mean = viewTo(b, loc, op.getMean(), {n, groups, 1}, p.dynN);
  p.xhatg = mul(b, loc, sub(b, loc, p.xg, mean), p.rstd);
  p.chanShape.assign(rank - 1, 1);
  p.chanShape[0] = ty.getDimSize(1);
  p.reduceForParams.push_back(0);
  for (int64_t d = 2; d < rank; ++d)
    p.reduceForParams.push_back(d);
  std::tie(p.wi, p.bi) = std::tuple_cat(operandNumbersAfterInput(op.getWeight(), op.getBias()));
  return p;
}
LogicalResult groupNormVjp(NativeGroupNormOp op, OpBuilder &b, ArrayRef<Value> cts,
                           ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  if (cts[1] || cts[2])
    return op.emitError("cannot differentiate the mean and rstd results of "
                        "'aten.native_group_norm' yet");
  auto parts = groupParts(op, b);
  if (failed(parts))
    return failure();
  GroupParts &p = *parts;
  Value x = op.getInput(), g = cts[0];
  if (needed[0]) {
    Value gh = g;
    if (Value w = op.getWeight())
      gh = mul(b, loc, g, viewTo(b, loc, w, p.chanShape, {}));
    Value ghg = viewTo(b, loc, gh, p.grouped, p.dynN);
    Value inner = sub(b, loc, sub(b, loc, ghg, meanDims(b, loc, ghg, {2}, true)),
                      mul(b, loc, p.xhatg, meanDims(b, loc, mul(b, loc, ghg, p.xhatg), {2}, true)));
    out[0] = viewAs(b, loc, mul(b, loc, p.rstd, inner), x);
  }
  if (p.wi >= 0 && needed[p.wi]) {
    Value xhat = viewAs(b, loc, p.xhatg, x);
    out[p.wi] = sumDims(b, loc, mul(b, loc, g, xhat), p.reduceForParams, false);
  }
  if (p.bi >= 0 && needed[p.bi])
    out[p.bi] = sumDims(b, loc, g, p.reduceForParams, false);
  return success();
}
LogicalResult groupNormJvp(NativeGroupNormOp op, OpBuilder &b, ArrayRef<Value> ts,
                           SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  auto parts = groupParts(op, b);
  if (failed(parts))
    return failure();
  GroupParts &p = *parts;
  Value x = op.getInput(), y;
  Value w = op.getWeight() ? viewTo(b, loc, op.getWeight(), p.chanShape, {}) : Value();
  if (ts[0]) {
    Value tg = viewTo(b, loc, ts[0], p.grouped, p.dynN);
    Value mt = meanDims(b, loc, tg, {2}, true);
    Value u = sub(b, loc, tg, mt);
    Value c = meanDims(b, loc, mul(b, loc, p.xhatg, u), {2}, true);
    Value txh = viewAs(b, loc, mul(b, loc, p.rstd, sub(b, loc, u, mul(b, loc, p.xhatg, c))), x);
    y = w ? mul(b, loc, txh, w) : txh;
    out[1] = viewAs(b, loc, mt, op.getMean());
    out[2] = viewAs(b, loc, scale(b, loc, mul(b, loc, mul(b, loc, p.rstd, p.rstd), c), -1.0),
                    op.getRstd());
  }
  if (p.wi >= 0 && ts[p.wi]) {
    Value t = mul(b, loc, viewAs(b, loc, p.xhatg, x), viewTo(b, loc, ts[p.wi], p.chanShape, {}));
    addTo(b, loc, y, t);
  }
  if (p.bi >= 0 && ts[p.bi]) {
    Value t = viewTo(b, loc, ts[p.bi], p.chanShape, {});
    addToExpanded(b, loc, y, t, op.getResult());
  }
  out[0] = y;
  return success();
}

} // namespace

void attachNormalizationRules(MLIRContext *ctx) {
  NativeGroupNormOp::attachInterface<Rule<NativeGroupNormOp, groupNormVjp, groupNormJvp>>(*ctx);
  RmsNormOp::attachInterface<Rule<RmsNormOp, rmsNormVjp, rmsNormJvp>>(*ctx);
  SoftmaxOp::attachInterface<Rule<SoftmaxOp, softmaxVjp<SoftmaxOp>, softmaxJvp<SoftmaxOp>>>(*ctx);
  SoftmaxIntOp::attachInterface<
      Rule<SoftmaxIntOp, softmaxVjp<SoftmaxIntOp>, softmaxJvp<SoftmaxIntOp>>>(*ctx);
  LogSoftmaxOp::attachInterface<
      Rule<LogSoftmaxOp, logSoftmaxVjp<LogSoftmaxOp>, logSoftmaxJvp<LogSoftmaxOp>>>(*ctx);
  LogSoftmaxIntOp::attachInterface<
      Rule<LogSoftmaxIntOp, logSoftmaxVjp<LogSoftmaxIntOp>, logSoftmaxJvp<LogSoftmaxIntOp>>>(*ctx);
  NativeLayerNormOp::attachInterface<Rule<NativeLayerNormOp, layerNormVjp, layerNormJvp>>(*ctx);
  NativeBatchNormLegitNoTrainingOp::attachInterface<
      Rule<NativeBatchNormLegitNoTrainingOp, noTrainingVjp, noTrainingJvp>>(*ctx);
  BatchNormOp::attachInterface<Rule<BatchNormOp, batchNormVjp>>(*ctx);
  NativeBatchNormOp::attachInterface<
      Rule<NativeBatchNormOp, trainingBatchNormVjp<NativeBatchNormOp>,
           trainingBatchNormJvp<NativeBatchNormOp>>>(*ctx);
  NativeBatchNormLegitFunctionalOp::attachInterface<
      Rule<NativeBatchNormLegitFunctionalOp, trainingBatchNormVjp<NativeBatchNormLegitFunctionalOp>,
           trainingBatchNormJvp<NativeBatchNormLegitFunctionalOp>>>(*ctx);
}

} // namespace kiln::autograd::rules

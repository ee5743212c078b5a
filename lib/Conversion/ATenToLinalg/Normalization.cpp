//===- Normalization.cpp - softmax and normalisations to linalg -----------===//
//
// Statistics are computed in ATen's compute type (float32 for float16 and
// bfloat16) with two passes (mean, then the mean of squared deviations);
// the normalised output is one elementwise generic reading the input and
// the per-group statistics through broadcasting maps.
//
//===----------------------------------------------------------------------===//
#include "LoopUtils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include <cfloat>
#include <cmath>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
/// Mean and biased variance of `x` over the sorted `reduced` dims, in `acc`,
/// shaped as the kept dims. Each element is converted to `through` first.
std::pair<Value, Value> moments(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> reduced,
                                Type acc) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> kept = keptLoops(rank, reduced);
  Value count = reducedCount(b, loc, x, reduced, acc);
  Value sum = reduceDims(b, loc, x, reduced, acc, scalarConstant(b, loc, acc, 0.0),
                         [&](OpBuilder &nb, Location l, Value a, Value v) -> Value {
                           return arith::AddFOp::create(nb, l, a, convertScalarTo(nb, l, v, acc));
                         });
  SmallVector<int64_t> keptIds = identityLoops(kept.size());
  Value mean = buildMap(b, loc, {{sum, keptIds}}, keptIds, kept.size(), acc,
                        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                          return arith::DivFOp::create(nb, l, a[0], count);
                        });
  SmallVector<OpFoldResult> keptSizes;
  for (int64_t d : kept)
    keptSizes.push_back(tensor::getMixedSize(b, loc, x, d));
  Value init = filledTensor(b, loc, keptSizes, acc, 0.0);
  Value sq = buildGeneric(b, loc, {{x, identityLoops(rank)}, {mean, kept}}, init, kept, rank,
                          [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                            Value d = arith::SubFOp::create(
                                nb, l, convertScalarTo(nb, l, a[0], acc), a[1]);
                            return arith::AddFOp::create(nb, l, a[2],
                                                         arith::MulFOp::create(nb, l, d, d));
                          });
  Value var = buildMap(b, loc, {{sq, keptIds}}, keptIds, kept.size(), acc,
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         return arith::DivFOp::create(nb, l, a[0], count);
                       });
  return {mean, var};
}

/// 1 / sqrt(var + eps) elementwise.
Value invStd(OpBuilder &b, Location loc, Value var, double eps) {
  auto ty = cast<RankedTensorType>(var.getType());
  SmallVector<int64_t> ids = identityLoops(ty.getRank());
  Type acc = ty.getElementType();
  return buildMap(b, loc, {{var, ids}}, ids, ids.size(), acc,
                  [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                    return math::RsqrtOp::create(
                        nb, l, arith::AddFOp::create(nb, l, a[0], scalarConstant(nb, l, acc, eps)));
                  });
}

/// y = (x - mean) * rstd [* weight] [+ bias], computed in `acc`, stored as `elem`.
Value normalize(OpBuilder &b, Location loc, Value x, LoopOperand mean, LoopOperand rstd,
                std::optional<LoopOperand> weight, std::optional<LoopOperand> bias, Type acc,
                Type elem) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<LoopOperand> ins{{x, identityLoops(rank)}, mean, rstd};
  if (weight)
    ins.push_back(*weight);
  if (bias)
    ins.push_back(*bias);
  return buildMap(b, loc, ins, identityLoops(rank), rank, elem,
                  [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                    Value v = arith::SubFOp::create(nb, l, convertScalarTo(nb, l, a[0], acc), a[1]);
                    v = arith::MulFOp::create(nb, l, v, a[2]);
                    unsigned next = 3;
                    if (weight)
                      v = arith::MulFOp::create(nb, l, v, convertScalarTo(nb, l, a[next++], acc));
                    if (bias)
                      v = arith::AddFOp::create(nb, l, v, convertScalarTo(nb, l, a[next++], acc));
                    return convertScalarTo(nb, l, v, elem);
                  });
}

/// softmax / log_softmax along one dim: max, sum of exp(x - max), then
/// exp(x - max) / sum or (x - max) - log(sum).
template <typename OpT, bool IsLog> struct SoftmaxLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpT>::OpAdaptor;
  LogicalResult matchAndRewrite(OpT op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getSelf();
    auto inTy = cast<RankedTensorType>(x.getType());
    if (inTy.getElementType().isUnsignedInteger())
      return rewriter.notifyMatchFailure(op, "unsigned integer tensors are not lowered yet");
    int64_t rank = inTy.getRank();
    Type r = op.getType().getElementType(), acc = computeType(r);
    SmallVector<int64_t> reduced;
    if (rank > 0)
      reduced.push_back(op.getDim() < 0 ? op.getDim() + rank : op.getDim());
    SmallVector<int64_t> kept = keptLoops(rank, reduced), all = identityLoops(rank);
    bool lastDim = !reduced.empty() && reduced[0] == rank - 1;
    auto load = [&](OpBuilder &b, Location l, Value v) {
      return convertScalarTo(b, l, convertScalarTo(b, l, v, r), acc);
    };
    Value m = reduceDims(rewriter, loc, x, reduced, acc, lowestValue(rewriter, loc, acc),
                         [&](OpBuilder &b, Location l, Value a, Value v) -> Value {
                           return arith::MaximumFOp::create(b, l, a, load(b, l, v));
                         });
    SmallVector<OpFoldResult> keptSizes;
    for (int64_t d : kept)
      keptSizes.push_back(tensor::getMixedSize(rewriter, loc, x, d));
    Value init = filledTensor(rewriter, loc, keptSizes, acc, 0.0);
    Value s = buildGeneric(rewriter, loc, {{x, all}, {m, kept}}, init, kept, rank,
                           [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                             Value d = arith::SubFOp::create(b, l, load(b, l, a[0]), a[1]);
                             return arith::AddFOp::create(b, l, a[2], math::ExpOp::create(b, l, d));
                           });
    Value y = buildMap(rewriter, loc, {{x, all}, {m, kept}, {s, kept}}, all, rank, r,
                       [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                         Value d = arith::SubFOp::create(b, l, load(b, l, a[0]), a[1]);
                         // Along the last dim ATen's CPU kernel stores a
                         // float16/bfloat16 log-sum in that type first.
                         auto round = [&](Value v) {
                           if (!lastDim)
                             return v;
                           return convertScalarTo(b, l, convertScalarTo(b, l, v, r), acc);
                         };
                         Value v = IsLog ? arith::SubFOp::create(
                                               b, l, d, round(math::LogOp::create(b, l, round(a[2]))))
                                               .getResult()
                                         : arith::DivFOp::create(b, l, math::ExpOp::create(b, l, d),
                                                                 a[2])
                                               .getResult();
                         return convertScalarTo(b, l, v, r);
                       });
    rewriter.replaceOp(op, castTo(rewriter, loc, y, op.getType()));
    return success();
  }
};

/// Statistics over the trailing dims, returned with unit dims in their place.
struct NativeLayerNormLowering : OpLowering<NativeLayerNormOp> {
  using OpLowering::OpLowering;
  LogicalResult lowerOp(NativeLayerNormOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter,
                        Location loc) const override {
    Value x = adaptor.getInput();
    auto inTy = cast<RankedTensorType>(x.getType());
    int64_t rank = inTy.getRank(), n = op.getNormalizedShape().size(), axis = rank - n;
    Type elem = inTy.getElementType(), acc = computeType(elem);
    SmallVector<int64_t> reduced, kept = identityLoops(axis);
    for (int64_t i = axis; i < rank; ++i)
      reduced.push_back(i);
    auto [mean, var] = moments(rewriter, loc, x, reduced, acc);
    Value rstd = invStd(rewriter, loc, var, op.getEps().convertToDouble());
    std::optional<LoopOperand> w, bias;
    if (adaptor.getWeight())
      w = LoopOperand{adaptor.getWeight(), reduced};
    if (adaptor.getBias())
      bias = LoopOperand{adaptor.getBias(), reduced};
    Value y = normalize(rewriter, loc, x, {mean, kept}, {rstd, kept}, w, bias, acc, elem);
    auto stat = [&](Value v, Type type) {
      v = convertTensor(rewriter, loc, v, cast<RankedTensorType>(type).getElementType());
      return castTo(rewriter, loc, restoreReducedDims(rewriter, loc, v, x, reduced), type);
    };
    rewriter.replaceOp(op, {castTo(rewriter, loc, y, op.getResult().getType()),
                            stat(mean, op.getMean().getType()),
                            stat(rstd, op.getRstd().getType())});
    return success();
  }
};

/// x * rsqrt(mean(x^2) + eps), rounded to the input type, then * weight.
struct RmsNormLowering : OpLowering<RmsNormOp> {
  using OpLowering::OpLowering;
  LogicalResult lowerOp(RmsNormOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter,
                        Location loc) const override {
    Value x = adaptor.getInput();
    auto inTy = cast<RankedTensorType>(x.getType());
    int64_t rank = inTy.getRank(), n = op.getNormalizedShape().size(), axis = rank - n;
    Type elem = inTy.getElementType(), acc = computeType(elem);
    double eps = op.getEps() ? op.getEps()->convertToDouble()
                 : elem.isF64()  ? DBL_EPSILON
                 : elem.isF16()  ? 0.0009765625
                 : elem.isBF16() ? 0.0078125
                                 : (double)FLT_EPSILON;
    SmallVector<int64_t> reduced, kept = identityLoops(axis), all = identityLoops(rank);
    for (int64_t i = axis; i < rank; ++i)
      reduced.push_back(i);
    Value sq = reduceDims(rewriter, loc, x, reduced, acc, scalarConstant(rewriter, loc, acc, 0.0),
                          [&](OpBuilder &b, Location l, Value a, Value v) -> Value {
                            v = convertScalarTo(b, l, v, acc);
                            return arith::AddFOp::create(b, l, a, arith::MulFOp::create(b, l, v, v));
                          });
    Value count = reducedCount(rewriter, loc, x, reduced, acc);
    SmallVector<LoopOperand> ins{{x, all}, {sq, kept}};
    if (adaptor.getWeight())
      ins.push_back({adaptor.getWeight(), reduced});
    Value y = buildMap(rewriter, loc, ins, all, rank, elem,
                       [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                         Value ms = arith::DivFOp::create(b, l, a[1], count);
                         Value r = math::RsqrtOp::create(
                             b, l, arith::AddFOp::create(b, l, ms, scalarConstant(b, l, acc, eps)));
                         Value v = arith::MulFOp::create(b, l, convertScalarTo(b, l, a[0], acc), r);
                         v = convertScalarTo(b, l, v, elem);
                         if (a.size() > 2)
                           v = arith::MulFOp::create(b, l, v, a[2]);
                         return v;
                       });
    rewriter.replaceOp(op, castTo(rewriter, loc, y, op.getType()));
    return success();
  }
};

/// [N, C, *] viewed as [N, G, C/G, *]: statistics per (n, g).
struct NativeGroupNormLowering : OpConversionPattern<NativeGroupNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NativeGroupNormOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    auto inTy = cast<RankedTensorType>(x.getType());
    int64_t rank = inTy.getRank(), g = op.getGroup();
    Type elem = inTy.getElementType(), acc = computeType(elem);
    // Split C into [G, C/G].
    auto split = [&](Value v, int64_t dim) {
      return splitDim(rewriter, loc, v, dim, g, /*factorInner=*/false);
    };
    Value xg = split(x, 1);
    SmallVector<int64_t> reduced;
    for (int64_t i = 2; i <= rank; ++i)
      reduced.push_back(i);
    auto [mean, var] = moments(rewriter, loc, xg, reduced, acc);
    Value rstd = invStd(rewriter, loc, var, op.getEps().convertToDouble());
    std::optional<LoopOperand> w, bias;
    if (adaptor.getWeight())
      w = LoopOperand{split(adaptor.getWeight(), 0), {1, 2}};
    if (adaptor.getBias())
      bias = LoopOperand{split(adaptor.getBias(), 0), {1, 2}};
    Value yg = normalize(rewriter, loc, xg, {mean, {0, 1}}, {rstd, {0, 1}}, w, bias, acc, elem);
    SmallVector<ReassociationIndices> back{{0}, {1, 2}};
    for (int64_t i = 3; i <= rank; ++i)
      back.push_back({i});
    Value y = tensor::CollapseShapeOp::create(rewriter, loc, yg, back);
    rewriter.replaceOp(op, {castTo(rewriter, loc, y, op.getResult().getType()),
                            convertAndCastTo(rewriter, loc, mean, op.getMean().getType()),
                            convertAndCastTo(rewriter, loc, rstd, op.getRstd().getType())});
    return success();
  }
};

/// Training batch norm: per-channel statistics over every dim but 1.
struct BatchStats {
  Value y, mean, var, rstd;
};
BatchStats trainingBatchNorm(OpBuilder &b, Location loc, Value x, Value weight, Value bias,
                             double eps) {
  auto inTy = cast<RankedTensorType>(x.getType());
  int64_t rank = inTy.getRank();
  Type elem = inTy.getElementType(), acc = computeType(elem);
  SmallVector<int64_t> reduced = keptLoops(rank, {1});
  auto [mean, var] = moments(b, loc, x, reduced, acc);
  Value rstd = invStd(b, loc, var, eps);
  std::optional<LoopOperand> w, bi;
  if (weight)
    w = LoopOperand{weight, {1}};
  if (bias)
    bi = LoopOperand{bias, {1}};
  Value y = normalize(b, loc, x, {mean, {1}}, {rstd, {1}}, w, bi, acc, elem);
  return {y, mean, var, rstd};
}

/// trainingBatchNorm of a batch norm op in training mode (native_batch_norm
/// and its functional form); the inference form fails to match, saying why.
template <typename OpT>
FailureOr<BatchStats> trainingStats(OpT op, typename OpT::Adaptor adaptor,
                                    ConversionPatternRewriter &rewriter) {
  if (!op.getTraining())
    return rewriter.notifyMatchFailure(
        op, "inference form is rewritten to _native_batch_norm_legit_no_training first");
  return trainingBatchNorm(rewriter, op.getLoc(), adaptor.getInput(), adaptor.getWeight(),
                           adaptor.getBias(), op.getEps().convertToDouble());
}

struct NativeBatchNormLowering : OpConversionPattern<NativeBatchNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NativeBatchNormOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<BatchStats> s = trainingStats(op, adaptor, rewriter);
    if (failed(s))
      return failure();
    Location loc = op.getLoc();
    rewriter.replaceOp(op, {convertAndCastTo(rewriter, loc, s->y, op.getResult().getType()),
                            convertAndCastTo(rewriter, loc, s->mean, op.getSaveMean().getType()),
                            convertAndCastTo(rewriter, loc, s->rstd, op.getSaveInvstd().getType())});
    return success();
  }
};

/// Also the updated running statistics (unbiased variance).
struct FunctionalBatchNormLowering : OpConversionPattern<NativeBatchNormLegitFunctionalOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NativeBatchNormLegitFunctionalOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    FailureOr<BatchStats> stats = trainingStats(op, adaptor, rewriter);
    if (failed(stats))
      return failure();
    BatchStats &s = *stats;
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    Type acc = cast<RankedTensorType>(s.mean.getType()).getElementType();
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    Value n = reducedCount(rewriter, loc, x, keptLoops(rank, {1}), acc);
    double m = op.getMomentum().convertToDouble();
    auto update = [&](Value running, Value stat, bool unbias) {
      Type re = cast<RankedTensorType>(running.getType()).getElementType();
      return buildMap(rewriter, loc, {{running, {0}}, {stat, {0}}}, {0}, 1, re,
                      [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                        Value st = a[1];
                        if (unbias) {
                          Value nm1 = arith::SubFOp::create(b, l, n, scalarConstant(b, l, acc, 1.0));
                          st = arith::DivFOp::create(b, l, arith::MulFOp::create(b, l, st, n), nm1);
                        }
                        Value r = convertScalarTo(b, l, a[0], acc);
                        Value v = arith::AddFOp::create(
                            b, l, arith::MulFOp::create(b, l, r, scalarConstant(b, l, acc, 1.0 - m)),
                            arith::MulFOp::create(b, l, st, scalarConstant(b, l, acc, m)));
                        return convertScalarTo(b, l, v, re);
                      });
    };
    Value rm = update(adaptor.getRunningMean(), s.mean, false);
    Value rv = update(adaptor.getRunningVar(), s.var, true);
    rewriter.replaceOp(op, {convertAndCastTo(rewriter, loc, s.y, op.getResult().getType()),
                            convertAndCastTo(rewriter, loc, s.mean, op.getSaveMean().getType()),
                            convertAndCastTo(rewriter, loc, s.rstd, op.getSaveInvstd().getType()),
                            castTo(rewriter, loc, rm, op.getRunningMeanOut().getType()),
                            castTo(rewriter, loc, rv, op.getRunningVarOut().getType())});
    return success();
  }
};

/// y = x * scale[c] + shift[c], scale = weight / sqrt(var + eps),
/// shift = bias - mean * scale: per-channel factors first, as ATen's CPU
/// inference kernel does, then one fused multiply-add per element.
struct InferenceBatchNormLowering : OpConversionPattern<NativeBatchNormLegitNoTrainingOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NativeBatchNormLegitNoTrainingOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inTy = cast<RankedTensorType>(input.getType());
    Type elem = inTy.getElementType(), acc = computeType(elem);
    double eps = op.getEps().convertToDouble();
    int64_t rank = inTy.getRank();

    Value weight = adaptor.getWeight(), bias = adaptor.getBias();
    SmallVector<LoopOperand> chanIns{{adaptor.getRunningMean(), {0}},
                                     {adaptor.getRunningVar(), {0}}};
    if (weight)
      chanIns.push_back({weight, {0}});
    if (bias)
      chanIns.push_back({bias, {0}});
    SmallVector<OpFoldResult> cSize{tensor::getMixedSize(rewriter, loc, input, 1)};
    Value scaleInit = emptyTensor(rewriter, loc, cSize, acc);
    Value shiftInit = emptyTensor(rewriter, loc, cSize, acc);
    MLIRContext *ctx = rewriter.getContext();
    auto id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    SmallVector<Value> chanValues;
    for (auto &c : chanIns)
      chanValues.push_back(c.value);
    SmallVector<AffineMap> chanMaps(chanIns.size() + 2, id1);
    auto factors = linalg::GenericOp::create(
        rewriter, loc, TypeRange{scaleInit.getType(), shiftInit.getType()}, chanValues,
        ValueRange{scaleInit, shiftInit}, chanMaps, {utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto ld = [&](Value v) { return convertScalarTo(b, l, v, acc); };
          Value m = ld(args[0]), v = ld(args[1]);
          unsigned next = 2;
          Value w = weight ? ld(args[next++]) : Value();
          Value bi = bias ? ld(args[next++]) : Value();
          Value inv = math::RsqrtOp::create(
              b, l, arith::AddFOp::create(b, l, v, scalarConstant(b, l, acc, eps)));
          Value scale = w ? arith::MulFOp::create(b, l, w, inv).getResult() : inv;
          Value shift = arith::NegFOp::create(b, l, arith::MulFOp::create(b, l, m, scale));
          if (bi)
            shift = arith::AddFOp::create(b, l, bi, shift);
          linalg::YieldOp::create(b, l, ValueRange{scale, shift});
        });
    SmallVector<int64_t> all = identityLoops(rank);
    Value out = buildMap(rewriter, loc,
                         {{input, all}, {factors.getResult(0), {1}}, {factors.getResult(1), {1}}},
                         all, rank, elem, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                           Value y = arith::AddFOp::create(
                               b, l,
                               arith::MulFOp::create(b, l, convertScalarTo(b, l, a[0], acc), a[1]),
                               a[2]);
                           return convertScalarTo(b, l, y, elem);
                         });
    out = castTo(rewriter, loc, out, op.getResult().getType());
    // Inference returns empty saved statistics.
    auto empty = [&](Value r) {
      auto t = cast<RankedTensorType>(r.getType());
      SmallVector<int64_t> shape(t.getShape());
      for (int64_t &d : shape)
        if (d == ShapedType::kDynamic)
          d = 0;
      return castTo(rewriter, loc, tensor::EmptyOp::create(rewriter, loc, shape, t.getElementType()),
                    t);
    };
    rewriter.replaceOp(op, {out, empty(op.getSaveMean()), empty(op.getSaveInvstd())});
    return success();
  }
};
} // namespace

void kiln::populateNormalizationPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering<SoftmaxOp, false>, SoftmaxLowering<LogSoftmaxOp, true>,
               SoftmaxLowering<SoftmaxIntOp, false>, SoftmaxLowering<LogSoftmaxIntOp, true>,
               NativeLayerNormLowering, RmsNormLowering, NativeGroupNormLowering,
               NativeBatchNormLowering, FunctionalBatchNormLowering, InferenceBatchNormLowering>(
      patterns.getContext());
}

//===- Backward.cpp - aten backward-formula ops to linalg -----------------===//
//
// The ops reverse-mode differentiation produces. Gradients that scatter in
// the forward's terms (a strided convolution's input, pooling windows) are
// computed in gather form: each input element sums what reaches it, so every
// result is one linalg.generic with parallel outer dims. With
// conv-backward-calls a float32 2-d transposed convolution takes the input
// gradient's form too (its backward-data call).
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "ATen/IR/AttrNames.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include <cmath>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
using utils::IteratorType;

Value idx(OpBuilder &b, Location loc, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

/// Index of sliding-window position `o` along a dim that covers input
/// element `i` through kernel tap `k`: o = (i + pad - k * dil) / stride when
/// that divides evenly and lies in [0, outSize). Returns (o clamped, valid).
std::pair<Value, Value> windowFor(OpBuilder &b, Location loc, Value i, Value k, int64_t pad,
                                  int64_t dil, int64_t stride, Value outSize) {
  Value num = arith::SubIOp::create(
      b, loc, arith::AddIOp::create(b, loc, i, idx(b, loc, pad)),
      arith::MulIOp::create(b, loc, k, idx(b, loc, dil)));
  Value zero = idx(b, loc, 0);
  Value s = idx(b, loc, stride);
  Value nonNeg = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, num, zero);
  Value safe = arith::SelectOp::create(b, loc, nonNeg, num, zero);
  Value exact = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      arith::RemUIOp::create(b, loc, safe, s), zero);
  Value o = arith::DivUIOp::create(b, loc, safe, s);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, o, outSize);
  Value valid = arith::AndIOp::create(b, loc, nonNeg, arith::AndIOp::create(b, loc, exact, inRange));
  Value clamped = arith::SelectOp::create(b, loc, valid, o, zero);
  return {clamped, valid};
}

Value dimValue(OpBuilder &b, Location loc, Value t, int64_t d) {
  return getValueOrCreateConstantIndexOp(b, loc, tensor::getMixedSize(b, loc, t, d));
}

/// The input gradient of a 2-d convolution (weight `w` [F, C/G, KH, KW],
/// output gradient `g` [N, F, OH, OW], input of spatial size inH x inW),
/// [N, C, inH, inW], which is also the transposed convolution of `g` by `w`:
///   grad_input[n, grp*Cg+cl, h, w] = sum_{fl,kh,kw} P[n, grp*Fg+fl, h+kh*d, w+kw*d] *
///                                    weight[grp*Fg+fl, cl, KH-1-kh, KW-1-kw]
/// where P is g spread out by the stride and padded by (K-1)*d - pad (a
/// gather: P[j] = g[(j - L) / s] where that divides evenly and is in range).
/// With `mark`, the spread and the gradient's op carry kiln.conv_backward
/// (parts "spread" and "input") for the library-call passes.
Value convInputGradient(OpBuilder &b, Location loc, Value g, Value w, OpFoldResult inH, OpFoldResult inW,
                        ArrayRef<int64_t> s, ArrayRef<int64_t> p, ArrayRef<int64_t> dl, int64_t G, bool mark) {
  auto wTy = cast<RankedTensorType>(w.getType());
  Type elem = wTy.getElementType();
  int64_t F = wTy.getDimSize(0), Cg = wTy.getDimSize(1), KH = wTy.getDimSize(2), KW = wTy.getDimSize(3);
  int64_t Fg = F / G;
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return b.getAffineDimExpr(i); };
  // Marks `v`'s defining op as part `part` of the gradient, for the library calls.
  auto markAs = [&](Value v, StringRef part) {
    if (!mark)
      return;
    SmallVector<NamedAttribute> fields{
        b.getNamedAttr("part", b.getStringAttr(part)), b.getNamedAttr("stride", b.getDenseI64ArrayAttr(s)),
        b.getNamedAttr("padding", b.getDenseI64ArrayAttr(p)), b.getNamedAttr("dilation", b.getDenseI64ArrayAttr(dl)),
        b.getNamedAttr("groups", b.getI64IntegerAttr(G))};
    v.getDefiningOp()->setAttr(kiln::attrs::kConvBackward, b.getDictionaryAttr(fields));
  };
  OpFoldResult n = tensor::getMixedSize(b, loc, g, 0);
  Value outH = dimValue(b, loc, g, 2), outW = dimValue(b, loc, g, 3);
  int64_t LH = (KH - 1) * dl[0] - p[0], LW = (KW - 1) * dl[1] - p[1];
  auto plus = [&](OpFoldResult v, int64_t c) -> OpFoldResult {
    if (auto k = getConstantIntValue(v))
      return b.getIndexAttr(*k + c);
    return arith::AddIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, v), idx(b, loc, c)).getResult();
  };
  OpFoldResult ph = plus(inH, (KH - 1) * dl[0]), pw = plus(inW, (KW - 1) * dl[1]);
  // P[n, f, j, i] = g[n, f, (j - LH) / s0, (i - LW) / s1] where exact, else 0:
  // windowFor with kernel tap 0 and "pad" -L computes exactly that.
  Value pInit = emptyTensor(b, loc, {n, b.getIndexAttr(F), ph, pw}, elem);
  Value P = linalg::GenericOp::create(
                b, loc, pInit.getType(), ValueRange{}, ValueRange{pInit},
                SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(4, ctx)},
                SmallVector<IteratorType>(4, IteratorType::parallel),
                [&](OpBuilder &nb, Location l, ValueRange) {
                  Value zero = idx(nb, l, 0);
                  auto [oh, vh] = windowFor(nb, l, linalg::IndexOp::create(nb, l, 2), zero, -LH, 1, s[0], outH);
                  auto [ow, vw] = windowFor(nb, l, linalg::IndexOp::create(nb, l, 3), zero, -LW, 1, s[1], outW);
                  Value v = tensor::ExtractOp::create(
                      nb, l, g, ValueRange{linalg::IndexOp::create(nb, l, 0), linalg::IndexOp::create(nb, l, 1), oh, ow});
                  Value ok = arith::AndIOp::create(nb, l, vh, vw);
                  linalg::YieldOp::create(
                      nb, l, ValueRange{arith::SelectOp::create(nb, l, ok, v, scalarConstant(nb, l, elem, 0.0))});
                })
                .getResult(0);
  markAs(P, "spread");
  // Iteration (n, grp, cl, h, w, fl, kh, kw) into [N, G, Cg, H, W].
  Value init = filledTensor(b, loc, {n, b.getIndexAttr(G), b.getIndexAttr(Cg), inH, inW}, elem, 0.0);
  Value taps = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{Fg, KH, KW}, elem);
  SmallVector<AffineMap> maps{
      AffineMap::get(8, 0, {d(0), d(1) * Fg + d(5), d(3) + d(6) * dl[0], d(4) + d(7) * dl[1]}, ctx),
      AffineMap::get(8, 0, {d(1) * Fg + d(5), d(2), (KH - 1) - d(6), (KW - 1) - d(7)}, ctx),
      AffineMap::get(8, 0, {d(5), d(6), d(7)}, ctx), AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(4)}, ctx)};
  SmallVector<IteratorType> iters(5, IteratorType::parallel);
  iters.append(3, IteratorType::reduction);
  Value gi = linalg::GenericOp::create(b, loc, init.getType(), ValueRange{P, w, taps}, ValueRange{init}, maps, iters,
                                       [&](OpBuilder &nb, Location l, ValueRange a) {
                                         Value m = arith::MulFOp::create(nb, l, a[0], a[1]);
                                         linalg::YieldOp::create(
                                             nb, l, ValueRange{arith::AddFOp::create(nb, l, a[3], m)});
                                       })
                 .getResult(0);
  markAs(gi, "input");
  return tensor::CollapseShapeOp::create(b, loc, gi, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
}

struct ThresholdBackwardLowering : OpConversionPattern<ThresholdBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ThresholdBackwardOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type elem = op.getType().getElementType();
    double th = op.getThreshold().convertToDouble();
    Value r = elementwise(rewriter, op.getLoc(), {adaptor.getGradOutput(), adaptor.getSelf()},
                          op.getType(), [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                            // self <= threshold (false for NaN, as in ATen) gives 0.
                            Value le = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE,
                                                             a[1], scalarConstant(b, loc, elem, th));
                            return arith::SelectOp::create(b, loc, le,
                                                           scalarConstant(b, loc, elem, 0.0), a[0]);
                          });
    rewriter.replaceOp(op, r);
    return success();
  }
};

struct GeluBackwardLowering : OpConversionPattern<GeluBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GeluBackwardOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Type elem = op.getType().getElementType();
    bool tanhForm = op.getApproximate() == "tanh";
    Value r = elementwise(
        rewriter, op.getLoc(), {adaptor.getGradOutput(), adaptor.getSelf()}, op.getType(),
        [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
          Value g = a[0], x = a[1];
          auto c = [&](double v) { return scalarConstant(b, loc, elem, v); };
          auto mul = [&](Value p, Value q) { return arith::MulFOp::create(b, loc, p, q).getResult(); };
          auto add = [&](Value p, Value q) { return arith::AddFOp::create(b, loc, p, q).getResult(); };
          Value d;
          if (tanhForm) {
            // 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2),
            // t = tanh(sqrt(2/pi) (x + 0.044715 x^3)).
            Value x2 = mul(x, x);
            Value k = c(std::sqrt(2.0 / M_PI));
            Value t = math::TanhOp::create(b, loc, mul(k, add(x, mul(c(0.044715), mul(x2, x)))));
            Value left = mul(c(0.5), add(c(1.0), t));
            Value sech2 = arith::SubFOp::create(b, loc, c(1.0), mul(t, t));
            Value inner = mul(k, add(c(1.0), mul(c(3.0 * 0.044715), x2)));
            d = add(left, mul(mul(c(0.5), x), mul(sech2, inner)));
          } else {
            // Phi(x) + x phi(x): 0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi).
            Value cdf = mul(c(0.5), add(c(1.0), math::ErfOp::create(b, loc, mul(x, c(M_SQRT1_2)))));
            Value pdf = mul(math::ExpOp::create(b, loc, mul(c(-0.5), mul(x, x))),
                            c(0.5 * M_2_SQRTPI * M_SQRT1_2));
            d = add(cdf, mul(x, pdf));
          }
          return mul(g, d);
        });
    rewriter.replaceOp(op, r);
    return success();
  }
};

/// Sums the leading dims the result lacks and the dims where the result has
/// a static 1 and self does not: a reduction into the kept dims, then an
/// expand_shape that puts the unit dims back.
struct SumToSizeLowering : OpConversionPattern<SumToSizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SumToSizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value in = adaptor.getSelf();
    auto inTy = cast<RankedTensorType>(in.getType());
    auto outTy = op.getType();
    int64_t rin = inTy.getRank(), rout = outTy.getRank(), lead = rin - rout;
    SmallVector<AffineExpr> outExprs;
    SmallVector<IteratorType> iters;
    SmallVector<OpFoldResult> keptSizes;
    SmallVector<int64_t> keptShape;
    SmallVector<ReassociationIndices> reassoc;
    ReassociationIndices pending; // unit dims before the first kept dim
    for (int64_t j = 0; j < rin; ++j) {
      bool summed = j < lead || (outTy.getDimSize(j - lead) == 1 && inTy.getDimSize(j) != 1);
      iters.push_back(summed ? IteratorType::reduction : IteratorType::parallel);
      if (j < lead)
        continue;
      int64_t i = j - lead;
      if (summed) {
        if (reassoc.empty())
          pending.push_back(i);
        else
          reassoc.back().push_back(i);
        continue;
      }
      outExprs.push_back(rewriter.getAffineDimExpr(j));
      keptSizes.push_back(tensor::getMixedSize(rewriter, loc, in, j));
      keptShape.push_back(outTy.getDimSize(i) != ShapedType::kDynamic ? outTy.getDimSize(i)
                                                                       : inTy.getDimSize(j));
      ReassociationIndices group(pending);
      pending.clear();
      group.push_back(i);
      reassoc.push_back(group);
    }
    Type elem = outTy.getElementType();
    Value init = filledTensor(rewriter, loc, keptSizes, elem, 0.0);
    init = castTo(rewriter, loc, init, RankedTensorType::get(keptShape, elem));
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rin, ctx),
                                AffineMap::get(rin, 0, outExprs, ctx)};
    Value r = linalg::GenericOp::create(
                  rewriter, loc, init.getType(), ValueRange{in}, ValueRange{init}, maps, iters,
                  [&](OpBuilder &b, Location l, ValueRange a) {
                    linalg::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, a[1], a[0])});
                  })
                  .getResult(0);
    if ((int64_t)keptShape.size() != rout) {
      SmallVector<int64_t> expanded(outTy.getShape());
      for (auto [k, group] : llvm::enumerate(reassoc))
        for (int64_t i : group)
          if (expanded[i] == ShapedType::kDynamic)
            expanded[i] = keptShape[k];
      r = tensor::ExpandShapeOp::create(rewriter, loc, RankedTensorType::get(expanded, elem), r,
                                        reassoc);
    }
    rewriter.replaceOp(op, castTo(rewriter, loc, r, outTy));
    return success();
  }
};

/// Input, weight and bias gradients of a 2-d convolution with groups G:
///   grad_bias[f]  = sum_{n,oh,ow} g[n,f,oh,ow]
///   grad_weight[grp*Fg+fl, cl, kh, kw] = sum_{n,oh,ow} g[n,grp*Fg+fl,oh,ow] *
///                                        xpad[n, grp*Cg+cl, oh*s+kh*d, ow*s+kw*d]
///   (8 or more output channels per group: computed channels-last, the
///   output channel innermost, and transposed back)
///   grad_input[n, grp*Cg+cl, h, w] = sum_{fl,kh,kw} P[n, grp*Fg+fl, h+kh*d, w+kw*d] *
///                                    weight[grp*Fg+fl, cl, KH-1-kh, KW-1-kw]
/// where P is g spread out by the stride and padded by (K-1)*d - pad (a
/// gather: P[j] = g[(j - L) / s] where that divides evenly and is in range).
///
/// With `libraryForm` (conv-backward-calls) the weight gradient always takes
/// the second form, reading g and the padded input directly, and the ops
/// computing the input and weight gradients (and the spread P) carry
/// kiln.conv_backward with the convolution's parameters, for the library-call
/// passes; whatever they leave runs as generated loops.
struct ConvolutionBackwardLowering : OpConversionPattern<ConvolutionBackwardOp> {
  ConvolutionBackwardLowering(MLIRContext *ctx, bool libraryForm)
      : OpConversionPattern(ctx), libraryForm(libraryForm) {}
  bool libraryForm;

  /// Marks `v`'s defining op as part `part` of the gradient of `op`.
  void mark(Value v, StringRef part, ConvolutionBackwardOp op, OpBuilder &b) const {
    if (!libraryForm)
      return;
    SmallVector<NamedAttribute> fields{
        b.getNamedAttr("part", b.getStringAttr(part)), b.getNamedAttr("stride", op.getStrideAttr()),
        b.getNamedAttr("padding", op.getPaddingAttr()), b.getNamedAttr("dilation", op.getDilationAttr()),
        b.getNamedAttr("groups", b.getI64IntegerAttr(op.getGroups()))};
    v.getDefiningOp()->setAttr(kiln::attrs::kConvBackward, b.getDictionaryAttr(fields));
  }

  LogicalResult matchAndRewrite(ConvolutionBackwardOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getTransposed())
      return rewriter.notifyMatchFailure(op, "the gradient of a transposed convolution is not lowered yet");
    Location loc = op.getLoc();
    Value g = adaptor.getGradOutput(), x = adaptor.getInput(), w = adaptor.getWeight();
    auto wTy = cast<RankedTensorType>(w.getType());
    if (!wTy.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs a weight of static shape");
    Type elem = wTy.getElementType();
    int64_t G = op.getGroups(), F = wTy.getDimSize(0), Cg = wTy.getDimSize(1);
    int64_t KH = wTy.getDimSize(2), KW = wTy.getDimSize(3), Fg = F / G;
    ArrayRef<int64_t> s = op.getStride(), p = op.getPadding(), dl = op.getDilation();
    ArrayRef<bool> mask = op.getOutputMask();
    MLIRContext *ctx = rewriter.getContext();
    auto d = [&](unsigned i) { return rewriter.getAffineDimExpr(i); };
    SmallVector<Value> results(3);

    if (mask[2]) {
      // Iteration (f, n, oh, ow).
      Value init = filledTensor(rewriter, loc, {rewriter.getIndexAttr(F)}, elem, 0.0);
      SmallVector<AffineMap> maps{AffineMap::get(4, 0, {d(1), d(0), d(2), d(3)}, ctx),
                                  AffineMap::get(4, 0, {d(0)}, ctx)};
      SmallVector<IteratorType> iters{IteratorType::parallel, IteratorType::reduction,
                                      IteratorType::reduction, IteratorType::reduction};
      results[2] = linalg::GenericOp::create(
                       rewriter, loc, init.getType(), ValueRange{g}, ValueRange{init}, maps, iters,
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         linalg::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, a[1], a[0])});
                       })
                       .getResult(0);
    }
    if (mask[1] && Fg >= 8 && !libraryForm) {
      // g transposed to [N, OH, OW, F], then iteration (grp, cl, kh, kw, n,
      // oh, ow, fl) into [G, Cg, KH, KW, Fg]: the innermost loop runs along
      // the output channels, contiguous in both g and the result, so it
      // vectorises with x's element broadcast; each result element sums
      // over (n, oh, ow). (With the reduction along a row of g innermost,
      // one weight-gradient element at a time, convnet's gradient took 2.2
      // ms instead of 1.0, docs/autograd.md.)
      Value xpad = padSpatial(rewriter, loc, x, p, p, 0.0);
      SmallVector<OpFoldResult> gs = getSizes(rewriter, loc, g);
      Value gtInit = emptyTensor(rewriter, loc, {gs[0], gs[2], gs[3], gs[1]}, elem);
      Value gT = linalg::TransposeOp::create(rewriter, loc, g, gtInit,
                                             ArrayRef<int64_t>{0, 2, 3, 1})
                     .getResult()[0];
      SmallVector<OpFoldResult> sizes;
      for (int64_t v : {G, Cg, KH, KW, Fg})
        sizes.push_back(rewriter.getIndexAttr(v));
      Value init = filledTensor(rewriter, loc, sizes, elem, 0.0);
      SmallVector<AffineMap> maps{
          AffineMap::get(8, 0, {d(4), d(5), d(6), d(0) * Fg + d(7)}, ctx),
          AffineMap::get(8, 0, {d(4), d(0) * Cg + d(1), d(5) * s[0] + d(2) * dl[0],
                                d(6) * s[1] + d(3) * dl[1]}, ctx),
          AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(7)}, ctx)};
      SmallVector<IteratorType> iters(4, IteratorType::parallel);
      iters.append(3, IteratorType::reduction);
      iters.push_back(IteratorType::parallel);
      Value gwT = linalg::GenericOp::create(
                      rewriter, loc, init.getType(), ValueRange{gT, xpad}, ValueRange{init}, maps,
                      iters,
                      [&](OpBuilder &b, Location l, ValueRange a) {
                        Value m = arith::MulFOp::create(b, l, a[0], a[1]);
                        linalg::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, a[2], m)});
                      })
                      .getResult(0);
      Value gwInit = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{G, Fg, Cg, KH, KW}, elem);
      Value gw = linalg::TransposeOp::create(rewriter, loc, gwT, gwInit,
                                             ArrayRef<int64_t>{0, 4, 1, 2, 3})
                     .getResult()[0];
      results[1] = tensor::CollapseShapeOp::create(
          rewriter, loc, gw, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    } else if (mask[1]) {
      Value xpad = padSpatial(rewriter, loc, x, p, p, 0.0);
      // Iteration (grp, fl, cl, kh, kw, n, oh, ow) into [G, Fg, Cg, KH, KW].
      SmallVector<OpFoldResult> sizes;
      for (int64_t v : {G, Fg, Cg, KH, KW})
        sizes.push_back(rewriter.getIndexAttr(v));
      Value init = filledTensor(rewriter, loc, sizes, elem, 0.0);
      SmallVector<AffineMap> maps{
          AffineMap::get(8, 0, {d(5), d(0) * Fg + d(1), d(6), d(7)}, ctx),
          AffineMap::get(8, 0, {d(5), d(0) * Cg + d(2), d(6) * s[0] + d(3) * dl[0],
                                d(7) * s[1] + d(4) * dl[1]}, ctx),
          AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(4)}, ctx)};
      SmallVector<IteratorType> iters(5, IteratorType::parallel);
      iters.append(3, IteratorType::reduction);
      Value gw = linalg::GenericOp::create(
                     rewriter, loc, init.getType(), ValueRange{g, xpad}, ValueRange{init}, maps,
                     iters,
                     [&](OpBuilder &b, Location l, ValueRange a) {
                       Value m = arith::MulFOp::create(b, l, a[0], a[1]);
                       linalg::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, a[2], m)});
                     })
                     .getResult(0);
      mark(gw, "weight", op, rewriter);
      results[1] = tensor::CollapseShapeOp::create(
          rewriter, loc, gw, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}, {4}});
    }
    if (mask[0])
      results[0] = convInputGradient(rewriter, loc, g, w, tensor::getMixedSize(rewriter, loc, x, 2),
                                     tensor::getMixedSize(rewriter, loc, x, 3), s, p, dl, G, libraryForm);
    // Results not asked for are unspecified values of the right type.
    if (!results[0])
      results[0] = emptyTensor(rewriter, loc, getSizes(rewriter, loc, x), elem);
    if (!results[1])
      results[1] = emptyTensor(rewriter, loc, getSizes(rewriter, loc, w), elem);
    if (!results[2])
      results[2] = emptyTensor(rewriter, loc, {rewriter.getIndexAttr(F)}, elem);
    for (int i = 0; i < 3; ++i)
      results[i] = castTo(rewriter, loc, results[i], op->getResult(i).getType());
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// 2-d pooling backward operands with a batch dim: a 3-d (unbatched) `self`
/// gets one, and so does each of `others`. True when it was unbatched.
bool batchPoolOperands(OpBuilder &b, Location loc, Value &self, std::initializer_list<Value *> others) {
  if (cast<RankedTensorType>(self.getType()).getRank() != 3)
    return false;
  self = expandBatch(b, loc, self);
  for (Value *v : others)
    *v = expandBatch(b, loc, *v);
  return true;
}

/// The input gradient of a 2-d pooling: zeros of self's sizes accumulating,
/// over the iteration (n, c, h, w, i, j) with (i, j) reduced, `step(src value,
/// accumulator)` for each element of `src` read at the iteration dims
/// `srcDims` (kernel taps (4, 5), or pooled positions (0, 1, 4, 5)).
Value poolGradient(OpBuilder &b, Location loc, Value self, Value src, ArrayRef<unsigned> srcDims, Type elem,
                   function_ref<Value(OpBuilder &, Location, Value, Value)> step) {
  MLIRContext *ctx = b.getContext();
  Value init = filledTensor(b, loc, getSizes(b, loc, self), elem, 0.0);
  SmallVector<AffineMap> maps{AffineMap::getMultiDimMapWithTargets(6, srcDims, ctx),
                              AffineMap::getMultiDimMapWithTargets(6, {0, 1, 2, 3}, ctx)};
  SmallVector<IteratorType> iters(4, IteratorType::parallel);
  iters.append(2, IteratorType::reduction);
  return linalg::GenericOp::create(b, loc, init.getType(), ValueRange{src}, ValueRange{init}, maps, iters,
                                   [&](OpBuilder &nb, Location l, ValueRange a) {
                                     linalg::YieldOp::create(nb, l, ValueRange{step(nb, l, a[0], a[1])});
                                   })
      .getResult(0);
}

/// grad_input[n,c,h,w] = sum over kernel taps (kh, kw) of the window (oh, ow)
/// that reads (h, w) through that tap, when its recorded argmax is h*W + w.
struct MaxPool2dWithIndicesBackwardLowering
    : OpConversionPattern<MaxPool2dWithIndicesBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MaxPool2dWithIndicesBackwardOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value g = adaptor.getGradOutput(), self = adaptor.getSelf(), ind = adaptor.getIndices();
    bool unbatched = batchPoolOperands(rewriter, loc, self, {&g, &ind});
    Type elem = op.getType().getElementType();
    ArrayRef<int64_t> k = op.getKernelSize(), s = op.getStride(), p = op.getPadding(),
                      dl = op.getDilation();
    Value outH = dimValue(rewriter, loc, g, 2), outW = dimValue(rewriter, loc, g, 3);
    Value inW = dimValue(rewriter, loc, self, 3);
    Value taps = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{k[0], k[1]}, elem);
    Value r = poolGradient(rewriter, loc, self, taps, {4, 5}, elem,
                           [&](OpBuilder &b, Location l, Value v, Value acc) -> Value {
      Value n = linalg::IndexOp::create(b, l, 0), c = linalg::IndexOp::create(b, l, 1);
      Value h = linalg::IndexOp::create(b, l, 2), w = linalg::IndexOp::create(b, l, 3);
      auto [oh, vh] = windowFor(b, l, h, linalg::IndexOp::create(b, l, 4), p[0], dl[0],
                                s[0], outH);
      auto [ow, vw] = windowFor(b, l, w, linalg::IndexOp::create(b, l, 5), p[1], dl[1],
                                s[1], outW);
      Value at = tensor::ExtractOp::create(b, l, ind, ValueRange{n, c, oh, ow});
      Value flat = arith::IndexCastOp::create(
          b, l, b.getI64Type(),
          arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, h, inW), w));
      Value hit = arith::AndIOp::create(
          b, l, arith::AndIOp::create(b, l, vh, vw),
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, at, flat));
      Value gv = tensor::ExtractOp::create(b, l, g, ValueRange{n, c, oh, ow});
      Value add = arith::AddFOp::create(b, l, acc, gv);
      return arith::SelectOp::create(b, l, hit, add, acc);
    });
    rewriter.replaceOp(op, finishSpatial(rewriter, loc, r, op.getType(), unbatched));
    return success();
  }
};

/// grad_input[n,c,h,w] = sum over kernel taps (kh, kw) of the window (oh, ow)
/// that holds (h, w) at that tap, of g[n,c,oh,ow] / that window's divisor.
struct AvgPool2dBackwardLowering : OpConversionPattern<AvgPool2dBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AvgPool2dBackwardOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value g = adaptor.getGradOutput(), self = adaptor.getSelf();
    bool unbatched = batchPoolOperands(rewriter, loc, self, {&g});
    Type elem = op.getType().getElementType();
    ArrayRef<int64_t> k = op.getKernelSize(), s = op.getStride(), p = op.getPadding();
    std::optional<int64_t> divisor = op.getDivisorOverride();
    bool includePad = op.getCountIncludePad();
    Value outDims[2] = {dimValue(rewriter, loc, g, 2), dimValue(rewriter, loc, g, 3)};
    Value inDims[2] = {dimValue(rewriter, loc, self, 2), dimValue(rewriter, loc, self, 3)};
    Value taps = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{k[0], k[1]}, elem);
    Value r = poolGradient(rewriter, loc, self, taps, {4, 5}, elem,
                           [&](OpBuilder &b, Location l, Value v, Value acc) -> Value {
      Value n = linalg::IndexOp::create(b, l, 0), c = linalg::IndexOp::create(b, l, 1);
      SmallVector<Value> o;
      Value valid = arith::ConstantIntOp::create(b, l, 1, 1);
      Value count = idx(b, l, 1);
      for (int i = 0; i < 2; ++i) {
        auto [oi, vi] = windowFor(b, l, linalg::IndexOp::create(b, l, 2 + i),
                                  linalg::IndexOp::create(b, l, 4 + i), p[i], 1,
                                  s[i], outDims[i]);
        o.push_back(oi);
        valid = arith::AndIOp::create(b, l, valid, vi);
        count = arith::MulIOp::create(
            b, l, count,
            avgPoolWindowExtent(b, l, oi, inDims[i], k[i], s[i], p[i], includePad));
      }
      Value countF =
          divisor ? scalarConstant(b, l, elem, (double)*divisor)
                  : arith::SIToFPOp::create(
                        b, l, elem,
                        arith::IndexCastOp::create(b, l, b.getI64Type(), count))
                        .getResult();
      Value gv = tensor::ExtractOp::create(b, l, g, ValueRange{n, c, o[0], o[1]});
      Value add = arith::AddFOp::create(b, l, acc, arith::DivFOp::create(b, l, gv, countF));
      return arith::SelectOp::create(b, l, valid, add, acc);
    });
    rewriter.replaceOp(op, finishSpatial(rewriter, loc, r, op.getType(), unbatched));
    return success();
  }
};

/// grad_input[n,c,h,w] = sum over the adaptive windows (oh, ow) containing
/// (h, w) of g[n,c,oh,ow] / window size.
struct AdaptiveAvgPool2dBackwardLowering : OpConversionPattern<AdaptiveAvgPool2dBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(AdaptiveAvgPool2dBackwardOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value g = adaptor.getGradOutput(), self = adaptor.getSelf();
    bool unbatched = batchPoolOperands(rewriter, loc, self, {&g});
    Type elem = op.getType().getElementType();
    SmallVector<Value> in{dimValue(rewriter, loc, self, 2), dimValue(rewriter, loc, self, 3)};
    SmallVector<Value> out{dimValue(rewriter, loc, g, 2), dimValue(rewriter, loc, g, 3)};
    // Iteration (n, c, h, w, oh, ow).
    Value r = poolGradient(rewriter, loc, self, g, {0, 1, 4, 5}, elem,
                           [&](OpBuilder &b, Location l, Value v, Value acc) -> Value {
      Value one = idx(b, l, 1);
      Value inside = arith::ConstantIntOp::create(b, l, 1, 1);
      Value count = one;
      for (int i = 0; i < 2; ++i) {
        Value o = linalg::IndexOp::create(b, l, 4 + i);
        Value pos = linalg::IndexOp::create(b, l, 2 + i);
        Value lo = arith::DivUIOp::create(b, l, arith::MulIOp::create(b, l, o, in[i]), out[i]);
        Value hi = arith::CeilDivUIOp::create(
            b, l, arith::MulIOp::create(b, l, arith::AddIOp::create(b, l, o, one), in[i]),
            out[i]);
        Value ge = arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, pos, lo);
        Value lt = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, pos, hi);
        inside = arith::AndIOp::create(b, l, inside, arith::AndIOp::create(b, l, ge, lt));
        count = arith::MulIOp::create(b, l, count, arith::SubIOp::create(b, l, hi, lo));
      }
      Value countF = arith::UIToFPOp::create(
          b, l, elem, arith::IndexCastUIOp::create(b, l, b.getI64Type(), count));
      Value add = arith::AddFOp::create(b, l, acc, arith::DivFOp::create(b, l, v, countF));
      return arith::SelectOp::create(b, l, inside, add, acc);
    });
    rewriter.replaceOp(op, finishSpatial(rewriter, loc, r, op.getType(), unbatched));
    return success();
  }
};

/// Inference batch norm: invstd = 1 / sqrt(running_var + eps) per channel;
/// grad_input = g * weight * invstd, grad_weight = sum g * (x - mean) * invstd,
/// grad_bias = sum g, sums over every dim but 1.
struct NativeBatchNormBackwardLowering : OpConversionPattern<NativeBatchNormBackwardOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NativeBatchNormBackwardOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getTrain())
      return rewriter.notifyMatchFailure(op, "the training-mode batch norm gradient is not lowered yet");
    Location loc = op.getLoc();
    Value g = adaptor.getGradOut(), x = adaptor.getInput(), weight = adaptor.getWeight();
    Value mean = adaptor.getRunningMean(), var = adaptor.getRunningVar();
    auto xTy = cast<RankedTensorType>(x.getType());
    Type elem = xTy.getElementType();
    int64_t rank = xTy.getRank();
    double eps = op.getEps().convertToDouble();
    MLIRContext *ctx = rewriter.getContext();
    ArrayRef<bool> mask = op.getOutputMask();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap chan = AffineMap::get(rank, 0, {rewriter.getAffineDimExpr(1)}, ctx);
    auto invstd = [&](OpBuilder &b, Location l, Value v) -> Value {
      Value sd = math::SqrtOp::create(b, l, arith::AddFOp::create(b, l, v, scalarConstant(b, l, elem, eps)));
      return arith::DivFOp::create(b, l, scalarConstant(b, l, elem, 1.0), sd);
    };
    SmallVector<Value> results(3);
    if (mask[0]) {
      SmallVector<Value> ins{g, var};
      SmallVector<AffineMap> maps{id, chan};
      if (weight) {
        ins.push_back(weight);
        maps.push_back(chan);
      }
      maps.push_back(id);
      Value init = emptyTensor(rewriter, loc, getSizes(rewriter, loc, x), elem);
      results[0] = linalg::GenericOp::create(
                       rewriter, loc, init.getType(), ins, ValueRange{init}, maps,
                       SmallVector<IteratorType>(rank, IteratorType::parallel),
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         Value r = arith::MulFOp::create(b, l, a[0], invstd(b, l, a[1]));
                         if (weight)
                           r = arith::MulFOp::create(b, l, r, a[2]);
                         linalg::YieldOp::create(b, l, ValueRange{r});
                       })
                       .getResult(0);
    }
    if (mask[1] || mask[2]) {
      SmallVector<OpFoldResult> c{tensor::getMixedSize(rewriter, loc, x, 1)};
      Value zw = filledTensor(rewriter, loc, c, elem, 0.0), zb = filledTensor(rewriter, loc, c, elem, 0.0);
      SmallVector<IteratorType> iters(rank, IteratorType::reduction);
      iters[1] = IteratorType::parallel;
      auto sums = linalg::GenericOp::create(
          rewriter, loc, TypeRange{zw.getType(), zb.getType()}, ValueRange{g, x, mean, var},
          ValueRange{zw, zb}, SmallVector<AffineMap>{id, id, chan, chan, chan, chan}, iters,
          [&](OpBuilder &b, Location l, ValueRange a) {
            Value centred = arith::SubFOp::create(b, l, a[1], a[2]);
            Value xhat = arith::MulFOp::create(b, l, centred, invstd(b, l, a[3]));
            Value wsum = arith::AddFOp::create(b, l, a[4], arith::MulFOp::create(b, l, a[0], xhat));
            Value bsum = arith::AddFOp::create(b, l, a[5], a[0]);
            linalg::YieldOp::create(b, l, ValueRange{wsum, bsum});
          });
      results[1] = sums.getResult(0);
      results[2] = sums.getResult(1);
    }
    // Results the mask leaves out are unspecified (uninitialised).
    if (!results[0])
      results[0] = emptyTensor(rewriter, loc, getSizes(rewriter, loc, x), elem);
    for (int i = 1; i < 3; ++i)
      if (!results[i])
        results[i] = emptyTensor(rewriter, loc, {tensor::getMixedSize(rewriter, loc, x, 1)}, elem);
    for (int i = 0; i < 3; ++i)
      results[i] = castTo(rewriter, loc, results[i], op->getResult(i).getType());
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// With conv-backward-calls, a float32 2-d transposed convolution is the
/// input gradient of the direct convolution whose weight it shares, in the
/// form the library-call passes turn into cuDNN's or oneDNN's backward-data
/// call on the input itself: Convolution.cpp's direct form convolves the
/// input spread out by the stride (written into a buffer the output's size,
/// zeros between the inputs) with the flipped weight, s^2 times the
/// multiply-adds (stride s). The bias is added in a loop of its own after.
/// Preferred (benefit 2) over ConvolutionLowering, which takes the rest.
struct TransposedConvolutionLowering : OpConversionPattern<ConvolutionOp> {
  TransposedConvolutionLowering(MLIRContext *ctx) : OpConversionPattern(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(ConvolutionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput(), w = adaptor.getWeight(), bias = adaptor.getBias();
    auto wTy = cast<RankedTensorType>(w.getType());
    auto xTy = cast<RankedTensorType>(x.getType());
    Type elem = wTy.getElementType();
    if (!op.getTransposed() || wTy.getRank() != 4 || !wTy.hasStaticShape() || !elem.isF32() ||
        xTy.getElementType() != elem || (bias && cast<RankedTensorType>(bias.getType()).getElementType() != elem))
      return rewriter.notifyMatchFailure(op, "not a float32 2-d transposed convolution of a static weight");
    SmallVector<int64_t> s(op.getStride()), p(op.getPadding()), dl(op.getDilation()), op2(op.getOutputPadding());
    op2.resize(2, 0);
    // Output padding below the stride: the direct convolution of the output
    // gives the input's size back, as the backward-data calls require.
    if (s.size() != 2 || p.size() != 2 || dl.size() != 2 || op2[0] >= s[0] || op2[1] >= s[1])
      return rewriter.notifyMatchFailure(op, "output padding not below the stride");
    bool unbatched;
    x = withBatchDim(rewriter, loc, x, 2, unbatched);
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, x), outSizes;
    AffineExpr s0 = rewriter.getAffineSymbolExpr(0);
    for (int64_t i = 0; i < 2; ++i)
      outSizes.push_back(affine::makeComposedFoldedAffineApply(
          rewriter, loc, s0 * s[i] + (dl[i] * (wTy.getDimSize(2 + i) - 1) - 2 * p[i] + op2[i] + 1 - s[i]),
          {inSizes[2 + i]}));
    Value out = convInputGradient(rewriter, loc, x, w, outSizes[0], outSizes[1], s, p, dl, op.getGroups(),
                                  /*mark=*/true);
    if (bias) {
      // out[n, f, h, w] + bias[f].
      MLIRContext *ctx = rewriter.getContext();
      Value init = emptyTensor(rewriter, loc, getSizes(rewriter, loc, out), elem);
      AffineMap id = AffineMap::getMultiDimIdentityMap(4, ctx);
      out = linalg::GenericOp::create(
                rewriter, loc, init.getType(), ValueRange{out, bias}, ValueRange{init},
                SmallVector<AffineMap>{id, AffineMap::get(4, 0, {rewriter.getAffineDimExpr(1)}, ctx), id},
                SmallVector<IteratorType>(4, IteratorType::parallel),
                [](OpBuilder &b, Location l, ValueRange a) {
                  linalg::YieldOp::create(b, l, arith::AddFOp::create(b, l, a[0], a[1]).getResult());
                })
                .getResult(0);
    }
    rewriter.replaceOp(op, finishSpatial(rewriter, loc, out, op.getType(), unbatched));
    return success();
  }
};
} // namespace

void kiln::populateBackwardPatterns(RewritePatternSet &patterns, bool convBackwardCalls) {
  patterns.add<ConvolutionBackwardLowering>(patterns.getContext(), convBackwardCalls);
  if (convBackwardCalls)
    patterns.add<TransposedConvolutionLowering>(patterns.getContext());
  patterns.add<ThresholdBackwardLowering, GeluBackwardLowering, SumToSizeLowering,
               MaxPool2dWithIndicesBackwardLowering,
               AdaptiveAvgPool2dBackwardLowering, AvgPool2dBackwardLowering,
               NativeBatchNormBackwardLowering>(
      patterns.getContext());
}

//===- Attention.cpp - scaled_dot_product_attention to linalg -------------===//
//
// Scores = Q K^T (one contraction), then one generic that scales them and
// applies the mask: a causal mask is computed from the loop indices and a
// given mask is read through a broadcasting map, so no mask tensor is ever
// materialised. A safe softmax (rows with every key masked give zeros, as
// ATen) feeds the P V contraction, normalised once per output row.
// Grouped-query attention splits the query heads into (kv head, group) so
// keys and values are read in place, never repeated.
//
//===----------------------------------------------------------------------===//
#include "LoopUtils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include <cmath>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
struct SdpaLowering : OpConversionPattern<ScaledDotProductAttentionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ScaledDotProductAttentionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (op.getDropoutP().convertToDouble() != 0.0)
      return rewriter.notifyMatchFailure(op, "dropout_p != 0 (random) is not compiled");
    Location loc = op.getLoc();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    Value mask = adaptor.getAttnMask();
    auto qTy = cast<RankedTensorType>(q.getType());
    auto kTy = cast<RankedTensorType>(k.getType());
    int64_t rank = qTy.getRank();
    Type elem = qTy.getElementType(), acc = computeType(elem);
    int64_t e = qTy.getShape().back();
    double scale;
    if (op.getScale())
      scale = op.getScale()->convertToDouble();
    else if (e != ShapedType::kDynamic)
      scale = 1.0 / std::sqrt((double)e);
    else
      return rewriter.notifyMatchFailure(op, "default scale needs a static embedding size");

    // Grouped-query attention: query heads [Hkv * G] -> [Hkv, G]; keys and
    // values get no loop for G.
    bool gqa = false;
    int64_t group = 1;
    if (op.getEnableGqa()) {
      int64_t hq = qTy.getDimSize(rank - 3), hk = kTy.getDimSize(rank - 3);
      if (hq == ShapedType::kDynamic || hk == ShapedType::kDynamic)
        return rewriter.notifyMatchFailure(op, "grouped-query attention needs static head counts");
      group = hq / hk;
      gqa = group > 1;
    }
    if (gqa) {
      q = splitDim(rewriter, loc, q, rank - 3, group, /*factorInner=*/true);
      if (mask) {
        auto mTy = cast<RankedTensorType>(mask.getType());
        int64_t mh = mTy.getRank() - 3;
        if (mh >= 0 && mTy.getDimSize(mh) != 1)
          mask = splitDim(rewriter, loc, mask, mh, group, /*factorInner=*/true);
        else if (mh >= 0)
          mask = splitDim(rewriter, loc, mask, mh, 1, /*factorInner=*/true);
      }
    }
    // Batch loops of the (possibly split) query; keys/values skip the group loop.
    int64_t nb = cast<RankedTensorType>(q.getType()).getRank() - 2;
    SmallVector<int64_t> qBatch = identityLoops(nb), kvBatch;
    for (int64_t i = 0; i < nb; ++i)
      if (!gqa || i != nb - 1)
        kvBatch.push_back(i);
    int64_t l = nb, s = nb + 1, d = nb + 2;

    // scores[batch, l, s] = sum_d q[batch, l, d] * k[batch, s, d]
    auto withLoops = [](SmallVector<int64_t> v, std::initializer_list<int64_t> more) {
      v.append(more);
      return v;
    };
    SmallVector<int64_t> scoreLoops = withLoops(qBatch, {l, s});
    SmallVector<LoopOperand> qk{{q, withLoops(qBatch, {l, d})}, {k, withLoops(kvBatch, {s, d})}};
    SmallVector<OpFoldResult> sizes = loopSizes(rewriter, loc, qk, nb + 3), scoreSizes;
    for (int64_t i : scoreLoops)
      scoreSizes.push_back(sizes[i]);
    Value zero = filledTensor(rewriter, loc, scoreSizes, acc, 0.0);
    Value scores = buildGeneric(rewriter, loc, qk, zero, scoreLoops, nb + 3,
                                [&](OpBuilder &b, Location nl, ValueRange a) -> Value {
                                  Value p = arith::MulFOp::create(
                                      b, nl, convertScalarTo(b, nl, a[0], acc),
                                      convertScalarTo(b, nl, a[1], acc));
                                  return arith::AddFOp::create(b, nl, a[2], p);
                                });

    // logits = scores * scale, masked.
    int64_t sr = nb + 2;
    SmallVector<int64_t> all = identityLoops(sr);
    SmallVector<LoopOperand> logitIns{{scores, all}};
    if (mask) {
      int64_t mr = cast<RankedTensorType>(mask.getType()).getRank();
      SmallVector<int64_t> ml;
      for (int64_t i = sr - mr; i < sr; ++i)
        ml.push_back(i);
      logitIns.push_back({mask, ml});
    }
    bool causal = op.getIsCausal();
    Value logits = buildMap(
        rewriter, loc, logitIns, all, sr, acc, [&](OpBuilder &b, Location nl, ValueRange a) {
          Value t = arith::MulFOp::create(b, nl, a[0], scalarConstant(b, nl, acc, scale));
          Value ninf = lowestValue(b, nl, acc);
          if (mask) {
            if (a[1].getType().isInteger(1))
              t = arith::SelectOp::create(b, nl, a[1], t, ninf);
            else
              t = arith::AddFOp::create(b, nl, t, convertScalarTo(b, nl, a[1], acc));
          }
          if (causal) {
            Value li = linalg::IndexOp::create(b, nl, l), si = linalg::IndexOp::create(b, nl, s);
            Value future = arith::CmpIOp::create(b, nl, arith::CmpIPredicate::ugt, si, li);
            t = arith::SelectOp::create(b, nl, future, ninf, t);
          }
          return t;
        });

    // Safe softmax numerator and denominator.
    SmallVector<int64_t> rowLoops = withLoops(qBatch, {l});
    Value m = reduceDims(rewriter, loc, logits, {s}, acc, lowestValue(rewriter, loc, acc),
                         [&](OpBuilder &b, Location nl, Value x, Value y) -> Value {
                           return arith::MaximumFOp::create(b, nl, x, y);
                         });
    Value p = buildMap(rewriter, loc, {{logits, all}, {m, rowLoops}}, all, sr, acc,
                       [&](OpBuilder &b, Location nl, ValueRange a) -> Value {
                         Value allMasked = arith::CmpFOp::create(
                             b, nl, arith::CmpFPredicate::OEQ, a[1], lowestValue(b, nl, acc));
                         Value ex = math::ExpOp::create(b, nl, arith::SubFOp::create(b, nl, a[0], a[1]));
                         return arith::SelectOp::create(b, nl, allMasked,
                                                        scalarConstant(b, nl, acc, 0.0), ex);
                       });
    Value denom = reduceDims(rewriter, loc, p, {s}, acc, scalarConstant(rewriter, loc, acc, 0.0),
                             [&](OpBuilder &b, Location nl, Value x, Value y) -> Value {
                               return arith::AddFOp::create(b, nl, x, y);
                             });

    // out[batch, l, ev] = sum_s p[batch, l, s] * v[batch, s, ev] / denom
    int64_t ev = nb + 1, s2 = nb + 2;
    SmallVector<int64_t> outLoops = withLoops(qBatch, {l, ev});
    SmallVector<LoopOperand> pv{{p, withLoops(qBatch, {l, s2})}, {v, withLoops(kvBatch, {s2, ev})}};
    sizes = loopSizes(rewriter, loc, pv, nb + 3);
    SmallVector<OpFoldResult> outSizes;
    for (int64_t i : outLoops)
      outSizes.push_back(sizes[i]);
    Value outInit = filledTensor(rewriter, loc, outSizes, acc, 0.0);
    Value out = buildGeneric(rewriter, loc, pv, outInit, outLoops, nb + 3,
                             [&](OpBuilder &b, Location nl, ValueRange a) -> Value {
                               Value t = arith::MulFOp::create(b, nl, a[0],
                                                               convertScalarTo(b, nl, a[1], acc));
                               return arith::AddFOp::create(b, nl, a[2], t);
                             });
    SmallVector<int64_t> ids = identityLoops(nb + 2);
    out = buildMap(rewriter, loc, {{out, ids}, {denom, identityLoops(nb + 1)}}, ids, nb + 2, elem,
                   [&](OpBuilder &b, Location nl, ValueRange a) -> Value {
                     Value empty = arith::CmpFOp::create(b, nl, arith::CmpFPredicate::OEQ, a[1],
                                                         scalarConstant(b, nl, acc, 0.0));
                     Value r = arith::DivFOp::create(b, nl, a[0], a[1]);
                     r = arith::SelectOp::create(b, nl, empty, scalarConstant(b, nl, acc, 0.0), r);
                     return convertScalarTo(b, nl, r, elem);
                   });
    if (gqa) {
      SmallVector<ReassociationIndices> back;
      for (int64_t i = 0; i < nb - 1; ++i)
        back.push_back({i});
      back.back().push_back(nb - 1);
      back.push_back({nb});
      back.push_back({nb + 1});
      out = tensor::CollapseShapeOp::create(rewriter, loc, out, back);
    }
    rewriter.replaceOp(op, castTo(rewriter, loc, out, op.getType()));
    return success();
  }
};
} // namespace

void kiln::populateAttentionPatterns(RewritePatternSet &patterns) {
  patterns.add<SdpaLowering>(patterns.getContext());
}

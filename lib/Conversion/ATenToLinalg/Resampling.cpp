//===- Resampling.cpp - aten upsample ops to linalg ------------------------===//
//
// Every upsample overload is one linalg.generic over the output: per spatial
// dim the body computes, from the output index, the input indices and weights
// PyTorch's CPU kernels use (nearest: one index; linear: two; cubic: four,
// clamped at the borders), then reads the input with tensor.extract and
// combines the reads dim by dim. Source coordinates follow ATen's rules,
// including the float32 arithmetic of the nearest modes and the given scale
// versus input/output size; see docs/Rationale/resampling.md.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
enum class Mode { Nearest, NearestExact, Linear, Cubic };

Value cF(OpBuilder &b, Location l, Type t, double v) {
  return arith::ConstantOp::create(b, l, b.getFloatAttr(t, v));
}
/// An index value as a float of type `t`.
Value indexToFloat(OpBuilder &b, Location l, Value i, Type t) {
  return arith::SIToFPOp::create(b, l, t, arith::IndexCastOp::create(b, l, b.getI64Type(), i));
}
/// floor(x) of a float as an index.
Value floorToIndex(OpBuilder &b, Location l, Value x) {
  Value f = math::FloorOp::create(b, l, x);
  return arith::IndexCastOp::create(b, l, b.getIndexType(),
                                    arith::FPToSIOp::create(b, l, b.getI64Type(), f));
}
Value minIdx(OpBuilder &b, Location l, Value a, Value c) { return arith::MinSIOp::create(b, l, a, c); }

/// The input indices one output index reads along a dim and their weights
/// (none for the nearest modes).
struct Taps {
  SmallVector<Value> index, weight;
};

template <typename OpT, Mode M> struct UpsampleLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getSelf();
    auto inTy = cast<RankedTensorType>(input.getType());
    auto resTy = cast<RankedTensorType>(op.getResult().getType());
    int64_t n = inTy.getRank() - 2;
    Type elem = inTy.getElementType();
    bool align = false;
    if constexpr (M == Mode::Linear || M == Mode::Cubic)
      align = op.getAlignCorners();
    // Nearest modes compute in float32 as ATen does; interpolation in float64
    // for float64 and float32 otherwise.
    Type ct = (M != Mode::Nearest && M != Mode::NearestExact && elem.isF64())
                  ? Type(rewriter.getF64Type())
                  : Type(rewriter.getF32Type());
    SmallVector<double> scales(n, 0.0);
    if (auto s = op.getScales())
      scales.assign(s->begin(), s->end());
    std::optional<ArrayRef<int64_t>> size = op.getOutputSize();

    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> outSizes{inSizes[0], inSizes[1]};
    for (int64_t i = 0; i < n; ++i) {
      if (!resTy.isDynamicDim(2 + i)) {
        outSizes.push_back(rewriter.getIndexAttr(resTy.getDimSize(2 + i)));
      } else if (size) {
        outSizes.push_back(rewriter.getIndexAttr((*size)[i]));
      } else {
        Value in = getValueOrCreateConstantIndexOp(rewriter, loc, inSizes[2 + i]);
        Type f64 = rewriter.getF64Type();
        Value x = arith::MulFOp::create(rewriter, loc, indexToFloat(rewriter, loc, in, f64),
                                       cF(rewriter, loc, f64, scales[i]));
        outSizes.push_back(floorToIndex(rewriter, loc, x));
      }
    }
    SmallVector<Value> inDims, outDims;
    for (int64_t i = 0; i < n; ++i) {
      inDims.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, inSizes[2 + i]));
      outDims.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, outSizes[2 + i]));
    }
    Value init = emptyTensor(rewriter, loc, outSizes, elem);
    MLIRContext *ctx = rewriter.getContext();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, init.getType(), ValueRange{}, ValueRange{init},
        SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(n + 2, ctx)},
        SmallVector<utils::IteratorType>(n + 2, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Taps> taps;
          for (int64_t i = 0; i < n; ++i)
            taps.push_back(tapsAlong(b, l, linalg::IndexOp::create(b, l, 2 + i), inDims[i],
                                     outDims[i], scales[i], align, ct, elem));
          SmallVector<Value> at{linalg::IndexOp::create(b, l, 0),
                                linalg::IndexOp::create(b, l, 1)};
          Value r;
          if constexpr (M == Mode::Nearest || M == Mode::NearestExact) {
            for (const Taps &t : taps)
              at.push_back(t.index[0]);
            r = tensor::ExtractOp::create(b, l, input, at);
          } else {
            r = fromCompute(b, l, combine(b, l, input, taps, at, 0, ct), elem);
          }
          linalg::YieldOp::create(b, l, ValueRange{r});
        });
    rewriter.replaceOp(op, castTo(rewriter, loc, generic.getResult(0), resTy));
    return success();
  }

  /// ATen's scale along a dim: with align_corners (in-1)/(out-1) (0 for one
  /// output), else 1/scale when a scale was given, else in/out.
  static Value scaleOf(OpBuilder &b, Location l, Value in, Value out, double given, bool align,
                       Type ct) {
    if (align) {
      Value one = cIdx(b, l, 1);
      Value r = arith::DivFOp::create(
          b, l, indexToFloat(b, l, arith::SubIOp::create(b, l, in, one), ct),
          indexToFloat(b, l, arith::SubIOp::create(b, l, out, one), ct));
      Value many = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, out, one);
      return arith::SelectOp::create(b, l, many, r, cF(b, l, ct, 0.0));
    }
    if (given > 0)
      return cF(b, l, ct, 1.0 / given);
    return arith::DivFOp::create(b, l, indexToFloat(b, l, in, ct), indexToFloat(b, l, out, ct));
  }

  /// A weight as PyTorch stores it: in the tensor's dtype for 16-bit floats.
  static Value storedWeight(OpBuilder &b, Location l, Value w, Type elem) {
    auto f = dyn_cast<FloatType>(elem);
    if (!f || f.getWidth() >= 32 || w.getType() == elem)
      return w;
    return arith::ExtFOp::create(b, l, w.getType(), arith::TruncFOp::create(b, l, elem, w).getResult());
  }

  static Taps tapsAlong(OpBuilder &b, Location l, Value o, Value in, Value out, double given,
                        bool align, Type ct, Type elem) {
    Taps t;
    Value last = arith::SubIOp::create(b, l, in, cIdx(b, l, 1));
    Value scale = scaleOf(b, l, in, out, given, align, ct);
    if constexpr (M == Mode::Nearest) {
      // Same size: o; twice the size: o / 2; else floor(o * scale) in float32.
      Value src = minIdx(b, l, floorToIndex(b, l, arith::MulFOp::create(
                                                    b, l, indexToFloat(b, l, o, ct), scale)),
                         last);
      Value twice = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, out,
                                          arith::MulIOp::create(b, l, in, cIdx(b, l, 2)));
      src = arith::SelectOp::create(b, l, twice, arith::DivUIOp::create(b, l, o, cIdx(b, l, 2)),
                                    src);
      Value same = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, out, in);
      t.index.push_back(arith::SelectOp::create(b, l, same, o, src));
    } else if constexpr (M == Mode::NearestExact) {
      // floor((o + 0.5) * scale): the product in float64, rounded to float32.
      Type f64 = b.getF64Type();
      Value x = arith::MulFOp::create(
          b, l, arith::AddFOp::create(b, l, indexToFloat(b, l, o, f64), cF(b, l, f64, 0.5)),
          arith::ExtFOp::create(b, l, f64, scale));
      t.index.push_back(minIdx(b, l, floorToIndex(b, l, arith::TruncFOp::create(b, l, ct, x)),
                               last));
    } else {
      Value of = indexToFloat(b, l, o, ct);
      Value real = align ? arith::MulFOp::create(b, l, scale, of).getResult()
                         : arith::SubFOp::create(
                               b, l,
                               arith::MulFOp::create(
                                   b, l, scale, arith::AddFOp::create(b, l, of, cF(b, l, ct, 0.5))),
                               cF(b, l, ct, 0.5))
                               .getResult();
      if (M == Mode::Linear)
        real = arith::MaximumFOp::create(b, l, real, cF(b, l, ct, 0.0));
      // The index below the source point (at most in - 1) and the fraction past it.
      Value i0 = minIdx(b, l, floorToIndex(b, l, real), last);
      Value frac = arith::MinimumFOp::create(
          b, l,
          arith::MaximumFOp::create(b, l, arith::SubFOp::create(b, l, real, indexToFloat(b, l, i0, ct)),
                                    cF(b, l, ct, 0.0)),
          cF(b, l, ct, 1.0));
      if constexpr (M == Mode::Linear) {
        Value same = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, out, in);
        Value step = arith::SelectOp::create(
            b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i0, last), cIdx(b, l, 1),
            cIdx(b, l, 0));
        Value i1 = arith::AddIOp::create(b, l, i0, step);
        Value w1 = storedWeight(b, l, frac, elem);
        Value w0 = storedWeight(b, l, arith::SubFOp::create(b, l, cF(b, l, ct, 1.0), w1), elem);
        t.index = {arith::SelectOp::create(b, l, same, o, i0),
                   arith::SelectOp::create(b, l, same, o, i1)};
        t.weight = {arith::SelectOp::create(b, l, same, cF(b, l, ct, 1.0), w0),
                    arith::SelectOp::create(b, l, same, cF(b, l, ct, 0.0), w1)};
      } else {
        // Cubic convolution (A = -0.75) at distances 1+f, f, 1-f, 2-f; reads
        // clamped into the input.
        const double A = -0.75;
        auto near = [&](Value x) { // ((A + 2) x - (A + 3)) x^2 + 1
          Value p = arith::SubFOp::create(
              b, l, arith::MulFOp::create(b, l, cF(b, l, ct, A + 2), x), cF(b, l, ct, A + 3));
          return arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, arith::MulFOp::create(b, l, p, x), x),
              cF(b, l, ct, 1.0));
        };
        auto far = [&](Value x) { // ((A x - 5A) x + 8A) x - 4A
          Value p = arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, cF(b, l, ct, A), x),
                                          cF(b, l, ct, 5 * A));
          p = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, p, x), cF(b, l, ct, 8 * A));
          return arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, p, x),
                                       cF(b, l, ct, 4 * A));
        };
        Value one = cF(b, l, ct, 1.0);
        Value ws[4] = {far(arith::AddFOp::create(b, l, frac, one)), near(frac),
                       near(arith::SubFOp::create(b, l, one, frac)),
                       far(arith::SubFOp::create(b, l, cF(b, l, ct, 2.0), frac))};
        for (int j = 0; j < 4; ++j) {
          Value k = arith::AddIOp::create(b, l, i0, cIdx(b, l, j - 1));
          k = arith::MaxSIOp::create(b, l, minIdx(b, l, k, last), cIdx(b, l, 0));
          t.index.push_back(k);
          t.weight.push_back(storedWeight(b, l, ws[j], elem));
        }
      }
    }
    return t;
  }

  /// sum_j weight[d][j] * (the combination over the dims after d at index[d][j]).
  static Value combine(OpBuilder &b, Location l, Value input, ArrayRef<Taps> taps,
                       SmallVector<Value> &at, size_t d, Type ct) {
    if (d == taps.size())
      return toCompute(b, l, tensor::ExtractOp::create(b, l, input, at), ct);
    Value acc;
    for (size_t j = 0; j < taps[d].index.size(); ++j) {
      at.push_back(taps[d].index[j]);
      Value t = combine(b, l, input, taps, at, d + 1, ct);
      at.pop_back();
      Value term = arith::MulFOp::create(b, l, t, taps[d].weight[j]);
      acc = acc ? arith::AddFOp::create(b, l, acc, term).getResult() : term;
    }
    return acc;
  }

  static Value toCompute(OpBuilder &b, Location l, Value v, Type ct) {
    if (isa<IntegerType>(v.getType()))
      return arith::UIToFPOp::create(b, l, ct, toStorage(b, l, v));
    if (v.getType() == ct)
      return v;
    return arith::ExtFOp::create(b, l, ct, v);
  }

  /// The computed value in the output dtype: uint8 rounds to nearest and saturates.
  static Value fromCompute(OpBuilder &b, Location l, Value v, Type elem) {
    if (auto f = dyn_cast<FloatType>(elem))
      return f == v.getType() ? v : arith::TruncFOp::create(b, l, elem, v).getResult();
    Type ct = v.getType();
    Value r = math::RoundEvenOp::create(b, l, v);
    r = arith::MinimumFOp::create(b, l, arith::MaximumFOp::create(b, l, r, cF(b, l, ct, 0.0)),
                                  cF(b, l, ct, 255.0));
    return fromStorage(b, l, arith::FPToUIOp::create(b, l, b.getI8Type(), r), elem);
  }
};
} // namespace

void kiln::populateResamplingPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<UpsampleLowering<UpsampleNearest1dOp, Mode::Nearest>,
               UpsampleLowering<UpsampleNearest2dOp, Mode::Nearest>,
               UpsampleLowering<UpsampleNearest3dOp, Mode::Nearest>,
               UpsampleLowering<UpsampleNearestExact1dOp, Mode::NearestExact>,
               UpsampleLowering<UpsampleNearestExact2dOp, Mode::NearestExact>,
               UpsampleLowering<UpsampleNearestExact3dOp, Mode::NearestExact>,
               UpsampleLowering<UpsampleLinear1dOp, Mode::Linear>,
               UpsampleLowering<UpsampleBilinear2dOp, Mode::Linear>,
               UpsampleLowering<UpsampleTrilinear3dOp, Mode::Linear>,
               UpsampleLowering<UpsampleBicubic2dOp, Mode::Cubic>>(ctx);
}

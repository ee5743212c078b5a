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
// The antialiased ops are separable: per resized dim (width, then height) a
// [out, in] weight matrix of ATen's normalised filter taps (generic ops over
// the matrix), then a contraction of the input with it along that dim.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "ATen/IR/ATenAntialiasOps.h"
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

/// Cubic convolution within one of the centre: ((A + 2) x - (A + 3)) x^2 + 1.
Value cubicNear(OpBuilder &b, Location l, Value x, double A) {
  Type t = x.getType();
  Value p = arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, cF(b, l, t, A + 2), x),
                                  cF(b, l, t, A + 3));
  return arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, arith::MulFOp::create(b, l, p, x), x),
                               cF(b, l, t, 1.0));
}
/// Cubic convolution between one and two: ((A x - 5A) x + 8A) x - 4A.
Value cubicFar(OpBuilder &b, Location l, Value x, double A) {
  Type t = x.getType();
  Value p = arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, cF(b, l, t, A), x),
                                  cF(b, l, t, 5 * A));
  p = arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, p, x), cF(b, l, t, 8 * A));
  return arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, p, x), cF(b, l, t, 4 * A));
}

/// ATen's scale along a dim (area_pixel_compute_scale): with align_corners
/// (in-1)/(out-1) (0 for one output), else 1/scale when a scale was given,
/// else in/out.
Value scaleOf(OpBuilder &b, Location l, Value in, Value out, double given, bool align, Type ct) {
  if (align) {
    Value one = cIdx(b, l, 1);
    Value r = arith::DivFOp::create(b, l, indexToFloat(b, l, arith::SubIOp::create(b, l, in, one), ct),
                                    indexToFloat(b, l, arith::SubIOp::create(b, l, out, one), ct));
    Value many = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, out, one);
    return arith::SelectOp::create(b, l, many, r, cF(b, l, ct, 0.0));
  }
  if (given > 0)
    return cF(b, l, ct, 1.0 / given);
  return arith::DivFOp::create(b, l, indexToFloat(b, l, in, ct), indexToFloat(b, l, out, ct));
}

/// The result sizes of an upsample op: N and C of the input, then per spatial
/// dim the static result size, or output_size, or floor(in * scale).
SmallVector<OpFoldResult> upsampleSizes(OpBuilder &b, Location loc, Value input,
                                        RankedTensorType resTy,
                                        std::optional<ArrayRef<int64_t>> size,
                                        ArrayRef<double> scales) {
  SmallVector<OpFoldResult> inSizes = getSizes(b, loc, input);
  SmallVector<OpFoldResult> outSizes{inSizes[0], inSizes[1]};
  for (int64_t i = 0; i + 2 < resTy.getRank(); ++i) {
    if (!resTy.isDynamicDim(2 + i)) {
      outSizes.push_back(b.getIndexAttr(resTy.getDimSize(2 + i)));
    } else if (size) {
      outSizes.push_back(b.getIndexAttr((*size)[i]));
    } else {
      Value in = getValueOrCreateConstantIndexOp(b, loc, inSizes[2 + i]);
      Type f64 = b.getF64Type();
      Value x = arith::MulFOp::create(b, loc, indexToFloat(b, loc, in, f64),
                                      cF(b, loc, f64, scales[i]));
      outSizes.push_back(floorToIndex(b, loc, x));
    }
  }
  return outSizes;
}

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
    SmallVector<OpFoldResult> outSizes = upsampleSizes(rewriter, loc, input, resTy, size, scales);
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
        auto near = [&](Value x) { return cubicNear(b, l, x, A); };
        auto far = [&](Value x) { return cubicFar(b, l, x, A); };
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

/// `v` as a float of type `t` (extended or truncated).
Value toFloat(OpBuilder &b, Location l, Value v, Type t) {
  unsigned from = cast<FloatType>(v.getType()).getWidth(), to = cast<FloatType>(t).getWidth();
  if (from == to)
    return v;
  return from < to ? arith::ExtFOp::create(b, l, t, v).getResult()
                   : arith::TruncFOp::create(b, l, t, v).getResult();
}

/// One antialiased filter: its taps at scale 1 and its value at distance |x|.
struct AAFilter {
  int taps;
  Value (*at)(OpBuilder &, Location, Value);
};
Value triangle(OpBuilder &b, Location l, Value x) { // 1 - x below 1, else 0
  Type t = x.getType();
  Value in = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, cF(b, l, t, 1.0));
  return arith::SelectOp::create(b, l, in, arith::SubFOp::create(b, l, cF(b, l, t, 1.0), x),
                                 cF(b, l, t, 0.0));
}
Value keysCubic(OpBuilder &b, Location l, Value x) { // cubic convolution, A = -0.5
  Type t = x.getType();
  const double A = -0.5;
  Value lt1 = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, cF(b, l, t, 1.0));
  Value lt2 = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, cF(b, l, t, 2.0));
  Value w = arith::SelectOp::create(b, l, lt2, cubicFar(b, l, x, A), cF(b, l, t, 0.0));
  return arith::SelectOp::create(b, l, lt1, cubicNear(b, l, x, A), w);
}

/// The [out, in] weights of one antialiased pass along a dim, as ATen's CPU
/// kernel computes them (_compute_weights_aa), in `ct`: row o holds the
/// normalised taps of output o, zero outside its window; the identity when
/// the size does not change.
Value antialiasWeights(OpBuilder &b, Location loc, Value in, Value out, double given, bool align,
                       Type ct, AAFilter f) {
  MLIRContext *ctx = b.getContext();
  Type f64 = b.getF64Type(), i64 = b.getI64Type();
  // The dim's scale, the filter's support (widened by a downscale) and the
  // factor distances shrink by, and at most ceil(support) * 2 + 1 taps.
  Value s = scaleOf(b, loc, in, out, given, align, ct);
  Value s64 = toFloat(b, loc, s, f64);
  Value wide = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, s, cF(b, loc, ct, 1.0));
  double half = f.taps * 0.5;
  Value support = arith::SelectOp::create(
      b, loc, wide, toFloat(b, loc, arith::MulFOp::create(b, loc, cF(b, loc, f64, half), s64), ct),
      cF(b, loc, ct, half));
  Value invscale = arith::SelectOp::create(
      b, loc, wide, toFloat(b, loc, arith::DivFOp::create(b, loc, cF(b, loc, f64, 1.0), s64), ct),
      cF(b, loc, ct, 1.0));
  Value maxTaps = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, floorToIndex(b, loc, math::CeilOp::create(b, loc, support)),
                            cIdx(b, loc, 2)),
      cIdx(b, loc, 1));
  Value same = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, in, out);
  SmallVector<OpFoldResult> sizes{getAsOpFoldResult(out), getAsOpFoldResult(in)};
  Value init = emptyTensor(b, loc, sizes, ct);
  auto weights = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{}, ValueRange{init},
      SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(2, ctx)},
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange) {
        Value o = linalg::IndexOp::create(b, l, 0), k = linalg::IndexOp::create(b, l, 1);
        // centre = s * (o + 0.5), rounded to ct; the window bounds truncated
        // from (centre -/+ support) + 0.5.
        Value center = toFloat(
            b, l,
            arith::MulFOp::create(
                b, l, s64, arith::AddFOp::create(b, l, indexToFloat(b, l, o, f64), cF(b, l, f64, 0.5))),
            ct);
        auto bound = [&](Value v) {
          Value x = arith::AddFOp::create(b, l, toFloat(b, l, v, f64), cF(b, l, f64, 0.5));
          return arith::IndexCastOp::create(b, l, b.getIndexType(),
                                            arith::FPToSIOp::create(b, l, i64, x));
        };
        Value xmin = arith::MaxSIOp::create(
            b, l, bound(arith::SubFOp::create(b, l, center, support)), cIdx(b, l, 0));
        Value xmax = minIdx(b, l, bound(arith::AddFOp::create(b, l, center, support)), in);
        Value end = minIdx(b, l, xmax, arith::AddIOp::create(b, l, xmin, maxTaps));
        Value inWindow = arith::AndIOp::create(
            b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, k, xmin),
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, k, end));
        // filter(((k - centre) + 0.5) * invscale), k - centre in ct.
        Value d = arith::SubFOp::create(b, l, indexToFloat(b, l, k, ct), center);
        Value x = arith::MulFOp::create(
            b, l, arith::AddFOp::create(b, l, toFloat(b, l, d, f64), cF(b, l, f64, 0.5)),
            toFloat(b, l, invscale, f64));
        Value w = f.at(b, l, math::AbsFOp::create(b, l, toFloat(b, l, x, ct)));
        w = arith::SelectOp::create(b, l, inWindow, w, cF(b, l, ct, 0.0));
        Value diag = arith::SelectOp::create(
            b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, k, o), cF(b, l, ct, 1.0),
            cF(b, l, ct, 0.0));
        linalg::YieldOp::create(b, l, ValueRange{arith::SelectOp::create(b, l, same, diag, w)});
      });
  Value w = weights.getResult(0);
  // Each row divided by its sum, when that is not zero.
  Value total = filledTensor(b, loc, {sizes[0]}, ct, 0.0);
  total = linalg::GenericOp::create(
              b, loc, total.getType(), ValueRange{w}, ValueRange{total},
              SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(2, ctx),
                                     AffineMap::get(2, 0, getAffineDimExpr(0, ctx))},
              SmallVector<utils::IteratorType>{utils::IteratorType::parallel,
                                               utils::IteratorType::reduction},
              [&](OpBuilder &b, Location l, ValueRange a) {
                linalg::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, a[1], a[0])});
              })
              .getResult(0);
  return linalg::GenericOp::create(
             b, loc, w.getType(), ValueRange{w, total}, ValueRange{emptyTensor(b, loc, sizes, ct)},
             SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(2, ctx),
                                    AffineMap::get(2, 0, getAffineDimExpr(0, ctx)),
                                    AffineMap::getMultiDimIdentityMap(2, ctx)},
             SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
             [&](OpBuilder &b, Location l, ValueRange a) {
               Value zero = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[1],
                                                  cF(b, l, ct, 0.0));
               Value r = arith::SelectOp::create(b, l, zero, a[0],
                                                 arith::DivFOp::create(b, l, a[0], a[1]));
               linalg::YieldOp::create(b, l, ValueRange{r});
             })
      .getResult(0);
}

/// out[.., o, ..] = sum_k weights[o, k] * x[.., k, ..] along `dim` of a 4-d
/// `x`, in `ct` and stored in `elem`; a tap of weight zero reads nothing (ATen
/// reads only the window).
Value contractAlong(OpBuilder &b, Location loc, Value x, Value weights, int64_t dim,
                    OpFoldResult outSize, Type ct, Type elem) {
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, x);
  sizes[dim] = outSize;
  Value init = filledTensor(b, loc, sizes, ct, 0.0);
  SmallVector<AffineExpr> xExprs, outExprs;
  for (int64_t i = 0; i < 4; ++i) {
    xExprs.push_back(getAffineDimExpr(i == dim ? 4 : i, ctx));
    outExprs.push_back(getAffineDimExpr(i, ctx));
  }
  SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  Value r = linalg::GenericOp::create(
                b, loc, init.getType(), ValueRange{x, weights}, ValueRange{init},
                SmallVector<AffineMap>{
                    AffineMap::get(5, 0, xExprs, ctx),
                    AffineMap::get(5, 0, {getAffineDimExpr(dim, ctx), getAffineDimExpr(4, ctx)}, ctx),
                    AffineMap::get(5, 0, outExprs, ctx)},
                iters,
                [&](OpBuilder &b, Location l, ValueRange a) {
                  Value v = toFloat(b, l, a[0], ct);
                  Value zero = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[1],
                                                     cF(b, l, ct, 0.0));
                  Value t = arith::SelectOp::create(b, l, zero, cF(b, l, ct, 0.0),
                                                    arith::MulFOp::create(b, l, a[1], v));
                  linalg::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, a[2], t)});
                })
                .getResult(0);
  if (ct == elem)
    return r;
  auto ty = cast<RankedTensorType>(r.getType()).clone(elem);
  return elementwise(b, loc, ValueRange{r}, ty, [&](OpBuilder &b, Location l, ValueRange a) {
    return toFloat(b, l, a[0], elem);
  });
}

template <typename OpT> struct AntialiasLowering : OpConversionPattern<OpT> {
  AntialiasLowering(MLIRContext *ctx, AAFilter f) : OpConversionPattern<OpT>(ctx), filter(f) {}
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getSelf();
    auto inTy = cast<RankedTensorType>(x.getType());
    auto resTy = cast<RankedTensorType>(op.getResult().getType());
    Type elem = inTy.getElementType();
    if (!isa<FloatType>(elem))
      return rewriter.notifyMatchFailure(op, "antialiased resampling of a non-float input");
    Type ct = elem.isF64() ? Type(rewriter.getF64Type()) : Type(rewriter.getF32Type());
    SmallVector<double> scales(2, 0.0);
    if (auto s = op.getScales())
      scales.assign(s->begin(), s->end());
    SmallVector<OpFoldResult> outSizes =
        upsampleSizes(rewriter, loc, x, resTy, op.getOutputSize(), scales);
    // Width first, then height, as ATen's separable kernel; a dim whose size
    // is known not to change is left as it is.
    for (int64_t dim : {3, 2}) {
      OpFoldResult inSize = getSizes(rewriter, loc, x)[dim];
      std::optional<int64_t> inC = getConstantIntValue(inSize),
                             outC = getConstantIntValue(outSizes[dim]);
      if (inC && outC && *inC == *outC)
        continue;
      Value in = getValueOrCreateConstantIndexOp(rewriter, loc, inSize);
      Value out = getValueOrCreateConstantIndexOp(rewriter, loc, outSizes[dim]);
      Value w = antialiasWeights(rewriter, loc, in, out, scales[dim - 2], op.getAlignCorners(), ct,
                                 filter);
      x = contractAlong(rewriter, loc, x, w, dim, outSizes[dim], ct, elem);
    }
    rewriter.replaceOp(op, castTo(rewriter, loc, x, resTy));
    return success();
  }
  AAFilter filter;
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
  patterns.add<AntialiasLowering<UpsampleBilinear2dAAOp>>(ctx, AAFilter{2, triangle});
  patterns.add<AntialiasLowering<UpsampleBicubic2dAAOp>>(ctx, AAFilter{4, keysCubic});
}

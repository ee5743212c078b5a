//===- Pooling.cpp - aten pooling ops to linalg pooling -------------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <functional>
#include <limits>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
LogicalResult lowerMaxPool(Operation *op, Value input, ArrayRef<int64_t> kernel,
                           ArrayRef<int64_t> stride, ArrayRef<int64_t> pad,
                           ArrayRef<int64_t> dil, bool ceilMode, RankedTensorType resultType,
                           ConversionPatternRewriter &rewriter, Value &result) {
  Location loc = op->getLoc();
  bool unbatched;
  input = withBatchDim(rewriter, loc, input, 2, unbatched);
  auto inTy = cast<RankedTensorType>(input.getType());
  Type elem = inTy.getElementType();
  SmallVector<int64_t> padHigh(pad);
  if (ceilMode) {
    // Extra high padding so the partial last window is computed; ATen's output size.
    for (int i = 0; i < 2; ++i) {
      int64_t in = inTy.getDimSize(2 + i);
      if (in == ShapedType::kDynamic)
        return rewriter.notifyMatchFailure(op, "ceil_mode pooling needs static spatial dims");
      int64_t out = slidingWindowOutputSize(in, kernel[i], stride[i], pad[i], dil[i], true);
      int64_t needed = (out - 1) * stride[i] + dil[i] * (kernel[i] - 1) + 1;
      padHigh[i] = std::max<int64_t>(pad[i], needed - in - pad[i]);
    }
  }
  double lowest = isa<FloatType>(elem) ? -std::numeric_limits<double>::infinity()
                                       : (double)std::numeric_limits<int64_t>::min();
  if (!isa<FloatType>(elem))
    return rewriter.notifyMatchFailure(op, "integer max pooling is not lowered yet");
  Value padded = padSpatial(rewriter, loc, input, pad, padHigh, lowest);
  SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
  SmallVector<OpFoldResult> outSizes{inSizes[0], inSizes[1]};
  for (int i = 0; i < 2; ++i)
    outSizes.push_back(windowOutputSize(rewriter, loc, inSizes[2 + i], kernel[i], stride[i],
                                        pad[i], padHigh[i], dil[i]));
  Value init = filledTensor(rewriter, loc, outSizes, elem, lowest);
  Value window = tensor::EmptyOp::create(rewriter, loc, kernel, elem);
  Value out = linalg::PoolingNchwMaxOp::create(rewriter, loc, init.getType(),
                                               ValueRange{padded, window}, ValueRange{init},
                                               i64Elements(rewriter, stride),
                                               i64Elements(rewriter, dil))
                  .getResult(0);
  result = finishSpatial(rewriter, loc, out, resultType, unbatched);
  return success();
}

struct MaxPool2dLowering : OpConversionPattern<MaxPool2dOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(MaxPool2dOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value result;
    if (failed(lowerMaxPool(op, adaptor.getSelf(), op.getKernelSize(), op.getStride(),
                            op.getPadding(), op.getDilation(), op.getCeilMode(), op.getType(),
                            rewriter, result)))
      return failure();
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The type 16-bit floats accumulate in (float32), else the dtype itself.
Type accumulatorType(Type elem) {
  if (auto f = dyn_cast<FloatType>(elem); f && f.getWidth() < 32)
    return Float32Type::get(elem.getContext());
  return elem;
}

/// Converts between a float dtype and its accumulator type (extf / truncf).
Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  if (v.getType() == to)
    return v;
  if (cast<FloatType>(to).getWidth() > cast<FloatType>(v.getType()).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// ATen's pooled size along one dim, dynamic-safe: (in + 2p - d(k-1) - 1) / s
/// + 1, rounded up with ceil_mode, less a last window starting past in + p.
OpFoldResult pooledSize(OpBuilder &b, Location loc, OpFoldResult in, int64_t k, int64_t s,
                        int64_t p, int64_t d, bool ceil) {
  if (auto c = getConstantIntValue(in))
    return b.getIndexAttr(slidingWindowOutputSize(*c, k, s, p, d, ceil));
  if (!ceil)
    return windowOutputSize(b, loc, in, k, s, p, p, d);
  Value inV = getValueOrCreateConstantIndexOp(b, loc, in);
  Value span = arith::AddIOp::create(b, loc, inV, cIdx(b, loc, 2 * p - d * (k - 1) - 1));
  Value out = arith::AddIOp::create(
      b, loc, arith::CeilDivSIOp::create(b, loc, span, cIdx(b, loc, s)), cIdx(b, loc, 1));
  Value lastStart = arith::MulIOp::create(
      b, loc, arith::SubIOp::create(b, loc, out, cIdx(b, loc, 1)), cIdx(b, loc, s));
  Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, lastStart,
                                     arith::AddIOp::create(b, loc, inV, cIdx(b, loc, p)));
  return arith::SelectOp::create(b, loc, past,
                                 arith::SubIOp::create(b, loc, out, cIdx(b, loc, 1)), out)
      .getResult();
}

/// Window attributes of an N-d pooling op.
struct Window {
  ArrayRef<int64_t> kernel, stride, pad, dil; // dil empty: 1s
  bool ceil;
  int64_t dilation(size_t i) const { return dil.empty() ? 1 : dil[i]; }
};

/// Output sizes (N, C, spatial...) of a pooling op over `input` (batched).
SmallVector<OpFoldResult> pooledSizes(OpBuilder &b, Location loc, Value input, const Window &w,
                                      RankedTensorType resultType, bool unbatched) {
  SmallVector<OpFoldResult> in = getSizes(b, loc, input);
  size_t n = w.kernel.size();
  SmallVector<OpFoldResult> out{in[0], in[1]};
  int64_t resOffset = resultType.getRank() - (int64_t)n;
  for (size_t i = 0; i < n; ++i) {
    int64_t r = resultType.getDimSize(resOffset + i);
    out.push_back(r != ShapedType::kDynamic
                      ? OpFoldResult(b.getIndexAttr(r))
                      : pooledSize(b, loc, in[2 + i], w.kernel[i], w.stride[i], w.pad[i],
                                   w.dilation(i), w.ceil));
  }
  (void)unbatched;
  return out;
}

/// Input positions read by kernel tap (taps at iteration dims 2+n..2+2n) of
/// the output position (dims 2..2+n): o * s - p + t * d, whether each lies in
/// the input (all of them: `valid`), and the positions clamped to 0 when not.
struct Taps {
  SmallVector<Value> pos;
  Value valid;
};
Taps tapPositions(OpBuilder &b, Location l, const Window &w, ArrayRef<Value> inDims) {
  size_t n = w.kernel.size();
  Value zero = cIdx(b, l, 0);
  Taps t;
  t.valid = arith::ConstantIntOp::create(b, l, 1, 1);
  for (size_t i = 0; i < n; ++i) {
    Value o = linalg::IndexOp::create(b, l, 2 + i), k = linalg::IndexOp::create(b, l, 2 + n + i);
    Value at = arith::SubIOp::create(
        b, l,
        arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, o, cIdx(b, l, w.stride[i])),
                              arith::MulIOp::create(b, l, k, cIdx(b, l, w.dilation(i)))),
        cIdx(b, l, w.pad[i]));
    Value ok = arith::AndIOp::create(
        b, l, arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, at, zero),
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, at, inDims[i]));
    t.valid = arith::AndIOp::create(b, l, t.valid, ok);
    t.pos.push_back(arith::SelectOp::create(b, l, ok, at, zero));
  }
  return t;
}

/// A linalg.generic over (N, C, out spatial..., kernel taps...) with the taps
/// as reductions; `body` gets the block arguments (tap placeholder, outputs).
linalg::GenericOp windowGeneric(OpBuilder &b, Location loc, const Window &w, ValueRange inits,
                                function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  size_t n = w.kernel.size();
  MLIRContext *ctx = b.getContext();
  Type tapElem = b.getI8Type();
  Value taps = tensor::EmptyOp::create(b, loc, w.kernel, tapElem);
  SmallVector<unsigned> outDims, tapDims;
  for (unsigned i = 0; i < 2 + n; ++i)
    outDims.push_back(i);
  for (unsigned i = 0; i < n; ++i)
    tapDims.push_back(2 + n + i);
  AffineMap outMap = AffineMap::getMultiDimMapWithTargets(2 + 2 * n, outDims, ctx);
  SmallVector<AffineMap> maps{AffineMap::getMultiDimMapWithTargets(2 + 2 * n, tapDims, ctx)};
  maps.append(inits.size(), outMap);
  SmallVector<utils::IteratorType> iters(2 + n, utils::IteratorType::parallel);
  iters.append(n, utils::IteratorType::reduction);
  SmallVector<Type> types;
  for (Value v : inits)
    types.push_back(v.getType());
  return linalg::GenericOp::create(b, loc, types, ValueRange{taps}, inits, maps, iters, body);
}

/// Max pooling over n spatial dims, any real dtype, with the flat offset of
/// each window's maximum within its input plane or volume: the first maximum
/// in window order, a NaN wins (as ATen's CPU kernel); padding is never
/// chosen. Returns {values, indices} with the batch dim present.
std::pair<Value, Value> maxPoolWithIndices(OpBuilder &b, Location loc, Value input,
                                           const Window &w, RankedTensorType resultType) {
  size_t n = w.kernel.size();
  auto inTy = cast<RankedTensorType>(input.getType());
  Type elem = inTy.getElementType();
  Type store = storageType(elem);
  SmallVector<OpFoldResult> outSizes = pooledSizes(b, loc, input, w, resultType, false);
  SmallVector<Value> inDims;
  for (size_t i = 0; i < n; ++i)
    inDims.push_back(getValueOrCreateConstantIndexOp(b, loc, getSizes(b, loc, input)[2 + i]));
  // The first valid tap always replaces the initial value; filling it still
  // keeps the output defined.
  TypedAttr lowest;
  if (auto ft = dyn_cast<FloatType>(elem))
    lowest = b.getFloatAttr(ft, -std::numeric_limits<double>::infinity());
  else if (elem.isUnsignedInteger())
    lowest = b.getIntegerAttr(elem, 0);
  else
    lowest = b.getIntegerAttr(elem, APInt::getSignedMinValue(elem.getIntOrFloatBitWidth()));
  Value vInit = filledTensorOf(b, loc, outSizes, elem, lowest);
  Value iInit = filledTensor(b, loc, outSizes, b.getI64Type(), -1.0);
  bool isFloat = isa<FloatType>(elem);
  bool isUnsigned = elem.isUnsignedInteger();
  auto generic = windowGeneric(b, loc, w, ValueRange{vInit, iInit}, [&](OpBuilder &nb, Location l,
                                                                        ValueRange a) {
    Taps t = tapPositions(nb, l, w, inDims);
    SmallVector<Value> at{linalg::IndexOp::create(nb, l, 0), linalg::IndexOp::create(nb, l, 1)};
    llvm::append_range(at, t.pos);
    Value v = tensor::ExtractOp::create(nb, l, input, at);
    Value flat = t.pos[0];
    for (size_t i = 1; i < n; ++i)
      flat = arith::AddIOp::create(nb, l, arith::MulIOp::create(nb, l, flat, inDims[i]), t.pos[i]);
    flat = arith::IndexCastOp::create(nb, l, nb.getI64Type(), flat);
    Value first = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, a[2],
                                        arith::ConstantIntOp::create(nb, l, -1, 64));
    Value better;
    if (isFloat) {
      better = arith::OrIOp::create(
          nb, l, arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, v, a[1]),
          arith::CmpFOp::create(nb, l, arith::CmpFPredicate::UNO, v, v));
    } else {
      Value sv = toStorage(nb, l, v), sa = toStorage(nb, l, a[1]);
      (void)store;
      better = arith::CmpIOp::create(
          nb, l, isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt, sv, sa);
    }
    Value take = arith::AndIOp::create(nb, l, t.valid, arith::OrIOp::create(nb, l, first, better));
    linalg::YieldOp::create(nb, l,
                            ValueRange{arith::SelectOp::create(nb, l, take, v, a[1]),
                                       arith::SelectOp::create(nb, l, take, flat, a[2])});
  });
  return {generic.getResult(0), generic.getResult(1)};
}

/// A pool's `self` as [N, C, spatial...] (one spatial dim per kernel dim);
/// `unbatched` says it had no batch dim.
template <typename OpT>
Value batchedPoolInput(OpBuilder &b, Location loc, OpT op, Value self, bool &unbatched) {
  return withBatchDim(b, loc, self, op.getKernelSize().size(), unbatched);
}

/// max_pool{2,3}d[_with_indices] through maxPoolWithIndices (2-d float
/// max_pool2d without indices uses the named pooling op instead).
template <typename OpT, bool WithIndices>
struct MaxPoolGenericLowering : OpLowering<OpT> {
  using OpLowering<OpT>::OpLowering;
  LogicalResult lowerOp(OpT op, typename OpT::Adaptor adaptor, ConversionPatternRewriter &rewriter,
                        Location loc) const override {
    bool unbatched;
    Value input = batchedPoolInput(rewriter, loc, op, adaptor.getSelf(), unbatched);
    Window w{op.getKernelSize(), op.getStride(), op.getPadding(), op.getDilation(),
             op.getCeilMode()};
    auto resTy = cast<RankedTensorType>(op.getResult().getType());
    auto [vals, inds] = maxPoolWithIndices(rewriter, loc, input, w, resTy);
    SmallVector<Value> results{finishSpatial(rewriter, loc, vals, resTy, unbatched)};
    if constexpr (WithIndices)
      results.push_back(
          finishSpatial(rewriter, loc, inds, op.getIndices().getType(), unbatched));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// avg_pool{2,3}d: a window sum in the accumulator type (a reduction over
/// the kernel taps that skips positions outside the input), then a division
/// by each window's divisor; int64 divides truncating.
template <typename OpT> struct AvgPoolLowering : OpLowering<OpT> {
  using OpLowering<OpT>::OpLowering;
  LogicalResult lowerOp(OpT op, typename OpT::Adaptor adaptor, ConversionPatternRewriter &rewriter,
                        Location loc) const override {
    bool unbatched;
    Value input = batchedPoolInput(rewriter, loc, op, adaptor.getSelf(), unbatched);
    size_t n = op.getKernelSize().size();
    Window w{op.getKernelSize(), op.getStride(), op.getPadding(), {}, op.getCeilMode()};
    auto resTy = cast<RankedTensorType>(op.getResult().getType());
    Type elem = resTy.getElementType(), acc = accumulatorType(elem);
    bool isFloat = isa<FloatType>(elem);
    SmallVector<OpFoldResult> outSizes = pooledSizes(rewriter, loc, input, w, resTy, false);
    SmallVector<Value> inDims;
    for (size_t i = 0; i < n; ++i)
      inDims.push_back(dimOf(rewriter, loc, input, 2 + i));
    Value init = filledTensor(rewriter, loc, outSizes, acc, 0.0);
    Value sum = windowGeneric(rewriter, loc, w, ValueRange{init},
                              [&](OpBuilder &b, Location l, ValueRange a) {
                                Taps t = tapPositions(b, l, w, inDims);
                                SmallVector<Value> at{linalg::IndexOp::create(b, l, 0),
                                                      linalg::IndexOp::create(b, l, 1)};
                                llvm::append_range(at, t.pos);
                                Value v = tensor::ExtractOp::create(b, l, input, at);
                                Value added;
                                if (isFloat)
                                  added = arith::AddFOp::create(b, l, a[1],
                                                                convertFloat(b, l, v, acc));
                                else
                                  added = arith::AddIOp::create(b, l, a[1], v);
                                linalg::YieldOp::create(
                                    b, l, ValueRange{arith::SelectOp::create(b, l, t.valid, added,
                                                                             a[1])});
                              })
                    .getResult(0);
    std::optional<int64_t> divisor = op.getDivisorOverride();
    bool includePad = op.getCountIncludePad();
    Value out = elementwise(
        rewriter, loc, ValueRange{sum}, RankedTensorType::get(
            cast<RankedTensorType>(sum.getType()).getShape(), elem),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value count;
          if (divisor) {
            count = arith::ConstantIntOp::create(b, l, *divisor, 64);
          } else {
            Value c = cIdx(b, l, 1);
            for (size_t i = 0; i < n; ++i)
              c = arith::MulIOp::create(
                  b, l, c,
                  avgPoolWindowExtent(b, l, linalg::IndexOp::create(b, l, 2 + i), inDims[i],
                                      w.kernel[i], w.stride[i], w.pad[i], includePad));
            count = arith::IndexCastOp::create(b, l, b.getI64Type(), c);
          }
          if (!isFloat)
            return arith::DivSIOp::create(b, l, args[0], count);
          Value q = arith::DivFOp::create(b, l, args[0],
                                          arith::SIToFPOp::create(b, l, acc, count));
          return convertFloat(b, l, q, elem);
        });
    rewriter.replaceOp(op, finishSpatial(rewriter, loc, out, resTy, unbatched));
    return success();
  }

  static Value dimOf(OpBuilder &b, Location loc, Value t, int64_t d) {
    return getValueOrCreateConstantIndexOp(b, loc, tensor::getMixedSize(b, loc, t, d));
  }
};

/// Adaptive average pooling over n spatial dims. Window i along a dim of
/// size H with O outputs spans [floor(i*H/O), ceil((i+1)*H/O)), as ATen
/// defines it. When every spatial dim of a 2-d pool is a static multiple of
/// its output the windows are equal: a sum pool and a division. Otherwise
/// each output element sums its own window in loops. 16-bit floats sum in
/// float32.
template <typename OpT> struct AdaptiveAvgPoolLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult matchAndRewrite(OpT op, typename OpT::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> outSpatial = op.getOutputSize();
    size_t n = outSpatial.size();
    bool unbatched;
    Value input = withBatchDim(rewriter, loc, adaptor.getSelf(), n, unbatched);
    auto inTy = cast<RankedTensorType>(input.getType());
    Type elem = inTy.getElementType();
    SmallVector<OpFoldResult> inSizes = getSizes(rewriter, loc, input);
    SmallVector<OpFoldResult> outSizes{inSizes[0], inSizes[1]};
    for (int64_t o : outSpatial)
      outSizes.push_back(rewriter.getIndexAttr(o));
    bool even = n == 2;
    for (size_t i = 0; i < n; ++i)
      even &= !inTy.isDynamicDim(2 + i) && inTy.getDimSize(2 + i) % outSpatial[i] == 0;
    // ATen's 3-d kernel sums in the dtype itself and divides by each window
    // extent in turn; the 2-d one sums 16-bit floats in float32.
    bool perDim = n == 3;
    Value out = even ? evenWindows(rewriter, loc, input, outSizes, outSpatial, elem)
                     : unevenWindows(rewriter, loc, input, inSizes, outSizes, outSpatial, elem,
                                     perDim);
    rewriter.replaceOp(op, finishSpatial(rewriter, loc, out, op.getType(), unbatched));
    return success();
  }

  static Value evenWindows(OpBuilder &b, Location loc, Value input,
                           ArrayRef<OpFoldResult> outSizes, ArrayRef<int64_t> outHW, Type elem) {
    auto inTy = cast<RankedTensorType>(input.getType());
    Type acc = accumulatorType(elem);
    if (acc != elem)
      input = elementwise(b, loc, ValueRange{input}, inTy.clone(acc),
                          [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                            return convertFloat(nb, l, args[0], acc);
                          });
    SmallVector<int64_t> kernel{inTy.getDimSize(2) / outHW[0], inTy.getDimSize(3) / outHW[1]};
    Value init = filledTensor(b, loc, outSizes, acc, 0.0);
    Value window = tensor::EmptyOp::create(b, loc, kernel, acc);
    Value sum = linalg::PoolingNchwSumOp::create(b, loc, init.getType(), ValueRange{input, window},
                                                 ValueRange{init}, i64Elements(b, kernel),
                                                 i64Elements(b, {1, 1}))
                    .getResult(0);
    double count = (double)(kernel[0] * kernel[1]);
    auto sumTy = cast<RankedTensorType>(sum.getType());
    return elementwise(b, loc, sum, sumTy.clone(elem),
                       [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                         Value q = arith::DivFOp::create(nb, l, args[0],
                                                         scalarConstant(nb, l, acc, count));
                         return convertFloat(nb, l, q, elem);
                       });
  }

  static Value unevenWindows(OpBuilder &b, Location loc, Value input,
                             ArrayRef<OpFoldResult> inSizes, ArrayRef<OpFoldResult> outSizes,
                             ArrayRef<int64_t> outSpatial, Type elem, bool perDim) {
    size_t n = outSpatial.size();
    Type acc = perDim ? elem : accumulatorType(elem);
    SmallVector<Value> inDims;
    for (size_t i = 0; i < n; ++i)
      inDims.push_back(getValueOrCreateConstantIndexOp(b, loc, inSizes[2 + i]));
    Value init = emptyTensor(b, loc, outSizes, elem);
    MLIRContext *ctx = b.getContext();
    SmallVector<utils::IteratorType> iters(2 + n, utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{}, ValueRange{init},
               SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(2 + n, ctx)}, iters,
               [&](OpBuilder &nb, Location l, ValueRange) {
                 Value one = cIdx(nb, l, 1);
                 SmallVector<Value> starts, ends, extents;
                 Value count = one;
                 for (size_t i = 0; i < n; ++i) {
                   Value o = linalg::IndexOp::create(nb, l, 2 + i);
                   Value outDim = cIdx(nb, l, outSpatial[i]);
                   Value lo = arith::DivUIOp::create(
                       nb, l, arith::MulIOp::create(nb, l, o, inDims[i]), outDim);
                   Value hi = arith::CeilDivUIOp::create(
                       nb, l,
                       arith::MulIOp::create(nb, l, arith::AddIOp::create(nb, l, o, one),
                                             inDims[i]),
                       outDim);
                   starts.push_back(lo);
                   ends.push_back(hi);
                   extents.push_back(arith::SubIOp::create(nb, l, hi, lo));
                   count = arith::MulIOp::create(nb, l, count, extents.back());
                 }
                 SmallVector<Value> at{linalg::IndexOp::create(nb, l, 0),
                                       linalg::IndexOp::create(nb, l, 1)};
                 // Nested loops over the window, dims in order, summing in acc.
                 std::function<Value(OpBuilder &, Location, size_t, Value)> loop =
                     [&](OpBuilder &lb, Location ll, size_t d, Value accIn) -> Value {
                   if (d == n) {
                     Value v = tensor::ExtractOp::create(lb, ll, input, at);
                     return arith::AddFOp::create(lb, ll, accIn, convertFloat(lb, ll, v, acc));
                   }
                   auto f = scf::ForOp::create(
                       lb, ll, starts[d], ends[d], one, ValueRange{accIn},
                       [&, d](OpBuilder &fb, Location fl, Value iv, ValueRange iter) {
                         at.push_back(iv);
                         Value r = loop(fb, fl, d + 1, iter[0]);
                         at.pop_back();
                         scf::YieldOp::create(fb, fl, ValueRange{r});
                       });
                   return f.getResult(0);
                 };
                 Value sum = loop(nb, l, 0, scalarConstant(nb, l, acc, 0.0));
                 auto toF = [&](Value i) -> Value {
                   return arith::UIToFPOp::create(
                       nb, l, acc, arith::IndexCastUIOp::create(nb, l, nb.getI64Type(), i));
                 };
                 Value q = sum;
                 if (perDim)
                   for (Value e : extents)
                     q = arith::DivFOp::create(nb, l, q, toF(e));
                 else
                   q = arith::DivFOp::create(nb, l, sum, toF(count));
                 linalg::YieldOp::create(nb, l, ValueRange{convertFloat(nb, l, q, elem)});
               })
        .getResult(0);
  }
};
} // namespace

void kiln::populatePoolingPatterns(RewritePatternSet &patterns) {
  // Float max_pool2d with static ceil-mode sizes takes the named pooling op;
  // the generic window loop covers the rest.
  patterns.add<MaxPool2dLowering>(patterns.getContext(), /*benefit=*/2);
  patterns.add<MaxPoolGenericLowering<MaxPool2dOp, false>,
               MaxPoolGenericLowering<MaxPool2dWithIndicesOp, true>,
               MaxPoolGenericLowering<MaxPool3dWithIndicesOp, true>,
               MaxPoolGenericLowering<MaxPool3dOp, false>, AvgPoolLowering<AvgPool2dOp>,
               AvgPoolLowering<AvgPool3dOp>, AdaptiveAvgPoolLowering<AdaptiveAvgPool2dOp>,
               AdaptiveAvgPoolLowering<AdaptiveAvgPool3dOp>>(patterns.getContext());
}

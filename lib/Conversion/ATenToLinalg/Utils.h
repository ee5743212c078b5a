//===- Utils.h - helpers shared by the aten-to-linalg families --*- C++ -*-===//
#ifndef KILN_LIB_CONVERSION_ATENTOLINALG_UTILS_H
#define KILN_LIB_CONVERSION_ATENTOLINALG_UTILS_H

#include "ATen/IR/ATenDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::detail {
using namespace mlir;

/// Sizes of every dim of `v` (attributes for static dims, tensor.dim values otherwise).
SmallVector<OpFoldResult> getSizes(OpBuilder &b, Location loc, Value v);
/// A scalar constant of `type` (float or integer) holding `value`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);
/// tensor.empty of `sizes` x `elem`.
Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elem);
/// tensor.empty filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elem,
                   double value);
/// A linalg.generic of `sizes` x `elem` whose elements are `body` applied to
/// `src` broadcast (numpy rules, aligned to the right; static size-1 dims of
/// `src` are stretched).
Value broadcastGeneric(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> sizes,
                       Type elem, function_ref<Value(OpBuilder &, Location, Value)> body);
/// Broadcasts `src` (numpy rules, aligned to the right) to `sizes`; static
/// size-1 dims of `src` are stretched. `scale`, if not 1, multiplies it.
Value broadcastTo(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> sizes,
                  double scale = 1.0);
/// Broadcasts a 1-d `src` along dim `dim` of `sizes`.
Value broadcastAlongDim(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> sizes,
                        int64_t dim);
/// An elementwise linalg.generic over operands of one shape, result of `resultType`.
Value elementwise(OpBuilder &b, Location loc, ValueRange inputs, RankedTensorType resultType,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> body);
/// Pads the last two dims of `src` by pad[i] low and padHigh[i] high with `value`.
Value padSpatial(OpBuilder &b, Location loc, Value src, ArrayRef<int64_t> padLow,
                 ArrayRef<int64_t> padHigh, double value);
/// Output size of a sliding window along one dim, as an OpFoldResult (dynamic-safe).
OpFoldResult windowOutputSize(OpBuilder &b, Location loc, OpFoldResult in, int64_t kernel,
                              int64_t stride, int64_t padLow, int64_t padHigh,
                              int64_t dilation);
/// The divisor of the average-pool window at output position `o` along one
/// dim of input size `in` (kernel k, stride s, padding p): the window's
/// extent clipped to the padded input (`includePad`) or to the input.
Value avgPoolWindowExtent(OpBuilder &b, Location loc, Value o, Value in, int64_t k, int64_t s,
                          int64_t p, bool includePad);
/// Splits dim `dim` of `v` in two by the static `factor`: [size/factor, factor]
/// if `factorInner`, else [factor, size/factor].
Value splitDim(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t factor,
               bool factorInner);
/// Adds a leading unit dim ([C,H,W] -> [1,C,H,W]).
Value expandBatch(OpBuilder &b, Location loc, Value v);
/// Drops the leading unit dim, giving `resultType`.
Value collapseBatch(OpBuilder &b, Location loc, Value v);
/// `v` refined or generalised to `type` with tensor.cast (a no-op if equal):
/// lowerings may know less (or more) of a static shape than the op's type.
Value castTo(OpBuilder &b, Location loc, Value v, Type type);
/// `v` with a batch dim: an unbatched input of a window op over
/// `spatialDims` dims ([C, spatial...], rank spatialDims + 1) gets a unit batch
/// in front and sets `unbatched`, which finishSpatial then undoes; a batched
/// input is returned as it is.
Value withBatchDim(OpBuilder &b, Location loc, Value v, int64_t spatialDims, bool &unbatched);
/// Undoes expandBatch when `unbatched` and casts to `resultType` (static
/// shape information the lowering could not infer).
Value finishSpatial(OpBuilder &b, Location loc, Value out, Type resultType, bool unbatched);
/// A DenseIntElementsAttr of i64 for linalg's strides/dilations.
DenseIntElementsAttr i64Elements(OpBuilder &b, ArrayRef<int64_t> values);

// --- dtypes in generic bodies. Tensors keep ATen's dtypes (uint8 is `ui8`);
// arith works on signless values, so a body moves a `ui8` element to `i8`
// storage and back (docs/Rationale/unsigned-dtypes.md).

/// The signless type a body computes on for dtype `t` (ui8 -> i8, others as is).
Type storageType(Type t);
/// `v` (an element of some dtype) as its signless storage value.
Value toStorage(OpBuilder &b, Location loc, Value v);
/// A storage value back as an element of `dtype`.
Value fromStorage(OpBuilder &b, Location loc, Value v, Type dtype);
/// Converts storage value `v` of dtype `from` to dtype `to` (storage form) as
/// PyTorch's casts do: nonzero test to bool, float to integer truncating with
/// x86's out-of-range result (the lowest value), to uint8 through int64,
/// float64 and integers to float16/bfloat16 through float32.
Value convertElement(OpBuilder &b, Location loc, Value v, Type from, Type to);
/// The sizes of a result of `resultType` that `operands` broadcast to (static
/// result dims, else the dim of an operand that is not statically 1 there).
SmallVector<OpFoldResult> broadcastSizes(OpBuilder &b, Location loc, ValueRange operands,
                                         RankedTensorType resultType);
/// linalg.generic over the numpy-style broadcast of `operands` to
/// `resultType`; `body` maps the block arguments (one element of each operand)
/// to the result element. The result is cast to `resultType`.
Value broadcastGeneric(OpBuilder &b, Location loc, ValueRange operands,
                       RankedTensorType resultType,
                       function_ref<Value(OpBuilder &, Location, ValueRange)> body);
/// A tensor of `sizes` x `dtype` filled with `value` (a typed attribute of the
/// dtype; ui8 values are filled through their storage).
Value filledTensorOf(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type dtype,
                     TypedAttr value);
/// tensor.extract_slice, or a tensor.empty of the slice's shape when a size is
/// statically 0 (extract_slice rejects static offsets into empty dims).
Value extractSliceOrEmpty(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> offsets,
                          ArrayRef<OpFoldResult> sizes, ArrayRef<OpFoldResult> strides);
/// tensor.insert_slice, or `dest` itself when a size is statically 0.
Value insertSliceOrDest(OpBuilder &b, Location loc, Value src, Value dest,
                        ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                        ArrayRef<OpFoldResult> strides);
/// `body()` where every size in `dims` is nonzero, else `fallback()`: an
/// index clamped into an empty dim would still be out of bounds, so reads and
/// writes through run-time indices are skipped then. Sizes known nonzero at
/// compile time need no branch. Both builders return a value castable to
/// `resultType`.
Value ifNonEmpty(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims, Type resultType,
                 function_ref<Value(OpBuilder &, Location)> body,
                 function_ref<Value(OpBuilder &, Location)> fallback);
/// `d` counted from the front (ATen's negative dims).
inline int64_t normDim(int64_t d, int64_t rank) { return d < 0 ? d + std::max<int64_t>(rank, 1) : d; }
/// An `index` constant.
inline Value cIdx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
/// Sizes as index values.
SmallVector<Value> sizeValues(OpBuilder &b, Location loc, Value t);
/// The loop indices of the enclosing linalg.generic.
SmallVector<Value> loopIndices(OpBuilder &b, Location loc, int64_t rank);
/// linalg.generic over `sizes` x `elem` whose inputs are `inputs` read
/// through `maps`; `body(b, loc, loopIndices, inputElements)` yields the element.
Value gatherGeneric(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elem,
                    ValueRange inputs, ArrayRef<AffineMap> maps,
                    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>, ValueRange)> body);
/// The pattern lowering one op: `lowerOp` gets what matchAndRewrite gets, and
/// the op's location.
template <typename OpT> struct OpLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpT::Adaptor;
  LogicalResult matchAndRewrite(OpT op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const final {
    return lowerOp(op, adaptor, rewriter, op.getLoc());
  }
  virtual LogicalResult lowerOp(OpT op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter,
                                Location loc) const = 0;
};

} // namespace kiln::detail

#endif

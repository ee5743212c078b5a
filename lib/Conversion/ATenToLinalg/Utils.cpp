//===- Utils.cpp - helpers shared by the aten-to-linalg families ----------===//
#include "Utils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

#include <cmath>

using namespace mlir;

namespace kiln::detail {

SmallVector<OpFoldResult> getSizes(OpBuilder &b, Location loc, Value v) {
  return tensor::getMixedSizes(b, loc, v);
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, value));
  // arith.constant holds no uint8: its storage constant, cast to the dtype
  // (a tensor.pad's or a fill's value; generic bodies take storage values).
  if (Type s = storageType(type); s != type)
    return fromStorage(b, loc, arith::ConstantOp::create(b, loc, b.getIntegerAttr(s, (int64_t)value)),
                       type);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, (int64_t)value));
}

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elem) {
  return tensor::EmptyOp::create(b, loc, sizes, elem);
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elem,
                   double value) {
  // arith.constant holds no uint8: fill through its storage type.
  if (elem.isUnsignedInteger())
    return filledTensorOf(b, loc, sizes, elem, b.getIntegerAttr(storageType(elem), (int64_t)value));
  Value empty = emptyTensor(b, loc, sizes, elem);
  Value cst = scalarConstant(b, loc, elem, value);
  return linalg::FillOp::create(b, loc, ValueRange{cst}, ValueRange{empty}).getResult(0);
}

Value broadcastGeneric(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> sizes,
                       Type elem, function_ref<Value(OpBuilder &, Location, Value)> body) {
  auto srcTy = cast<RankedTensorType>(src.getType());
  int64_t rank = sizes.size(), srcRank = srcTy.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < srcRank; ++i) {
    int64_t outDim = rank - srcRank + i;
    if (srcTy.getDimSize(i) == 1 && getConstantIntValue(sizes[outDim]) != std::optional<int64_t>(1))
      exprs.push_back(b.getAffineConstantExpr(0));
    else
      exprs.push_back(b.getAffineDimExpr(outDim));
  }
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps{AffineMap::get(rank, 0, exprs, ctx),
                              AffineMap::getMultiDimIdentityMap(rank, ctx)};
  Value init = emptyTensor(b, loc, sizes, elem);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(b, loc, init.getType(), ValueRange{src}, ValueRange{init},
                                   maps, iters,
                                   [&](OpBuilder &nb, Location nl, ValueRange args) {
                                     linalg::YieldOp::create(nb, nl, body(nb, nl, args[0]));
                                   })
      .getResult(0);
}

Value broadcastTo(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> sizes,
                  double scale) {
  Type elem = cast<RankedTensorType>(src.getType()).getElementType();
  return broadcastGeneric(b, loc, src, sizes, elem, [&](OpBuilder &nb, Location nl, Value v) {
    if (scale == 1.0)
      return v;
    // Integers scale by an integer (addmm's beta on int tensors), bool by
    // and-ing with the scale's truth.
    Value c = scalarConstant(nb, nl, storageType(elem), scale);
    if (isa<FloatType>(elem))
      return (Value)arith::MulFOp::create(nb, nl, v, c);
    if (elem.isInteger(1))
      return (Value)arith::AndIOp::create(nb, nl, v, c);
    return fromStorage(nb, nl, arith::MulIOp::create(nb, nl, toStorage(nb, nl, v), c), elem);
  });
}

Value broadcastAlongDim(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> sizes,
                        int64_t dim) {
  int64_t rank = sizes.size();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps{AffineMap::get(rank, 0, {b.getAffineDimExpr(dim)}, ctx),
                              AffineMap::getMultiDimIdentityMap(rank, ctx)};
  Type elem = cast<RankedTensorType>(src.getType()).getElementType();
  Value init = emptyTensor(b, loc, sizes, elem);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(b, loc, init.getType(), ValueRange{src}, ValueRange{init},
                                   maps, iters,
                                   [&](OpBuilder &nb, Location nl, ValueRange args) {
                                     linalg::YieldOp::create(nb, nl, args[0]);
                                   })
      .getResult(0);
}

Value elementwise(OpBuilder &b, Location loc, ValueRange inputs, RankedTensorType resultType,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = resultType.getRank();
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, inputs.front());
  Value init = emptyTensor(b, loc, sizes, resultType.getElementType());
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, body(nb, nl, args.drop_back()));
      });
  Value result = generic.getResult(0);
  return castTo(b, loc, result, resultType);
}

Value padSpatial(OpBuilder &b, Location loc, Value src, ArrayRef<int64_t> padLow,
                 ArrayRef<int64_t> padHigh, double value) {
  if (llvm::all_of(padLow, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(padHigh, [](int64_t p) { return p == 0; }))
    return src;
  auto ty = cast<RankedTensorType>(src.getType());
  int64_t rank = ty.getRank();
  SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0)), high(rank, b.getIndexAttr(0));
  SmallVector<int64_t> shape(ty.getShape());
  for (int i = 0; i < 2; ++i) {
    low[rank - 2 + i] = b.getIndexAttr(padLow[i]);
    high[rank - 2 + i] = b.getIndexAttr(padHigh[i]);
    if (!ty.isDynamicDim(rank - 2 + i))
      shape[rank - 2 + i] += padLow[i] + padHigh[i];
  }
  auto resultTy = RankedTensorType::get(shape, ty.getElementType());
  Value padValue = scalarConstant(b, loc, ty.getElementType(), value);
  return tensor::PadOp::create(b, loc, resultTy, src, low, high, padValue);
}

OpFoldResult windowOutputSize(OpBuilder &b, Location loc, OpFoldResult in, int64_t kernel,
                              int64_t stride, int64_t padLow, int64_t padHigh,
                              int64_t dilation) {
  // (in + padLow + padHigh - dilation * (kernel - 1) - 1) floordiv stride + 1
  AffineExpr s0 = b.getAffineSymbolExpr(0);
  AffineExpr e = (s0 + (padLow + padHigh - dilation * (kernel - 1) - 1)).floorDiv(stride) + 1;
  return affine::makeComposedFoldedAffineApply(b, loc, e, {in});
}

Value avgPoolWindowExtent(OpBuilder &b, Location l, Value o, Value in, int64_t k, int64_t s,
                          int64_t p, bool includePad) {
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
  Value start = arith::SubIOp::create(b, l, arith::MulIOp::create(b, l, o, c(s)), c(p));
  Value end = arith::MinSIOp::create(b, l, arith::AddIOp::create(b, l, start, c(k)),
                                     arith::AddIOp::create(b, l, in, c(p)));
  if (includePad)
    return arith::SubIOp::create(b, l, end, start);
  Value cs = arith::MaxSIOp::create(b, l, start, c(0));
  Value ce = arith::MinSIOp::create(b, l, end, in);
  return arith::SubIOp::create(b, l, ce, cs);
}

Value splitDim(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t factor,
               bool factorInner) {
  auto ty = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, v), newSizes;
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t i = 0, j = 0; i < ty.getRank(); ++i) {
    if (i != dim) {
      shape.push_back(ty.getDimSize(i));
      newSizes.push_back(sizes[i]);
      reassoc.push_back({j++});
      continue;
    }
    int64_t d = ty.getDimSize(i);
    int64_t rest = d == ShapedType::kDynamic ? d : d / factor;
    OpFoldResult restSize = affine::makeComposedFoldedAffineApply(
        b, loc, b.getAffineSymbolExpr(0).floorDiv(factor), {sizes[i]});
    if (factorInner) {
      shape.append({rest, factor});
      newSizes.append({restSize, b.getIndexAttr(factor)});
    } else {
      shape.append({factor, rest});
      newSizes.append({b.getIndexAttr(factor), restSize});
    }
    reassoc.push_back({j, j + 1});
    j += 2;
  }
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()),
                                       v, reassoc, newSizes);
}

Value expandBatch(OpBuilder &b, Location loc, Value v) {
  auto ty = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape{1};
  llvm::append_range(shape, ty.getShape());
  SmallVector<ReassociationIndices> reassoc{{0, 1}};
  for (int64_t i = 2; i <= ty.getRank(); ++i)
    reassoc.push_back({i});
  SmallVector<OpFoldResult> outSizes{b.getIndexAttr(1)};
  llvm::append_range(outSizes, getSizes(b, loc, v));
  return tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()),
                                       v, reassoc, outSizes);
}

Value collapseBatch(OpBuilder &b, Location loc, Value v) {
  auto ty = cast<RankedTensorType>(v.getType());
  SmallVector<ReassociationIndices> reassoc{{0, 1}};
  for (int64_t i = 2; i < ty.getRank(); ++i)
    reassoc.push_back({i});
  auto resultTy = RankedTensorType::get(ty.getShape().drop_front(), ty.getElementType());
  return tensor::CollapseShapeOp::create(b, loc, resultTy, v, reassoc);
}

Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  return v.getType() == type ? v : tensor::CastOp::create(b, loc, type, v).getResult();
}

Value withBatchDim(OpBuilder &b, Location loc, Value v, int64_t spatialDims, bool &unbatched) {
  unbatched = cast<RankedTensorType>(v.getType()).getRank() == spatialDims + 1;
  return unbatched ? expandBatch(b, loc, v) : v;
}

Value finishSpatial(OpBuilder &b, Location loc, Value out, Type resultType, bool unbatched) {
  if (unbatched)
    out = collapseBatch(b, loc, out);
  return castTo(b, loc, out, resultType);
}

DenseIntElementsAttr i64Elements(OpBuilder &b, ArrayRef<int64_t> values) {
  return DenseIntElementsAttr::get(
      RankedTensorType::get({(int64_t)values.size()}, b.getI64Type()), values);
}

Type storageType(Type t) {
  if (auto i = dyn_cast<IntegerType>(t); i && !i.isSignless())
    return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

Value toStorage(OpBuilder &b, Location loc, Value v) {
  Type s = storageType(v.getType());
  if (s == v.getType())
    return v;
  return UnrealizedConversionCastOp::create(b, loc, s, v).getResult(0);
}

Value fromStorage(OpBuilder &b, Location loc, Value v, Type dtype) {
  if (v.getType() == dtype)
    return v;
  return UnrealizedConversionCastOp::create(b, loc, dtype, v).getResult(0);
}

/// fptosi with x86's result for NaN and out-of-range values (the lowest value
/// of the `width`-bit type), which is what PyTorch's CPU casts produce.
static Value floatToInt(OpBuilder &b, Location loc, Value v, unsigned width) {
  auto ft = cast<FloatType>(v.getType());
  Type it = b.getIntegerType(width);
  double limit = std::ldexp(1.0, width - 1);
  Value hi = arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, limit));
  Value lo = arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, -limit));
  Value inRange = arith::AndIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v, hi),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v, lo));
  Value r = arith::FPToSIOp::create(b, loc, it, v);
  Value lowest = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(it, APInt::getSignedMinValue(width)));
  return arith::SelectOp::create(b, loc, inRange, r, lowest);
}

Value convertElement(OpBuilder &b, Location loc, Value v, Type from, Type to) {
  if (from == to)
    return v;
  Type ts = storageType(to);
  auto ff = dyn_cast<FloatType>(from);
  auto tf = dyn_cast<FloatType>(to);
  bool fromUnsigned = from.isInteger(1) || from.isUnsignedInteger();
  if (to.isInteger(1)) {
    if (ff)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                   scalarConstant(b, loc, from, 0.0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 scalarConstant(b, loc, v.getType(), 0.0));
  }
  Type f32 = b.getF32Type();
  if (ff && tf) {
    // 16-bit floats meet other floats through float32, as c10's casts do.
    if ((ff.getWidth() == 16 || tf.getWidth() == 16) && from != f32 && to != f32)
      return convertElement(b, loc, convertElement(b, loc, v, from, f32), f32, to);
    return ff.getWidth() < tf.getWidth() ? arith::ExtFOp::create(b, loc, to, v).getResult()
                                         : arith::TruncFOp::create(b, loc, to, v).getResult();
  }
  if (ff) {
    if (ff.getWidth() == 16)
      v = arith::ExtFOp::create(b, loc, f32, v);
    unsigned tw = ts.getIntOrFloatBitWidth();
    // uint8 goes through int64 (wrapping); int8/int16 through int32.
    unsigned via = to.isUnsignedInteger() ? 64 : std::max(tw, 32u);
    Value i = floatToInt(b, loc, v, via);
    return via == tw ? i : arith::TruncIOp::create(b, loc, ts, i).getResult();
  }
  if (tf) {
    Type mid = tf.getWidth() == 16 ? f32 : to;
    Value r = fromUnsigned ? arith::UIToFPOp::create(b, loc, mid, v).getResult()
                           : arith::SIToFPOp::create(b, loc, mid, v).getResult();
    return mid == to ? r : arith::TruncFOp::create(b, loc, to, r).getResult();
  }
  unsigned fw = v.getType().getIntOrFloatBitWidth(), tw = ts.getIntOrFloatBitWidth();
  if (fw < tw)
    return fromUnsigned ? arith::ExtUIOp::create(b, loc, ts, v).getResult()
                        : arith::ExtSIOp::create(b, loc, ts, v).getResult();
  if (fw > tw)
    return arith::TruncIOp::create(b, loc, ts, v);
  return v; // int8 <-> uint8: the same storage
}

SmallVector<OpFoldResult> broadcastSizes(OpBuilder &b, Location loc, ValueRange operands,
                                         RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < rank; ++i) {
    if (!resultType.isDynamicDim(i)) {
      sizes.push_back(b.getIndexAttr(resultType.getDimSize(i)));
      continue;
    }
    OpFoldResult size = b.getIndexAttr(1);
    for (Value v : operands) {
      auto t = cast<RankedTensorType>(v.getType());
      int64_t d = i - (rank - t.getRank());
      if (d >= 0 && t.getDimSize(d) != 1) {
        size = tensor::getMixedSize(b, loc, v, d);
        break;
      }
    }
    sizes.push_back(size);
  }
  return sizes;
}

Value broadcastGeneric(OpBuilder &b, Location loc, ValueRange operands,
                       RankedTensorType resultType,
                       function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<OpFoldResult> sizes = broadcastSizes(b, loc, operands, resultType);
  SmallVector<AffineMap> maps;
  for (Value v : operands) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      int64_t outDim = rank - t.getRank() + d;
      bool stretched = t.getDimSize(d) == 1 &&
                       getConstantIntValue(sizes[outDim]) != std::optional<int64_t>(1);
      exprs.push_back(stretched ? b.getAffineConstantExpr(0) : b.getAffineDimExpr(outDim));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value init = emptyTensor(b, loc, sizes, resultType.getElementType());
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  Value out = linalg::GenericOp::create(
                  b, loc, init.getType(), operands, ValueRange{init}, maps, iters,
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    linalg::YieldOp::create(nb, nl, body(nb, nl, args.drop_back()));
                  })
                  .getResult(0);
  return castTo(b, loc, out, resultType);
}

Value filledTensorOf(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type dtype,
                     TypedAttr value) {
  Value empty = emptyTensor(b, loc, sizes, dtype);
  Type storage = storageType(dtype);
  TypedAttr stored = value;
  if (auto i = dyn_cast<IntegerAttr>(value); i && storage != dtype)
    stored = IntegerAttr::get(storage, i.getValue());
  Value cst = fromStorage(b, loc, arith::ConstantOp::create(b, loc, stored), dtype);
  return linalg::FillOp::create(b, loc, ValueRange{cst}, ValueRange{empty}).getResult(0);
}

Value extractSliceOrEmpty(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> offsets,
                          ArrayRef<OpFoldResult> sizes, ArrayRef<OpFoldResult> strides) {
  if (llvm::any_of(sizes, [](OpFoldResult s) { return isZeroInteger(s); }))
    return tensor::EmptyOp::create(b, loc, sizes,
                                   cast<RankedTensorType>(src.getType()).getElementType());
  return tensor::ExtractSliceOp::create(b, loc, src, offsets, sizes, strides);
}

Value insertSliceOrDest(OpBuilder &b, Location loc, Value src, Value dest,
                        ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                        ArrayRef<OpFoldResult> strides) {
  if (llvm::any_of(sizes, [](OpFoldResult s) { return isZeroInteger(s); }))
    return dest;
  return tensor::InsertSliceOp::create(b, loc, src, dest, offsets, sizes, strides);
}

Value ifNonEmpty(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> dims, Type resultType,
                 function_ref<Value(OpBuilder &, Location)> body,
                 function_ref<Value(OpBuilder &, Location)> fallback) {
  Value cond;
  for (OpFoldResult d : dims) {
    if (auto c = getConstantIntValue(d)) {
      if (*c == 0)
        return castTo(b, loc, fallback(b, loc), resultType);
      continue;
    }
    Value nz = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                     getValueOrCreateConstantIndexOp(b, loc, d),
                                     arith::ConstantIndexOp::create(b, loc, 0));
    cond = cond ? arith::AndIOp::create(b, loc, cond, nz).getResult() : nz;
  }
  if (!cond)
    return castTo(b, loc, body(b, loc), resultType);
  auto ifOp = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &tb, Location tl) {
        scf::YieldOp::create(tb, tl, castTo(tb, tl, body(tb, tl), resultType));
      },
      [&](OpBuilder &eb, Location el) {
        scf::YieldOp::create(eb, el, castTo(eb, el, fallback(eb, el), resultType));
      });
  return ifOp.getResult(0);
}

SmallVector<Value> sizeValues(OpBuilder &b, Location loc, Value t) {
  SmallVector<Value> out;
  for (OpFoldResult s : getSizes(b, loc, t))
    out.push_back(getValueOrCreateConstantIndexOp(b, loc, s));
  return out;
}

SmallVector<Value> loopIndices(OpBuilder &b, Location loc, int64_t rank) {
  SmallVector<Value> idx;
  for (int64_t i = 0; i < rank; ++i)
    idx.push_back(linalg::IndexOp::create(b, loc, i));
  return idx;
}

Value gatherGeneric(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elem,
                    ValueRange inputs, ArrayRef<AffineMap> maps,
                    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>, ValueRange)> body) {
  int64_t rank = sizes.size();
  Value init = emptyTensor(b, loc, sizes, elem);
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), inputs, ValueRange{init}, allMaps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               SmallVector<Value> idx = loopIndices(nb, nl, rank);
               linalg::YieldOp::create(nb, nl, body(nb, nl, idx, args.drop_back()));
             })
      .getResult(0);
}

} // namespace kiln::detail

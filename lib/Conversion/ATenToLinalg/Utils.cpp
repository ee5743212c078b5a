//===- Utils.cpp - helpers shared by the aten-to-linalg families ----------===//
#include "Utils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;

namespace kiln::detail {

SmallVector<OpFoldResult> getSizes(OpBuilder &b, Location loc, Value v) {
  return tensor::getMixedSizes(b, loc, v);
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(ft, value));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, (int64_t)value));
}

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elem) {
  return tensor::EmptyOp::create(b, loc, sizes, elem);
}

Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elem,
                   double value) {
  Value empty = emptyTensor(b, loc, sizes, elem);
  Value cst = scalarConstant(b, loc, elem, value);
  return linalg::FillOp::create(b, loc, ValueRange{cst}, ValueRange{empty}).getResult(0);
}

Value broadcastTo(OpBuilder &b, Location loc, Value src, ArrayRef<OpFoldResult> sizes,
                  double scale) {
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
  Type elem = srcTy.getElementType();
  Value init = emptyTensor(b, loc, sizes, elem);
  SmallVector<utils::IteratorType> iters(rank, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{src}, ValueRange{init}, maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value v = args[0];
               if (scale != 1.0)
                 v = arith::MulFOp::create(nb, nl, v, scalarConstant(nb, nl, elem, scale));
               linalg::YieldOp::create(nb, nl, v);
             })
      .getResult(0);
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

Value finishSpatial(OpBuilder &b, Location loc, Value out, Type resultType, bool unbatched) {
  if (unbatched)
    out = collapseBatch(b, loc, out);
  return castTo(b, loc, out, resultType);
}

DenseIntElementsAttr i64Elements(OpBuilder &b, ArrayRef<int64_t> values) {
  return DenseIntElementsAttr::get(
      RankedTensorType::get({(int64_t)values.size()}, b.getI64Type()), values);
}

} // namespace kiln::detail

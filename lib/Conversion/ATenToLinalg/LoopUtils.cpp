//===- LoopUtils.cpp - linalg.generic builders for reductions and products ===//
#include "LoopUtils.h"

#include <limits>

using namespace mlir;

namespace kiln::detail {

Type computeType(Type elem) {
  if (elem.isF16() || elem.isBF16())
    return Float32Type::get(elem.getContext());
  return elem;
}

Value convertScalarTo(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0.0);
    if (fromF)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  bool fromUnsigned = from.isInteger(1) || from.isUnsignedInteger();
  if (fromF && toF) {
    if (fromF.getWidth() == toF.getWidth()) // float16 <-> bfloat16
      v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    auto vf = cast<FloatType>(v.getType());
    if (vf == toF)
      return v;
    return vf.getWidth() < toF.getWidth() ? arith::ExtFOp::create(b, loc, to, v).getResult()
                                          : arith::TruncFOp::create(b, loc, to, v).getResult();
  }
  if (!fromF && toF)
    return fromUnsigned ? arith::UIToFPOp::create(b, loc, to, v).getResult()
                        : arith::SIToFPOp::create(b, loc, to, v).getResult();
  if (fromF && !toF)
    return arith::FPToSIOp::create(b, loc, to, v);
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return fromUnsigned ? arith::ExtUIOp::create(b, loc, to, v).getResult()
                        : arith::ExtSIOp::create(b, loc, to, v).getResult();
  return arith::TruncIOp::create(b, loc, to, v);
}

/// The lowest (-inf, signed min, false) or highest (+inf, signed max, true)
/// value of `type`.
static Value extremeValue(OpBuilder &b, Location loc, Type type, bool highest) {
  if (auto ft = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), !highest)));
  unsigned w = type.getIntOrFloatBitWidth();
  APInt v = w == 1 ? APInt(1, highest ? 1 : 0)
                   : highest ? APInt::getSignedMaxValue(w) : APInt::getSignedMinValue(w);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
}

Value lowestValue(OpBuilder &b, Location loc, Type type) {
  return extremeValue(b, loc, type, /*highest=*/false);
}

Value highestValue(OpBuilder &b, Location loc, Type type) {
  return extremeValue(b, loc, type, /*highest=*/true);
}

SmallVector<OpFoldResult> loopSizes(OpBuilder &b, Location loc, ArrayRef<LoopOperand> operands,
                                    int64_t numLoops) {
  SmallVector<OpFoldResult> sizes(numLoops, OpFoldResult());
  for (const LoopOperand &o : operands) {
    auto ty = cast<RankedTensorType>(o.value.getType());
    for (auto [d, l] : llvm::enumerate(o.loops)) {
      if (ty.getDimSize(d) == 1)
        continue;
      // A static size beats a dynamic one read earlier.
      if (!sizes[l] || (!getConstantIntValue(sizes[l]) && !ty.isDynamicDim(d)))
        sizes[l] = tensor::getMixedSize(b, loc, o.value, d);
    }
  }
  for (OpFoldResult &s : sizes)
    if (!s)
      s = b.getIndexAttr(1);
  return sizes;
}

/// Indexing map of `o`: its dims walk their loops; a static 1 over a longer
/// loop reads index 0.
static AffineMap operandMap(OpBuilder &b, const LoopOperand &o, ArrayRef<OpFoldResult> sizes,
                            int64_t numLoops) {
  auto ty = cast<RankedTensorType>(o.value.getType());
  SmallVector<AffineExpr> exprs;
  for (auto [d, l] : llvm::enumerate(o.loops)) {
    if (ty.getDimSize(d) == 1 && getConstantIntValue(sizes[l]) != std::optional<int64_t>(1))
      exprs.push_back(b.getAffineConstantExpr(0));
    else
      exprs.push_back(b.getAffineDimExpr(l));
  }
  return AffineMap::get(numLoops, 0, exprs, b.getContext());
}

Value buildGeneric(OpBuilder &b, Location loc, ArrayRef<LoopOperand> inputs, Value init,
                   ArrayRef<int64_t> outLoops, int64_t numLoops,
                   function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<LoopOperand> all(inputs);
  all.push_back({init, SmallVector<int64_t>(outLoops)});
  SmallVector<OpFoldResult> sizes = loopSizes(b, loc, all, numLoops);
  SmallVector<AffineMap> maps;
  SmallVector<Value> ins;
  for (const LoopOperand &o : inputs) {
    maps.push_back(operandMap(b, o, sizes, numLoops));
    ins.push_back(o.value);
  }
  SmallVector<AffineExpr> outExprs;
  for (int64_t l : outLoops)
    outExprs.push_back(b.getAffineDimExpr(l));
  maps.push_back(AffineMap::get(numLoops, 0, outExprs, b.getContext()));
  SmallVector<utils::IteratorType> iters;
  for (int64_t l = 0; l < numLoops; ++l)
    iters.push_back(llvm::is_contained(outLoops, l) ? utils::IteratorType::parallel
                                                    : utils::IteratorType::reduction);
  return linalg::GenericOp::create(b, loc, init.getType(), ins, ValueRange{init}, maps, iters,
                                   [&](OpBuilder &nb, Location nl, ValueRange args) {
                                     linalg::YieldOp::create(nb, nl, body(nb, nl, args));
                                   })
      .getResult(0);
}

Value buildMap(OpBuilder &b, Location loc, ArrayRef<LoopOperand> inputs,
               ArrayRef<int64_t> outLoops, int64_t numLoops, Type elem,
               function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<OpFoldResult> sizes = loopSizes(b, loc, inputs, numLoops), outSizes;
  for (int64_t l : outLoops)
    outSizes.push_back(sizes[l]);
  Value init = emptyTensor(b, loc, outSizes, elem);
  return buildGeneric(b, loc, inputs, init, outLoops, numLoops,
                      [&](OpBuilder &nb, Location nl, ValueRange args) {
                        return body(nb, nl, args.drop_back());
                      });
}

SmallVector<int64_t> identityLoops(int64_t rank) {
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

SmallVector<int64_t> keptLoops(int64_t rank, ArrayRef<int64_t> reduced) {
  SmallVector<int64_t> kept;
  for (int64_t i = 0; i < rank; ++i)
    if (!llvm::is_contained(reduced, i))
      kept.push_back(i);
  return kept;
}

Value reduceDims(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> reduced, Type acc,
                 Value initValue,
                 function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto inTy = cast<RankedTensorType>(input.getType());
  int64_t rank = inTy.getRank();
  SmallVector<int64_t> kept = keptLoops(rank, reduced);
  SmallVector<OpFoldResult> inSizes = getSizes(b, loc, input), outSizes;
  for (int64_t l : kept)
    outSizes.push_back(inSizes[l]);
  Value empty = emptyTensor(b, loc, outSizes, acc);
  Value init = linalg::FillOp::create(b, loc, ValueRange{initValue}, ValueRange{empty})
                   .getResult(0);
  return buildGeneric(b, loc, {{input, identityLoops(rank)}}, init, kept, rank,
                      [&](OpBuilder &nb, Location nl, ValueRange args) {
                        return combine(nb, nl, args[1], args[0]);
                      });
}

Value reducedCount(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> reduced,
                   Type type) {
  SmallVector<OpFoldResult> inSizes = getSizes(b, loc, input), operands;
  AffineExpr prod = b.getAffineConstantExpr(1);
  for (auto [j, d] : llvm::enumerate(reduced)) {
    prod = prod * b.getAffineSymbolExpr(j);
    operands.push_back(inSizes[d]);
  }
  OpFoldResult count = affine::makeComposedFoldedAffineApply(b, loc, prod, operands);
  if (auto c = getConstantIntValue(count))
    return scalarConstant(b, loc, type, (double)*c);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), cast<Value>(count));
  return convertScalarTo(b, loc, i64, type);
}

Value restoreReducedDims(OpBuilder &b, Location loc, Value v, Value input,
                         ArrayRef<int64_t> reduced) {
  if (reduced.empty())
    return v;
  auto inTy = cast<RankedTensorType>(input.getType());
  auto vTy = cast<RankedTensorType>(v.getType());
  int64_t rank = inTy.getRank(), keptCount = vTy.getRank();
  SmallVector<OpFoldResult> inSizes = getSizes(b, loc, input), vSizes = getSizes(b, loc, v);
  SmallVector<ReassociationIndices> reassoc;
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  // Each kept dim takes the reduced dims before it; the last takes those after too.
  ReassociationIndices group;
  int64_t kept = 0;
  for (int64_t i = 0; i < rank; ++i) {
    group.push_back(i);
    bool r = llvm::is_contained(reduced, i);
    shape.push_back(r ? 1 : vTy.getDimSize(kept));
    sizes.push_back(r ? b.getIndexAttr(1) : vSizes[kept]);
    if (!r && ++kept < keptCount) {
      reassoc.push_back(group);
      group.clear();
    }
  }
  if (keptCount > 0)
    reassoc.push_back(group); // a rank-0 source takes an empty reassociation
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, vTy.getElementType()), v, reassoc, sizes);
}

Value convertTensor(OpBuilder &b, Location loc, Value v, Type to) {
  auto ty = cast<RankedTensorType>(v.getType());
  if (ty.getElementType() == to)
    return v;
  SmallVector<int64_t> loops = identityLoops(ty.getRank());
  return buildMap(b, loc, {{v, loops}}, loops, ty.getRank(), to,
                  [&](OpBuilder &nb, Location nl, ValueRange args) {
                    return convertScalarTo(nb, nl, args[0], to);
                  });
}

Value convertAndCastTo(OpBuilder &b, Location loc, Value v, Type type) {
  return castTo(b, loc, convertTensor(b, loc, v, cast<RankedTensorType>(type).getElementType()),
                type);
}

} // namespace kiln::detail

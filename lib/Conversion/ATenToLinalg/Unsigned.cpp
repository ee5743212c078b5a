//===- Unsigned.cpp - uint8 reductions and products through int16 ---------===//
//
// The reduction, scan, product and scatter lowerings compute with signed
// arith ops. A uint8 operand of those ops is first zero-extended to int16
// (every uint8 value, non-negative), the op is rebuilt on int16, and a uint8
// result is truncated back. Sums, products and scatter-adds wrap modulo 256
// as ATen's uint8 arithmetic does (two's complement arithmetic agrees modulo
// 2^8 at any width); max/min/arg-extremum compare the zero-extended values;
// results of other dtypes (int64 sums, bool any, int64 indices) are unchanged.
// docs/Rationale/unsigned-dtypes.md has the rest of the uint8 story.
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "kiln/Conversion/ATenToLinalg.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::detail;

namespace {
Type widened(Type t, MLIRContext *ctx) {
  if (auto rt = dyn_cast<RankedTensorType>(t); rt && rt.getElementType().isUnsignedInteger())
    return RankedTensorType::get(rt.getShape(), IntegerType::get(ctx, 16));
  return t;
}

Value convertAll(OpBuilder &b, Location loc, Value v, Type to) {
  auto ty = cast<RankedTensorType>(v.getType());
  Type from = ty.getElementType();
  return elementwise(b, loc, {v}, RankedTensorType::get(ty.getShape(), to),
                     [&](OpBuilder &nb, Location nl, ValueRange a) {
                       return fromStorage(
                           nb, nl, convertElement(nb, nl, toStorage(nb, nl, a[0]), from, to), to);
                     });
}

template <typename... OpTs> struct WidenUnsigned : RewritePattern {
  WidenUnsigned(MLIRContext *ctx) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isa<OpTs...>(op))
      return rewriter.notifyMatchFailure(op, "not an op that computes with signed arith");
    // A plain scatter only moves elements; its lowering takes uint8 as is.
    if (auto scatter = dyn_cast<ScatterOp>(op); scatter && scatter.getReduce() == "none")
      return rewriter.notifyMatchFailure(op, "a scatter without a reduction moves uint8 as is");
    MLIRContext *ctx = op->getContext();
    auto isU = [&](Type t) { return widened(t, ctx) != t; };
    if (!llvm::any_of(op->getOperandTypes(), isU) && !llvm::any_of(op->getResultTypes(), isU))
      return rewriter.notifyMatchFailure(op, "no uint8 tensors");
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(isU(v.getType())
                             ? convertAll(rewriter, loc, v, IntegerType::get(ctx, 16))
                             : v);
    SmallVector<Type> types;
    for (Type t : op->getResultTypes())
      types.push_back(widened(t, ctx));
    // A dtype attribute naming uint8 (sum(..., dtype=torch.uint8)) follows.
    SmallVector<NamedAttribute> attrs;
    for (NamedAttribute a : op->getAttrs()) {
      if (auto t = dyn_cast<TypeAttr>(a.getValue()); t && t.getValue().isUnsignedInteger())
        a = NamedAttribute(a.getName(), TypeAttr::get(IntegerType::get(ctx, 16)));
      attrs.push_back(a);
    }
    OperationState state(loc, op->getName(), operands, types, attrs);
    Operation *wide = rewriter.create(state);
    SmallVector<Value> results;
    for (auto [r, t] : llvm::zip(wide->getResults(), op->getResultTypes()))
      results.push_back(r.getType() == t
                            ? Value(r)
                            : convertAll(rewriter, loc, r,
                                         cast<RankedTensorType>(t).getElementType()));
    rewriter.replaceOp(op, results);
    return success();
  }
};
} // namespace

void kiln::populateUnsignedPatterns(RewritePatternSet &patterns) {
  patterns.add<WidenUnsigned<SumDimIntListOp, ProdDimIntOp, AmaxOp, AminOp, AnyDimsOp, AllDimsOp,
                             CountNonzeroOp, MaxDimOp, MinDimOp, ArgmaxOp, ArgminOp, CumsumOp,
                             CumprodOp, MmOp, BmmOp, MatmulOp, OuterOp, AddmmOp, BaddbmmOp,
                             LinearOp, EinsumOp, ScatterOp>>(patterns.getContext());
}

//===- Ops/Linear.cpp - import handlers: matrix products --------------------===//
#include "../ImporterImpl.h"

namespace kiln::importer {

void registerLinearHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  const std::string p = "torch.ops.aten.";
  h[p + "linear.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(w, g.tensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    return g.emitOp<LinearOp>(n, loc, *x, *w, *bias);
  };
  // beta * self + alpha * (lhs @ rhs), the operand names per overload.
  auto addProduct = [&g](auto tag, StringRef lhsName, StringRef rhsName) {
    using OpT = typename decltype(tag)::type;
    std::string l = lhsName.str(), r = rhsName.str();
    return [&g, l, r](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(self, g.tensorArg(n, "self", loc));
      KILN_TRY(a, g.tensorArg(n, l, loc));
      KILN_TRY(b, g.tensorArg(n, r, loc));
      KILN_TRY(beta, g.floatArg(n, "beta", 1.0, loc));
      KILN_TRY(alpha, g.floatArg(n, "alpha", 1.0, loc));
      return g.emitOp<OpT>(n, loc, *self, *a, *b, g.b.getF64FloatAttr(*beta),
                           g.b.getF64FloatAttr(*alpha));
    };
  };
  h[p + "addmm.default"] = addProduct(OpTag<AddmmOp>(), "mat1", "mat2");
  // _trilinear (nn.Bilinear in the Core ATen IR, which torch does not decompose):
  // each input gets size-1 dims at its `expand` positions (ascending, so all reach
  // one rank), the three are multiplied with broadcasting and `sumdim` is summed
  // away. unroll_dim only chooses ATen's loop order.
  h[p + "_trilinear.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    SmallVector<Value> ins;
    int64_t rank = -1;
    for (const char *name : {"i1", "i2", "i3"}) {
      KILN_TRY(t, g.tensorArg(n, name, loc));
      std::string e = std::string("expand") + name[1];
      KILN_TRY(ex, g.intsArg(n, e, std::nullopt, loc));
      SmallVector<int64_t> dims(*ex);
      llvm::sort(dims);
      Value v = *t;
      for (int64_t d : dims) {
        auto ty = cast<RankedTensorType>(v.getType());
        if (d < 0 || d > ty.getRank())
          return g.fail(loc, "_trilinear: " + e + " holds dim " + std::to_string(d) +
                                 ", outside a rank-" + std::to_string(ty.getRank() + 1) + " result");
        SmallVector<int64_t> shape(ty.getShape());
        shape.insert(shape.begin() + d, 1);
        v = UnsqueezeOp::create(g.b, loc, RankedTensorType::get(shape, ty.getElementType()), v, d);
      }
      int64_t r = cast<RankedTensorType>(v.getType()).getRank();
      if (rank >= 0 && r != rank)
        return g.fail(loc, "_trilinear: the expanded inputs have ranks " + std::to_string(rank) +
                               " and " + std::to_string(r));
      rank = r;
      ins.push_back(v);
    }
    // Broadcast shape of two same-rank operands.
    auto bcast = [](RankedTensorType a, RankedTensorType b) {
      SmallVector<int64_t> s;
      for (int64_t i = 0; i < a.getRank(); ++i) {
        int64_t x = a.getDimSize(i), y = b.getDimSize(i);
        s.push_back(x == 1 ? y : y == 1 ? x : x == ShapedType::kDynamic ? y : x);
      }
      return RankedTensorType::get(s, a.getElementType());
    };
    Value prod = ins[0];
    for (int i = 1; i < 3; ++i) {
      auto ty = bcast(cast<RankedTensorType>(prod.getType()), cast<RankedTensorType>(ins[i].getType()));
      prod = MulTensorOp::create(g.b, loc, ty, prod, ins[i]);
    }
    KILN_TRY(sumdim, g.intsArg(n, "sumdim", std::nullopt, loc));
    KILN_TRY(types, g.resultTypes(n, loc));
    if (sumdim->empty()) {
      auto resTy = cast<RankedTensorType>((*types)[0]);
      if (resTy != prod.getType())
        prod = ViewOp::create(g.b, loc, resTy, prod, ValueRange{}, resTy.getShape());
      return g.bindResults(n, prod.getDefiningOp());
    }
    Operation *sum = SumDimIntListOp::create(g.b, loc, (*types)[0], prod,
                                             g.b.getDenseI64ArrayAttr(*sumdim),
                                             g.b.getBoolAttr(false), TypeAttr());
    return g.bindResults(n, sum);
  };
  h[p + "baddbmm.default"] = addProduct(OpTag<BaddbmmOp>(), "batch1", "batch2");
  h[p + "addmv.default"] = addProduct(OpTag<AddmvOp>(), "mat", "vec");
  auto productOf = [&g](auto tag, StringRef rhsName) {
    using OpT = typename decltype(tag)::type;
    std::string r = rhsName.str();
    return [&g, r](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(a, g.tensorArg(n, "self", loc));
      KILN_TRY(b, g.tensorArg(n, r, loc));
      return g.emitOp<OpT>(n, loc, *a, *b);
    };
  };
  h[p + "mm.default"] = productOf(OpTag<MmOp>(), "mat2");
  h[p + "bmm.default"] = productOf(OpTag<BmmOp>(), "mat2");
  h[p + "mv.default"] = productOf(OpTag<MvOp>(), "vec");
  h[p + "dot.default"] = productOf(OpTag<DotOp>(), "tensor");
  h[p + "outer.default"] = productOf(OpTag<OuterOp>(), "vec2");
  h[p + "matmul.default"] = productOf(OpTag<MatmulOp>(), "other");
  h[p + "einsum.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(eq, g.stringArg(n, "equation", std::nullopt, loc));
    KILN_TRY(ts, tensorListArg(g, n, "tensors", loc));
    return g.emitOp<EinsumOp>(n, loc, *ts, *eq);
  };
}

} // namespace kiln::importer

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

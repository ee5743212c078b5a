//===- Ops/Elementwise.cpp - import handlers: elementwise ops ---------------===//
#include "../ImporterImpl.h"

namespace kiln::importer {

void registerElementwiseHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  h["torch.ops.aten.relu.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    return g.emitOp<ReluOp>(n, loc, *x);
  };
  h["torch.ops.aten.gelu.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(approx, g.stringArg(n, "approximate", std::string("none"), loc));
    return g.emitOp<GeluOp>(n, loc, *x, *approx);
  };
  // Binary elementwise ops; a Python-scalar operand becomes a 0-d constant of
  // the result's element type.
  auto binary = [&g](const Object &n, Location loc, auto tag) -> LogicalResult {
    using OpT = typename decltype(tag)::type;
    constexpr bool hasAlpha = std::is_same_v<OpT, AddTensorOp> || std::is_same_v<OpT, SubTensorOp>;
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    auto types = g.resultTypes(n, loc);
    if (failed(types))
      return failure();
    Type elem = cast<RankedTensorType>((*types)[0]).getElementType();
    Value other;
    const Object *arg = g.argOf(n, "other");
    if (arg && (arg->getObject("as_tensor") || arg->getObject("as_optional_tensor"))) {
      KILN_TRY(t, g.tensorArg(n, "other", loc));
      other = *t;
    } else {
      KILN_TRY(v, g.floatArg(n, "other", std::nullopt, loc));
      auto scalarTy = RankedTensorType::get({}, elem);
      TypedAttr value = isa<FloatType>(elem) ? TypedAttr(g.b.getFloatAttr(elem, *v))
                                             : TypedAttr(g.b.getIntegerAttr(elem, (int64_t)*v));
      other = arith::ConstantOp::create(g.b, loc, DenseElementsAttr::get(scalarTy, value));
    }
    if constexpr (hasAlpha) {
      KILN_TRY(alpha, g.floatArg(n, "alpha", 1.0, loc));
      return g.emitOp<OpT>(n, loc, *x, other, g.b.getF64FloatAttr(*alpha));
    } else {
      return g.emitOp<OpT>(n, loc, *x, other);
    }
  };
  for (const char *overload : {"Tensor", "Scalar"}) {
    std::string o = overload;
    h["torch.ops.aten.add." + o] = [binary](const Object &n, Location loc) {
      return binary(n, loc, OpTag<AddTensorOp>());
    };
    h["torch.ops.aten.sub." + o] = [binary](const Object &n, Location loc) {
      return binary(n, loc, OpTag<SubTensorOp>());
    };
    h["torch.ops.aten.mul." + o] = [binary](const Object &n, Location loc) {
      return binary(n, loc, OpTag<MulTensorOp>());
    };
    h["torch.ops.aten.div." + o] = [binary](const Object &n, Location loc) {
      return binary(n, loc, OpTag<DivTensorOp>());
    };
  }
}

} // namespace kiln::importer

//===- Ops/Creation.cpp - import handlers: tensor creation ----------------===//
//
// full, zeros, ones, empty (as zeros), scalar_tensor, their *_like and new_*
// forms and fill all become aten.full of the node's result type; arange,
// linspace and eye keep their own ops. dtype/layout/device arguments are
// not read: the recorded result type already says the dtype.
//
//===----------------------------------------------------------------------===//
#include "Scalars.h"
#include "ShapeUtils.h"

namespace kiln::importer {

using namespace kiln::aten;
using shape::sizesOf;

namespace {

/// Emits aten.full of the node's result type with sizes `statics`/`dynamic`.
LogicalResult emitFull(GraphImporter &g, const Object &n, Location loc,
                       ArrayRef<int64_t> statics, ValueRange dynamic, const ScalarArg &value) {
  KILN_TRY(rty, g.firstTensorResult(n, loc));
  Type dtype = rty->getElementType();
  KILN_TRY(attr, scalarAttr(g, value, dtype, loc));
  return g.emitOp<FullOp>(n, loc, dynamic, g.b.getDenseI64ArrayAttr(statics), *attr);
}

ScalarArg number(int64_t v) { return ScalarArg{ScalarArg::Int, v, 0, {}}; }

/// A handler for a creation op whose sizes come from argument `sizeArg` (or
/// from tensor `self` if empty) and whose value is argument `valueArg` (or
/// `fixed` if empty).
GraphImporter::Handler fullHandler(GraphImporter &g, std::string sizeArg, std::string valueArg,
                                   std::optional<int64_t> fixed) {
  return [&g, sizeArg, valueArg, fixed](const Object &n, Location loc) -> LogicalResult {
    SmallVector<int64_t> statics;
    SmallVector<Value> dynamic;
    if (sizeArg.empty()) {
      KILN_TRY(x, g.tensorArg(n, "self", loc));
      sizesOf(g, *x, loc, statics, dynamic);
    } else if (failed(g.symIntsArg(n, sizeArg, statics, dynamic, loc))) {
      return failure();
    }
    ScalarArg value = number(fixed.value_or(0));
    if (!valueArg.empty()) {
      KILN_TRY(v, scalarArg(g, n, valueArg, loc));
      value = *v;
    }
    return emitFull(g, n, loc, statics, dynamic, value);
  };
}

} // namespace

void registerCreationHandlers(GraphImporter &g) {
  auto &h = g.handlers;
  const std::string aten = "torch.ops.aten.";
  h[aten + "full.default"] = fullHandler(g, "size", "fill_value", std::nullopt);
  h[aten + "full_like.default"] = fullHandler(g, "", "fill_value", std::nullopt);
  h[aten + "new_full.default"] = fullHandler(g, "size", "fill_value", std::nullopt);
  h[aten + "fill.Scalar"] = fullHandler(g, "", "value", std::nullopt);
  h[aten + "scalar_tensor.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(v, scalarArg(g, n, "s", loc));
    return emitFull(g, n, loc, {}, {}, *v);
  };
  for (const char *t : {"zeros.default", "new_zeros.default", "empty.memory_format",
                        "empty_strided.default", "empty_permuted.default", "new_empty.default",
                        "new_empty_strided.default"})
    h[aten + t] = fullHandler(g, "size", "", 0);
  for (const char *t : {"zeros_like.default", "empty_like.default", "zero.default"})
    h[aten + t] = fullHandler(g, "", "", 0);
  for (const char *t : {"ones.default", "new_ones.default"})
    h[aten + t] = fullHandler(g, "size", "", 1);
  h[aten + "ones_like.default"] = fullHandler(g, "", "", 1);
  // fill.Tensor: a 0-d value broadcast to the shape and dtype of self.
  h[aten + "fill.Tensor"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "self", loc));
    KILN_TRY(v, g.tensorArg(n, "value", loc));
    return g.emitOp<FillTensorOp>(n, loc, *x, *v);
  };

  // arange: each bound is an i64 or f64 attribute, or a symbolic size.
  auto arange = [&g](const Object &n, Location loc, bool hasStart,
                     bool hasStep) -> LogicalResult {
    ScalarArg zero = number(0), one = number(1);
    KILN_TRY(start, hasStart ? scalarArg(g, n, "start", loc) : FailureOr<ScalarArg>(zero));
    KILN_TRY(end, scalarArg(g, n, "end", loc));
    KILN_TRY(step, hasStep ? scalarArg(g, n, "step", loc, one) : FailureOr<ScalarArg>(one));
    SmallVector<Value> dynamic;
    auto attrOf = [&](const ScalarArg &s) -> TypedAttr {
      if (s.sym) {
        dynamic.push_back(s.sym);
        return {};
      }
      if (s.kind == ScalarArg::Float)
        return g.b.getF64FloatAttr(s.f);
      return g.b.getI64IntegerAttr(s.i);
    };
    TypedAttr a = attrOf(*start), b = attrOf(*end), c = attrOf(*step);
    return g.emitOp<ArangeOp>(n, loc, dynamic, a, b, c);
  };
  h[aten + "arange.default"] = [arange](const Object &n, Location loc) {
    return arange(n, loc, false, false);
  };
  h[aten + "arange.start"] = [arange](const Object &n, Location loc) {
    return arange(n, loc, true, false);
  };
  h[aten + "arange.start_step"] = [arange](const Object &n, Location loc) {
    return arange(n, loc, true, true);
  };
  h[aten + "linspace.default"] = [&g](const Object &n, Location loc) -> LogicalResult {
    KILN_TRY(start, scalarArg(g, n, "start", loc));
    KILN_TRY(end, scalarArg(g, n, "end", loc));
    KILN_TRY(steps, g.intArg(n, "steps", std::nullopt, loc));
    if (start->sym || end->sym)
      return g.fail(loc, "linspace with a symbolic start or end is not supported");
    return g.emitOp<LinspaceOp>(n, loc, g.b.getF64FloatAttr(start->asDouble()),
                                g.b.getF64FloatAttr(end->asDouble()),
                                g.b.getI64IntegerAttr(*steps));
  };
  auto eye = [&g](const Object &n, Location loc, bool hasM) -> LogicalResult {
    auto rows = g.intArg(n, "n", std::nullopt, loc);
    auto cols = hasM ? g.intArg(n, "m", std::nullopt, loc) : rows;
    if (failed(rows) || failed(cols))
      return g.fail(loc, "eye with a symbolic size is not supported");
    return g.emitOp<EyeOp>(n, loc, g.b.getI64IntegerAttr(*rows), g.b.getI64IntegerAttr(*cols));
  };
  h[aten + "eye.default"] = [eye](const Object &n, Location loc) { return eye(n, loc, false); };
  h[aten + "eye.m"] = [eye](const Object &n, Location loc) { return eye(n, loc, true); };
}

} // namespace kiln::importer

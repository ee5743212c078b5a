//===- Ops/Resampling.cpp - import handlers: upsampling ---------------------===//
#include "../ImporterImpl.h"
#include "ATen/IR/ATenAntialiasOps.h"

namespace kiln::importer {

namespace {
/// A `float[]?` argument: its values, or nothing when absent or None.
FailureOr<std::optional<SmallVector<double>>> optFloatsArg(GraphImporter &g, const Object &node,
                                                           StringRef name, Location loc) {
  if (g.isNone(node, name))
    return std::optional<SmallVector<double>>();
  const Object *arg = g.argOf(node, name);
  const Array *a = arg->getArray("as_floats");
  if (!a)
    return ((void)g.fail(loc, "expected a list of floats for argument '" + name + "'"), failure());
  SmallVector<double> out;
  for (const json::Value &v : *a) {
    auto d = v.getAsNumber();
    if (!d)
      return ((void)g.fail(loc, "expected a list of floats for argument '" + name + "'"),
              failure());
    out.push_back(*d);
  }
  return std::optional<SmallVector<double>>(out);
}

/// The output size and scales of an upsample node: `.vec` overloads give
/// exactly one of output_size and scale_factors; the others give output_size
/// and one optional scale per spatial dim (None becomes 0: "not given").
LogicalResult upsampleSizes(GraphImporter &g, const Object &node, Location loc, size_t n,
                            bool isVec, DenseI64ArrayAttr &size, DenseF64ArrayAttr &scales) {
  // kiln's upsample ops take literal output sizes: F.interpolate(size=<another
  // tensor's symbolic shape>) is refused by name rather than as a malformed list.
  if (const Object *arg = g.argOf(node, "output_size"))
    if (const Array *a = arg->getArray("as_sym_ints"))
      for (const json::Value &v : *a)
        if (const Object *o = v.getAsObject())
          if (o->getString("as_name"))
            return g.fail(loc, (node.getString("target").value_or("upsample").str()) +
                                   ": a symbolic output_size (an interpolation to a size that "
                                   "depends on a dynamic dim) is not supported by kiln; export "
                                   "with that dim static, or interpolate by scale_factor");
  if (isVec) {
    if (!g.isNone(node, "output_size")) {
      KILN_TRY(s, g.intsArg(node, "output_size", std::nullopt, loc));
      size = g.b.getDenseI64ArrayAttr(*s);
    }
    KILN_TRY(factors, optFloatsArg(g, node, "scale_factors", loc));
    if (!size == !*factors)
      return g.fail(loc, "expected exactly one of output_size and scale_factors");
    if (*factors)
      scales = g.b.getDenseF64ArrayAttr(**factors);
    return success();
  }
  KILN_TRY(s, g.intsArg(node, "output_size", std::nullopt, loc));
  size = g.b.getDenseI64ArrayAttr(*s);
  static const char *names[3][3] = {
      {"scales"}, {"scales_h", "scales_w"}, {"scales_d", "scales_h", "scales_w"}};
  SmallVector<double> values;
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    if (g.isNone(node, names[n - 1][i])) {
      values.push_back(0.0);
      continue;
    }
    KILN_TRY(v, g.floatArg(node, names[n - 1][i], std::nullopt, loc));
    values.push_back(*v);
    any = true;
  }
  if (any)
    scales = g.b.getDenseF64ArrayAttr(values);
  return success();
}

/// What every upsample reads: its input and its output size or scale factors.
struct UpsampleArgs {
  Value x;
  DenseI64ArrayAttr size;
  DenseF64ArrayAttr scales;
};
FailureOr<UpsampleArgs> readUpsample(GraphImporter &g, const Object &node, Location loc,
                                     size_t n, bool isVec) {
  KILN_TRY(x, g.tensorArg(node, isVec ? "input" : "self", loc));
  UpsampleArgs a{*x, {}, {}};
  if (failed(upsampleSizes(g, node, loc, n, isVec, a.size, a.scales)))
    return failure();
  return a;
}
} // namespace

void registerResamplingHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  const std::string p = "torch.ops.aten.";
  auto nearest = [&g](auto tag, size_t n, bool isVec) {
    using OpT = typename decltype(tag)::type;
    return [&g, n, isVec](const Object &node, Location loc) -> LogicalResult {
      KILN_TRY(a, readUpsample(g, node, loc, n, isVec));
      return g.emitOp<OpT>(node, loc, a->x, a->size, a->scales);
    };
  };
  auto interp = [&g](auto tag, size_t n, bool isVec) {
    using OpT = typename decltype(tag)::type;
    return [&g, n, isVec](const Object &node, Location loc) -> LogicalResult {
      KILN_TRY(a, readUpsample(g, node, loc, n, isVec));
      KILN_TRY(align, g.boolArg(node, "align_corners", std::nullopt, loc));
      return g.emitOp<OpT>(node, loc, a->x, a->size, a->scales, g.b.getBoolAttr(*align));
    };
  };
  for (bool isVec : {true, false}) {
    std::string o = isVec ? ".vec" : ".default";
    h[p + "upsample_nearest1d" + o] = nearest(OpTag<UpsampleNearest1dOp>(), 1, isVec);
    h[p + "upsample_nearest2d" + o] = nearest(OpTag<UpsampleNearest2dOp>(), 2, isVec);
    h[p + "upsample_nearest3d" + o] = nearest(OpTag<UpsampleNearest3dOp>(), 3, isVec);
    h[p + "_upsample_nearest_exact1d" + o] = nearest(OpTag<UpsampleNearestExact1dOp>(), 1, isVec);
    h[p + "_upsample_nearest_exact2d" + o] = nearest(OpTag<UpsampleNearestExact2dOp>(), 2, isVec);
    h[p + "_upsample_nearest_exact3d" + o] = nearest(OpTag<UpsampleNearestExact3dOp>(), 3, isVec);
    h[p + "upsample_linear1d" + o] = interp(OpTag<UpsampleLinear1dOp>(), 1, isVec);
    h[p + "upsample_bilinear2d" + o] = interp(OpTag<UpsampleBilinear2dOp>(), 2, isVec);
    h[p + "upsample_trilinear3d" + o] = interp(OpTag<UpsampleTrilinear3dOp>(), 3, isVec);
    h[p + "upsample_bicubic2d" + o] = interp(OpTag<UpsampleBicubic2dOp>(), 2, isVec);
    h[p + "_upsample_bilinear2d_aa" + o] = interp(OpTag<UpsampleBilinear2dAAOp>(), 2, isVec);
    h[p + "_upsample_bicubic2d_aa" + o] = interp(OpTag<UpsampleBicubic2dAAOp>(), 2, isVec);
  }
}

} // namespace kiln::importer

//===- Ops/Convolution.cpp - import handlers: convolutions ------------------===//
#include "../ImporterImpl.h"
#include "../JsonItems.h"

namespace kiln::importer {

namespace {
/// ATen's "int or k ints" arguments: [v] -> k copies of v; longer lists as
/// given (the verifier checks their length).
SmallVector<int64_t> perDim(SmallVector<int64_t> v, int64_t k) {
  if (v.size() == 1 && k > 1)
    v.assign(k, v[0]);
  return v;
}

/// Spatial dims of a convolution, from its weight ([F, C/G, k dims]).
int64_t spatialDims(Value weight) { return cast<RankedTensorType>(weight.getType()).getRank() - 2; }

/// The geometry of aten.convolution and aten.convolution_backward, as their
/// schemas list it (every argument required).
struct ConvGeometry {
  SmallVector<int64_t> stride, padding, dilation;
  bool transposed;
  SmallVector<int64_t> outPad;
  int64_t groups;
};

FailureOr<ConvGeometry> convGeometryArgs(GraphImporter &g, const Object &n, Location loc) {
  KILN_TRY(stride, g.intsArg(n, "stride", std::nullopt, loc));
  KILN_TRY(padding, g.intsArg(n, "padding", std::nullopt, loc));
  KILN_TRY(dilation, g.intsArg(n, "dilation", std::nullopt, loc));
  KILN_TRY(transposed, g.boolArg(n, "transposed", std::nullopt, loc));
  KILN_TRY(outPad, g.intsArg(n, "output_padding", std::nullopt, loc));
  KILN_TRY(groups, g.intArg(n, "groups", std::nullopt, loc));
  return ConvGeometry{*stride, *padding, *dilation, *transposed, *outPad, *groups};
}
} // namespace

void registerConvolutionHandlers(GraphImporter &g) {
  using namespace kiln::aten;
  auto &h = g.handlers;
  h["torch.ops.aten.conv2d.default"] = [&g](const Object &n,
                                                    Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(w, g.tensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    KILN_TRY(stride, g.intsArg(n, "stride", SmallVector<int64_t>{1, 1}, loc));
    KILN_TRY(padding, g.intsArg(n, "padding", SmallVector<int64_t>{0, 0}, loc));
    KILN_TRY(dilation, g.intsArg(n, "dilation", SmallVector<int64_t>{1, 1}, loc));
    KILN_TRY(groups, g.intArg(n, "groups", 1, loc));
    return g.emitOp<Conv2dOp>(n, loc, *x, *w, *bias, pairOf(*stride), pairOf(*padding),
                            pairOf(*dilation), *groups);
  };

  // Everything else becomes aten.convolution; the weight's rank says how many
  // spatial dims there are.
  auto emitConvolution = [&g](const Object &n, Location loc, Value x, Value w, Value bias,
                              SmallVector<int64_t> stride, SmallVector<int64_t> padding,
                              SmallVector<int64_t> dilation, bool transposed,
                              SmallVector<int64_t> outPad, int64_t groups) -> LogicalResult {
    int64_t k = spatialDims(w);
    if (k < 1 || k > 3)
      return g.fail(loc, "convolution with a rank-" + std::to_string(k + 2) +
                             " weight: kiln convolves 1, 2 or 3 spatial dims");
    return g.emitOp<ConvolutionOp>(n, loc, x, w, bias, perDim(stride, k), perDim(padding, k),
                                   perDim(dilation, k), transposed, perDim(outPad, k), groups);
  };

  h["torch.ops.aten.convolution.default"] = [&g, emitConvolution](const Object &n,
                                                                  Location loc) -> LogicalResult {
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(w, g.tensorArg(n, "weight", loc));
    KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
    KILN_TRY(c, convGeometryArgs(g, n, loc));
    return emitConvolution(n, loc, *x, *w, *bias, c->stride, c->padding, c->dilation,
                           c->transposed, c->outPad, c->groups);
  };

  // conv1d / conv3d (conv2d above keeps its own op for the default IR).
  for (const char *name : {"conv1d", "conv3d"}) {
    h[std::string("torch.ops.aten.") + name + ".default"] =
        [&g, emitConvolution](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "input", loc));
      KILN_TRY(w, g.tensorArg(n, "weight", loc));
      KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
      KILN_TRY(stride, g.intsArg(n, "stride", SmallVector<int64_t>{1}, loc));
      KILN_TRY(padding, g.intsArg(n, "padding", SmallVector<int64_t>{0}, loc));
      KILN_TRY(dilation, g.intsArg(n, "dilation", SmallVector<int64_t>{1}, loc));
      KILN_TRY(groups, g.intArg(n, "groups", 1, loc));
      return emitConvolution(n, loc, *x, *w, *bias, *stride, *padding, *dilation, false, {0},
                             *groups);
    };
  }

  // conv{1,2,3}d.padding: padding "valid" (none) or "same" (the output keeps
  // the input's size at stride 1; an odd total pads one more on the high side,
  // done with an explicit constant_pad_nd first).
  for (const char *name : {"conv1d", "conv2d", "conv3d"}) {
    h[std::string("torch.ops.aten.") + name + ".padding"] =
        [&g, emitConvolution, name](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "input", loc));
      KILN_TRY(w, g.tensorArg(n, "weight", loc));
      KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
      KILN_TRY(stride, g.intsArg(n, "stride", SmallVector<int64_t>{1}, loc));
      KILN_TRY(mode, g.stringArg(n, "padding", std::string("valid"), loc));
      KILN_TRY(dilation, g.intsArg(n, "dilation", SmallVector<int64_t>{1}, loc));
      KILN_TRY(groups, g.intArg(n, "groups", 1, loc));
      int64_t k = spatialDims(*w);
      SmallVector<int64_t> pad(std::max<int64_t>(k, 1), 0);
      Value input = *x;
      if (*mode == "same") {
        if (llvm::any_of(*stride, [](int64_t s) { return s != 1; }))
          return g.fail(loc, std::string("aten.") + name +
                                 ".padding: padding='same' needs stride 1 (as in PyTorch)");
        auto wTy = cast<RankedTensorType>(w->getType());
        auto dil = perDim(*dilation, k);
        if ((int64_t)dil.size() != k)
          return g.fail(loc, std::string("aten.") + name + ".padding: dilation has " +
                                 std::to_string(dil.size()) + " entries, expected " +
                                 std::to_string(k));
        auto xTy = cast<RankedTensorType>(input.getType());
        SmallVector<int64_t> extra, shape(xTy.getShape());
        bool any = false;
        for (int64_t i = k - 1; i >= 0; --i) {
          if (wTy.isDynamicDim(2 + i))
            return g.fail(loc, std::string("aten.") + name +
                                   ".padding: padding='same' needs a static kernel size");
          int64_t total = dil[i] * (wTy.getDimSize(2 + i) - 1);
          pad[i] = total / 2;
          int64_t hi = total - 2 * pad[i];
          extra.append({0, hi});
          int64_t d = xTy.getRank() - k + i;
          if (hi && shape[d] != ShapedType::kDynamic)
            shape[d] += hi;
          any |= hi != 0;
        }
        if (any)
          input = ConstantPadNdOp::create(g.b, loc,
                                          RankedTensorType::get(shape, xTy.getElementType()),
                                          input, extra, APFloat(0.0));
      } else if (*mode != "valid") {
        return g.fail(loc, std::string("aten.") + name + ".padding: padding must be 'valid' or "
                                                          "'same', got '" + *mode + "'");
      }
      return emitConvolution(n, loc, input, *w, *bias, *stride, pad, *dilation, false, {0},
                             *groups);
    };
  }

  // conv_transpose{1,2,3}d: weight [C_in, C_out / groups, k dims].
  for (const char *target : {"torch.ops.aten.conv_transpose1d.default",
                             "torch.ops.aten.conv_transpose2d.input",
                             "torch.ops.aten.conv_transpose3d.input"}) {
    h[target] = [&g, emitConvolution](const Object &n, Location loc) -> LogicalResult {
      KILN_TRY(x, g.tensorArg(n, "input", loc));
      KILN_TRY(w, g.tensorArg(n, "weight", loc));
      KILN_TRY(bias, g.optTensorArg(n, "bias", loc));
      KILN_TRY(stride, g.intsArg(n, "stride", SmallVector<int64_t>{1}, loc));
      KILN_TRY(padding, g.intsArg(n, "padding", SmallVector<int64_t>{0}, loc));
      KILN_TRY(outPad, g.intsArg(n, "output_padding", SmallVector<int64_t>{0}, loc));
      KILN_TRY(groups, g.intArg(n, "groups", 1, loc));
      KILN_TRY(dilation, g.intsArg(n, "dilation", SmallVector<int64_t>{1}, loc));
      return emitConvolution(n, loc, *x, *w, *bias, *stride, *padding, *dilation, true, *outPad,
                             *groups);
    };
  }

  // convolution_backward: the three gradients; those output_mask leaves out
  // are None outputs in the graph and unspecified values here.
  h["torch.ops.aten.convolution_backward.default"] = [&g](const Object &n,
                                                          Location loc) -> LogicalResult {
    KILN_TRY(gOut, g.tensorArg(n, "grad_output", loc));
    KILN_TRY(x, g.tensorArg(n, "input", loc));
    KILN_TRY(w, g.tensorArg(n, "weight", loc));
    KILN_TRY(c, convGeometryArgs(g, n, loc));
    const Object *maskArg = g.argOf(n, "output_mask");
    const Array *maskList = maskArg ? maskArg->getArray("as_bools") : nullptr;
    if (!maskList || maskList->size() != 3)
      return g.fail(loc, "aten.convolution_backward: expected three bools for 'output_mask'");
    SmallVector<bool> mask;
    for (const json::Value &v : *maskList)
      mask.push_back(v.getAsBoolean().value_or(false));
    int64_t k = spatialDims(*w);
    auto wTy = cast<RankedTensorType>(w->getType());
    int64_t biasSize = c->transposed ? ShapedType::kDynamic : wTy.getDimSize(0);
    if (!g.isNone(n, "bias_sizes")) {
      KILN_TRY(bs, g.intsArg(n, "bias_sizes", std::nullopt, loc));
      if (bs->size() == 1)
        biasSize = (*bs)[0];
    }
    SmallVector<Type> types{x->getType(), w->getType(),
                            RankedTensorType::get({biasSize}, wTy.getElementType())};
    auto op = ConvolutionBackwardOp::create(
        g.b, loc, types, *gOut, *x, *w, g.b.getDenseI64ArrayAttr(perDim(c->stride, k)),
        g.b.getDenseI64ArrayAttr(perDim(c->padding, k)),
        g.b.getDenseI64ArrayAttr(perDim(c->dilation, k)), g.b.getBoolAttr(c->transposed),
        g.b.getDenseI64ArrayAttr(perDim(c->outPad, k)), g.b.getI64IntegerAttr(c->groups),
        g.b.getDenseBoolArrayAttr(mask));
    const Array *outs = n.getArray("outputs");
    for (auto [i, o] : llvm::enumerate(itemsOf(outs))) {
      const Object *t = o.getAsObject() ? o.getAsObject()->getObject("as_tensor") : nullptr;
      if (t && i < 3)
        g.varOf[t->getString("name").value_or("")] = g.newVar(op->getResult(i));
    }
    return success();
  };
}

} // namespace kiln::importer

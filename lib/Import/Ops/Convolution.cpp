//===- Ops/Convolution.cpp - import handlers: convolutions ------------------===//
#include "../ImporterImpl.h"
#include "../JsonItems.h"
#include "ShapeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace kiln::importer {

namespace {
using namespace kiln::aten;
using shape::dimSize;
using shape::kDyn;
using shape::typeOf;
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

/// True if argument `name` of `n` is a symbolic int (a SymInt node output).
bool isSymIntArg(GraphImporter &g, const Object &n, StringRef name) {
  const Object *arg = g.argOf(n, name);
  const Object *sym = arg ? arg->getObject("as_sym_int") : nullptr;
  return sym && sym->getString("as_name");
}

/// aten.view of `v` to sizes given as index values (constants become static).
Value viewToSizes(OpBuilder &b, Location loc, Value v, ArrayRef<Value> sizes) {
  shape::Mixed m;
  for (Value s : sizes)
    m.add(s);
  return ViewOp::create(b, loc, RankedTensorType::get(m.statics, typeOf(v).getElementType()), v,
                        m.dynamic, m.statics);
}

/// A convolution whose group count is symbolic: timm's CondConv folds the batch
/// into the channels (input [1, B*C, ...], per-sample weights [B*O, C/g, ...],
/// groups = B*g). kiln's convolution ops take a literal group count, so this is
/// the same sum written with views: the kernel taps of the padded input are
/// strided slices, joined as cols [N, G, Ci*K, L] (Ci in-channels per group, K
/// taps, L output positions), and the weight viewed as [1, G, Co, Ci*K] (its
/// row-major order is channel-major, tap-minor, as the cols) multiplies them:
/// out [N, G, Co, L] viewed as [N, G*Co, out dims], plus the bias.
LogicalResult emitSymbolicGroupsConv(GraphImporter &g, const Object &n, Location loc, Value x,
                                     Value w, Value bias, SmallVector<int64_t> stride,
                                     SmallVector<int64_t> padding, SmallVector<int64_t> dilation,
                                     Value groups) {
  OpBuilder &b = g.b;
  auto xTy = typeOf(x), wTy = typeOf(w);
  int64_t k = wTy.getRank() - 2;
  if (k < 1 || k > 3 || xTy.getRank() != k + 2)
    return g.fail(loc, "convolution with a symbolic group count: kiln needs a batched input "
                       "of rank " + std::to_string(k + 2) + " and 1 to 3 spatial dims");
  for (int64_t d = 1; d < wTy.getRank(); ++d)
    if (wTy.isDynamicDim(d))
      return g.fail(loc, "convolution with a symbolic group count: kiln needs static kernel "
                         "sizes and in-channels per group (weight dim " + std::to_string(d) +
                         " is symbolic)");
  stride = perDim(stride, k);
  padding = perDim(padding, k);
  dilation = perDim(dilation, k);
  if ((int64_t)stride.size() != k || (int64_t)padding.size() != k || (int64_t)dilation.size() != k)
    return g.fail(loc, "convolution: stride, padding and dilation need " + std::to_string(k) +
                           " entries each");
  Type et = xTy.getElementType();
  auto idx = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };

  // Zero padding of the spatial dims.
  Value xp = x;
  if (llvm::any_of(padding, [](int64_t p) { return p != 0; })) {
    SmallVector<int64_t> pads, shape(xTy.getShape());
    for (int64_t i = k - 1; i >= 0; --i)
      pads.append({padding[i], padding[i]});
    for (int64_t i = 0; i < k; ++i)
      if (shape[2 + i] != kDyn)
        shape[2 + i] += 2 * padding[i];
    xp = ConstantPadNdOp::create(b, loc, RankedTensorType::get(shape, et), x, pads, APFloat(0.0));
  }
  // Output sizes: (padded - dilation * (kernel - 1) - 1) / stride + 1.
  SmallVector<Value> outSizes;
  SmallVector<int64_t> outStatic;
  Value positions = idx(1);
  for (int64_t i = 0; i < k; ++i) {
    int64_t kk = wTy.getDimSize(2 + i);
    Value span = arith::SubIOp::create(b, loc, dimSize(b, loc, xp, 2 + i), idx(dilation[i] * (kk - 1) + 1));
    Value o = arith::AddIOp::create(
        b, loc, arith::DivSIOp::create(b, loc, span, idx(stride[i])), idx(1));
    int64_t padded = typeOf(xp).getDimSize(2 + i);
    if (padded != kDyn) {
      int64_t os = (padded - dilation[i] * (kk - 1) - 1) / stride[i] + 1;
      if (os < 1)
        return g.fail(loc, "convolution: the kernel is larger than the padded input");
      o = idx(os);
    }
    outSizes.push_back(o);
    APInt c;
    outStatic.push_back(matchPattern(o, m_ConstantInt(&c)) ? c.getSExtValue() : kDyn);
    positions = arith::MulIOp::create(b, loc, positions, o);
  }
  Value nb = dimSize(b, loc, x, 0);
  int64_t ci = wTy.getDimSize(1), taps = 1;
  for (int64_t i = 0; i < k; ++i)
    taps *= wTy.getDimSize(2 + i);
  // One strided slice per kernel tap, viewed as [N, G, Ci, 1, L].
  SmallVector<Value> parts;
  for (int64_t t = 0; t < taps; ++t) {
    Value cur = xp;
    int64_t rest = t;
    SmallVector<int64_t> tap(k);
    for (int64_t i = k - 1; i >= 0; --i) {
      tap[i] = rest % wTy.getDimSize(2 + i);
      rest /= wTy.getDimSize(2 + i);
    }
    for (int64_t i = 0; i < k; ++i) {
      int64_t start = tap[i] * dilation[i];
      Value end = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, outSizes[i], idx(1)),
                                        idx(stride[i])),
          idx(start + 1));
      SmallVector<int64_t> shape(typeOf(cur).getShape());
      shape[2 + i] = outStatic[i];
      cur = shape::makeSlice(b, loc, cur, RankedTensorType::get(shape, et), 2 + i, idx(start), end,
                             stride[i]);
    }
    parts.push_back(viewToSizes(b, loc, cur, {nb, groups, idx(ci), idx(1), positions}));
  }
  Value cols = parts[0];
  if (taps > 1) {
    SmallVector<int64_t> shape(typeOf(parts[0]).getShape());
    shape[3] = taps;
    cols = CatOp::create(b, loc, RankedTensorType::get(shape, et), parts, 3);
  }
  cols = viewToSizes(b, loc, cols, {nb, groups, idx(ci * taps), positions});
  Value cw = dimSize(b, loc, w, 0);
  Value co = arith::DivSIOp::create(b, loc, cw, groups);
  Value wv = viewToSizes(b, loc, w, {idx(1), groups, co, idx(ci * taps)});
  SmallVector<int64_t> prodShape{typeOf(cols).getDimSize(0), typeOf(cols).getDimSize(1),
                                 typeOf(wv).getDimSize(2), typeOf(cols).getDimSize(3)};
  Value prod = MatmulOp::create(b, loc, RankedTensorType::get(prodShape, et), wv, cols);
  SmallVector<Value> outDims{nb, cw};
  outDims.append(outSizes.begin(), outSizes.end());
  Value out = viewToSizes(b, loc, prod, outDims);
  if (bias) {
    SmallVector<Value> bdims{cw};
    for (int64_t i = 0; i < k; ++i)
      bdims.push_back(idx(1));
    Value bv = viewToSizes(b, loc, bias, bdims);
    out = AddTensorOp::create(b, loc, out.getType(), out, bv, b.getF64FloatAttr(1.0));
  }
  KILN_TRY(types, g.resultTypes(n, loc));
  if (types->size() != 1)
    return g.fail(loc, "convolution: expected one result");
  auto resTy = cast<RankedTensorType>((*types)[0]);
  if (resTy.getRank() != typeOf(out).getRank())
    return g.fail(loc, "convolution: export recorded a result of rank " +
                           std::to_string(resTy.getRank()));
  SmallVector<Value> finalDims{nb, cw};
  finalDims.append(outSizes.begin(), outSizes.end());
  SmallVector<int64_t> statics;
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < resTy.getRank(); ++d) {
    statics.push_back(resTy.getDimSize(d));
    if (resTy.isDynamicDim(d))
      dyn.push_back(finalDims[d]);
  }
  Operation *fin = ViewOp::create(b, loc, resTy, out, dyn, statics);
  return g.bindResults(n, fin);
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
    if (isSymIntArg(g, n, "groups")) {
      KILN_TRY(sg, g.symIntArg(n, "groups", std::nullopt, loc));
      return emitSymbolicGroupsConv(g, n, loc, *x, *w, *bias, *stride, *padding, *dilation, *sg);
    }
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
    if (isSymIntArg(g, n, "groups")) {
      KILN_TRY(transposed, g.boolArg(n, "transposed", std::nullopt, loc));
      if (*transposed)
        return g.fail(loc, "transposed convolution with a symbolic group count: not supported by kiln");
      KILN_TRY(stride, g.intsArg(n, "stride", std::nullopt, loc));
      KILN_TRY(padding, g.intsArg(n, "padding", std::nullopt, loc));
      KILN_TRY(dilation, g.intsArg(n, "dilation", std::nullopt, loc));
      KILN_TRY(sg, g.symIntArg(n, "groups", std::nullopt, loc));
      return emitSymbolicGroupsConv(g, n, loc, *x, *w, *bias, *stride, *padding, *dilation, *sg);
    }
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
      if (isSymIntArg(g, n, "groups")) {
        KILN_TRY(sg, g.symIntArg(n, "groups", std::nullopt, loc));
        return emitSymbolicGroupsConv(g, n, loc, *x, *w, *bias, *stride, *padding, *dilation, *sg);
      }
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

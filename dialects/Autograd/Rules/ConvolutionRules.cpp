//===- ConvolutionRules.cpp - derivatives of conv2d and convolution (1- to 3-d, direct and transposed) -===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// `v` with a unit dim inserted at 2 ([N, C, L] -> [N, C, 1, L]), and back.
Value unitHeight(OpBuilder &b, Location loc, Value v) {
  auto ty = tensorType(v);
  SmallVector<int64_t> shape(ty.getShape());
  shape.insert(shape.begin() + 2, 1);
  return UnsqueezeOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()), v, 2);
}
Value dropHeight(OpBuilder &b, Location loc, Value v, Type like) {
  return SqueezeDimsOp::create(b, loc, like, v, ArrayRef<int64_t>{2});
}

/// A batched 1-d convolution is the 2-d one over a unit height (stride,
/// dilation 1 and padding 0 along it): its gradients are those of the 2-d
/// convolution of the lifted operands, with the unit height dropped.
template <typename OpT>
LogicalResult conv1dVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out, ArrayRef<int64_t> outputPadding) {
  Location loc = op.getLoc();
  Value x = op.getInput(), w = op.getWeight();
  auto lift = [&](ArrayRef<int64_t> v, int64_t unit) {
    return b.getDenseI64ArrayAttr({unit, v.empty() ? unit : v[0]});
  };
  bool bias = op.getBias() && needed[2];
  auto wTy = tensorType(w);
  auto biasTy = RankedTensorType::get({wTy.getDimSize(0)}, wTy.getElementType());
  Value x4 = unitHeight(b, loc, x), w4 = unitHeight(b, loc, w), g4 = unitHeight(b, loc, cts[0]);
  auto bw = ConvolutionBackwardOp::create(
      b, loc, TypeRange{x4.getType(), w4.getType(), biasTy}, g4, x4, w4, lift(op.getStride(), 1),
      lift(op.getPadding(), 0), lift(op.getDilation(), 1), b.getBoolAttr(false),
      lift(outputPadding, 0), op.getGroupsAttr(),
      b.getDenseBoolArrayAttr({needed[0], needed[1], bias}));
  if (needed[0])
    out[0] = dropHeight(b, loc, bw.getGradInput(), x.getType());
  if (needed[1])
    out[1] = dropHeight(b, loc, bw.getGradWeight(), w.getType());
  if (bias)
    out[2] = viewAs(b, loc, bw.getGradBias(), op.getBias());
  return success();
}

/// A batched 3-d convolution is, per temporal tap i, a 2-d convolution of
/// the frames it reads (x padded in time, frames i*dt, i*dt + st, ...) with
/// the filter's slice w[:, :, i], the output frames folded into the batch:
/// its gradients are those 2-d convolutions' (aten.convolution_backward), the
/// filter's stacked back along time and the input's scattered back onto the
/// frames each tap read. Needs static time, height and width.
template <typename OpT>
LogicalResult conv3dVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value x = op.getInput(), w = op.getWeight(), g = cts[0];
  auto xTy = tensorType(x), wTy = tensorType(w), gTy = tensorType(g);
  for (int64_t d = 1; d < 5; ++d)
    if (xTy.isDynamicDim(d) || gTy.isDynamicDim(d))
      return op.emitError("cannot differentiate a 3-d convolution with a dynamic channel or spatial dim yet");
  auto param = [](ArrayRef<int64_t> v, int64_t i, int64_t dflt) {
    return v.empty() ? dflt : v.size() == 1 ? v[0] : v[i];
  };
  ArrayRef<int64_t> st = op.getStride(), pd = op.getPadding(), dl = op.getDilation();
  int64_t sT = param(st, 0, 1), pT = param(pd, 0, 0), dT = param(dl, 0, 1);
  auto spatial = [&](ArrayRef<int64_t> v, int64_t dflt) {
    return b.getDenseI64ArrayAttr({param(v, 1, dflt), param(v, 2, dflt)});
  };
  Type elem = xTy.getElementType();
  int64_t C = xTy.getDimSize(1), T = xTy.getDimSize(2), H = xTy.getDimSize(3), W = xTy.getDimSize(4);
  int64_t F = wTy.getDimSize(0), Cg = wTy.getDimSize(1), KT = wTy.getDimSize(2);
  int64_t KH = wTy.getDimSize(3), KW = wTy.getDimSize(4);
  int64_t TO = gTy.getDimSize(2), HO = gTy.getDimSize(3), WO = gTy.getDimSize(4);
  int64_t dyn = ShapedType::kDynamic;
  // Frames folded into the batch: [N, Ch, TO, h, w] -> [N*TO, Ch, h, w], and back.
  SmallVector<Value> nb;
  if (xTy.isDynamicDim(0))
    nb.push_back(arith::MulIOp::create(b, loc, tensor::DimOp::create(b, loc, x, 0),
                                       arith::ConstantIndexOp::create(b, loc, TO)));
  int64_t NB = xTy.isDynamicDim(0) ? dyn : xTy.getDimSize(0) * TO;
  SmallVector<Value> n = dynamicDims(b, loc, x);
  auto fold = [&](Value v, int64_t ch, int64_t h, int64_t wd) {
    v = permute(b, loc, v, {0, 2, 1, 3, 4});
    return viewTo(b, loc, v, {NB, ch, h, wd}, nb);
  };
  auto unfold = [&](Value v, int64_t ch, int64_t h, int64_t wd) {
    v = viewTo(b, loc, v, {xTy.getDimSize(0), TO, ch, h, wd}, n.empty() ? ValueRange{} : ValueRange{n[0]});
    return permute(b, loc, v, {0, 2, 1, 3, 4});
  };
  Value xp = pT ? ConstantPadNdOp::create(
                      b, loc, RankedTensorType::get({xTy.getDimSize(0), C, T + 2 * pT, H, W}, elem), x,
                      b.getDenseI64ArrayAttr({0, 0, 0, 0, pT, pT}), b.getF64FloatAttr(0.0))
                : x;
  Value g2 = fold(g, F, HO, WO);
  auto tapTy = RankedTensorType::get({F, Cg, 1, KH, KW}, elem);
  auto biasTy = RankedTensorType::get({F}, elem);
  SmallVector<Value> dWs;
  Value dX;
  for (int64_t i = 0; i < KT; ++i) {
    auto framesTy = RankedTensorType::get({xTy.getDimSize(0), C, TO, H, W}, elem);
    Value frames = SliceTensorOp::create(b, loc, framesTy, xp, ValueRange{},
                                         b.getDenseI64ArrayAttr({i * dT, i * dT + (TO - 1) * sT + 1}),
                                         b.getI64IntegerAttr(2), b.getI64IntegerAttr(sT));
    Value x2 = fold(frames, C, H, W);
    Value wi = SliceTensorOp::create(b, loc, tapTy, w, ValueRange{}, b.getDenseI64ArrayAttr({i, i + 1}),
                                     b.getI64IntegerAttr(2), b.getI64IntegerAttr(1));
    wi = viewTo(b, loc, wi, {F, Cg, KH, KW}, {});
    auto bw = ConvolutionBackwardOp::create(
        b, loc, TypeRange{x2.getType(), wi.getType(), biasTy}, g2, x2, wi, spatial(st, 1), spatial(pd, 0),
        spatial(dl, 1), b.getBoolAttr(false), b.getDenseI64ArrayAttr({0, 0}), op.getGroupsAttr(),
        b.getDenseBoolArrayAttr({needed[0], needed[1], false}));
    if (needed[1])
      dWs.push_back(viewTo(b, loc, bw.getGradWeight(), {F, Cg, 1, KH, KW}, {}));
    if (needed[0]) {
      // The frames tap i read: o*sT - pT + i*dT, outside [0, T) in the padding.
      SmallVector<int64_t> index;
      for (int64_t o = 0; o < TO; ++o) {
        int64_t t = o * sT - pT + i * dT;
        index.push_back(t >= 0 && t < T ? t : -1);
      }
      Value part = scatterTaps(b, loc, unfold(bw.getGradInput(), C, H, W), 2, T, 1, index,
                               SmallVector<double>(TO, 1.0));
      addTo(b, loc, dX, part);
    }
  }
  if (needed[0])
    out[0] = dX;
  if (needed[1])
    out[1] = dWs.size() == 1 ? dWs[0] : CatOp::create(b, loc, w.getType(), dWs, b.getI64IntegerAttr(2)).getResult();
  if (op.getBias() && needed[2])
    out[2] = viewAs(b, loc, sumDims(b, loc, g, {0, 2, 3, 4}, false), op.getBias());
  return success();
}

template <typename OpT>
LogicalResult convVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                      SmallVectorImpl<Value> &out, bool transposed, ArrayRef<int64_t> outputPadding);
LogicalResult transposedConvVjp(ConvolutionOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                                SmallVectorImpl<Value> &out);

/// An unbatched convolution (input [C, spatial...]) is the batched one over a
/// batch of one: its gradients are those of a copy of the op on the input
/// with a leading unit dim, the input's gradient with that dim dropped.
template <typename OpT>
LogicalResult unbatchedConvVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                               SmallVectorImpl<Value> &out, bool transposed,
                               ArrayRef<int64_t> outputPadding) {
  Location loc = op.getLoc();
  auto lift = [&](Value v) {
    auto ty = tensorType(v);
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, ty.getShape());
    return UnsqueezeOp::create(b, loc, RankedTensorType::get(shape, ty.getElementType()), v, 0).getResult();
  };
  Value x1 = lift(op.getInput()), g1 = lift(cts[0]);
  auto lifted = cast<OpT>(b.clone(*op.getOperation()));
  lifted->setOperand(0, x1);
  lifted->getResult(0).setType(g1.getType());
  SmallVector<Value> o(out.size());
  LogicalResult r = failure();
  if constexpr (std::is_same_v<OpT, ConvolutionOp>) {
    if (lifted.getTransposed())
      r = transposedConvVjp(lifted, b, {g1}, needed, o);
    else
      r = convVjp(lifted, b, {g1}, needed, o, transposed, outputPadding);
  } else {
    r = convVjp(lifted, b, {g1}, needed, o, transposed, outputPadding);
  }
  lifted->erase();
  if (failed(r))
    return failure();
  if (needed[0])
    out[0] = SqueezeDimsOp::create(b, loc, op.getInput().getType(), o[0], ArrayRef<int64_t>{0});
  for (size_t i = 1; i < out.size(); ++i)
    if (needed[i])
      out[i] = o[i];
  return success();
}

/// A transposed convolution y = conv_transpose(x, w) (w [C_in, C_out / g,
/// k...]) is the adjoint of the direct convolution D(., w) with the same
/// stride, padding, dilation and groups (w as its [F = C_in, C_out / g]
/// filter): <g, conv_transpose(x, w)> = <x, D(g, w)>. So the input gradient
/// is D(g, w), the weight gradient D's weight gradient with g as its input
/// and x as its output's cotangent (any rank D has a rule for: 1- to 3-d,
/// batched or not), the bias gradient g summed over all but the channel dim.
LogicalResult transposedConvVjp(ConvolutionOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                                SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value x = op.getInput(), w = op.getWeight(), g = cts[0];
  auto xTy = tensorType(x), gTy = tensorType(g), wTy = tensorType(w);
  int64_t spatial = wTy.getRank() - 2, rank = gTy.getRank();
  // D(g, w) has floor(output_padding / stride) more positions than x along a
  // dim whose output padding reaches the stride (allowed when the dilation
  // is larger): the input gradient is its first positions, and the weight
  // gradient takes x padded with zeros there as D's cotangent.
  SmallVector<int64_t> dShape(xTy.getShape());
  SmallVector<int64_t> pad; // constant_pad_nd's (before, after), last dim first
  bool extra = false;
  for (int64_t i = spatial - 1; i >= 0; --i) {
    int64_t dim = rank - spatial + i;
    int64_t positions = dShape[dim];
    if (!ShapedType::isDynamic(positions) && !gTy.isDynamicDim(dim) && !wTy.isDynamicDim(2 + i)) {
      int64_t span = (wTy.getDimSize(2 + i) - 1) * op.getDilation()[i] + 1;
      positions = (gTy.getDimSize(dim) + 2 * op.getPadding()[i] - span) / op.getStride()[i] + 1;
    }
    int64_t more = std::max<int64_t>(0, positions - (ShapedType::isDynamic(dShape[dim]) ? positions : dShape[dim]));
    pad.append({0, more});
    if (more) {
      dShape[dim] = positions;
      extra = true;
    }
  }
  auto dTy = RankedTensorType::get(dShape, xTy.getElementType());
  auto d = ConvolutionOp::create(b, loc, dTy, g, w, Value(), op.getStrideAttr(), op.getPaddingAttr(),
                                 op.getDilationAttr(), b.getBoolAttr(false),
                                 b.getDenseI64ArrayAttr(SmallVector<int64_t>(spatial, 0)), op.getGroupsAttr());
  if (needed[1]) {
    Value ct = extra ? Value(ConstantPadNdOp::create(b, loc, dTy, x, b.getDenseI64ArrayAttr(pad),
                                                     b.getF64FloatAttr(0.0)))
                     : x;
    SmallVector<Value> o(3);
    if (failed(convVjp(d, b, {ct}, {false, true, false}, o, false, {})))
      return failure();
    out[1] = o[1];
  }
  if (needed[0]) {
    Value gi = d.getResult();
    SmallVector<int64_t> shape(dShape);
    for (int64_t i = 0; i < spatial; ++i) {
      int64_t dim = rank - spatial + i;
      if (shape[dim] == xTy.getDimSize(dim))
        continue;
      shape[dim] = xTy.getDimSize(dim);
      gi = SliceTensorOp::create(b, loc, RankedTensorType::get(shape, xTy.getElementType()), gi, ValueRange{},
                                 b.getDenseI64ArrayAttr({0, shape[dim]}), b.getI64IntegerAttr(dim),
                                 b.getI64IntegerAttr(1));
    }
    out[0] = gi;
  } else {
    d->erase();
  }
  if (op.getBias() && needed[2]) {
    int64_t channel = rank - spatial - 1;
    SmallVector<int64_t> dims;
    for (int64_t i = 0; i < rank; ++i)
      if (i != channel)
        dims.push_back(i);
    out[2] = viewAs(b, loc, sumDims(b, loc, g, dims, false), op.getBias());
  }
  return success();
}

/// Operands (input, weight, bias?) -> aten.convolution_backward with the
/// mask of the needed gradients.
template <typename OpT>
LogicalResult convVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                      SmallVectorImpl<Value> &out, bool transposed,
                      ArrayRef<int64_t> outputPadding) {
  Location loc = op.getLoc();
  if (transposed)
    return op.emitError("cannot differentiate a transposed 'aten.convolution' yet");
  Value x = op.getInput(), w = op.getWeight();
  if (tensorType(x).getRank() == tensorType(w).getRank() - 1)
    return unbatchedConvVjp(op, b, cts, needed, out, transposed, outputPadding);
  if (tensorType(w).getRank() == 3 && tensorType(x).getRank() == 3)
    return conv1dVjp(op, b, cts, needed, out, outputPadding);
  if (tensorType(w).getRank() == 5 && tensorType(x).getRank() == 5)
    return conv3dVjp(op, b, cts, needed, out);
  if (tensorType(w).getRank() != 4 || tensorType(x).getRank() != 4)
    return op.emitError("cannot differentiate a convolution of a rank-")
           << tensorType(x).getRank() << " input with a rank-" << tensorType(w).getRank() << " weight";
  bool bias = op.getBias() && needed[2];
  auto wTy = tensorType(w);
  auto biasTy = RankedTensorType::get({wTy.getDimSize(0)}, wTy.getElementType());
  SmallVector<bool> mask{needed[0], needed[1], bias};
  SmallVector<int64_t> outPad(outputPadding);
  if (outPad.empty())
    outPad.assign(2, 0);
  auto bw = ConvolutionBackwardOp::create(
      b, loc, TypeRange{x.getType(), w.getType(), biasTy}, cts[0], x, w, op.getStrideAttr(),
      op.getPaddingAttr(), op.getDilationAttr(), b.getBoolAttr(false),
      b.getDenseI64ArrayAttr(outPad), op.getGroupsAttr(), b.getDenseBoolArrayAttr(mask));
  if (needed[0])
    out[0] = bw.getGradInput();
  if (needed[1])
    out[1] = bw.getGradWeight();
  if (bias)
    out[2] = viewAs(b, loc, bw.getGradBias(), op.getBias());
  return success();
}

/// The convolution is bilinear in (input, weight) plus the bias: the
/// tangent is conv(t_input, w) + conv(x, t_weight) + t_bias per channel.
LogicalResult convJvp(Operation *op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  Location loc = op->getLoc();
  auto withoutBias = [&](Value input, Value weight) {
    Operation *c = b.clone(*op);
    c->setOperand(0, input);
    c->setOperand(1, weight);
    if (c->getNumOperands() > 2)
      c->eraseOperand(2);
    return c->getResult(0);
  };
  Value r = bilinearTangent(b, loc, ts[0], ts[1], op->getOperand(0), op->getOperand(1), withoutBias);
  if (op->getNumOperands() > 2 && ts[2]) {
    auto rt = tensorType(op->getResult(0));
    SmallVector<int64_t> shape(rt.getRank(), 1);
    // The channel dim sits before the spatial dims (the weight's rank - 2).
    int64_t channel = rt.getRank() - (tensorType(op->getOperand(1)).getRank() - 2) - 1;
    shape[channel] = rt.getDimSize(channel);
    Value tb = viewTo(b, loc, ts[2], shape, {});
    addToExpanded(b, loc, r, tb, op->getResult(0));
  }
  out[0] = r;
  return success();
}
LogicalResult conv2dJvp(Conv2dOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  return convJvp(op, b, ts, out);
}
LogicalResult convolutionJvp(ConvolutionOp op, OpBuilder &b, ArrayRef<Value> ts,
                             SmallVectorImpl<Value> &out) {
  return convJvp(op, b, ts, out);
}

LogicalResult conv2dVjp(Conv2dOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  return convVjp(op, b, cts, needed, out, false, {});
}
LogicalResult convolutionVjp(ConvolutionOp op, OpBuilder &b, ArrayRef<Value> cts,
                             ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  if (op.getTransposed()) {
    if (tensorType(op.getInput()).getRank() == tensorType(op.getWeight()).getRank() - 1)
      return unbatchedConvVjp(op, b, cts, needed, out, false, op.getOutputPadding());
    return transposedConvVjp(op, b, cts, needed, out);
  }
  return convVjp(op, b, cts, needed, out, false, op.getOutputPadding());
}

} // namespace

void attachConvolutionRules(MLIRContext *ctx) {
  Conv2dOp::attachInterface<Rule<Conv2dOp, conv2dVjp, conv2dJvp>>(*ctx);
  ConvolutionOp::attachInterface<Rule<ConvolutionOp, convolutionVjp, convolutionJvp>>(*ctx);
}

} // namespace kiln::autograd::rules

//===- ResamplingRules.cpp - derivatives of the upsampling ops ------------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// Nearest upsampling (1-3 spatial dims, plain or exact) gathers each output
/// element from one input element. Which one is found by upsampling, with
/// the same op and attributes, the flat spatial positions of the input
/// (0, 1, ... as float32, exact up to 2^24): each output position then holds
/// its source, exactly as the forward computes it. The cotangent is
/// scatter-added at those sources: [N, C, out] into zeros [N, C, in].
template <typename OpT>
LogicalResult nearestVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                         SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  Location loc = op.getLoc();
  Value x = op.getSelf();
  auto xTy = tensorType(x), yTy = tensorType(op.getResult());
  int64_t rank = xTy.getRank();
  int64_t in = 1, outN = 1;
  for (int64_t d = 2; d < rank; ++d) {
    if (xTy.isDynamicDim(d) || yTy.isDynamicDim(d))
      return op.emitError("cannot differentiate '")
             << op->getName() << "' with a dynamic spatial size yet";
    in *= xTy.getDimSize(d);
    outN *= yTy.getDimSize(d);
  }
  if (in > (int64_t(1) << 24))
    return op.emitError("cannot differentiate '") << op->getName() << "' of more than 2^24 positions";
  // The sources: the op applied to [1, 1, spatial...] positions.
  SmallVector<int64_t> posShape(xTy.getShape()), srcShape(yTy.getShape());
  posShape[0] = posShape[1] = srcShape[0] = srcShape[1] = 1;
  auto posTy = RankedTensorType::get(posShape, b.getF32Type());
  SmallVector<float> pos(in);
  for (int64_t i = 0; i < in; ++i)
    pos[i] = (float)i;
  Value positions = arith::ConstantOp::create(b, loc, DenseElementsAttr::get(posTy, ArrayRef<float>(pos)));
  Operation *gather = b.clone(*op);
  gather->setOperand(0, positions);
  gather->getResult(0).setType(RankedTensorType::get(srcShape, b.getF32Type()));
  Value src = ToCopyOp::create(b, loc, RankedTensorType::get(srcShape, b.getI64Type()),
                               gather->getResult(0));
  // Flattened: index [1, 1, out] broadcast to [N, C, out]; cotangent [N, C, out].
  SmallVector<Value> nc;
  SmallVector<int64_t> flatOut{xTy.getDimSize(0), xTy.getDimSize(1), outN};
  SmallVector<int64_t> flatIn{xTy.getDimSize(0), xTy.getDimSize(1), in};
  for (int64_t d = 0; d < 2; ++d)
    if (xTy.isDynamicDim(d))
      nc.push_back(tensor::DimOp::create(b, loc, x, d));
  Value index = viewTo(b, loc, src, {1, 1, outN}, {});
  index = ExpandOp::create(b, loc, RankedTensorType::get(flatOut, b.getI64Type()), index, nc,
                           b.getDenseI64ArrayAttr(flatOut));
  Value g = viewTo(b, loc, cts[0], flatOut, nc);
  auto flatInTy = RankedTensorType::get(flatIn, xTy.getElementType());
  Value zeros = viewTo(b, loc, zerosLike(b, loc, x), flatIn, nc);
  Value sum = ScatterOp::create(b, loc, flatInTy, zeros, index, g, b.getI64IntegerAttr(2),
                                b.getStringAttr("sum"), b.getBoolAttr(true));
  out[0] = viewAs(b, loc, sum, x);
  return success();
}
/// Every upsampling is linear: the tangent is upsampled the same way.
template <typename OpT>
LogicalResult upsampleJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  Operation *copy = b.clone(*op);
  copy->setOperand(0, ts[0]);
  out[0] = copy->getResult(0);
  return success();
}

/// The input positions and weights one output position reads along a dim
/// of linear or cubic interpolation, computed as the forward's lowering
/// computes them (in T: double for float64, float otherwise; 16-bit floats
/// store their weights rounded to the dtype). Layout: [tap][output].
template <typename T>
void interpTaps(bool cubic, int64_t in, int64_t out, double given, bool align, Type elem,
                int64_t &taps, SmallVectorImpl<int64_t> &index, SmallVectorImpl<double> &weight) {
  auto stored = [&](T w) -> T {
    auto f = dyn_cast<FloatType>(elem);
    if (!f || f.getWidth() >= 32)
      return w;
    APFloat a((float)w);
    bool lost;
    a.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    a.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    return (T)a.convertToFloat();
  };
  T scale = align ? (out > 1 ? T(in - 1) / T(out - 1) : T(0))
                  : (given > 0 ? T(1.0 / given) : T(in) / T(out));
  int64_t last = in - 1;
  taps = cubic ? 4 : 2;
  index.assign(taps * out, 0);
  weight.assign(taps * out, 0.0);
  for (int64_t o = 0; o < out; ++o) {
    T of = T(o);
    T real = align ? scale * of : scale * (of + T(0.5)) - T(0.5);
    if (!cubic)
      real = std::max(real, T(0));
    int64_t i0 = std::min((int64_t)std::floor(real), last);
    T frac = std::min(std::max(real - T(i0), T(0)), T(1));
    if (!cubic) {
      if (out == in) {
        index[o] = index[out + o] = o;
        weight[o] = 1.0;
        continue;
      }
      T w1 = stored(frac), w0 = stored(T(1) - w1);
      index[o] = i0;
      index[out + o] = i0 + (i0 < last ? 1 : 0);
      weight[o] = w0;
      weight[out + o] = w1;
      continue;
    }
    const T A = T(-0.75);
    auto near = [&](T x) { return ((A + T(2)) * x - (A + T(3))) * x * x + T(1); };
    auto far = [&](T x) { return ((A * x - T(5) * A) * x + T(8) * A) * x - T(4) * A; };
    T ws[4] = {far(frac + T(1)), near(frac), near(T(1) - frac), far(T(2) - frac)};
    for (int64_t j = 0; j < 4; ++j) {
      index[j * out + o] = std::max<int64_t>(std::min(i0 + j - 1, last), 0);
      weight[j * out + o] = stored(ws[j]);
    }
  }
}

/// Linear, bilinear, trilinear and bicubic upsampling are linear maps that
/// act on each spatial dim separately: the cotangent goes back through one
/// dim at a time, each output position's weights scattered to the input
/// positions it read.
template <typename OpT>
LogicalResult interpVjp(OpT op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  if (!needed[0])
    return success();
  auto xTy = tensorType(op.getSelf()), yTy = tensorType(op.getResult());
  if (!isa<FloatType>(xTy.getElementType()))
    return op.emitError("cannot differentiate '") << op->getName() << "' of an integer tensor";
  int64_t n = xTy.getRank() - 2;
  for (int64_t d = 2; d < xTy.getRank(); ++d)
    if (xTy.isDynamicDim(d) || yTy.isDynamicDim(d))
      return op.emitError("cannot differentiate '")
             << op->getName() << "' with a dynamic spatial size yet";
  bool cubic = std::is_same_v<OpT, UpsampleBicubic2dOp>;
  SmallVector<double> scales(n, 0.0);
  if (auto s = op.getScales())
    scales.assign(s->begin(), s->end());
  Type elem = xTy.getElementType();
  Value g = cts[0];
  for (int64_t i = 0; i < n; ++i) {
    int64_t in = xTy.getDimSize(2 + i), o = yTy.getDimSize(2 + i), taps;
    SmallVector<int64_t> index;
    SmallVector<double> weight;
    if (elem.isF64())
      interpTaps<double>(cubic, in, o, scales[i], op.getAlignCorners(), elem, taps, index, weight);
    else
      interpTaps<float>(cubic, in, o, scales[i], op.getAlignCorners(), elem, taps, index, weight);
    g = scatterTaps(b, op.getLoc(), g, 2 + i, in, taps, index, weight);
  }
  out[0] = g;
  return success();
}

template <typename OpT> void attachNearest(MLIRContext *ctx) {
  OpT::template attachInterface<Rule<OpT, nearestVjp<OpT>, upsampleJvp<OpT>>>(*ctx);
}

} // namespace

void attachResamplingRules(MLIRContext *ctx) {
  attachNearest<UpsampleNearest1dOp>(ctx);
  attachNearest<UpsampleNearest2dOp>(ctx);
  attachNearest<UpsampleNearest3dOp>(ctx);
  attachNearest<UpsampleNearestExact1dOp>(ctx);
  attachNearest<UpsampleNearestExact2dOp>(ctx);
  attachNearest<UpsampleNearestExact3dOp>(ctx);
  UpsampleLinear1dOp::attachInterface<
      Rule<UpsampleLinear1dOp, interpVjp<UpsampleLinear1dOp>, upsampleJvp<UpsampleLinear1dOp>>>(*ctx);
  UpsampleBilinear2dOp::attachInterface<Rule<UpsampleBilinear2dOp, interpVjp<UpsampleBilinear2dOp>,
                                             upsampleJvp<UpsampleBilinear2dOp>>>(*ctx);
  UpsampleTrilinear3dOp::attachInterface<Rule<
      UpsampleTrilinear3dOp, interpVjp<UpsampleTrilinear3dOp>, upsampleJvp<UpsampleTrilinear3dOp>>>(
      *ctx);
  UpsampleBicubic2dOp::attachInterface<Rule<UpsampleBicubic2dOp, interpVjp<UpsampleBicubic2dOp>,
                                            upsampleJvp<UpsampleBicubic2dOp>>>(*ctx);
}

} // namespace kiln::autograd::rules

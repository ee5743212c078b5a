//===- ResamplingRules.cpp - derivatives of the nearest upsampling -------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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
/// Linear: the tangent is upsampled the same way.
template <typename OpT>
LogicalResult nearestJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (!ts[0])
    return success();
  Operation *copy = b.clone(*op);
  copy->setOperand(0, ts[0]);
  out[0] = copy->getResult(0);
  return success();
}

template <typename OpT> void attachNearest(MLIRContext *ctx) {
  OpT::template attachInterface<Rule<OpT, nearestVjp<OpT>, nearestJvp<OpT>>>(*ctx);
}

} // namespace

void attachResamplingRules(MLIRContext *ctx) {
  attachNearest<UpsampleNearest1dOp>(ctx);
  attachNearest<UpsampleNearest2dOp>(ctx);
  attachNearest<UpsampleNearest3dOp>(ctx);
  attachNearest<UpsampleNearestExact1dOp>(ctx);
  attachNearest<UpsampleNearestExact2dOp>(ctx);
  attachNearest<UpsampleNearestExact3dOp>(ctx);
}

} // namespace kiln::autograd::rules

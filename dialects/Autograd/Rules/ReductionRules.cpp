//===- ReductionRules.cpp - derivatives of the reductions -----------------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// d mean: the cotangent spread evenly over the reduced dims.
LogicalResult meanVjp(MeanDimOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool>,
                      SmallVectorImpl<Value> &out) {
  Location loc = op.getLoc();
  Value self = op.getSelf();
  auto ty = tensorType(self);
  SmallVector<int64_t> dims = op.getReducedDims();
  int64_t count = 1;
  for (int64_t d : dims) {
    if (ty.isDynamicDim(d))
      return op.emitError("cannot differentiate 'aten.mean.dim' over a dynamic dim yet");
    count *= ty.getDimSize(d);
  }
  // The cotangent with the reduced dims kept as 1, then broadcast back.
  SmallVector<int64_t> kept(ty.getShape());
  SmallVector<Value> dyn;
  for (int64_t d = 0; d < ty.getRank(); ++d) {
    if (llvm::is_contained(dims, d))
      kept[d] = 1;
    else if (ty.isDynamicDim(d))
      dyn.push_back(tensor::DimOp::create(b, loc, self, d));
  }
  Value g = viewTo(b, loc, cts[0], kept, dyn);
  out[0] = scale(b, loc, expandAs(b, loc, g, self), 1.0 / (double)count);
  return success();
}
LogicalResult meanJvp(MeanDimOp op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  if (ts[0])
    out[0] = MeanDimOp::create(b, op.getLoc(), op.getType(), ts[0], op.getDimAttr(),
                               op.getKeepdimAttr(), op.getDtypeAttr());
  return success();
}

} // namespace

void attachReductionRules(MLIRContext *ctx) {
  MeanDimOp::attachInterface<Rule<MeanDimOp, meanVjp, meanJvp>>(*ctx);
}

} // namespace kiln::autograd::rules

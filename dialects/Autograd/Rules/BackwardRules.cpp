//===- BackwardRules.cpp - tangents of the backward ops -------------------===//
//
// Forward mode over a gradient (Hessian-vector products) differentiates the
// backward ops reverse mode emits. Each result of these is linear in each
// operand it depends on (a gradient is linear in the cotangent, and the
// convolution and inference batch-norm gradients are bilinear), so its
// tangent is the sum, over those operands, of the op with that operand
// replaced by its tangent.
//
//===----------------------------------------------------------------------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

/// `deps[r]` lists the operands result r is (multi)linear in; it does not
/// depend on the others (they give its shape), except those listed in
/// `unsupported`, whose tangents are refused.
LogicalResult multilinearJvp(Operation *op, OpBuilder &b, ArrayRef<Value> ts,
                             ArrayRef<SmallVector<unsigned>> deps, SmallVectorImpl<Value> &out,
                             ArrayRef<unsigned> unsupported = {}) {
  Location loc = op->getLoc();
  for (unsigned i : unsupported)
    if (ts[i])
      return op->emitError("cannot differentiate '")
             << op->getName() << "' in forward mode with respect to operand #" << i << " yet";
  SmallVector<Operation *> copies(op->getNumOperands(), nullptr);
  for (unsigned r = 0; r < op->getNumResults(); ++r) {
    Value t;
    for (unsigned i : deps[r]) {
      if (!ts[i])
        continue;
      if (!copies[i]) {
        copies[i] = b.clone(*op);
        copies[i]->setOperand(i, ts[i]);
      }
      Value c = copies[i]->getResult(r);
      addTo(b, loc, t, c);
    }
    out[r] = t;
  }
  return success();
}

template <typename OpT>
LogicalResult noVjp(OpT op, OpBuilder &, ArrayRef<Value>, ArrayRef<bool>, SmallVectorImpl<Value> &) {
  return op.emitError("cannot differentiate '") << op->getName()
                                                << "' in reverse mode (third derivatives) yet";
}

/// convolution_backward(g, x, w): grad_input is bilinear in (g, w),
/// grad_weight in (g, x), grad_bias linear in g.
LogicalResult convBackwardJvp(ConvolutionBackwardOp op, OpBuilder &b, ArrayRef<Value> ts,
                              SmallVectorImpl<Value> &out) {
  return multilinearJvp(op, b, ts, {{0, 2}, {0, 1}, {0}}, out);
}
/// native_batch_norm_backward with the running statistics (inference):
/// grad_input is bilinear in (g, weight), grad_weight in (g, input),
/// grad_bias linear in g; the statistics are constants.
LogicalResult batchNormBackwardJvp(NativeBatchNormBackwardOp op, OpBuilder &b, ArrayRef<Value> ts,
                                   SmallVectorImpl<Value> &out) {
  if (op.getTrain())
    return op.emitError("cannot differentiate training-mode 'aten.native_batch_norm_backward' yet");
  SmallVector<unsigned> gx{0}, gw{0, 1};
  unsigned stats = 2;
  if (op.getWeight())
    gx.push_back(stats++);
  return multilinearJvp(op, b, ts, {gx, gw, {0}}, out, {stats, stats + 1});
}
/// The pooling gradients are linear in the cotangent.
template <typename OpT>
LogicalResult linearInFirstJvp(OpT op, OpBuilder &b, ArrayRef<Value> ts, SmallVectorImpl<Value> &out) {
  return multilinearJvp(op, b, ts, {{0}}, out);
}

} // namespace

void attachBackwardRules(MLIRContext *ctx) {
  ConvolutionBackwardOp::attachInterface<
      Rule<ConvolutionBackwardOp, noVjp<ConvolutionBackwardOp>, convBackwardJvp>>(*ctx);
  NativeBatchNormBackwardOp::attachInterface<
      Rule<NativeBatchNormBackwardOp, noVjp<NativeBatchNormBackwardOp>, batchNormBackwardJvp>>(*ctx);
  MaxPool2dWithIndicesBackwardOp::attachInterface<
      Rule<MaxPool2dWithIndicesBackwardOp, noVjp<MaxPool2dWithIndicesBackwardOp>,
           linearInFirstJvp<MaxPool2dWithIndicesBackwardOp>>>(*ctx);
  AvgPool2dBackwardOp::attachInterface<
      Rule<AvgPool2dBackwardOp, noVjp<AvgPool2dBackwardOp>, linearInFirstJvp<AvgPool2dBackwardOp>>>(
      *ctx);
  AdaptiveAvgPool2dBackwardOp::attachInterface<
      Rule<AdaptiveAvgPool2dBackwardOp, noVjp<AdaptiveAvgPool2dBackwardOp>,
           linearInFirstJvp<AdaptiveAvgPool2dBackwardOp>>>(*ctx);
}

} // namespace kiln::autograd::rules

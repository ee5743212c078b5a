//===- ConvolutionRules.cpp - derivatives of conv2d and convolution -------===//
#include "Autograd/Rules/Rules.h"
#include "RuleUtils.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::autograd::rules {
namespace {

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
  if (tensorType(x).getRank() != 4)
    return op.emitError("cannot differentiate an unbatched (3-d input) convolution yet");
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

LogicalResult conv2dVjp(Conv2dOp op, OpBuilder &b, ArrayRef<Value> cts, ArrayRef<bool> needed,
                        SmallVectorImpl<Value> &out) {
  return convVjp(op, b, cts, needed, out, false, {});
}
LogicalResult convolutionVjp(ConvolutionOp op, OpBuilder &b, ArrayRef<Value> cts,
                             ArrayRef<bool> needed, SmallVectorImpl<Value> &out) {
  return convVjp(op, b, cts, needed, out, op.getTransposed(), op.getOutputPadding());
}

} // namespace

void attachConvolutionRules(MLIRContext *ctx) {
  Conv2dOp::attachInterface<Rule<Conv2dOp, conv2dVjp>>(*ctx);
  ConvolutionOp::attachInterface<Rule<ConvolutionOp, convolutionVjp>>(*ctx);
}

} // namespace kiln::autograd::rules

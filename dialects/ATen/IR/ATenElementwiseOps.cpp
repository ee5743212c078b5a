//===- ATenElementwiseOps.cpp - verifiers of the elementwise ops ----------===//
//
// The elementwise ops of ATenElementwiseOps.td share verifyElementwise: the
// operands broadcast to the result shape, their dtypes are ones the op
// accepts, and the result dtype is the one PyTorch's type promotion gives.
//
//===----------------------------------------------------------------------===//
#include "ATenVerifyUtils.h"
#include "ATen/IR/ATenTypePromotion.h"

using namespace mlir;
using namespace kiln::aten;

namespace kiln::aten::detail {

/// The broadcast shape of `operands`, or an error naming the pair that fails.
static FailureOr<SmallVector<int64_t>> broadcastAll(Operation *op, ValueRange operands) {
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    ArrayRef<int64_t> s = rankedType(v).getShape();
    auto b = broadcastShape(shape, s);
    if (failed(b))
      return ((void)(op->emitOpError("operand shapes ")
                     << shapeStr(shape) << " and " << shapeStr(s) << " do not broadcast")),
             failure();
    shape = *b;
  }
  return shape;
}

/// Every operand and the result have ATen dtypes.
static LogicalResult verifyDTypes(Operation *op, ValueRange operands) {
  for (auto [i, v] : llvm::enumerate(operands))
    if (!isDType(rankedType(v).getElementType()))
      return op->emitOpError("operand #")
             << i << " has element type " << rankedType(v).getElementType()
             << ", which is no ATen dtype";
  Type r = rankedType(op->getResult(0)).getElementType();
  if (!isDType(r))
    return op->emitOpError("result element type ") << r << " is no ATen dtype";
  return success();
}

/// The dtype the operands compute in must be one the op accepts (a bool
/// tensor may take part when a number lifts the computation to an integer).
static LogicalResult verifyAccepts(Operation *op, ValueRange operands, Accepts accepts) {
  Type t = resultTypeOf(operands);
  DTypeCategory c = categoryOf(t);
  bool ok = true;
  StringRef need;
  switch (accepts) {
  case Accepts::Any:
    break;
  case Accepts::NoBool:
    ok = c != DTypeCategory::Bool, need = "is not defined for bool operands";
    break;
  case Accepts::Float:
    ok = c == DTypeCategory::Float, need = "needs float operands";
    break;
  case Accepts::Integral:
    ok = c != DTypeCategory::Float, need = "needs integer or bool operands";
    break;
  case Accepts::IntOnly:
    ok = c == DTypeCategory::Integer, need = "needs integer operands";
    break;
  }
  if (!ok)
    return op->emitOpError() << need << ", got " << dtypeName(t);
  return success();
}

static LogicalResult verifyPromotion(Operation *op, ValueRange operands, Promotion promotion) {
  Type result = rankedType(op->getResult(0)).getElementType();
  Type promoted = resultTypeOf(operands);
  switch (promotion) {
  case Promotion::Same:
    break;
  case Promotion::IntToFloat:
    if (categoryOf(promoted) != DTypeCategory::Float) {
      if (!isa<FloatType>(result))
        return op->emitOpError("result dtype ")
               << dtypeName(result) << " must be a float: " << dtypeName(promoted)
               << " operands compute in floating point";
      return success();
    }
    break;
  case Promotion::Bool:
    if (!result.isInteger(1))
      return op->emitOpError("result dtype ") << dtypeName(result) << " must be bool";
    return success();
  case Promotion::KeepSelf:
    promoted = rankedType(operands.front()).getElementType();
    if (result != promoted)
      return op->emitOpError("result dtype ")
             << dtypeName(result) << " does not match the dtype of self, "
             << dtypeName(promoted);
    return success();
  }
  if (result != promoted)
    return op->emitOpError("result dtype ")
           << dtypeName(result) << " does not match the promoted operand dtype "
           << dtypeName(promoted);
  return success();
}

LogicalResult verifyElementwise(Operation *op, ValueRange operands, Promotion promotion,
                                Accepts accepts) {
  auto shape = broadcastAll(op, operands);
  if (failed(shape) || failed(verifyDTypes(op, operands)) ||
      failed(verifyAccepts(op, operands, accepts)) ||
      failed(verifyPromotion(op, operands, promotion)))
    return failure();
  return verifyResult(op, op->getResult(0), *shape);
}

} // namespace kiln::aten::detail

using namespace kiln::aten::detail;

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("expects approximate to be 'none' or 'tanh', got '")
           << getApproximate() << "'";
  return success();
}

LogicalResult WhereSelfOp::verify() {
  Type c = getCondition().getType().getElementType();
  if (!c.isInteger(1) && !c.isUnsignedInteger(8))
    return emitOpError("condition must be bool or uint8, got ") << c;
  auto shape = broadcastAll(*this, getOperands());
  if (failed(shape) || failed(verifyDTypes(*this, getOperands())) ||
      failed(verifyPromotion(*this, {getSelf(), getOther()}, Promotion::Same)))
    return failure();
  return verifyResult(*this, getResult(), *shape);
}

LogicalResult MaskedFillTensorOp::verify() {
  Type m = getMask().getType().getElementType();
  if (!m.isInteger(1))
    return emitOpError("mask must be bool, got ") << m;
  if (getValue().getType().getRank() != 0)
    return emitOpError("value must be a 0-d tensor, got rank ") << getValue().getType().getRank();
  auto shape = broadcastAll(*this, getOperands());
  if (failed(shape) || failed(verifyDTypes(*this, getOperands())) ||
      failed(verifyPromotion(*this, {getSelf()}, Promotion::KeepSelf)))
    return failure();
  return verifyResult(*this, getResult(), *shape);
}

LogicalResult ClampTensorOp::verify() {
  if (!getMin() && !getMax())
    return emitOpError("needs at least one of min and max");
  return verifyElementwise(*this, getOperands(), Promotion::Same, Accepts::Any);
}

LogicalResult ToCopyOp::verify() {
  if (failed(verifyDTypes(*this, getSelf())))
    return failure();
  return verifyResult(*this, getResult(), getSelf().getType().getShape());
}

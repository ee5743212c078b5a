//===- ATenCreationOps.cpp - verifiers of the tensor creation ops ---------===//
#include "ATenVerifyUtils.h"
#include "ATen/IR/ATenTypePromotion.h"

#include <cmath>

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;

static LogicalResult verifyCreatedDType(Operation *op) {
  Type elem = rankedType(op->getResult(0)).getElementType();
  if (!isDType(elem))
    return op->emitOpError("result element type ") << elem << " is no ATen dtype";
  return success();
}

LogicalResult FullOp::verify() {
  if (failed(verifyCreatedDType(*this)))
    return failure();
  Type elem = getType().getElementType();
  if (getValue().getType() != elem)
    return emitOpError("value ") << getValue() << " is not of the result element type " << elem;
  ArrayRef<int64_t> sizes = getStaticSizes();
  if ((int64_t)sizes.size() != getType().getRank())
    return emitOpError("has ") << sizes.size() << " sizes for a result of rank "
                               << getType().getRank();
  int64_t numDyn = llvm::count(sizes, kDyn);
  if (numDyn != (int64_t)getSizes().size())
    return emitOpError("expects ") << numDyn << " dynamic size operands, got "
                                   << getSizes().size();
  for (int64_t s : sizes)
    if (s < 0 && s != kDyn)
      return emitOpError("invalid size ") << s;
  return verifyResult(*this, getResult(), sizes);
}

/// The value of a static arange bound, or nullopt if it is dynamic.
static std::optional<double> boundValue(Attribute a) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return (double)i.getInt();
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValueAsDouble();
  return std::nullopt;
}

LogicalResult ArangeOp::verify() {
  if (failed(verifyCreatedDType(*this)))
    return failure();
  if (getType().getRank() != 1)
    return emitOpError("result must be 1-d, got rank ") << getType().getRank();
  Attribute bounds[] = {getStartAttr(), getEndAttr(), getStepAttr()};
  int64_t numDyn = 0;
  for (Attribute a : bounds) {
    if (!a) {
      ++numDyn;
      continue;
    }
    auto i = dyn_cast<IntegerAttr>(a);
    auto f = dyn_cast<FloatAttr>(a);
    if (!(i && i.getType().isInteger(64)) && !(f && f.getType().isF64()))
      return emitOpError("bounds must be i64 or f64 attributes, got ") << a;
  }
  if (numDyn != (int64_t)getDynamicBounds().size())
    return emitOpError("expects ") << numDyn << " dynamic bound operands, got "
                                   << getDynamicBounds().size();
  std::optional<double> start = boundValue(bounds[0]), end = boundValue(bounds[1]),
                        step = boundValue(bounds[2]);
  if (step && *step == 0)
    return emitOpError("step must be nonzero");
  if (!start || !end || !step)
    return success();
  if ((*step > 0 && *end < *start) || (*step < 0 && *end > *start))
    return emitOpError("upper bound and lower bound are inconsistent with the step sign");
  int64_t n = (int64_t)std::ceil((*end - *start) / *step);
  return verifyResult(*this, getResult(), {n});
}

LogicalResult LinspaceOp::verify() {
  if (failed(verifyCreatedDType(*this)))
    return failure();
  if (getSteps() < 0)
    return emitOpError("number of steps must be non-negative, got ") << getSteps();
  return verifyResult(*this, getResult(), {getSteps()});
}

LogicalResult EyeOp::verify() {
  if (failed(verifyCreatedDType(*this)))
    return failure();
  if (getN() < 0 || getM() < 0)
    return emitOpError("n and m must be non-negative, got ") << getN() << " and " << getM();
  return verifyResult(*this, getResult(), {getN(), getM()});
}

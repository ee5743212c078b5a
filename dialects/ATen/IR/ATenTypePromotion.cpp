//===- ATenTypePromotion.cpp - PyTorch's dtype promotion rules ------------===//
#include "ATen/IR/ATenTypePromotion.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace kiln::aten {

bool isDType(Type t) {
  if (auto i = dyn_cast<IntegerType>(t)) {
    unsigned w = i.getWidth();
    if (i.isUnsigned())
      return w == 8;
    return i.isSignless() && (w == 1 || w == 8 || w == 16 || w == 32 || w == 64);
  }
  return t.isF16() || t.isBF16() || t.isF32() || t.isF64();
}

DTypeCategory categoryOf(Type t) {
  if (isa<FloatType>(t))
    return DTypeCategory::Float;
  return t.isInteger(1) ? DTypeCategory::Bool : DTypeCategory::Integer;
}

bool isUnsignedDType(Type t) { return t.isInteger(1) || t.isUnsignedInteger(); }

Type promoteTypes(Type a, Type b) {
  if (!a || a == b)
    return b;
  if (!b)
    return a;
  if (a.isInteger(1))
    return b;
  if (b.isInteger(1))
    return a;
  auto fa = dyn_cast<FloatType>(a), fb = dyn_cast<FloatType>(b);
  if (fa && fb) {
    // float16 and bfloat16 meet in float32; otherwise the wider wins.
    if (fa.getWidth() == 16 && fb.getWidth() == 16)
      return Float32Type::get(a.getContext());
    return fa.getWidth() >= fb.getWidth() ? a : b;
  }
  if (fa)
    return a;
  if (fb)
    return b;
  // Two integers. uint8 with a signed type needs a signed type that holds 255.
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (a.isUnsignedInteger() || b.isUnsignedInteger()) {
    Type s = a.isUnsignedInteger() ? b : a;
    unsigned ws = a.isUnsignedInteger() ? wb : wa;
    return ws == 8 ? IntegerType::get(a.getContext(), 16) : s;
  }
  return wa >= wb ? a : b;
}

/// The stronger group wins within a category; a weaker group of a higher
/// category lifts the result into that category.
static Type combineCategories(Type higher, Type lower) {
  if (!higher)
    return lower;
  if (!lower)
    return higher;
  if (isa<FloatType>(higher))
    return higher;
  if (higher.isInteger(1) || isa<FloatType>(lower))
    return promoteTypes(higher, lower);
  return higher;
}

Type resultType(ArrayRef<Type> dimensioned, ArrayRef<Type> zeroDim, ArrayRef<Type> scalars) {
  Type d, z, s;
  for (Type t : dimensioned)
    d = promoteTypes(d, t);
  for (Type t : zeroDim)
    z = promoteTypes(z, t);
  for (Type t : scalars)
    s = promoteTypes(s, t);
  return combineCategories(d, combineCategories(z, s));
}

Type resultTypeOf(ValueRange tensors) {
  SmallVector<Type> dims, zeros;
  for (Value v : tensors) {
    auto t = cast<RankedTensorType>(v.getType());
    (t.getRank() == 0 ? zeros : dims).push_back(t.getElementType());
  }
  return resultType(dims, zeros);
}

std::string dtypeName(Type t) {
  if (t.isInteger(1))
    return "bool";
  if (t.isUnsignedInteger(8))
    return "uint8";
  if (t.isBF16())
    return "bfloat16";
  if (auto f = dyn_cast<FloatType>(t))
    return "float" + std::to_string(f.getWidth());
  if (auto i = dyn_cast<IntegerType>(t))
    return "int" + std::to_string(i.getWidth());
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

} // namespace kiln::aten

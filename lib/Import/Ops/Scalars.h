//===- Ops/Scalars.h - Python numbers in node arguments ---------*- C++ -*-===//
//
// Internal to lib/Import: reading ATen `Scalar` arguments (bool, int, float,
// or a symbolic int) and turning them into constants of a dtype the way
// PyTorch converts a Python number to a tensor's dtype. Used by the
// elementwise and creation handlers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_OPS_SCALARS_H
#define KILN_LIB_IMPORT_OPS_SCALARS_H

#include "../ImporterImpl.h"

namespace kiln::importer {

/// A Python number from a node argument.
struct ScalarArg {
  enum Kind { Bool, Int, Float } kind = Int;
  int64_t i = 0;
  double f = 0;
  /// An `index` value when the number is a symbolic int (kind Int).
  Value sym;
  /// The element type PyTorch gives the number in type promotion: bool,
  /// int64, or the default float dtype (float32).
  Type promotionType(MLIRContext *ctx) const;
  double asDouble() const { return kind == Float ? f : (double)i; }
};

/// True if argument `name` holds a Python number (not a tensor or None).
bool isScalarArg(GraphImporter &g, const Object &node, StringRef name);
/// Reads a Python number; `dflt` if the argument is absent.
FailureOr<ScalarArg> scalarArg(GraphImporter &g, const Object &node, StringRef name,
                               Location loc, std::optional<ScalarArg> dflt = std::nullopt);
/// The number as an attribute of dtype `dtype`, converted as PyTorch does
/// (wrapping integers, truncating floats, 16-bit floats through float32).
/// Fails (with an error at `loc`) for a symbolic number.
FailureOr<TypedAttr> scalarAttr(GraphImporter &g, const ScalarArg &s, Type dtype, Location loc);
/// The number as a 0-d tensor of dtype `dtype` (a constant, or built from the
/// symbolic value).
FailureOr<Value> scalarTensor(GraphImporter &g, const ScalarArg &s, Type dtype, Location loc);

/// An elementwise operand: a tensor or a Python number.
struct OperandArg {
  Value tensor;
  std::optional<ScalarArg> scalar;
};
/// Reads argument `name` as a tensor or a number.
FailureOr<OperandArg> operandArg(GraphImporter &g, const Object &node, StringRef name,
                                 Location loc);

} // namespace kiln::importer

#endif

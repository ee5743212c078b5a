//===- DerivedArgs.h - entry arguments the loader derives from weights -*- C++ -*-===//
//
// Shared by the passes that rewrite an inference entry to read tensors the
// runtime computes once, at load, from the weights (kiln-fold-batch-norm,
// kiln-concat-linear): which arguments are weights that stay fixed between
// runs, and new `derived` arguments with their `kiln.derive` recipe
// (docs/Rationale/folded-weights.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TRANSFORMS_DERIVEDARGS_H
#define KILN_TRANSFORMS_DERIVEDARGS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSet.h"

namespace kiln {

class DerivedArgs {
public:
  explicit DerivedArgs(mlir::func::FuncOp fn);

  /// The state-dict name of `v` when it is a weight argument of the entry
  /// (kind param, buffer or constant) that no `kiln.update` result writes,
  /// with a static shape and element type `elem`; null otherwise.
  mlir::StringAttr weightName(mlir::Value v, mlir::Type elem) const;

  /// Appends an entry argument of kind `derived`, named `base` (made unique),
  /// that the loader computes by `recipe` from the weights `from` (names, or
  /// "-" for an absent operand). Null if the entry refuses the argument.
  mlir::Value add(llvm::StringRef recipe, llvm::ArrayRef<mlir::Attribute> from, double eps,
                  mlir::RankedTensorType type, llvm::StringRef base, mlir::Location loc);

private:
  mutable mlir::func::FuncOp fn;
  llvm::StringSet<> updated, names;
};

} // namespace kiln

#endif // KILN_TRANSFORMS_DERIVEDARGS_H

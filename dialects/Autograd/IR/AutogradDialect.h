//===- AutogradDialect.h - the autograd dialect -----------------*- C++ -*-===//
#ifndef KILN_DIALECTS_AUTOGRAD_IR_AUTOGRADDIALECT_H
#define KILN_DIALECTS_AUTOGRAD_IR_AUTOGRADDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Autograd/IR/AutogradDialect.h.inc"
#include "Autograd/IR/AutogradInterfaces.h.inc"

#define GET_OP_CLASSES
#include "Autograd/IR/AutogradOps.h.inc"

namespace kiln::autograd {
/// A ranked tensor of a floating-point type: what differentiation follows.
inline bool isFloatTensor(mlir::Type t) {
  auto tt = mlir::dyn_cast<mlir::RankedTensorType>(t);
  return tt && mlir::isa<mlir::FloatType>(tt.getElementType());
}
} // namespace kiln::autograd

#endif

//===- AutogradToATen.h - differentiation into aten code --------*- C++ -*-===//
#ifndef KILN_CONVERSION_AUTOGRADTOATEN_H
#define KILN_CONVERSION_AUTOGRADTOATEN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln {
/// Makes `entry` (a model's public forward function) the value-and-gradient
/// function of `kiln-compile --grad`: the original body moves to a private
/// `<name>_primal`, and the public `<name>` takes the same arguments plus one
/// cotangent per result (kind input, named cotangent<i>) and returns the
/// results, then the gradient of every floating-point user input
/// (`grads/input<i>`, i counting user inputs), then of every floating-point
/// parameter (`grads/<name>`), in signature order, through `autograd.vjp`.
/// Fails with an error at `entry` for programs that mutate state or have
/// non-floating-point results. Returns the new entry.
mlir::FailureOr<mlir::func::FuncOp> buildGradEntry(mlir::ModuleOp module,
                                                   mlir::func::FuncOp entry);
/// The forward-mode counterpart for `kiln-compile --jvp`: the public `<name>`
/// takes the arguments plus one tangent per floating-point user input (kind
/// input, named tangent<i>, i counting user inputs) and returns the results,
/// then each result's tangent (`tangents/output<k>`), through `autograd.jvp`.
mlir::FailureOr<mlir::func::FuncOp> buildJvpEntry(mlir::ModuleOp module,
                                                  mlir::func::FuncOp entry);
} // namespace kiln

#endif

//===- AutogradToATen.h - differentiation into aten code --------*- C++ -*-===//
#ifndef KILN_CONVERSION_AUTOGRADTOATEN_H
#define KILN_CONVERSION_AUTOGRADTOATEN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

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
/// Hyper-parameters of `kiln-compile --train-step=sgd` (torch.optim.SGD's,
/// no dampening, no Nesterov).
struct SGDOptions {
  double lr = 0.01, momentum = 0.0, weightDecay = 0.0;
};
/// A weight a training step adds to the model (an optimizer state buffer,
/// zero at load): its state-dict style name and type.
struct AddedState {
  std::string name;
  mlir::RankedTensorType type;
};
/// Makes `entry` one SGD step on loss = sum_i sum(output_i * cotangent_i):
/// the entry takes the inputs plus one cotangent per output, returns the
/// outputs, and updates every floating-point parameter in place
/// (`kiln.update = "param"` results): g' = g + weight_decay * p;
/// buf = momentum * buf + g' (a buffer `sgd.momentum.<param>` per parameter,
/// listed in `added`, when momentum is not 0); p -= lr * (buf or g').
mlir::FailureOr<mlir::func::FuncOp> buildSGDStepEntry(mlir::ModuleOp module,
                                                      mlir::func::FuncOp entry,
                                                      const SGDOptions &options,
                                                      std::vector<AddedState> &added);

/// The forward-mode counterpart for `kiln-compile --jvp`: the public `<name>`
/// takes the arguments plus one tangent per floating-point user input (kind
/// input, named tangent<i>, i counting user inputs) and returns the results,
/// then each result's tangent (`tangents/output<k>`), through `autograd.jvp`.
mlir::FailureOr<mlir::func::FuncOp> buildJvpEntry(mlir::ModuleOp module,
                                                  mlir::func::FuncOp entry);
} // namespace kiln

#endif

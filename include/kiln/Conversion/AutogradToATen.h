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
/// The optimizer of `kiln-compile --train-step` and its hyper-parameters:
/// torch.optim.SGD's (lr, momentum, weight_decay; no dampening, no Nesterov)
/// or torch.optim.AdamW's (lr, betas, eps, weight_decay; bias-corrected, no
/// amsgrad).
struct TrainStepOptions {
  enum class Optimizer { SGD, AdamW } optimizer = Optimizer::SGD;
  double lr = 0.01, momentum = 0.0, weightDecay = 0.0;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
};
/// A weight a training step adds to the model (an optimizer state buffer,
/// zero at load): its state-dict style name and type.
struct AddedState {
  std::string name;
  mlir::RankedTensorType type;
};
/// Makes `entry` one optimizer step on loss = sum_i sum(output_i *
/// cotangent_i): the entry takes the inputs plus one cotangent per output,
/// returns the outputs, and updates every floating-point parameter in place
/// (`kiln.update = "param"` results) and the optimizer's state (`kiln.update =
/// "buffer"` results over the buffers listed in `added`, zero at load).
/// SGD: g' = g + weight_decay * p; buf = momentum * buf + g' (a buffer
/// `sgd.momentum.<param>` per parameter when momentum is not 0);
/// p -= lr * (buf or g'). AdamW: a step count `adamw.step` (0-d float64) and
/// per parameter `adamw.exp_avg.<param>` and `adamw.exp_avg_sq.<param>`;
/// t += 1; p *= 1 - lr * weight_decay; m = lerp(m, g, 1 - beta1);
/// v = beta2 * v + (1 - beta2) * g^2;
/// p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).
mlir::FailureOr<mlir::func::FuncOp> buildTrainStepEntry(mlir::ModuleOp module,
                                                        mlir::func::FuncOp entry,
                                                        const TrainStepOptions &options,
                                                        std::vector<AddedState> &added);

/// The forward-mode counterpart for `kiln-compile --jvp`: the public `<name>`
/// takes the arguments plus one tangent per floating-point user input (kind
/// input, named tangent<i>, i counting user inputs) and returns the results,
/// then each result's tangent (`tangents/output<k>`), through `autograd.jvp`.
mlir::FailureOr<mlir::func::FuncOp> buildJvpEntry(mlir::ModuleOp module,
                                                  mlir::func::FuncOp entry);
/// `kiln-compile --jacobian` for a model with one floating-point tensor
/// output and static shapes: the public `<name>` takes the model's arguments
/// and returns the output, then for each floating-point user input i
/// `jacobian/input<i>`, d output / d input_i shaped output x input_i (row by
/// row: one vjp per output element, in an scf.for). Parameters are held fixed.
mlir::FailureOr<mlir::func::FuncOp> buildJacobianEntry(mlir::ModuleOp module,
                                                       mlir::func::FuncOp entry);
/// `kiln-compile --hessian`: the output, then for each pair (j, i) of
/// floating-point user inputs `hessian/input<j>_input<i>`,
/// d^2 sum(output) / d input_j d input_i shaped input_j x input_i (one jvp
/// of the gradient per element of input_j, in an scf.for).
mlir::FailureOr<mlir::func::FuncOp> buildHessianEntry(mlir::ModuleOp module,
                                                      mlir::func::FuncOp entry);
/// `kiln-compile --hvp`: the arguments, then one vector per floating-point
/// user input (`tangent<i>`); returns the output, then for each input
/// `hvp/input<i>` = sum_j (d^2 sum(output) / d input_i d input_j) v_j (one
/// jvp of the gradient).
mlir::FailureOr<mlir::func::FuncOp> buildHvpEntry(mlir::ModuleOp module, mlir::func::FuncOp entry);

/// `kiln-compile --vmap=IN_DIMS[:OUT_DIMS]` (torch.func.vmap of the entry).
/// `inDims` has one entry per user input of `entry` (arguments of kind
/// input: with --grad, the model's inputs and then the cotangents), or one
/// entry for all of them: the dim of the batched argument that is the batch
/// (negative counts from its end), or `kNotBatched`. Parameters, buffers and
/// constants are never batched. `outDims` likewise per result (default 0).
/// The public `<name>` takes the batched arguments (a dynamic batch dim
/// named by the symbol `vmap_batch`, range [1, 2^31 - 1]) and returns every
/// result with the batch at its out dim, through `autograd.vmap` of the
/// per-sample body (moved to a private `<name>_sample`). Fails with an error
/// at `entry` for programs that update state or when no input is batched.
inline constexpr int64_t kNotBatched = INT64_MIN;
struct VmapSpec {
  std::vector<int64_t> inDims, outDims;
};
/// Parses "IN_DIMS[:OUT_DIMS]": comma-separated integers or `none`.
mlir::FailureOr<VmapSpec> parseVmapSpec(llvm::StringRef text, std::string &error);
mlir::FailureOr<mlir::func::FuncOp> buildVmapEntry(mlir::ModuleOp module, mlir::func::FuncOp entry,
                                                   const VmapSpec &spec);
/// The spec that batches one half of a split value and gradient (`half` is
/// "forward" or "backward", kiln-compile --grad --split --vmap) as `spec`
/// batches the whole of it, so one --vmap flag serves the whole program and
/// both halves: per-input dims list the model's inputs, then the cotangents.
/// The forward takes the model's inputs; every result of it (outputs,
/// residuals) carries the batch at dim 0, where the backward reads it; the
/// backward's `residuals/input<k>` is the forward's input k as it was given
/// (its dim), and its cotangents take theirs. Out dims are refused: the halves
/// hand the batch first to each other. Fails with `error` set.
mlir::FailureOr<VmapSpec> splitHalfVmapSpec(mlir::func::FuncOp entry, const VmapSpec &spec, llvm::StringRef half,
                                            std::string &error);
} // namespace kiln

#endif

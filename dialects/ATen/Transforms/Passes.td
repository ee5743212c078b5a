//===- Passes.td - aten dialect passes -----------------------*- tablegen -*-===//
#ifndef KILN_ATEN_PASSES
#define KILN_ATEN_PASSES

include "mlir/Pass/PassBase.td"

def ATenDecomposeComposites : Pass<"aten-decompose-composites", "::mlir::func::FuncOp"> {
  let summary = "Rewrite composite ATen ops into the Core ATen ops they stand for";
  let description = [{
    Brings the default ("training") IR that `torch.export` writes closer to
    Core ATen IR, so lowerings need to handle one form only:

    * `aten.conv2d` becomes `aten.convolution` (transposed = false);
    * `aten.batch_norm` with training = false becomes
      `aten._native_batch_norm_legit_no_training` (its first result);
    * `aten.adaptive_avg_pool2d` to a 1x1 output becomes `aten.mean_dim` over
      the two spatial dims with keepdim;
    * training `aten.batch_norm` becomes `aten.native_batch_norm` (batch
      statistics), and `native_batch_norm` / `_native_batch_norm_legit_functional`
      without training become inference batch norm;
    * `aten.layer_norm` and `aten.group_norm` become their `native_` forms;
    * `aten.instance_norm` becomes `native_group_norm` with one channel per
      group (input statistics) or inference batch norm (running statistics);
    * `aten.softmax_int` / `log_softmax_int` without a dtype change become
      `aten._softmax` / `aten._log_softmax`;
    * sequence-model composites (`DecomposeSequenceOps.cpp`): `aten.diff`
      becomes slices and a subtraction (`!=` for bool) per order,
      `aten.adaptive_avg_pool1d` 2-d adaptive pooling over a unit height, and
      `aten.lstm_input` / `aten.gru_input` one `scf.for` over time per layer
      and direction (the input projection of all steps hoisted out of it);
      with `unroll-recurrent` (what `kiln-compile --grad` and the other
      differentiating entries use), a static number of steps is unrolled
      instead, into plain aten ops that have reverse rules.

    Before:
    ```mlir
    %0 = aten.conv2d %x, %w, %b {stride = array<i64: 1, 1>, ...}
    ```
    After:
    ```mlir
    %0 = aten.convolution %x, %w, %b {stride = array<i64: 1, 1>, transposed = false, ...}
    ```
  }];
  let options = [
    Option<"unrollRecurrent", "unroll-recurrent", "bool", /*default=*/"false",
           "Unroll lstm/gru over a static number of time steps instead of an scf.for">,
  ];
  let dependentDialects = ["::kiln::aten::ATenDialect", "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ATenInjectFault : Pass<"aten-inject-fault", "::mlir::func::FuncOp"> {
  let summary = "Test-only: plant a known bug in one aten op (for kiln-reduce's tests)";
  let description = [{
    Makes one op misbehave on purpose, so that the tools that hunt bugs
    (`kiln-reduce`, docs/debugging.md) can be tested on a bug whose place is
    known. `kiln-compile --inject-fault=MODE:OP[:N]` runs it first, before any
    lowering. The N-th (from 0) op named OP (e.g. `aten.gelu`) in the function,
    or with OP = `@NAME` the aten op imported from the program's node NAME
    (its location), which stays the same node however the graph around it is cut:

    * `wrong`: its first floating-point tensor result is negated for every
      user (a silent wrong number);
    * `error`: the pass fails with an error at the op (a compile error);
    * `crash`: the compiler aborts (a compile crash).

    No op named OP, or fewer than N+1 of them: nothing changes.

    Before (`mode=wrong op=aten.relu`):
    ```mlir
    %0 = aten.relu %x : tensor<4xf32>
    return %0
    ```
    After:
    ```mlir
    %0 = aten.relu %x : tensor<4xf32>
    %1 = aten.neg %0 : tensor<4xf32>
    return %1
    ```
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"wrong\"",
           "wrong, error or crash">,
    Option<"opName", "op", "std::string", /*default=*/"\"\"",
           "The op to break: its full name (aten.gelu) or @ and its node's name (@gelu_1)">,
    Option<"nth", "nth", "int64_t", /*default=*/"0",
           "Which op of that name, counting from 0 in program order">,
  ];
}

#endif // KILN_ATEN_PASSES

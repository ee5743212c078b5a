//===- Passes.td - kiln conversion passes --------------------*- tablegen -*-===//
#ifndef KILN_CONVERSION_PASSES
#define KILN_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertATenToLinalg : Pass<"convert-aten-to-linalg", "::mlir::func::FuncOp"> {
  let summary = "Lower aten ops to linalg, tensor, arith and math on tensors";
  let description = [{
    Rewrites every aten op into destination-passing linalg ops on value
    tensors: elementwise ops become `linalg.generic`, contractions become
    `linalg.generic` contractions initialised with their bias, convolutions
    and pooling become linalg's named NCHW ops on padded inputs, views become
    `tensor.collapse_shape` / `tensor.expand_shape` / `tensor.reshape`.
    An aten op with no lowering is an error at its location (the user's
    Python line), naming the op.

    Before:
    ```mlir
    %0 = aten.relu %x : tensor<8x64xf32>
    ```
    After:
    ```mlir
    %e = tensor.empty() : tensor<8x64xf32>
    %0 = linalg.generic {...} ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
      ^bb0(%in: f32, %out: f32):
        %r = arith.maximumf %in, %cst : f32
        linalg.yield %r : f32
    } -> tensor<8x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"];
}

#endif // KILN_CONVERSION_PASSES

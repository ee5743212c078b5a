//===- Passes.td - kiln's passes on upstream dialects --------*- tablegen -*-===//
#ifndef KILN_TRANSFORMS_PASSES
#define KILN_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def KilnFuseElementwise : Pass<"kiln-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse elementwise producers into consumers without recomputation";
  let description = [{
    Upstream elementwise fusion of linalg ops on tensors, restricted to
    producers whose every element the consumer reads once: the consumer's
    indexing map for the fused operand must be a permutation of all its
    loops. A relu feeding a matmul is therefore not fused into it (it would
    be recomputed once per output column), while chains of elementwise ops,
    a bias broadcast feeding an add, or a relu feeding a full reduction are.

    Before:
    ```mlir
    %r = linalg.generic {relu} ins(%x) outs(%e0)
    %y = linalg.generic {mul by 2} ins(%r) outs(%e1)
    ```
    After: one linalg.generic computing `2 * max(x, 0)`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::affine::AffineDialect"];
}

def KilnMemrefCopyToLinalg : Pass<"kiln-memref-copy-to-linalg", "::mlir::func::FuncOp"> {
  let summary = "Rewrite memref.copy into linalg.copy";
  let description = [{
    Bufferization writes strided copies (e.g. into the interior of a padded
    buffer) as `memref.copy`, which upstream lowers to a call into a support
    library. Model objects link against nothing but libc, so kiln turns every
    copy into `linalg.copy`, which becomes plain loops the LLVM optimiser
    vectorises.

    Before: `memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>`
    After:  `linalg.copy ins(%a : ...) outs(%b : ...)`
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def KilnVectorFriendlyLoops : Pass<"kiln-vector-friendly-loops", "::mlir::func::FuncOp"> {
  let summary = "Generalize linalg ops and order their loops for contiguous inner loops";
  let description = [{
    Named linalg ops (convolutions, pooling, transposes, fills) become
    `linalg.generic`, and every generic's loops are interchanged so that the
    innermost loop is the one that walks the most operands with unit stride,
    preferring parallel loops and long trip counts; the other loops keep
    their order. A convolution `(n, f, oh, ow, c, kh, kw)` becomes
    `(n, f, oh, c, kh, kw, ow)`: its inner loop streams along a row of the
    input and the output, which LLVM vectorises. Float arithmetic in
    reductions is marked `reassoc` and `contract`, so LLVM may vectorise
    reductions and use fused multiply-adds (results differ from a serial sum
    by rounding only, as PyTorch's own kernels do).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect"];
}

#endif // KILN_TRANSFORMS_PASSES

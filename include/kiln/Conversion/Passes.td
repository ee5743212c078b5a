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
  let options = [
    Option<"convBackwardCalls", "conv-backward-calls", "bool", /*default=*/"false",
           "Lower aten.convolution_backward's input and weight gradients to the "
           "forms kiln-cpu-library-calls and kiln-gpu-library-calls turn into "
           "backward-data / backward-filter calls (marked kiln.conv_backward); "
           "without it, to loop nests tuned for generated code">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect", "::mlir::bufferization::BufferizationDialect"];
}

def KilnGPUFusedAttention : Pass<"kiln-gpu-fused-attention", "::mlir::ModuleOp"> {
  let summary = "scaled_dot_product_attention as a call of the CUDA runtime's fused attention kernel";
  let description = [{
    Runs before convert-aten-to-linalg in the CUDA pipeline (kiln-compile
    --target=cuda, `--cuda-attention=fused`). Each
    `aten.scaled_dot_product_attention` with dropout_p = 0, float32,
    bfloat16 or float16 operands of one rank from 2 to 4, static head sizes
    up to 128 and a bool or same-typed additive mask (or none) becomes a call
    of `kiln_gpu_sdpa_<type>[_boolmask|_addmask](q, k, v, [mask,] out,
    causal, group, scale)` (runtime/src/cuda/Attention.cpp) on rank-4
    strided buffers: `bufferization.to_buffer` (read-only) of each operand,
    a `memref.alloc` for the result, `bufferization.to_tensor` of it after
    the call. An operand made by `aten.permute` is passed as a
    `memref.transpose` view of the permute's source, an `aten.expand`ed
    mask as its source (the runtime broadcasts size-1 dims), and a result
    whose only use is an `aten.permute` is written in the permuted layout.
    Keys and values repeated for the query heads (repeat_kv) are read
    unrepeated with the kernel's group; a bool mask that hides every key
    after its query (key position <= query position, and-ed with anything)
    also sets `causal`, so the kernel skips the tiles past the diagonal.
    With `float32-scores-mib` N > 0, float32 attention whose scores
    (B x H x L x S floats, static sizes) fit in N MiB is left to the
    decomposition, whose products run as float32 cuBLAS GEMMs. The CUDA
    pipeline leaves it at 0: the float32 kernel multiplies on tensor cores
    in float32 precision (three TF32 products of each operand's high and
    low parts) and beat the decomposition on an H200 (docs/performance.md,
    section (31)); the option was set to 1024 when that kernel ran plain
    FMAs.
    Other attention ops are left for the decomposition.
  }];
  let options = [
    Option<"float32ScoresMib", "float32-scores-mib", "int64_t", "0",
           "Float32 attention whose score matrix fits in this many MiB decomposes (0: never)">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::bufferization::BufferizationDialect",
                           "::mlir::func::FuncDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LowerRuntimeCalls : Pass<"kiln-lower-runtime-calls", "::mlir::ModuleOp"> {
  let summary = "Lower aten.call_runtime on buffers to calls of kiln_rt_call_op";
  let description = [{
    Each call becomes a `kiln_rt_call_op(name, nargs, args, nresults, results)`
    call (runtime/include/kiln/rt_call.h) with its boxed argument and result
    records built on the stack: tensors as pointers to their memref
    descriptors, literals in place. The runtime fills each result descriptor
    with a fresh buffer the code then owns. When the call fails, the enclosing
    function returns at once with null result buffers, which the runtime's
    loader reports with the dispatcher's error message.

    Runs after the function has been converted to the LLVM dialect.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def AutogradDifferentiate : Pass<"autograd-differentiate", "::mlir::ModuleOp"> {
  let summary = "Rewrite autograd transforms into plain aten code";
  let description = [{
    Each `autograd.vjp` / `autograd.grad` becomes its callee's body inlined at
    the op (the forward), then the reverse sweep: from the last op to the
    first, every op with a result that carries a gradient and an operand that
    depends on a differentiated argument asks its `DifferentiableOpInterface`
    reverse rule for the operand cotangents, which add up per value. Only
    floating-point tensors carry gradients; `autograd.stop_gradient` blocks
    them. `autograd.jvp` inlines the callee and computes each op's tangent
    with its forward rule. An op with no rule is an error at its location
    (the user's Python line) naming the op. Finally every
    `autograd.stop_gradient` is replaced by its operand.

    Before:
    ```mlir
    func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = aten.relu %x : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    %y, %gx = autograd.vjp @f(%x) cotangents(%c) wrt [0] : ...
    ```
    After:
    ```mlir
    %y = aten.relu %x : tensor<4xf32>
    %gx = aten.threshold_backward %c, %x {threshold = 0.0 : f64} : ...
    ```

    With `remat`, reverse mode then chooses which forward values the
    backward keeps and which it recomputes: a minimum cut, weighted by
    bytes, between the function's arguments and the backward's uses, over
    the forward values, where only cheap ops (views, elementwise) may be
    recomputed; each recomputed value is rebuilt just before its first
    backward use, marked (location `fused<"autograd.recomputed">[...]` and
    the `autograd.recomputed` attribute) so that CSE keeps it apart from the
    forward op (kiln-keep-recomputed). Either way the bytes of the forward values the backward
    reads (static shapes) are recorded on the module as
    `kiln.saved_activation_bytes` (and, with `remat`,
    `kiln.saved_activation_bytes_before_remat`).
  }];
  let options = [
    Option<"remat", "remat", "bool", /*default=*/"false",
           "Recompute cheap forward values in the backward instead of keeping them (min-cut)">,
  ];
  let dependentDialects = ["::kiln::aten::ATenDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AutogradSplitGrad : Pass<"autograd-split-grad", "::mlir::ModuleOp"> {
  let summary = "Cut a differentiated value-and-gradient entry into its forward or its backward half";
  let description = [{
    Runs after `autograd-differentiate` (with `remat`) on the module's public
    entry as `kiln-compile --grad` builds it: the arguments, then one
    `cotangent<i>` per output; the results are the outputs, the `grads/...`,
    then the state updates (`kiln.update`). The entry is one straight-line
    function in which the forward and the reverse sweep are interleaved.

    The cut: the **forward** is every op the outputs and the state updates
    (and every `aten.random`) need; the **backward** is every other op the
    gradients need, i.e. the reverse sweep, the values the rematerialisation
    cut chose to rebuild (`autograd.recomputed`) and the reverse rules' ops
    on arguments alone (a weight's transpose). A forward view chain of an
    argument that the backward reads is rebuilt there too, so the argument
    itself crosses the cut, not a copy; constants are copied into both.
    The **residuals** are the values the backward reads across the cut, in
    program order: a user input (`residuals/input<k>`, k counting user
    inputs) or an output (`residuals/output<k>`) crosses as itself, a
    parameter or buffer the forward does not write stays a weight of the
    backward, and every other value (a mutated argument's value before the
    update included) is a result `residuals/<i>` of the forward.

    `half=forward` rewrites the entry into the forward: the same arguments
    without the cotangents; the outputs, the `residuals/<i>`, then the
    updates. `half=backward` rewrites it into the backward: the argument,
    output and forward-result residuals, then every cotangent; the
    gradients. Both halves come from the same deterministic cut, so the
    forward's residual results are the backward's residual arguments.
    The bytes of the forward-result residuals (dynamic dims counted as 1024)
    are recorded on the module as `kiln.residual_bytes`.

    Before (the value and gradient of `y = relu(x @ w)`):
    ```mlir
    func.func @forward(%x, %w, %c {kiln.name = "cotangent0"}) -> (y, grads/input0, grads/w)
    ```
    After, `half=forward`:
    ```mlir
    func.func @forward(%x, %w) -> (y)        // the backward reads y, x and w as they are
    ```
    and `half=backward`:
    ```mlir
    func.func @forward(%x {kiln.name = "residuals/input0"}, %w, %y {kiln.name = "residuals/output0"},
                       %c {kiln.name = "cotangent0"}) -> (grads/input0, grads/w)
    ```
    A random op or a state update the backward would need, or a forward op
    that reads a cotangent, is an error.
  }];
  let options = [
    Option<"half", "half", "std::string", /*default=*/"\"forward\"",
           "Which half to keep: forward or backward">,
  ];
  let dependentDialects = ["::kiln::aten::ATenDialect", "::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AutogradBatch : Pass<"autograd-batch", "::mlir::ModuleOp"> {
  let summary = "Rewrite autograd.vmap into batched aten code (batching rules, else a loop)";
  let description = [{
    Each `autograd.vmap` becomes its callee's body at the op over batched
    values, each carrying the batch dim in front (batched arguments are
    permuted so; results are permuted to their `out_dims`). An op that reads
    a batched value is rewritten by its batching rule (Autograd/Batching, one
    file per op family: elementwise ops align their operands' batch,
    products become a broadcasting matmul, reductions and views shift their
    dims, convolution, pooling and inference batch norm fold the batch into
    N, ...). An op without a rule, or whose rule does not apply, runs in an
    `scf.for` over the batch (dynamic or not) that slices each batched
    operand with `tensor.extract_slice` and inserts each result with
    `tensor.insert_slice` into its own `bufferization.alloc_tensor`. Ops that read no batched value run once. The
    decision for every op is recorded on the module as
    `kiln.vmap_explain` (what `kiln-compile --explain` prints).

    Before:
    ```mlir
    func.func private @f(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
      %0 = aten.mul_tensor %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    %y = autograd.vmap @f(%xs, %w) in_dims [1, -1] out_dims [0]
        : (tensor<4x?xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    ```
    After:
    ```mlir
    %b = tensor.dim %xs, %c1 : tensor<4x?xf32>
    %0 = aten.permute %xs {dims = array<i64: 1, 0>} : (tensor<4x?xf32>) -> tensor<?x4xf32>
    %y = aten.mul_tensor %0, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    ```
  }];
  let dependentDialects = ["::kiln::aten::ATenDialect", "::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"];
}

def LowerBufferAllocs : Pass<"kiln-lower-buffer-allocs", "::mlir::ModuleOp"> {
  let summary = "Allocate and free the model's heap buffers through the runtime (kiln_cpu_alloc / kiln_cpu_free)";
  let description = [{
    Runs after `finalize-memref-to-llvm` with `use-generic-functions`, which
    lowers `memref.alloc` and `memref.dealloc` to calls of
    `_mlir_memref_to_llvm_aligned_alloc(alignment, size)` and
    `_mlir_memref_to_llvm_free(ptr)`. This pass renames those declarations
    (and every call) to the runtime's `kiln_cpu_alloc` and `kiln_cpu_free`
    (runtime/abi/kiln/abi/cpu_memory.h), whose cache hands a model that runs
    again the blocks it freed, instead of the fresh zero-filled pages libc maps
    for large blocks every run. The allocation's result is marked
    `llvm.noalias`, as LLVM knows libc's `aligned_alloc` to be, so alias
    analysis still tells buffers apart. A call of the unaligned
    `_mlir_memref_to_llvm_alloc` (the pass pipeline did not ask for aligned
    allocation) is an error.

    Before:
    ```mlir
    llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
    %p = llvm.call @_mlir_memref_to_llvm_aligned_alloc(%c64, %n) : (i64, i64) -> !llvm.ptr
    ```
    After:
    ```mlir
    llvm.func @kiln_cpu_alloc(i64, i64) -> (!llvm.ptr {llvm.noalias})
    %p = llvm.call @kiln_cpu_alloc(%c64, %n) : (i64, i64) -> !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def LowerParallelLaunches : Pass<"kiln-lower-parallel-launches", "::mlir::ModuleOp"> {
  let summary = "Lower the parallel loop launches of kiln-outline-parallel-loops to kiln_cpu_parallel_for calls";
  let description = [{
    Runs after the module has been converted to the LLVM dialect, where
    every value a parallel loop's body reads (its captures) is an LLVM
    scalar, pointer or struct (memref descriptors are passed as their
    fields). Each call of a declaration carrying
    `kiln.parallel_body = @body` (`@body_launch(n, grain, captures...)`)
    becomes: the captures stored into a stack struct of their types, and
    `kiln_cpu_parallel_for(@body_chunk, &struct, n, grain)`
    (runtime/include/kiln/cpu_parallel.h), where `@body_chunk(ctx, lo, hi)`
    is an internal function, made once per body, that loads the captures
    back and calls `@body(captures..., lo, hi)`. The body gets internal
    linkage (LLVM inlines it into its chunk function), its arguments listed
    in `kiln.noalias_args` get `llvm.noalias`, and the launch declaration is
    erased. A launch declaration whose body is missing, or
    whose call does not match the body's arguments, is an error.

    Before:
    ```mlir
    llvm.call @f_par0_launch(%n, %grain, %p, %q) : (i64, i64, !llvm.ptr, f32) -> ()
    ```
    After:
    ```mlir
    %ctx = llvm.alloca %c1 x !llvm.struct<(ptr, f32)> : (i64) -> !llvm.ptr
    llvm.store %p, ... ; llvm.store %q, ...
    %fn = llvm.mlir.addressof @f_par0_chunk : !llvm.ptr
    llvm.call @kiln_cpu_parallel_for(%fn, %ctx, %n, %grain) : (!llvm.ptr, !llvm.ptr, i64, i64) -> ()
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // KILN_CONVERSION_PASSES

//===- Passes.td - kiln's passes on upstream dialects --------*- tablegen -*-===//
#ifndef KILN_TRANSFORMS_PASSES
#define KILN_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"
include "GPUPasses.td"

def KilnFuseElementwise : Pass<"kiln-fuse-elementwise", "::mlir::func::FuncOp"> {
  let summary = "Fuse elementwise producers into consumers without recomputation";
  let description = [{
    Upstream elementwise fusion of linalg ops on tensors, restricted to
    producers whose every element the consumer reads once: the consumer's
    indexing map for the fused operand must be a permutation of all its
    loops. A relu feeding a matmul is therefore not fused into it (it would
    be recomputed once per output column), while chains of elementwise ops,
    a bias broadcast feeding an add, or a relu feeding a full reduction are.
    A fused op's location names every program node it computes (a FusedLoc
    of the producers' and the consumer's), so diagnostics and
    `kiln-compile --emit=dot` see what each kernel holds.

    Before:
    ```mlir
    %r = linalg.generic {relu} ins(%x) outs(%e0)
    %y = linalg.generic {mul by 2} ins(%r) outs(%e1)
    ```
    After: one linalg.generic computing `2 * max(x, 0)`.

    With `recompute-broadcasts` (the GPU pipelines), an all-parallel
    consumer also absorbs a small elementwise producer (at most 16 pure ops,
    no other user) that it reads through a broadcast, recomputing it per
    element: a batch norm's per-channel scale and shift, computed from its
    weights, then cost a few instructions in the kernel that applies them
    instead of a launch of their own.
  }];
  let options = [
    Option<"recomputeBroadcasts", "recompute-broadcasts", "bool", "false",
           "Let elementwise consumers recompute small producers they read through broadcasts">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::affine::AffineDialect"];
}

def KilnFoldBatchNorm : Pass<"kiln-fold-batch-norm", "::mlir::func::FuncOp"> {
  let summary = "Fold inference batch norm into the convolution before it, at load";
  let description = [{
    An `aten.convolution` (not transposed) whose only user is
    `aten._native_batch_norm_legit_no_training` (running statistics; its
    saved statistics unused), where the filter, the convolution's bias and
    the batch norm's weight, bias, running mean and running variance are
    float32 or float64 weight arguments of the entry (`kiln.kind` param,
    buffer or constant) that no `kiln.update` result writes, becomes one
    convolution with a scaled filter and a bias:
    `W' = W * s`, `b' = (b - mean) * s + beta`, `s = gamma / sqrt(var + eps)`
    per output channel. `W'` and `b'` are new arguments of the entry, of
    kind `derived`, named `<filter name>#bn` and `<filter name>#bn_bias`,
    whose `kiln.derive` attribute (`{recipe, from, eps}`) becomes the
    manifest's `derive` line: the runtime computes them once, when it loads
    the weights (embedded or external, on every target), so a run reads no
    statistics and makes no pass over the convolution's output for them.
    kiln-compile runs it before the manifest is written, on inference
    entries only (not with --grad, --jvp, --train-step or --vmap). With
    `sixteen-bit`, bfloat16 and float16 convolutions fold too (their weights
    of that type, the derived ones computed in double and rounded once to
    it): kiln-compile sets it for CUDA with cuDNN convolutions, whose fused
    call takes the 16-bit convolution's bias and ReLU
    (kiln-gpu-library-calls); the CPU keeps 16-bit batch norms unfolded.

    Before:
    ```mlir
    %y = aten.convolution %x, %w {...} : (...) -> tensor<1x8x4x4xf32>
    %r:3 = aten._native_batch_norm_legit_no_training %y weight %g bias %b mean %m var %v {eps = 1.0e-05 : f64, ...}
    ```
    After:
    ```mlir
    func.func @forward(..., %w2: tensor<8x3x3x3xf32> {kiln.kind = "derived", kiln.name = "conv.weight#bn", kiln.derive = {...}},
                            %b2: tensor<8xf32> {kiln.kind = "derived", kiln.name = "conv.weight#bn_bias", ...})
    %r = aten.convolution %x, %w2, %b2 {...}
    ```
  }];
  let options = [
    Option<"sixteenBit", "sixteen-bit", "bool", "false",
           "Fold bfloat16 and float16 convolutions too (float32 and float64 always)">,
  ];
  let dependentDialects = ["::kiln::aten::ATenDialect"];
}

def KilnConcatLinear : Pass<"kiln-concat-linear", "::mlir::func::FuncOp"> {
  let summary = "Stack linear layers that read one input into one, their weights stacked at load";
  let description = [{
    Two or more `aten.linear` ops in one block that read the same input,
    each with a 2-d weight (and, all or none of them, a 1-d bias) that is a
    weight argument of the entry (`kiln.kind` param, buffer or constant)
    that no `kiln.update` result writes, all of one element type, become one
    `aten.linear` whose weight and bias are new entry arguments of kind
    `derived` (`<first weight>#cat`, `<first weight>#cat_bias`, recipe
    `concat-rows`: the originals stacked along dim 0, which the loader copies
    once, at load), followed by an `aten.slice_tensor` of its last dim per
    original layer. Attention's query, key and value projections and a gated
    MLP's gate and up projections become one product each: fewer launches
    and larger GEMMs at small batches. kiln-compile runs it on inference
    entries with `--concat-linear` (on by default for CUDA), before the
    manifest is written.

    Before:
    ```mlir
    %q = aten.linear %x, %wq, %bq : (tensor<1x8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<1x8x16xf32>
    %k = aten.linear %x, %wk, %bk : (tensor<1x8x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<1x8x4xf32>
    ```
    After:
    ```mlir
    func.func @forward(..., %w: tensor<20x16xf32> {kiln.kind = "derived", kiln.name = "q.weight#cat", kiln.derive = {...}},
                            %b: tensor<20xf32> {kiln.kind = "derived", kiln.name = "q.weight#cat_bias", ...})
    %s = aten.linear %x, %w, %b : (...) -> tensor<1x8x20xf32>
    %q = aten.slice_tensor %s[0, 16] {dim = 2 : i64} : tensor<1x8x20xf32> -> tensor<1x8x16xf32>
    %k = aten.slice_tensor %s[16, 20] {dim = 2 : i64} : tensor<1x8x20xf32> -> tensor<1x8x4xf32>
    ```
  }];
  let dependentDialects = ["::kiln::aten::ATenDialect"];
}

def KilnKeepRecomputed : Pass<"kiln-keep-recomputed", "::mlir::func::FuncOp"> {
  let summary = "Keep the backward's recomputations of forward values apart from the forward under CSE";
  let description = [{
    Rematerialisation (`autograd-differentiate` with `remat`) rebuilds
    cheap forward values in the backward and marks the copies' locations.
    Lowering replaces the copies by new ops at the same locations, so the
    marker survives, but an attribute does not. This pass sets the
    discardable unit attribute `autograd.recomputed` on every op whose
    location carries the marker; CSE compares attributes, so it no longer
    merges a recomputation with the forward op it duplicates (which would
    keep the forward value alive until the backward). It runs before each
    CSE of the pipelines. docs/Rationale/rematerialisation.md.

    Before:
    ```mlir
    %r = linalg.generic {relu} ins(%h) outs(%e) loc(#fwd)
    ...
    %r2 = linalg.generic {relu} ins(%h) outs(%e) loc(fused<"autograd.recomputed">[#fwd])
    ```
    After: the second op also has `{autograd.recomputed}`, and CSE leaves it.
  }];
}

def KilnEarlyDealloc : Pass<"kiln-early-dealloc", "::mlir::func::FuncOp"> {
  let summary = "Free each buffer right after its last use instead of at the end of its block";
  let description = [{
    Ownership-based buffer deallocation frees the buffers a block allocates
    at the end of that block, so every intermediate of a model stays alive
    until it returns and the peak memory is the sum of all of them. This
    pass moves each unconditional `memref.dealloc` of a `memref.alloc` of
    the same block to just after the last op of the block that uses the
    buffer or any value derived from it (views, casts, pointers taken from
    it, results of ops whose regions use it). A buffer that reaches the
    block's terminator is left alone. With rematerialisation this is what
    frees a forward value the backward recomputes instead of reading.

    It then records on each single-block function, as
    `kiln.peak_buffer_bytes`, the most bytes its statically shaped buffers
    hold at once in program order (an op with regions counts the buffers
    allocated inside it for its whole duration); `kiln-compile --timing`
    prints it for the entry. Nothing is recorded when a buffer's size is
    dynamic.

    Before:
    ```mlir
    %a = memref.alloc() : memref<4xf32>
    linalg.generic ... outs(%a)
    linalg.generic ins(%a) outs(%b)
    ... many ops ...
    memref.dealloc %a : memref<4xf32>
    ```
    After: the `memref.dealloc %a` follows the second `linalg.generic`.
  }];
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

def KilnMathApproximations : Pass<"kiln-math-approximations", "::mlir::func::FuncOp"> {
  let summary = "Replace float32 transcendental functions with inline polynomial approximations";
  let description = [{
    On the CPU, `math.exp`, `math.erf`, `math.tanh`, ... on float32 otherwise
    become calls of libm (`expf`, `erff`, `tanhf`), which LLVM's loop
    vectoriser cannot widen: the loops of a softmax, GELU, SiLU or sigmoid
    then run one element per call. This pass rewrites the float32 ops (scalar
    or vector) whose names are listed in `ops` with upstream MLIR's polynomial
    approximations (`populateMathPolynomialApproximationPatterns`):
    straight-line arithmetic that keeps the special values (infinities, NaN,
    overflow to infinity and underflow to zero) and that the vectoriser turns
    into 16-lane AVX-512 code. Other element types and ops not listed are
    left for the libm lowering. Accuracy: `test/e2e/math-approximations.test`
    sweeps each approximated function densely against float64 references.

    Before: `%y = math.erf %x : f32`
    After:  a few dozen `arith` and `math.fma` ops (a clamp, a rational
    polynomial, selects for the special values), no `math.erf`.
  }];
  let options = [
    ListOption<"ops", "ops", "std::string",
               "Names of the math ops to approximate (exp, expm1, erf, tanh, log, log1p, ...)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def KilnExpandArith : Pass<"kiln-expand-arith"> {
  let summary = "Expand the arith ops LLVM has no lowering for, keeping float max/min as ops";
  let description = [{
    What upstream `arith-expand{include-bf16}` expands for the CPU's LLVM
    lowering (ceil/floor divisions, bfloat16 conversions as integer code:
    the libgcc of many systems has no `__truncsfbf2`), except the float and
    integer max/min ops: those lower to LLVM's `maximum`/`smax`/... intrinsics,
    which x86 code generation turns into `vmaxps` and blends. Expanded, a
    max-pooling or max-reduction loop that keeps its accumulator in memory
    became `store(select(cmp, x, load(p)), p)`, which LLVM's vectoriser
    emits as masked stores (`vmaskmovps`, microcoded on AMD Zen: SqueezeNet's
    pooling loops took 20% of its run).

    Before: `%m = arith.maximumf %a, %b : f32`, `%q = arith.ceildivsi %x, %y : i64`
    After:  `%m` unchanged; `%q` as divisions, compares and selects.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
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
    by rounding only, as PyTorch's own kernels do); their `maximumf` and
    `minimumf` also `nsz` (in any order, which of two equal zeros wins is
    the order's already; NaNs still propagate).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::arith::ArithDialect"];
}

def KilnChannelsLast : Pass<"kiln-channels-last", "::mlir::func::FuncOp"> {
  let summary = "Run 2-d convolutions and the ops around them on NHWC tensors";
  let description = [{
    Rewrites each `linalg.conv_2d_nchw_fchw` on tensors as a
    `linalg.conv_2d_nhwc_fhwc` between transposes, then moves the transposes
    until they cancel:
    - an elementwise `linalg.generic` whose full-size inputs are all NHWC
      tensors transposed to NCHW runs in NHWC (its loops permuted, inputs
      broadcast along some dims re-indexed);
    - `tensor.pad` and `linalg.pooling_nchw_{max,sum}` of such a tensor run in
      NHWC;
    - any other `linalg.generic` (a reduction over H and W) reads the NHWC
      tensor through its indexing map;
    - with `slices`, a rank-preserving `tensor.extract_slice` of such a
      tensor, and a `tensor.insert_slice` of one into a destination that is
      NHWC without a transpose (`tensor.empty`, a fill of one, an earlier
      insert rewritten the same way) run in NHWC: a concatenation of
      convolutions' results is built in their layout;
    - transposes of transposes, of `tensor.empty`, of `linalg.fill` and of
      broadcasts fold.
    A 4-d weight of the entry (`kiln.kind` other than input, not updated)
    whose only readers are transposes to NHWC becomes an argument of the
    permuted shape, and the entry's `kiln.weight_layouts` dictionary maps its
    name to the permutation, which kiln-compile writes into the manifest for
    the runtime to apply once, when it loads the weights.
    With `grouped`, a grouped or depthwise convolution (the aten lowering's
    `linalg.conv_2d_ngchw_gfchw` between the reshapes that split and merge
    its groups) becomes `linalg.conv_2d_nhwgc_gfhwc` between the same
    transposes, its filter an argument in (F, KH, KW, C/G) order; with
    `depthwise=false` only those with more than one input channel per group.
    With `depthwise-hwc` a depthwise one with one output channel per group
    becomes `linalg.depthwise_conv_2d_nhwc_hwc` instead, its filter in
    (KH, KW, C) order (a weight argument permuted from (C, 1, KH, KW) at load,
    layout 2 3 1 0) for the generated kernels, whose neighbouring threads are
    neighbouring channels.
    The CUDA pipeline runs it when convolutions go to cuDNN, whose NHWC
    kernels are the fast ones on tensor cores.
  }];
  let options = [
    Option<"grouped", "grouped", "bool", "false",
           "Also grouped and depthwise convolutions (off by default: with cuDNN's "
           "heuristic algorithm, its NHWC depthwise kernel ran ConvNeXt-T's 7x7 "
           "depthwise convolutions 4x slower than its NCHW one)">,
    Option<"depthwise", "depthwise", "bool", "true",
           "With grouped: depthwise convolutions (one input channel per group) "
           "too; false keeps them NCHW while grouped ones with several channels "
           "per group go NHWC (the CUDA default: RegNetY-800MF b32 bf16 ran "
           "2.70 -> 1.62 ms with its grouped convolutions NHWC, while NHWC "
           "depthwise ones slowed ConvNeXt-T 3.21 -> 6.66 ms, H200)">,
    Option<"depthwiseHwc", "depthwise-hwc", "bool", "false",
           "With depthwise: a depthwise convolution with one output channel per "
           "group becomes linalg.depthwise_conv_2d_nhwc_hwc, its filter in "
           "(KH, KW, C) order (permuted at load when it is a weight), so that a "
           "generated kernel's neighbouring threads (neighbouring channels) read "
           "neighbouring filter elements (the CUDA pipeline when depthwise "
           "convolutions are generated kernels)">,
    Option<"slices", "slices", "bool", "false",
           "Also concatenations (inserts) and rank-preserving slices of NHWC "
           "tensors (on for the CPU, whose library calls stage a convolution "
           "that writes a strided part of a concatenation: SqueezeNet 1.1 "
           "6.45 -> 4.70 ms, 1 thread)">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def KilnCPULibraryCalls : Pass<"kiln-cpu-library-calls", "::mlir::ModuleOp"> {
  let summary = "Run large float32 matmuls and convolutions through the CPU runtime's oneDNN entries";
  let description = [{
    The CPU counterpart of `kiln-gpu-library-calls`, on bufferized linalg
    and with the same matchers (lib/Transforms/LibraryCallMatch.cpp): a
    float32 (batched) matrix product C[b, m, n] += A * B (A stored (m, k) or
    (k, m), B (k, n) or (n, k)) becomes
    `kiln_cpu_gemm_f32(transA, transB, flags, A, B, C)` on rank-3 views, and
    a float32 convolution (1- to 3-d, NCHW or channels last, any stride,
    dilation and groups, depthwise included) becomes
    `kiln_cpu_conv_f32(flags, groups, s0, s1, s2, p0, p1, p2, d0, d1, d2,
    x, w, y)` on rank-5 views; the runtime runs them with oneDNN, loaded at
    first use (runtime/src/cpu, kiln/cpu_library.h). As on the GPU, a zero
    fill just before the op becomes the overwrite flag (2), a linear layer's
    bias broadcast and a following ReLU fold into
    `kiln_cpu_gemm_lt_f32(transA, transB, flags, A, B, D, bias)` (ReLU: flag
    4), and a zero-padded copy of the input becomes the call's padding. A
    weight operand (B, the filter) read straight from an argument of kind
    weight that no run updates gets flag 8: the runtime reorders it once into
    oneDNN's blocked layout and keeps it while the model is loaded.
    Problems smaller than `min-macs` multiply-adds stay generated loops.
    Runs after bufferization, before `kiln-early-dealloc`; the calls lower
    with `convert-func-to-llvm` (`llvm.emit_c_interface`).

    Before: `linalg.matmul ins(%a, %b : memref<256x512xf32>, memref<512x128xf32>) outs(%c : ...)`
    After:  `func.call @kiln_cpu_gemm_f32(%c0_i32, %c0_i32, %c0_i32, %a3, %b3, %c3)`
  }];
  let options = [
    Option<"minMacs", "min-macs", "int64_t", "32768",
           "Smallest problem (multiply-adds) sent to the library">,
    Option<"dynamicSize", "dynamic-size", "int64_t", "128",
           "Iterations a dynamic loop counts for when sizing a problem">,
    Option<"gemms", "gemms", "bool", "true",
           "Large matmuls become kiln_cpu_gemm calls (false: they stay linalg)">,
    Option<"convs", "convs", "bool", "true",
           "Large convolutions become kiln_cpu_conv calls (false: they stay linalg)">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def KilnOutlineParallelLoops : Pass<"kiln-outline-parallel-loops", "::mlir::ModuleOp"> {
  let summary = "Outline the outermost parallel loops of large loop nests for the runtime's threads";
  let description = [{
    The CPU pipeline lowers linalg ops to `scf.parallel` over their parallel
    dims (`convert-linalg-to-parallel-loops`). For each outermost
    `scf.parallel` whose estimated work (operations of its body times the
    trip counts of the loops around them, dynamic trips counted as
    `dynamic-trip`) reaches `min-work`, this pass takes its leading dims,
    enough of them for `min-chunks` iterations but never the last dim of a
    loop whose body is straight-line code (the vectorised inner loop), as
    one linearised iteration space [0, n), and moves the loop into a private
    function over a chunk [lo, hi) of it: `@<func>_par<i>(captures..., lo, hi)`,
    with the values the loop reads from around it as arguments (constants
    are cloned in instead) and its other dims an `scf.parallel` inside
    (which lowers to serial loops). A loop with fewer than `min-chunks`
    iterations around serial loops around an inner `scf.parallel` (a
    reduction over leading dims, e.g. a global pool in NHWC) whose first
    dim owns its writes (every store indexed by it, every stored buffer
    reached by no other view and loaded only where stored) first takes that
    dim, in blocks of 16, as a dim of its own, so the blocks are split too.
    The loop is replaced by a call of the
    private declaration `@<func>_par<i>_launch(n, grain, captures...)`, which
    carries `kiln.parallel_body = @<func>_par<i>`; the grain is the number of
    iterations that do `chunk-work` work. After the conversion to the LLVM
    dialect, `kiln-lower-parallel-launches` turns that call into a call of
    the runtime's `kiln_cpu_parallel_for`. Smaller loops stay serial, each
    moved into a private function of its own (`@<func>_loop<i>(captures...)`,
    marked `kiln.serial_loop` and `noinline`) called in its place; a function
    left with no loop (the model's entry: allocations, calls and sizes
    between kernels) is marked `optnone`, so LLVM compiles that glue without
    optimising it while the loops keep -O3 in their functions (the entry was
    the longest LLVM job of a large model). Only parallel dims are split, so
    results do not depend on the thread count.
    A body's memref captures that no other capture can reach (the only view
    of a buffer the function allocated, or of an argument when no argument
    is written) are listed in `kiln.noalias_args` by the position of their
    aligned pointer among the LLVM arguments, so LLVM keeps telling the
    buffers apart inside the body as it did in the function.
    docs/Rationale/cpu-threads.md.

    Before:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c512, %c256) step (%c1, %c1) {
      %v = memref.load %x[%i, %j] : memref<512x256xf32>
      ...
    }
    ```
    After:
    ```mlir
    func.call @f_par0_launch(%c512, %c64, %x, ...) : (index, index, memref<512x256xf32>, ...) -> ()
    ...
    func.func private @f_par0(%x: memref<512x256xf32>, ..., %lo: index, %hi: index) {
      scf.for %i = %lo to %hi step %c1 {
        scf.parallel (%j) = (%c0) to (%c256) step (%c1) { ... }
      }
      return
    }
    func.func private @f_par0_launch(index, index, memref<512x256xf32>, ...)
        attributes {kiln.parallel_body = @f_par0}
    ```
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", "65536",
           "Loop nests estimated to do less work than this stay serial">,
    Option<"chunkWork", "chunk-work", "int64_t", "16384",
           "The least work one chunk (one task of the runtime) does">,
    Option<"minChunks", "min-chunks", "int64_t", "64",
           "How many iterations the split dims should have, so the threads balance">,
    Option<"dynamicTrip", "dynamic-trip", "int64_t", "1024",
           "The trip count assumed for a loop with a dynamic bound">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // KILN_TRANSFORMS_PASSES

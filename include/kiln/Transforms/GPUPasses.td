//===- GPUPasses.td - kiln's GPU passes on upstream dialects -*- tablegen -*-===//
//
// The passes of the CUDA and ROCm pipelines: scatter loops and linalg ops
// mapped to GPU kernels, library calls (cuBLAS/cuBLASLt, cuDNN, their ROCm
// counterparts), tiled contractions, device buffers, split reductions and
// the merged GPU module. Included by Passes.td, which holds the rest.
#ifndef KILN_TRANSFORMS_GPU_PASSES
#define KILN_TRANSFORMS_GPU_PASSES

include "mlir/Pass/PassBase.td"

def KilnGPUScatterLoops : Pass<"kiln-gpu-scatter-loops", "::mlir::func::FuncOp"> {
  let summary = "Run the host loop nests of scatters on the GPU: one thread per iteration, atomics where they accumulate";
  let description = [{
    Scatters (scatter, scatter_add, index_put with and without accumulate,
    and the backward of embedding and indexing, which is index_put with
    accumulate) lower to `scf.for` nests that write their result buffer at
    positions read from an index buffer. On a GPU those nests would run on
    the host over device buffers. This pass, which runs on buffers before
    `kiln-map-linalg-to-gpu`, turns each such nest outside a GPU region into
    an `scf.parallel` over the nest's iterations (linearised, one thread
    each, `block-size` threads a block) mapped to GPU blocks and threads,
    which that pass's `convert-parallel-loops-to-gpu` step makes a kernel.

    It does so only where iterations cannot depend on each other: a perfect
    nest of `scf.for` without iteration arguments whose innermost body holds
    only arithmetic, `memref.load`, `memref.store` and `scf.if`, and where
    every load of a buffer the nest writes is the read of a read-modify-write
    of the same element by `arith.addf`/`arith.addi`; that update becomes a
    `memref.atomic_rmw`, so repeated indices sum as they do in PyTorch. Plain
    stores to repeated indices keep one of the values, as PyTorch's CUDA
    scatters do. Any other nest over buffers of the computation (one with
    iteration arguments, or other reads of what it writes) runs in a kernel
    of one thread, in its original order. Nests that touch a buffer used as
    the shape of a `memref.reshape` stay on the host. Vendor-neutral.

    Before: `scf.for %i { scf.for %j { %v = memref.load %b[%k, %j];
             %s = arith.addf %v, %u; memref.store %s, %b[%k, %j] } }`
    After:  `scf.parallel (%blk) { scf.parallel (%t) { scf.if (%lin < %n) {
             memref.atomic_rmw addf %u, %b[%k, %j] } } }` with GPU mappings
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "threads per block of a parallel scatter kernel">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"];
}

def KilnMapLinalgToGPU : Pass<"kiln-map-linalg-to-gpu", "::mlir::func::FuncOp"> {
  let summary = "Turn each linalg op on buffers into parallel loops mapped to GPU blocks and threads";
  let description = [{
    Every linalg op outside a GPU region becomes one `scf.parallel` whose
    mapping attributes send it to `convert-parallel-loops-to-gpu`, i.e. one
    kernel launch per op (but the row groups and a reduction's prologue and
    epilogue, below). The op is generalized, its parallel loops are put
    first (in the order of the output's dimensions, so neighbouring threads
    write neighbouring elements) and its reduction loops last; the parallel
    loops are collapsed into one linear index, tiled by `block-size`, the
    tiles mapped to `block_x` and the elements of a tile to `thread_x`. Each
    thread runs the op's reduction loops for its own output element
    sequentially, with the accumulators in registers (`scf.for` iter_args:
    the output is read once and written once); an elementwise op reads its
    output only if its body uses it. This is correct for matmuls,
    convolutions and reductions, not yet fast. A row reduction (one reduction
    loop, innermost in some input, at least a subgroup long, each output
    accumulated by one associative arith op on f32 or i32: sums, maxima of
    layer norm and softmax) instead gets one subgroup per output element:
    each lane accumulates a strided part from the combiner's neutral element,
    `gpu.shuffle xor` combines the lanes, and lane 0 folds in the output's
    initial value and stores (`subgroup-reductions=false` turns this off).
    A reduction with few outputs (at most `few-outputs`, static loops, any
    number of reduction loops read in any order: a pool over H and W or a
    matrix-vector product at batch 1) gets a subgroup per output the same
    way, its reduction loops walked as one linear index, instead of a
    handful of threads each running a long loop. Above `few-outputs`, so
    does one with up to 16 times as many outputs and at least 8 subgroups of
    reduction iterations (an NHWC pool over H and W at a large batch, which
    one thread per output would run on a few dozen blocks), or one whose
    reduction loops are the last indices of some input in order (an NCHW
    pool: a subgroup reads each output's elements contiguously). An
    op with no parallel loop (a full reduction to a scalar) runs in a single
    thread. With `fuse-rows` (the default), such a row reduction and the
    consecutive ops around it that read and write only its rows (an op over
    the rows, over the rows and their elements, or another row reduction of
    the same length; weights read the same for every row, or inputs
    broadcast along some of the row loops, as a mask over query and key
    positions that every head shares) run as one kernel:
    one subgroup per row runs them in order, each lane owning the same
    elements of the row in every op, and row values (sums, means, reciprocal
    standard deviations) stay in registers, identical in every lane, lane 0
    storing them. A layer norm (mean, variance, normalize, with the residual
    add before it) or a softmax becomes one launch instead of five to seven.
    With `vector-bytes` (16 by default), an elementwise op whose innermost
    loops are static and packed with unit stride in every operand that uses
    them gives each thread a vector of up to 8 consecutive elements (one
    aligned vector.load/store per such operand), and a row group whose
    buffers hold the row that way gives each lane vectors of the row; the
    kernel checks the base pointers' alignment and falls back to one element
    at a time where a vector would be misaligned. A sliding-window
    reduction (static loops; an input read at an affine form of a parallel
    loop other than the innermost and a reduction loop: a convolution's
    output column and filter column, a pooling window) gives each thread up
    to `window-outputs` consecutive outputs along the innermost such loop,
    keeping at least `window-min-threads` threads: their accumulators stay in
    registers, the innermost reduction loop is unrolled when short, and an
    input element or weight that several of them read is loaded once (a 7x7
    depthwise convolution with 8 outputs a thread loads 14 input elements and
    7 weights per filter row instead of 56 and 56). A window that reads a
    constant-filled buffer holding a copy of a source in its interior (a
    pad) reads the source instead, each load checked against its bounds and
    the pad value outside (threads whose whole footprint lies inside skip
    the checks); the fill and the copy are no kernels. A reduction of one
    output outside row groups (one thread, a window or a subgroup per
    output) also runs the elementwise op that writes its output just before
    it (a bias broadcast, a fill: each thread computes its initial value)
    and the one that reads its result just after it (an activation, a
    rounding: applied before the store), where no op between touches the
    output and their buffers cannot clash; a float32 accumulator nothing
    else reads is then never allocated. An elementwise op that transposes
    (an input read through a permutation whose innermost dim is not the
    output's, both innermost loops static and at least 16 long) is a
    gpu.launch of one workgroup per 32x32 tile: the tile read along the
    input's innermost dim into workgroup memory, a barrier, then written
    along the output's. Vendor-neutral: the CUDA and ROCm paths share it.

    Before: `linalg.generic {iterator_types = ["parallel", "parallel"]} ins(%a) outs(%b)`
    After:
    ```mlir
    scf.parallel (%blk) = (%c0) to (%n) step (%c256) {
      scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
        %i = arith.addi %blk, %t   // guarded by %i < %n, then split into (i0, i1)
        ...
      } {mapping = [#gpu.loop_dim_map<processor = thread_x, ...>]}
    } {mapping = [#gpu.loop_dim_map<processor = block_x, ...>]}
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256", "Threads per block">,
    Option<"subgroupSize", "subgroup-size", "int64_t", "32",
           "Threads that run in lockstep (an NVIDIA warp: 32; an AMD wavefront: 64 on "
           "gfx9, 32 on gfx10+): an op smaller than a block gets a whole number of them">,
    Option<"subgroupReductions", "subgroup-reductions", "bool", "true",
           "Reduce each output element of a row reduction (one reduction loop, read "
           "contiguously, at least a subgroup long) with a whole subgroup: lanes take "
           "strided parts, then combine through shuffles">,
    Option<"fewOutputs", "few-outputs", "int64_t", "4096",
           "A reduction with at most this many outputs (static loops, at least a "
           "subgroup of reduction iterations over any number of reduction loops, "
           "read in any order) also gets a subgroup per output, its reduction "
           "loops walked as one linear index: pools over H and W and "
           "matrix-vector products at batch 1; more where the reduction is long "
           "(see the description; 0 turns this off)">,
    Option<"fuseRows", "fuse-rows", "bool", "true",
           "Run a row reduction together with the ops around it that touch only its "
           "rows (layer norm, softmax: fills, elementwise producers and consumers, "
           "further reductions) as one kernel, one subgroup per row, row values in "
           "registers (needs subgroup-reductions)">,
    Option<"vectorBytes", "vector-bytes", "int64_t", "16",
           "Widest load or store of an elementwise kernel's thread, in bytes (a power of "
           "two; 0 or 1 turns vectorisation off): where the innermost loops are static and "
           "contiguous in every operand that uses them, each thread handles a vector of "
           "up to 8 elements with one load or store per operand">,
    Option<"windowOutputs", "window-outputs", "int64_t", "8",
           "Most outputs per thread of a sliding-window reduction (a convolution or "
           "pooling window sliding along a parallel loop other than the innermost): "
           "consecutive outputs along that loop share the window's overlapping input "
           "elements and the weights in registers (0 or 1: one output per thread)">,
    Option<"windowMinThreads", "window-min-threads", "int64_t", "32768",
           "Fewest threads a sliding-window reduction keeps when its outputs are "
           "grouped (window-outputs): fewer outputs per thread where the op is small">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect", "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::ub::UBDialect", "::mlir::vector::VectorDialect"];
}

def KilnGPULibraryCalls : Pass<"kiln-gpu-library-calls", "::mlir::ModuleOp"> {
  let summary = "Run large matmuls and convolutions through the GPU runtime's libraries (cuBLAS, cuDNN)";
  let description = [{
    A linalg op on buffers that is a (batched) matrix product, C[b, m, n] +=
    A * B with A stored (m, k) or (k, m) and B (k, n) or (n, k), all of one
    element type (f32, bf16 or f16), becomes a call of
    `kiln_gpu_gemm_<type>(transA, transB, A, B, C)` on rank-3 views (C with
    an identity layout; an input whose rows are contiguous and whose groups
    of dims merge is read in place with its strides, any other strided input
    is first copied to a contiguous buffer by a generated kernel; an input
    that a copy through a permutation filled just before and that is dead
    after the product, as attention's heads split from a fused projection,
    is read through a transposed view of that copy's source instead, and the
    copy goes). Mixed
    float inputs that the body multiplies in f32 (a bf16 or f16 input
    extended to f32, an f32 output) become an f32 GEMM on a widened copy of
    the narrower input: the same products and sums. The
    runtime runs it on the call's stream, accumulating in float32 (with
    cuBLAS on CUDA: runtime/src/cuda/Blas.cpp). A 2-D convolution in NCHW /
    FCHW layout (any loop order, stride and dilation; ungrouped) becomes the
    GEMM out[n] (F x OH*OW) += w (F x C*KH*KW) * col[n], where col is the
    input itself for a 1x1, stride-1 convolution over a contiguous input of
    the output's size, and otherwise an im2col buffer filled by one parallel
    `linalg.generic` (a generated kernel). The call's third argument holds
    flags: TF32 (1) where `tf32-convs` / `tf32-matmuls` allow a float32 GEMM
    to multiply in TF32, and overwrite (2) where the op's output was
    zero-filled just before (the fill is dropped and the GEMM writes C
    without reading it). Problems with fewer than
    `min-macs` multiply-adds, counting a dynamic loop as `dynamic-size`
    iterations, stay generated kernels (measured on an H100: BERT-base's
    feed-forward block, 128x768x3072 twice, 2.59 ms as generated kernels and
    0.074 ms with cuBLAS; the dynamic MLP's 64x16 layer at batch 8, 0.054 ms
    as kernels and 0.11 ms with cuBLAS). The
    declaration carries `kiln.device_call`, so `kiln-gpu-device-buffers`
    treats its operands as device buffers. Runs before
    `kiln-map-linalg-to-gpu`.

    With `convs=cudnn`, every large convolution in NCHW / F(C/G) layout
    instead (1- to 3-d, any stride and dilation, grouped and depthwise
    included: a grouped one as linalg has its channels split into (G, C/G))
    becomes a call of `kiln_gpu_conv_<type>(flags, groups, s0, s1, s2, p0,
    p1, p2, d0, d1, d2, x, w, y)` on rank-5 (N, C, D, H, W) views (unit
    dims in front of fewer spatial dims; stride s, padding p and dilation d
    per spatial dim), which the runtime runs with cuDNN
    (runtime/src/cuda/Dnn.cpp). An input zero-padded just before (a zeroed
    buffer, then a copy into its interior) by the same amount on both sides
    of each spatial dim is read unpadded, the padding passed to the call,
    and the padded buffer goes away. A bf16 or f16 convolution into a
    float32 accumulator (kiln's lowering) writes a 16-bit result: where the
    accumulator was zeroed and only linalg.generic ops read it afterwards,
    they read the 16-bit result instead (each widening its element), else
    one generated kernel adds it to (or, zeroed, stores it into) the
    accumulator. Flags as for the GEMM: TF32 (1, float32 with `tf32-convs`),
    overwrite (2). A zero fill may also be a copy of a zeroed buffer; buffers
    left only written (such a zero buffer) are removed.

    With `epilogues` (the default), a GEMM whose output was initialised
    just before by a broadcast of a vector along its rows (a linear layer's
    bias) becomes `kiln_gpu_gemm_lt_<type>(transA, transB, flags, A, B, D,
    bias)` (cuBLASLt's bias epilogue; the broadcast goes away). When the one
    op that reads the float32 product of bf16/f16 operands uses it only
    rounded to that type, the GEMM writes that type directly: into the
    op's output where the op is only the rounding (and a ReLU, flag 4),
    which then goes away, else into a fresh buffer the op reads instead.
    Buffers nothing reads any more (the float32 product, the widened bias)
    are dropped with the ops that wrote them. With `convs=cudnn` too, a
    float32 convolution whose output was initialised just before by a
    broadcast of a vector along its channels (a bias, a folded batch norm's)
    becomes `kiln_gpu_conv_bias_f32(flags, groups, s.., p.., d.., x, w, y,
    bias)`, with flag 4 and no loop after it where a ReLU of the whole output
    followed (cuDNN's fused bias-and-activation call; other activations stay
    generated kernels), and `kiln_gpu_conv_bias_add_f32(..., bias, z)` where
    that loop added a tensor `z` of the output's type first (a residual). A
    bfloat16 or float16 convolution (its float32 accumulator initialised by
    the widened 16-bit bias) calls `kiln_gpu_conv_bias_bf16|f16` with the
    16-bit bias; where the one loop after it only rounds the accumulator to
    16 bits (with a ReLU, or adding a 16-bit residual), the call writes that
    loop's 16-bit output and the loop goes away (cuDNN rounds the float32
    sum once, where the loop rounded the convolution before the residual
    add), as does a 16-bit convolution's rounding without a bias.

    With `pointwise-gemms` (the default, with `convs=cudnn` and `gemms`), a
    1x1, stride-1, unpadded, ungrouped bf16/f16 convolution in channels-last
    layout whose fused call would have a bias and no activation (cuDNN then
    runs IMPLICIT_PRECOMP_GEMM, which has no tensor-core kernel for these
    types) and whose (N, spatial..) rows merge in place is the GEMM y (rows
    x F) = x (rows x C) * w (F x C)^T + bias: it calls
    `kiln_gpu_gemm_lt_<type>(0, 1, flags, x, w, y, bias)`, writing what the
    convolution call would have (the 16-bit output of its rounding); a
    residual is copied into y by a generated kernel unless y is its buffer,
    and the GEMM accumulates onto it (no overwrite flag): cuBLASLt adds the
    product, the residual and the bias in float32 and rounds once.

    Before: `linalg.matmul ins(%a, %b : memref<256x512xf32>, memref<512x128xf32>) outs(%c : ...)`
    After:  `func.call @kiln_gpu_gemm_f32(%c0_i32, %c0_i32, %a3, %b3, %c3)`
  }];
  let options = [
    Option<"minMacs", "min-macs", "int64_t", "262144",
           "Smallest problem (multiply-adds) sent to the library">,
    Option<"dynamicSize", "dynamic-size", "int64_t", "128",
           "Iterations a dynamic loop counts for when sizing a problem">,
    Option<"tf32Convs", "tf32-convs", "bool", "false",
           "float32 convolutions may multiply in TF32 (PyTorch's cudnn.allow_tf32)">,
    Option<"tf32Matmuls", "tf32-matmuls", "bool", "false",
           "float32 matmuls may multiply in TF32 (PyTorch's cuda.matmul.allow_tf32)">,
    Option<"gemms", "gemms", "bool", "true",
           "Large matmuls become GEMM calls (false: they stay linalg)">,
    Option<"convs", "convs", "std::string", "\"gemm\"",
           "Convolutions: cudnn (kiln_gpu_conv_<type> calls), gemm (im2col and a GEMM call, "
           "ungrouped 2-d NCHW only) or kernel (left as linalg)">,
    Option<"depthwise", "depthwise", "bool", "true",
           "With convs=cudnn, depthwise convolutions (one input channel per group) call the "
           "library too (false: they stay linalg, generated kernels)">,
    Option<"epilogues", "epilogues", "bool", "true",
           "Fold a GEMM's bias broadcast, its rounding to bf16/f16 and a ReLU into the call (and, with "
           "convs=cudnn, a convolution's bias broadcast, residual add, ReLU and 16-bit rounding)">,
    Option<"pointwiseGemms", "pointwise-gemms", "bool", "true",
           "With convs=cudnn and gemms: a 1x1, stride-1, unpadded, ungrouped channels-last 16-bit "
           "convolution with a bias and no activation becomes the GEMM it is (kiln_gpu_gemm_lt_<type>, "
           "its bias, residual and rounding as cuBLASLt's epilogue) instead of a cuDNN call">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect"];
}

def KilnGPUTileContractions : Pass<"kiln-gpu-tile-contractions", "::mlir::func::FuncOp"> {
  let summary = "Turn contractions on buffers into workgroup-tiled GPU kernels";
  let description = [{
    Runs before `kiln-map-linalg-to-gpu`, on bufferized linalg. A
    contraction (linalg.matmul, batch_matmul, or any linalg op with two
    buffer inputs and one output, one reduction loop k, every parallel loop
    indexing the output, a parallel loop only the first input uses and one
    only the second uses: transposed operands, broadcast batches and
    `torch.matmul`'s loop nests included) becomes one `gpu.launch`: each
    workgroup of 16x16 threads computes a 64x64 output tile, walking k in
    steps of 16; per step it stages a 64x16 tile of each input in workgroup
    memory (launch workgroup attributions), synchronises (`gpu.barrier`),
    and each thread updates a 4x4 register tile of accumulators from them.
    Edges are bounds checks (rows and columns past the op are neither read
    nor stored; a last partial k step runs the compute loop for the k
    elements there are), so any body of (a, b, acc) and any size, static or
    dynamic, is computed exactly. Remaining loops (batch dims) take one
    workgroup per point. Other ops are left to `kiln-map-linalg-to-gpu`.
    Vendor-neutral: CUDA and ROCm share it.

    Before: `linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)`
    After:
    ```mlir
    gpu.launch blocks(%bx, ...) in (%gx = %tiles, ...) threads(%tx, %ty, %tz) in (%c16, %c16, %c1)
        workgroup(%at : memref<64x17xf32, #gpu.address_space<workgroup>>,
                  %bt : memref<16x65xf32, #gpu.address_space<workgroup>>) {
      %acc = ... 16 scalars loaded from %c ...
      %r = scf.for %k0 = %c0 to %kfull step %c16 iter_args(...) {
        ... stage %at, %bt ...; gpu.barrier; ... 16 x 16 multiply-adds ...; gpu.barrier
      }
      ... partial k step; stores ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def KilnGPUDeviceBuffers : Pass<"kiln-gpu-device-buffers", "::mlir::ModuleOp"> {
  let summary = "Allocate the buffers that kernels touch in device memory";
  let description = [{
    Runs on host code after `convert-parallel-loops-to-gpu`. A `memref.alloc`
    whose buffer (or a view of it) is a `gpu.launch` operand or a function
    result becomes `gpu.alloc`, and its `memref.dealloc` becomes
    `gpu.dealloc`; buffers only the host touches (shape operands of
    `memref.reshape`, for instance) stay host allocations. Constants
    (`memref.get_global`, with their view chains) used inside a launch are
    rematerialized inside it, so kernel outlining copies the global into the
    GPU module and kernels never read host memory; where host code keeps the
    same global (a constant it yields, or passes to a runtime call), kernels
    name a copy of it (`<name>_kernel`) instead, so that CSE cannot merge the
    two and hand a kernel the host global's address. A constant that a
    runtime call on device buffers takes is copied into a device buffer by a
    kernel just before the call and freed after it. A host `memref.load` of a
    device buffer or a function argument (arguments are device buffers: a
    value the kernels computed that host control flow needs) becomes a call
    of the runtime's `kiln_gpu_read_to_host` (kiln/abi/gpu_calls.h), which
    copies the element into a host scalar in stream order, and a load of that
    scalar; any other host read or write of device memory is an error naming
    the op; calls of functions marked
    `kiln.device_call` (the runtime's GPU library entry points) are device
    uses. An `aten.call_runtime` (a dispatcher op the runtime runs on the
    host) takes and returns device buffers too: the pass marks it
    `kiln.device_call`, and its lowering calls the runtime's
    `kiln_rt_call_op_device`, which copies operands to the host and results
    back around the call. Vendor-neutral.

    Before: `%b = memref.alloc() : memref<4xf32>` used by a `gpu.launch`
    After:  `%b = gpu.alloc () : memref<4xf32>`
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def KilnGPUSplitReductions : Pass<"kiln-gpu-split-reductions", "::mlir::func::FuncOp"> {
  let summary = "Split reductions with few outputs and many inputs into two stages for the GPU";
  let description = [{
    On tensors, before bufferization. A GPU reduction gets parallelism from
    its outputs: one thread or one subgroup per output element
    (`kiln-map-linalg-to-gpu`). A reduction with few outputs over many
    elements (a batch norm's per-channel sums in training, its backward's
    sums over N, H and W, a loss's mean over the batch, the sum of a whole
    tensor) would run on a few warps, or one thread, with a long loop each.
    This pass turns the outermost reduction loops into parallel ones of a
    partial result, while the partials stay at most `partials` and each keeps
    enough iterations, then reduces the partials along those loops into the
    op's own outputs:

    Before: `sum over (n, h, w) of x[n, c, h, w]` (64 outputs, 401408 iterations each)
    After: `p[c, n] = sum over (h, w) of x[n, c, h, w]` (2048 partials, fill with
    the combiner's neutral element), then `out[c] = out[c] + sum over n of p[c, n]`.

    When the first reduction loop alone would make too many partials (a sum
    of a whole [100000, 64] tensor), it is first cut into two loops, the
    outer as long as the partials allow (a divisor of its size), through a
    `tensor.expand_shape` of the inputs that read it.

    First it tries the layout split, for a reduction over the outer dims of
    a map whose innermost dim is an output dim (an NHWC pool over H and W at
    a large batch): the last loop parallel and some input's last index, no
    input's last index a reduction loop, every input a projected permutation.
    The outermost reduction loops become parallel dims of partials kept in
    loop order (`p[n, h, c]`), until there are 2^17 partials (at most 2^21,
    at least 4 iterations each); it applies to reductions of fewer than 2^17
    outputs over at least 2^18 elements that reach 2^15 partials.

    Every output must be one associative combiner (add, mul, max, min, and,
    or, xor; integer or float) of its own value and one value of the body, with
    a neutral element, and be indexed by parallel loops only; every loop must
    have a static size. Floating-point sums are reassociated, as every
    parallel reduction (and PyTorch's GPU kernels) does. Vendor-neutral.
  }];
  let options = [
    Option<"maxOutputs", "max-outputs", "int64_t", "1024",
           "Split only reductions with at most this many outputs">,
    Option<"minIterations", "min-iterations", "int64_t", "16384",
           "Split only reductions with at least this many iterations per output">,
    Option<"partials", "partials", "int64_t", "4096",
           "The most partial results the first stage may have">,
    Option<"minPartialIterations", "min-partial-iterations", "int64_t", "256",
           "The fewest reduction iterations each partial result keeps">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"];
}

def KilnGPUMergeModules : Pass<"kiln-gpu-merge-modules", "::mlir::ModuleOp"> {
  let summary = "Gather every outlined kernel into one gpu.module";
  let description = [{
    `gpu-kernel-outlining` puts each kernel in a `gpu.module` of its own,
    which would make the device compiler (and the driver at load time) run
    once per kernel. This pass moves every kernel into the first module,
    renaming each kernel after the module it came from (those names are
    unique), keeps one copy of globals the modules share, and retargets
    every `gpu.launch_func`.

    Before: `gpu.module @f_kernel {gpu.func @f_kernel}`, `gpu.module @f_kernel_0 {gpu.func @f_kernel}`
    After:  `gpu.module @f_kernel {gpu.func @f_kernel, gpu.func @f_kernel_0}`
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // KILN_TRANSFORMS_GPU_PASSES

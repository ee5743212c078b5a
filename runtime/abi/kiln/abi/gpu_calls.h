/* kiln ABI — the GPU library calls a compiled model makes into the runtime.
 *
 * Plain C. kiln-compile --target=cuda turns large matmuls, convolutions and
 * attention into calls of these functions (lib/Transforms/GPULibraryCalls.cpp,
 * lib/Conversion/ATenToLinalg/FusedAttention.cpp); the runtime defines them
 * over cuBLAS/cuBLASLt, cuDNN and its own attention kernels
 * (runtime/src/cuda/Blas.cpp, Dnn.cpp, Attention.cpp). A model declares each
 * with MLIR's C interface, so the symbol the runtime exports is the name
 * below prefixed with "_mlir_ciface_". Operands are memref descriptors
 * (kiln/abi/model_format.h) of device memory; each call runs on the model
 * call's stream.
 */
#ifndef KILN_ABI_GPU_CALLS_H
#define KILN_ABI_GPU_CALLS_H

/* The prefix of the symbol the runtime exports for a name below. */
#define KILN_GPU_CALL_SYMBOL_PREFIX "_mlir_ciface_"

/* void kiln_gpu_gemm_<type>(i32 transA, i32 transB, i32 flags, A, B, C):
 * C[b] = op(A[b]) op(B[b]) (+ C[b] without KILN_GPU_GEMM_OVERWRITE), rank-3
 * row-major operands, accumulating in float32. <type> is that of A and B,
 * then C's when it differs (bf16_f32, f16_f32). */
#define KILN_GPU_GEMM_PREFIX "kiln_gpu_gemm_"
/* void kiln_gpu_gemm_lt_<type>(i32 transA, i32 transB, i32 flags, A, B, D,
 * bias): as kiln_gpu_gemm_<type>, plus bias[n] (then a ReLU with
 * KILN_GPU_GEMM_RELU), through cuBLASLt's epilogues. */
#define KILN_GPU_GEMM_LT_PREFIX "kiln_gpu_gemm_lt_"
/* void kiln_gpu_conv_<type>(i32 flags, i64 groups, i64 s0, s1, s2, p0, p1,
 * p2, d0, d1, d2, x, w, y): y = conv(x, w) (+ y without
 * KILN_GPU_CONV_OVERWRITE), rank-5 (N, C, D, H, W) views. */
#define KILN_GPU_CONV_PREFIX "kiln_gpu_conv_"
/* void kiln_gpu_conv_bias_<type>(flags, groups, s.., p.., d.., x, w, y, bias):
 * y = conv(x, w) + bias[channel], then ReLU with KILN_GPU_CONV_RELU; bias
 * rank 1 (F) of the data type, contiguous; always with
 * KILN_GPU_CONV_OVERWRITE; the sum is rounded once to a 16-bit y.
 * kiln_gpu_conv_bias_add_<type>(..., x, w, y, bias, z) adds z (of y's
 * shape and strides) before the ReLU. */
#define KILN_GPU_CONV_BIAS_PREFIX "kiln_gpu_conv_bias_"
/* void kiln_gpu_conv_bwd_data_<type>(flags, groups, s.., p.., d.., dy, w, dx):
 * dx = the gradient of conv(x, w) with respect to x for output gradient dy
 * (+ dx without KILN_GPU_CONV_OVERWRITE); void kiln_gpu_conv_bwd_filter_<type>
 * (flags, groups, s.., p.., d.., x, dy, dw): the same for w. Arguments as
 * kiln_gpu_conv_<type>'s. */
#define KILN_GPU_CONV_BWD_DATA_PREFIX "kiln_gpu_conv_bwd_data_"
#define KILN_GPU_CONV_BWD_FILTER_PREFIX "kiln_gpu_conv_bwd_filter_"
/* void kiln_gpu_sdpa_<type>[<mask>](q, k, v, [mask,] out, i32 causal,
 * i32 group, f32 scale): fused scaled_dot_product_attention over rank-4
 * (batch, heads, sequence, head size) views. */
#define KILN_GPU_SDPA_PREFIX "kiln_gpu_sdpa_"
#define KILN_GPU_SDPA_BOOL_MASK_SUFFIX "_boolmask" /* a bool mask: attend where true */
#define KILN_GPU_SDPA_ADD_MASK_SUFFIX "_addmask"   /* a float mask added to the scores */

/* void kiln_gpu_read_to_host(index dst, index src, index nbytes): copies
 * nbytes of device memory at address src to host memory at dst once the
 * work queued before it on the model call's stream is done (1.8). A GPU
 * model's host code reads through it what its kernels computed and host
 * control flow needs (`.item()`, `.tolist()` split sizes, data-dependent
 * loop bounds); lib/Transforms/GPUDeviceBuffers.cpp rewrites such reads.
 * Vendor-neutral (runtime/src/gpu/HostCalls.cpp). After an earlier failure
 * of the call it writes zeros; inside a GPU graph capture it fails the call
 * (a capture cannot wait for its own stream), and the model runs without a
 * graph. */
#define KILN_GPU_READ_TO_HOST "kiln_gpu_read_to_host"

/* Bits of the GEMMs' `flags`. */
enum kiln_gpu_gemm_flags {
  KILN_GPU_GEMM_TF32 = 1,      /* float32 operands may multiply in TF32 */
  KILN_GPU_GEMM_OVERWRITE = 2, /* C (or D) is written, not accumulated into */
  KILN_GPU_GEMM_RELU = 4       /* epilogue GEMMs: ReLU after the bias */
};

/* Bits of the convolutions' `flags`. */
enum kiln_gpu_conv_flags {
  KILN_GPU_CONV_TF32 = 1,     /* float32 operands may multiply in TF32 */
  KILN_GPU_CONV_OVERWRITE = 2, /* y is written, not accumulated into */
  KILN_GPU_CONV_RELU = 4       /* conv_bias: ReLU after the bias */
};

/* Every function above, for checks that the runtime defines what the
 * compiler may call: X(name) for each full name. */
#define KILN_GPU_CALLS(X)                                                                  \
  X("kiln_gpu_gemm_f32") X("kiln_gpu_gemm_bf16") X("kiln_gpu_gemm_f16")                    \
  X("kiln_gpu_gemm_bf16_f32") X("kiln_gpu_gemm_f16_f32")                                   \
  X("kiln_gpu_gemm_lt_f32") X("kiln_gpu_gemm_lt_bf16") X("kiln_gpu_gemm_lt_f16")           \
  X("kiln_gpu_gemm_lt_bf16_f32") X("kiln_gpu_gemm_lt_f16_f32")                             \
  X("kiln_gpu_conv_f32") X("kiln_gpu_conv_bf16") X("kiln_gpu_conv_f16")                    \
  X("kiln_gpu_conv_bias_f32") X("kiln_gpu_conv_bias_bf16") X("kiln_gpu_conv_bias_f16")     \
  X("kiln_gpu_conv_bias_add_f32") X("kiln_gpu_conv_bias_add_bf16")                         \
  X("kiln_gpu_conv_bias_add_f16")                                                          \
  X("kiln_gpu_conv_bwd_data_f32") X("kiln_gpu_conv_bwd_data_bf16")                         \
  X("kiln_gpu_conv_bwd_data_f16") X("kiln_gpu_conv_bwd_filter_f32")                        \
  X("kiln_gpu_conv_bwd_filter_bf16") X("kiln_gpu_conv_bwd_filter_f16")                     \
  X("kiln_gpu_sdpa_f32") X("kiln_gpu_sdpa_bf16") X("kiln_gpu_sdpa_f16")                    \
  X("kiln_gpu_sdpa_f32_boolmask") X("kiln_gpu_sdpa_bf16_boolmask")                         \
  X("kiln_gpu_sdpa_f16_boolmask") X("kiln_gpu_sdpa_f32_addmask")                           \
  X("kiln_gpu_sdpa_bf16_addmask") X("kiln_gpu_sdpa_f16_addmask")                           \
  X(KILN_GPU_READ_TO_HOST)

#endif /* KILN_ABI_GPU_CALLS_H */

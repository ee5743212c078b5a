/* kiln — the CPU library calls of compiled models (oneDNN convolutions and matrix products): entry points and flags. Plain C.
 *
 * kiln-cpu-library-calls (lib/Transforms) turns large convolutions and matrix
 * products into calls of these entries; the runtime (runtime/src/cpu) runs
 * them with oneDNN, loaded at first use. Every memref argument is MLIR's
 * strided descriptor of rank R passed by pointer (`llvm.emit_c_interface`):
 *   { float *allocated; float *aligned; int64_t offset; int64_t sizes[R]; int64_t strides[R]; }
 *
 *   kiln_cpu_gemm_f32(i32 transA, i32 transB, i32 flags, A, B, C)        rank 3 (batch, rows, cols)
 *     C[b] = op(A[b]) * op(B[b]) (+ C[b] without KILN_CPU_OVERWRITE), A stored (k, m) with transA,
 *     B stored (n, k) with transB.
 *   kiln_cpu_gemm_lt_f32(i32 transA, i32 transB, i32 flags, A, B, D, bias)  bias rank 1 (n)
 *     D[b] = op(A[b]) * op(B[b]) (+ D[b]) + bias[n], then ReLU with KILN_CPU_RELU.
 *   kiln_cpu_conv_f32(i32 flags, i64 groups, i64 s0, s1, s2, p0, p1, p2, d0, d1, d2, x, w, y)
 *     rank 5 (N, C, D, H, W) views (unit leading spatial dims for 1-d and 2-d convolutions), any
 *     strides: y = conv(x, w) (+ y without KILN_CPU_OVERWRITE), stride s, symmetric zero padding p
 *     and dilation d per spatial dim, w (F, C/groups, KD, KH, KW); then the activation
 *     its flags name (KILN_CPU_RELU, _HARDSWISH, _SILU, _SIGMOID).
 *   kiln_cpu_conv_bias_f32(i32 flags, i64 groups, ..., x, w, y, bias)  bias rank 1 (F)
 *     the same, + bias[f] on every output of channel f, then the activation its flags name.
 *   kiln_cpu_conv_bias_add_f32(i32 flags, i64 groups, ..., x, w, y, bias, r)  r rank 5, y's shape, any strides
 *     the same, + r (a residual) before the activation.
 *   kiln_cpu_conv_bwd_data_f32(i32 flags, i64 groups, s.., p.., d.., dy, w, dx)
 *     dx = the gradient of conv(x, w) with respect to x for the output gradient dy (+ dx without
 *     KILN_CPU_OVERWRITE); arguments as kiln_cpu_conv_f32's.
 *   kiln_cpu_conv_bwd_filter_f32(i32 flags, i64 groups, s.., p.., d.., x, dy, dw)
 *     dw = the same gradient with respect to w (+ dw without KILN_CPU_OVERWRITE).
 *
 * A failed call leaves its output unspecified and records an error that the
 * model's run reports (the calls run on the thread that runs the model).
 */
#ifndef KILN_ABI_CPU_CALLS_H
#define KILN_ABI_CPU_CALLS_H

enum kiln_cpu_call_flags {
  /* The output is written, not read (it was zero-filled before). */
  KILN_CPU_OVERWRITE = 2,
  /* max(x, 0) of the result (the GEMM with a bias, the convolutions). */
  KILN_CPU_RELU = 4,
  /* The weight operand (B of a GEMM, w of a convolution) is an argument of
   * the model of kind weight that no run changes: the runtime reorders it once
   * into the library's preferred layout and keeps that copy while the model
   * is loaded. */
  KILN_CPU_CONST_WEIGHT = 8,
  /* The convolutions' other activations of the result (at most one bit of
   * RELU, HARDSWISH, SILU, SIGMOID): x * relu6(x + 3) / 6, x * sigmoid(x),
   * 1 / (1 + exp(-x)). */
  KILN_CPU_HARDSWISH = 16,
  KILN_CPU_SILU = 32,
  KILN_CPU_SIGMOID = 64,
  /* A 2-d convolution's x, y or r (kiln_cpu_conv_*_f32) is a whole dense
   * buffer of (N, H, W, C) floats, C a multiple of 8, that nothing but these
   * convolutions reads or writes, and no window of x runs past its end: its
   * elements are kept in the library's blocked layout (channels in groups of
   * 8, or of 16 where the library prefers them and C allows: (N, C/8, H, W,
   * 8)), not NHWC, so consecutive convolutions pass it on without reorders. */
  KILN_CPU_X_BLOCKED = 128,
  KILN_CPU_Y_BLOCKED = 256,
  KILN_CPU_R_BLOCKED = 512
};

#endif /* KILN_ABI_CPU_CALLS_H */

// kiln runtime — the parameters of the fused attention kernels, shared by AttentionKernels.cu and Attention.cpp.
#ifndef KILN_CUDA_ATTENTION_PARAMS_H
#define KILN_CUDA_ATTENTION_PARAMS_H

/// How a kernel reads `mask`.
enum { KILN_SDPA_MASK_NONE = 0, KILN_SDPA_MASK_BOOL = 1, KILN_SDPA_MASK_ADD = 2 };

/// One attention call, passed by value to the kernel. Operands are viewed as
/// [batch, heads, rows, cols] with element strides (0 where broadcast): q
/// [B, H, L, E], k [., H/group, S, E], v [., H/group, S, Ev], mask [., ., L, S]
/// (bytes, nonzero = take part, or additive values of the input type), out
/// [B, H, L, Ev].
struct kiln_sdpa_params {
  const void *q, *k, *v, *mask;
  void *out;
  long long qs[4], ks[4], vs[4], ms[4], os[4];
  int B, H, L, S, E, Ev, group, maskKind, causal;
  float scaleLog2;  ///< scale * log2(e)
};

/// Query rows per block (16 a warp, every type), keys per tile of the 16-bit
/// kernels and of the float32 ones.
#define KILN_SDPA_ROWS_16 64
#define KILN_SDPA_KEYS_16 64
#define KILN_SDPA_KEYS_32 32

/// Dynamic shared memory of the kernel for elements of `bytes` bytes, padded
/// head size `d` and `split` groups of warps that share a block's query rows
/// and take every split-th key tile each: Q, two buffers of K and of V
/// (split tiles each), rows of d + 8 (16-bit) or d + 4 (float32) elements.
static inline unsigned kiln_sdpa_smem_bytes(int bytes, int d, int split) {
  if (bytes == 2)
    return (unsigned)((KILN_SDPA_ROWS_16 + 4 * split * KILN_SDPA_KEYS_16) * (d + 8) * 2);
  return (unsigned)((KILN_SDPA_ROWS_16 + 4 * split * KILN_SDPA_KEYS_32) * (d + 4) * 4);
}

#endif // KILN_CUDA_ATTENTION_PARAMS_H

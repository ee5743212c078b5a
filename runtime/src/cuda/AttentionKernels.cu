// kiln runtime — fused attention kernels (one pass, online softmax), compiled by nvcc into an embedded fatbin.
//
// out[b, h, i, :] = softmax(scale * q[b, h, i, :] . k[b, h/group, j, :] (+ mask) over j) @ v[b, h/group, j, :]
//
// Each block owns a tile of query rows of one (batch, head) pair and walks
// the keys and values in tiles through shared memory, keeping each row's
// running maximum and sum (log2 domain) and its output accumulator, so no
// L x S matrix ever reaches global memory. 16-bit types multiply on tensor
// cores (WMMA, float32 accumulation; the probabilities are rounded to the
// input type for the second product); float32 runs plain float32 FMAs.
// Design notes: docs/Rationale/gpu-fused-attention.md. Launched by Attention.cpp.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include "AttentionParams.h"

namespace {

using namespace nvcuda;

constexpr float kNegInf = -__builtin_huge_valf();
constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ float toFloat(float x) { return x; }
__device__ __forceinline__ float toFloat(__half x) { return __half2float(x); }
__device__ __forceinline__ float toFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T> __device__ __forceinline__ T fromFloat(float x);
template <> __device__ __forceinline__ float fromFloat<float>(float x) { return x; }
template <> __device__ __forceinline__ __half fromFloat<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

__device__ __forceinline__ float warpMax(float x) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
  return x;
}
__device__ __forceinline__ float warpSum(float x) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

/// The (batch, head, query tile) a block works on and its operands' bases.
struct Tile {
  int q0;
  const char *q, *k, *v, *mask;
  char *out;
};

template <typename T> __device__ __forceinline__ Tile tileOf(const kiln_sdpa_params &p, int rows) {
  int qTiles = (p.L + rows - 1) / rows;
  long long bh = blockIdx.x / qTiles;
  int b = static_cast<int>(bh / p.H), h = static_cast<int>(bh % p.H), hk = h / p.group;
  Tile t;
  t.q0 = static_cast<int>(blockIdx.x % qTiles) * rows;
  t.q = static_cast<const char *>(p.q) + (b * p.qs[0] + h * p.qs[1]) * (long long)sizeof(T);
  t.k = static_cast<const char *>(p.k) + (b * p.ks[0] + hk * p.ks[1]) * (long long)sizeof(T);
  t.v = static_cast<const char *>(p.v) + (b * p.vs[0] + hk * p.vs[1]) * (long long)sizeof(T);
  long long maskBytes = p.maskKind == KILN_SDPA_MASK_BOOL ? 1 : (long long)sizeof(T);
  t.mask = p.mask ? static_cast<const char *>(p.mask) + (b * p.ms[0] + h * p.ms[1]) * maskBytes : nullptr;
  t.out = static_cast<char *>(p.out) + (b * p.os[0] + h * p.os[1]) * (long long)sizeof(T);
  return t;
}

/// One logit in the log2 domain: scale * s plus the staged mask `bias`
/// (already in log2 units), -inf where the key is past the end or in the
/// causal future.
__device__ __forceinline__ float logit(const kiln_sdpa_params &p, float s, float bias, int qi, int kj) {
  if (kj >= p.S || qi >= p.L || (p.causal && kj > qi)) return kNegInf;
  return s * p.scaleLog2 + bias;
}

/// Stages the mask of query rows [q0, q0 + ROWS) and keys [k0, k0 + KEYS)
/// in shared memory as additive values of T (0 or -inf for a bool mask), so
/// its global loads go out with the key and value tiles' instead of one by
/// one inside the softmax. Outside the problem: 0 (logit() masks those).
template <typename T, int ROWS, int KEYS, int THREADS>
__device__ __forceinline__ void loadMask(T *dst, int ld, const kiln_sdpa_params &p, const Tile &t, int k0) {
  for (int idx = threadIdx.x; idx < ROWS * KEYS; idx += THREADS) {
    const int r = idx / KEYS, c = idx % KEYS, qi = t.q0 + r, kj = k0 + c;
    float v = 0.0f;
    if (qi < p.L && kj < p.S) {
      const long long at = qi * p.ms[2] + kj * p.ms[3];
      v = p.maskKind == KILN_SDPA_MASK_BOOL ? (t.mask[at] ? 0.0f : kNegInf)
                                            : toFloat(reinterpret_cast<const T *>(t.mask)[at]);
    }
    dst[r * ld + c] = fromFloat<T>(v);
  }
}

/// Loads rows [r0, r0 + rows) of a [n, width] operand (strides s2, s3) into
/// shared memory rows of `ld` elements, zero past n and past width (to D).
/// Rows that are contiguous, 16-byte aligned and a whole number of 16-byte
/// chunks wide move 16 bytes a thread; any other layout element by element.
template <typename T, int D, int ROWS, int THREADS>
__device__ __forceinline__ void loadTile(T *dst, int ld, const char *src, long long s2, long long s3, int r0, int n,
                                         int width) {
  const T *base = reinterpret_cast<const T *>(src);
  constexpr int V = 16 / sizeof(T);  // elements per 16-byte chunk
  const bool vec = s3 == 1 && s2 % V == 0 && width % V == 0 && reinterpret_cast<unsigned long long>(base) % 16 == 0 &&
                   (ld * sizeof(T)) % 16 == 0;
  if (vec) {
    for (int idx = threadIdx.x; idx < ROWS * (D / V); idx += THREADS) {
      int r = idx / (D / V), d = (idx % (D / V)) * V, row = r0 + r;
      uint4 x = make_uint4(0, 0, 0, 0);
      if (row < n && d < width) x = *reinterpret_cast<const uint4 *>(base + row * s2 + d);
      *reinterpret_cast<uint4 *>(dst + r * ld + d) = x;
    }
    return;
  }
  for (int idx = threadIdx.x; idx < ROWS * D; idx += THREADS) {
    int r = idx / D, d = idx % D, row = r0 + r;
    dst[r * ld + d] = row < n && d < width ? base[row * s2 + d * s3] : fromFloat<T>(0.0f);
  }
}

/// The number of key tiles a block visits (causal rows stop at their diagonal).
__device__ __forceinline__ int keyEnd(const kiln_sdpa_params &p, int q0, int rows) {
  int end = p.S;
  if (p.causal) end = min(end, q0 + rows);
  return end;
}

// ---------------------------------------------------------------------------
// 16-bit inputs: tensor cores (WMMA 16x16x16, float32 accumulation).
// 4 warps, each owning 16 query rows; key tiles of 64.
constexpr int kWarps16 = 4, kRows16 = 16 * kWarps16, kKeys16 = 64;

template <typename T, int D>
__device__ void attention16(const kiln_sdpa_params &p, unsigned char *smem) {
  constexpr int LDH = D + 8, LDS = kKeys16 + 4, LDP = kKeys16 + 8, LDO = D + 4;
  T *sQ = reinterpret_cast<T *>(smem);
  T *sK = sQ + kRows16 * LDH;
  T *sV = sK + kKeys16 * LDH;
  float *sS = reinterpret_cast<float *>(sV + kKeys16 * LDH);
  T *sP = reinterpret_cast<T *>(sS + kRows16 * LDS);
  float *sO = reinterpret_cast<float *>(sP + kRows16 * LDP);

  const Tile t = tileOf<T>(p, kRows16);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, w0 = warp * 16;
  loadTile<T, D, kRows16, 32 * kWarps16>(sQ, LDH, t.q, p.qs[2], p.qs[3], t.q0, p.L, p.E);
  for (int idx = lane; idx < 16 * D; idx += 32) sO[(w0 + idx / D) * LDO + idx % D] = 0.0f;
  // The running max and sum of row w0 + lane / 2 (both lanes of a pair hold them).
  float m = kNegInf, l = 0.0f;

  // This warp's 16 query rows stay in registers as WMMA fragments.
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> qf[D / 16];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) wmma::load_matrix_sync(qf[kk], sQ + w0 * LDH + kk * 16, LDH);

  const int end = keyEnd(p, t.q0, kRows16);
  for (int k0 = 0; k0 < end; k0 += kKeys16) {
    __syncthreads();  // the previous tile's K and V are no longer read
    loadTile<T, D, kKeys16, 32 * kWarps16>(sK, LDH, t.k, p.ks[2], p.ks[3], k0, p.S, p.E);
    loadTile<T, D, kKeys16, 32 * kWarps16>(sV, LDH, t.v, p.vs[2], p.vs[3], k0, p.S, p.Ev);
    // The mask goes where P will be: each lane reads its entries and then
    // overwrites them with probabilities.
    if (p.maskKind != KILN_SDPA_MASK_NONE) loadMask<T, kRows16, kKeys16, 32 * kWarps16>(sP, LDP, p, t, k0);
    __syncthreads();

    // S = Q K^T for this warp's 16 rows.
#pragma unroll
    for (int n = 0; n < kKeys16 / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b;
        wmma::load_matrix_sync(b, sK + n * 16 * LDH + kk * 16, LDH);
        wmma::mma_sync(acc, qf[kk], b, acc);
      }
      wmma::store_matrix_sync(sS + w0 * LDS + n * 16, acc, LDS, wmma::mem_row_major);
    }
    __syncwarp();

    // Online softmax: lanes 2r and 2r + 1 share row r, each taking every
    // other key of the tile; the pair meets through one shuffle for the max
    // and one for the sum, and rescales its row of O.
    {
      const int r = lane >> 1, half = lane & 1, R = w0 + r, qi = t.q0 + R;
      float x[kKeys16 / 2], mx = kNegInf;
#pragma unroll
      for (int i = 0; i < kKeys16 / 2; ++i) {
        const int c = half + 2 * i;
        const float bias = p.maskKind != KILN_SDPA_MASK_NONE ? toFloat(sP[R * LDP + c]) * kLog2e : 0.0f;
        x[i] = logit(p, sS[R * LDS + c], bias, qi, k0 + c);
        mx = fmaxf(mx, x[i]);
      }
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      const float mNew = fmaxf(m, mx);
      const float alpha = mNew == kNegInf ? 1.0f : exp2f(m - mNew);
      float sum = 0.0f;
#pragma unroll
      for (int i = 0; i < kKeys16 / 2; ++i) {
        const float pr = x[i] == kNegInf ? 0.0f : exp2f(x[i] - mNew);
        sum += pr;
        sP[R * LDP + half + 2 * i] = fromFloat<T>(pr);
      }
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      l = l * alpha + sum;
      m = mNew;
      for (int e = half; e < D; e += 2) sO[R * LDO + e] *= alpha;
    }
    __syncwarp();

    // O += P V.
#pragma unroll
    for (int n = 0; n < D / 16; ++n) {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, sO + w0 * LDO + n * 16, LDO, wmma::mem_row_major);
#pragma unroll
      for (int kk = 0; kk < kKeys16 / 16; ++kk) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b;
        wmma::load_matrix_sync(a, sP + w0 * LDP + kk * 16, LDP);
        wmma::load_matrix_sync(b, sV + kk * 16 * LDH + n * 16, LDH);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(sO + w0 * LDO + n * 16, acc, LDO, wmma::mem_row_major);
    }
    __syncwarp();
  }
  __syncwarp();

  T *out = reinterpret_cast<T *>(t.out);
#pragma unroll
  for (int r = 0; r < 16; ++r) {
    const int R = w0 + r, qi = t.q0 + R;
    const float lr = __shfl_sync(0xffffffffu, l, 2 * r);
    if (qi >= p.L) continue;
    float inv = lr > 0.0f ? 1.0f / lr : 0.0f;
    for (int e = lane; e < p.Ev; e += 32) out[qi * p.os[2] + e * p.os[3]] = fromFloat<T>(sO[R * LDO + e] * inv);
  }
}

// ---------------------------------------------------------------------------
// float32: plain FMAs. 4 warps, each owning 4 query rows; key tiles of 32
// (one key a lane); each lane keeps its rows' outputs for columns
// lane + 32 j in registers.
constexpr int kWarps32 = 4, kRowsPerWarp32 = 4, kRows32 = kWarps32 * kRowsPerWarp32, kKeys32 = 32;

template <int D>
__device__ void attention32(const kiln_sdpa_params &p, unsigned char *smem) {
  constexpr int LDQ = D + 1, LDK = D + 1, LDV = D, LDP = kKeys32 + 1, RW = kRowsPerWarp32, J = D / 32;
  float *sQ = reinterpret_cast<float *>(smem);
  float *sK = sQ + kRows32 * LDQ;
  float *sV = sK + kKeys32 * LDK;
  float *sP = sV + kKeys32 * LDV;

  const Tile t = tileOf<float>(p, kRows32);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, w0 = warp * RW;
  loadTile<float, D, kRows32, 32 * kWarps32>(sQ, LDQ, t.q, p.qs[2], p.qs[3], t.q0, p.L, p.E);
  float m[RW], l[RW], o[RW][J];
#pragma unroll
  for (int r = 0; r < RW; ++r) {
    m[r] = kNegInf, l[r] = 0.0f;
#pragma unroll
    for (int j = 0; j < J; ++j) o[r][j] = 0.0f;
  }

  const int end = keyEnd(p, t.q0, kRows32);
  for (int k0 = 0; k0 < end; k0 += kKeys32) {
    __syncthreads();
    loadTile<float, D, kKeys32, 32 * kWarps32>(sK, LDK, t.k, p.ks[2], p.ks[3], k0, p.S, p.E);
    loadTile<float, D, kKeys32, 32 * kWarps32>(sV, LDV, t.v, p.vs[2], p.vs[3], k0, p.S, p.Ev);
    if (p.maskKind != KILN_SDPA_MASK_NONE) loadMask<float, kRows32, kKeys32, 32 * kWarps32>(sP, LDP, p, t, k0);
    __syncthreads();

    float s[RW];
#pragma unroll
    for (int r = 0; r < RW; ++r) s[r] = 0.0f;
#pragma unroll 8
    for (int d = 0; d < D; ++d) {
      float kv = sK[lane * LDK + d];
#pragma unroll
      for (int r = 0; r < RW; ++r) s[r] = fmaf(sQ[(w0 + r) * LDQ + d], kv, s[r]);
    }
    float alpha[RW];
#pragma unroll
    for (int r = 0; r < RW; ++r) {
      const int R = w0 + r, qi = t.q0 + R;
      const float bias = p.maskKind != KILN_SDPA_MASK_NONE ? sP[R * LDP + lane] * kLog2e : 0.0f;
      float x = logit(p, s[r], bias, qi, k0 + lane);
      float mNew = fmaxf(m[r], warpMax(x));
      alpha[r] = mNew == kNegInf ? 1.0f : exp2f(m[r] - mNew);
      float pr = x == kNegInf ? 0.0f : exp2f(x - mNew);
      l[r] = l[r] * alpha[r] + warpSum(pr);
      m[r] = mNew;
      sP[R * LDP + lane] = pr;
    }
    __syncwarp();
#pragma unroll
    for (int r = 0; r < RW; ++r)
#pragma unroll
      for (int j = 0; j < J; ++j) o[r][j] *= alpha[r];
#pragma unroll 4
    for (int c = 0; c < kKeys32; ++c) {
      float vv[J];
#pragma unroll
      for (int j = 0; j < J; ++j) vv[j] = sV[c * LDV + lane + 32 * j];
#pragma unroll
      for (int r = 0; r < RW; ++r) {
        float pr = sP[(w0 + r) * LDP + c];
#pragma unroll
        for (int j = 0; j < J; ++j) o[r][j] = fmaf(pr, vv[j], o[r][j]);
      }
    }
    __syncwarp();
  }

  float *out = reinterpret_cast<float *>(t.out);
#pragma unroll
  for (int r = 0; r < RW; ++r) {
    const int qi = t.q0 + w0 + r;
    if (qi >= p.L) continue;
    float inv = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
#pragma unroll
    for (int j = 0; j < J; ++j) {
      int e = lane + 32 * j;
      if (e < p.Ev) out[qi * p.os[2] + e * p.os[3]] = o[r][j] * inv;
    }
  }
}

} // namespace

// Entry points, one per input type and padded head size D (E, Ev <= D).
// Their shared-memory sizes are kiln_sdpa_smem_bytes() (AttentionParams.h).
#define KILN_SDPA_16(name, T, D)                                                                  \
  extern "C" __global__ void __launch_bounds__(32 * kWarps16) name(kiln_sdpa_params p) {         \
    extern __shared__ __align__(128) unsigned char smem[];                                        \
    attention16<T, D>(p, smem);                                                                   \
  }
#define KILN_SDPA_32(name, D)                                                                     \
  extern "C" __global__ void __launch_bounds__(32 * kWarps32) name(kiln_sdpa_params p) {         \
    extern __shared__ __align__(128) unsigned char smem[];                                        \
    attention32<D>(p, smem);                                                                      \
  }
KILN_SDPA_16(kiln_sdpa_bf16_d32, __nv_bfloat16, 32)
KILN_SDPA_16(kiln_sdpa_bf16_d64, __nv_bfloat16, 64)
KILN_SDPA_16(kiln_sdpa_bf16_d128, __nv_bfloat16, 128)
KILN_SDPA_16(kiln_sdpa_f16_d32, __half, 32)
KILN_SDPA_16(kiln_sdpa_f16_d64, __half, 64)
KILN_SDPA_16(kiln_sdpa_f16_d128, __half, 128)
KILN_SDPA_32(kiln_sdpa_f32_d32, 32)
KILN_SDPA_32(kiln_sdpa_f32_d64, 64)
KILN_SDPA_32(kiln_sdpa_f32_d128, 128)

// kiln runtime — fused attention kernels (one pass, online softmax), compiled by nvcc into an embedded fatbin.
//
// out[b, h, i, :] = softmax(scale * q[b, h, i, :] . k[b, h/group, j, :] (+ mask) over j) @ v[b, h/group, j, :]
//
// Each block owns a tile of query rows of one (batch, head) pair and walks
// the keys and values in tiles through shared memory, keeping each row's
// running maximum and sum (log2 domain) and its output accumulator, so no
// L x S matrix ever reaches global memory. Every type multiplies on tensor
// cores (mma.sync, float32 accumulation, S, P and O in registers): 16-bit
// types directly (the probabilities rounded to the input type for the second
// product), float32 as three TF32 products of each operand's high and low
// parts, which keeps float32's precision.
// Design notes: docs/Rationale/gpu-fused-attention.md. Launched by Attention.cpp.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "AttentionParams.h"

namespace {

constexpr float kNegInf = -__builtin_huge_valf();
constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ float toFloat(float x) { return x; }
__device__ __forceinline__ float toFloat(__half x) { return __half2float(x); }
__device__ __forceinline__ float toFloat(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T> __device__ __forceinline__ T fromFloat(float x);
template <> __device__ __forceinline__ float fromFloat<float>(float x) { return x; }
template <> __device__ __forceinline__ __half fromFloat<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// ---------------------------------------------------------------------------
// Tensor cores through mma.sync (float32 accumulation), FlashAttention-2's
// scheme; 16-bit inputs through m16n8k16, float32 through m16n8k8 TF32
// products (below). Each warp owns 16 query rows; S
// and the output O stay in registers in the accumulator layout (lane holds
// rows lane/4 and lane/4 + 8, columns 2 (lane%4) and 2 (lane%4) + 1 of each
// 8-wide n-tile), the softmax runs there (a row's four lanes meet through
// two shuffles), and P, rounded to T, is the A operand of P V as it is. K
// and V tiles of kKeys16 keys come through shared memory by cp.async, two
// buffers deep, and are read by ldmatrix (.trans for V).
constexpr int kWarps16 = KILN_SDPA_ROWS_16 / 16, kKeys16 = KILN_SDPA_KEYS_16, kKeys32 = KILN_SDPA_KEYS_32;

using u32 = unsigned;

/// 2^x by the special-function unit (relative error about 2^-22; -inf gives 0).
__device__ __forceinline__ float fastExp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ u32 smemAddr(const void *p) { return static_cast<u32>(__cvta_generic_to_shared(p)); }

/// Copies `bytes` (0..16) of `src` to the 16 bytes at `dst`, zero-filling the rest.
__device__ __forceinline__ void cpAsync16(void *dst, const void *src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smemAddr(dst)), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cpAsyncWait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void ldmatrixX4(u32 (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smemAddr(p)));
}
__device__ __forceinline__ void ldmatrixX4Trans(u32 (&r)[4], const void *p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smemAddr(p)));
}

/// c += a b for one m16n8k16 tile (a row-major 16x16, b column-major 16x8).
template <typename T> __device__ __forceinline__ void mma16816(float (&c)[4], const u32 (&a)[4], u32 b0, u32 b1);
template <> __device__ __forceinline__ void mma16816<__nv_bfloat16>(float (&c)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <> __device__ __forceinline__ void mma16816<__half>(float (&c)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// Two floats rounded to T, `lo` in the low half (the lower column of an A fragment).
template <typename T> __device__ __forceinline__ u32 pack2(float lo, float hi);
template <> __device__ __forceinline__ u32 pack2<__nv_bfloat16>(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<u32 *>(&v);
}
template <> __device__ __forceinline__ u32 pack2<__half>(float lo, float hi) {
  __half2 v = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<u32 *>(&v);
}

/// `x` as a TF32 high part (`big`, round to nearest) and the TF32 rounding of
/// what remains (`small`): big + small holds about 21 of float32's 24 bits.
__device__ __forceinline__ void splitTf32(float x, u32 &big, u32 &small) {
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(big) : "f"(x));
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(small) : "f"(x - __uint_as_float(big)));
}

/// c += a b for one m16n8k8 TF32 tile (a row-major 16x8, b column-major 8x8).
__device__ __forceinline__ void mma1688(float (&c)[4], const u32 (&a)[4], u32 b0, u32 b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// c += a b in float32 precision from a split into high and low TF32 parts
/// (`ab`, `as`) and float32 b: the two cross products first, then high by
/// high (the low by low term is below float32's rounding). PyTorch's float32
/// fused attention multiplies the same way.
__device__ __forceinline__ void mma1688x3(float (&c)[4], const u32 (&ab)[4], const u32 (&as)[4], float b0, float b1) {
  u32 bb0, bs0, bb1, bs1;
  splitTf32(b0, bb0, bs0);
  splitTf32(b1, bb1, bs1);
  mma1688(c, as, bb0, bb1);
  mma1688(c, ab, bs0, bs1);
  mma1688(c, ab, bb0, bb1);
}

/// Whether rows of an operand can move as 16-byte chunks: contiguous, each
/// row starting 16-byte aligned.
template <typename T> __device__ __forceinline__ bool rowsVectorizable(const char *base, long long s2, long long s3) {
  constexpr int V = 16 / sizeof(T);
  return s3 == 1 && s2 % V == 0 && reinterpret_cast<unsigned long long>(base) % 16 == 0;
}

/// Starts loading rows [r0, r0 + ROWS) of a [n, width] operand into shared
/// rows of LD elements (columns up to D; zero past n and past width): by
/// cp.async 16 bytes a thread when `vec`, else element by element (plain
/// loads, done on return).
template <typename T, int D, int LD, int ROWS, int THREADS>
__device__ __forceinline__ void loadTile16(T *dst, const char *src, long long s2, long long s3, int r0, int n,
                                           int width, bool vec) {
  const T *base = reinterpret_cast<const T *>(src);
  constexpr int V = 16 / sizeof(T), C = D / V, STEP = THREADS / C;
  static_assert(THREADS % C == 0 && (ROWS % STEP == 0 || STEP % ROWS == 0), "whole rows per pass");
  if (vec) {
    // Each thread moves column chunk c of rows rb, rb + STEP, ... (threads
    // past the last row, where a pass has more threads than the tile has
    // chunks, move nothing).
    const int c = (threadIdx.x % C) * V, rb = threadIdx.x / C;
    if (ROWS < STEP && rb >= ROWS) return;
    const int bytes = c < width ? min(V, width - c) * (int)sizeof(T) : 0;
    const T *from = base + c + (r0 + rb) * s2;
#pragma unroll
    for (int it = 0; it < (ROWS + STEP - 1) / STEP; ++it) {
      const int r = rb + it * STEP;
      const bool in = bytes && r0 + r < n;
      cpAsync16(dst + r * LD + c, in ? from + it * STEP * s2 : base, in ? bytes : 0);
    }
    return;
  }
  for (int idx = threadIdx.x; idx < ROWS * D; idx += THREADS) {
    const int r = idx / D, d = idx % D, row = r0 + r;
    dst[r * LD + d] = row < n && d < width ? base[row * s2 + d * s3] : fromFloat<T>(0.0f);
  }
}

/// Applies the mask of key tile [k0, k0 + 8 NT) to this lane's logits `s`
/// (log2 domain, accumulator layout: rows row0 and row0 + 8, whose mask rows
/// start at mr0 and mr1, null past the queries' end): -inf where a bool mask
/// is false, plus log2(e) times an additive mask. `pairs`: the lane's two
/// adjacent keys of each n-tile are adjacent and aligned in both mask rows,
/// so one load reads them.
template <typename T, int NT>
__device__ __forceinline__ void applyMask(float (&s)[NT][4], const kiln_sdpa_params &p, const char *mr0,
                                          const char *mr1, int k0, int t4, bool pairs) {
  const int kb = k0 + 2 * t4;
  const bool whole = k0 + 8 * NT <= p.S;
  if (p.maskKind == KILN_SDPA_MASK_BOOL) {
    if (pairs && whole) {
#pragma unroll
      for (int n = 0; n < NT; ++n) {
        const int kj = kb + n * 8;
        if (mr0) {
          const unsigned short v = *reinterpret_cast<const unsigned short *>(mr0 + kj);
          s[n][0] = v & 0xffu ? s[n][0] : kNegInf;
          s[n][1] = v >> 8 ? s[n][1] : kNegInf;
        }
        if (mr1) {
          const unsigned short v = *reinterpret_cast<const unsigned short *>(mr1 + kj);
          s[n][2] = v & 0xffu ? s[n][2] : kNegInf;
          s[n][3] = v >> 8 ? s[n][3] : kNegInf;
        }
      }
      return;
    }
#pragma unroll
    for (int n = 0; n < NT; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const char *r = e < 2 ? mr0 : mr1;
        const int kj = kb + n * 8 + (e & 1);
        if (r && kj < p.S && !r[kj * p.ms[3]]) s[n][e] = kNegInf;
      }
    return;
  }
  const T *a0 = reinterpret_cast<const T *>(mr0), *a1 = reinterpret_cast<const T *>(mr1);
  if (pairs && whole) {
#pragma unroll
    for (int n = 0; n < NT; ++n) {
      const int kj = kb + n * 8;
      if (a0) {
        const T *v = a0 + kj;
        s[n][0] = fmaf(toFloat(v[0]), kLog2e, s[n][0]);
        s[n][1] = fmaf(toFloat(v[1]), kLog2e, s[n][1]);
      }
      if (a1) {
        const T *v = a1 + kj;
        s[n][2] = fmaf(toFloat(v[0]), kLog2e, s[n][2]);
        s[n][3] = fmaf(toFloat(v[1]), kLog2e, s[n][3]);
      }
    }
    return;
  }
#pragma unroll
  for (int n = 0; n < NT; ++n)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const T *r = e < 2 ? a0 : a1;
      const int kj = kb + n * 8 + (e & 1);
      if (r && kj < p.S) s[n][e] = fmaf(toFloat(r[kj * p.ms[3]]), kLog2e, s[n][e]);
    }
}

/// Shared memory (kiln_sdpa_smem_bytes): Q (16 WARPS rows), then two
/// buffers of K and two of V (SPLIT x KN rows each), rows of D + 8 16-bit
/// elements (16 bytes of padding put ldmatrix's eight row addresses on
/// distinct banks) or D + 4 floats (a warp's fragment loads, rows g and
/// columns t4 or rows 2 t4 and columns g, then fall on 32 distinct banks).
///
/// float32 (T = float): S = Q K^T and O += P V as m16n8k8 TF32 products, each
/// operand split into a high and a low TF32 part and multiplied three times
/// (mma1688x3), so the products keep float32's precision (PyTorch's float32
/// attention does not use TF32 unless asked). Fragments are read from
/// shared memory by plain loads (ldmatrix moves 16-bit elements). P goes
/// from the S accumulators to the A operand of P V without a shuffle: a
/// lane's accumulators hold keys 2 t4 and 2 t4 + 1 of each 8-key tile, and
/// the A fragment's columns t4 and t4 + 4 are taken to be those keys, so the
/// lane reads V's rows 2 t4 and 2 t4 + 1 for its B fragment (the order of
/// the keys in a sum does not matter). Key tiles of kKeys32.
///
/// SPLIT groups of WARPS warps share the block's query rows: each step loads
/// SPLIT consecutive key tiles, group g multiplies tile g of them with its own
/// running maxima, sums and outputs, and at the end groups 1.. hand theirs to
/// group 0 through shared memory, which rescales them to the common maximum,
/// adds them and writes the rows. So a block of few query rows over many keys
/// runs SPLIT times the warps on its SM, each walking a SPLIT-th of the keys:
/// for grids too small to fill the GPU (one sequence, many keys; a decode
/// step's one query row per head). The host picks SPLIT (Attention.cpp).
template <typename T, int D, int WARPS, int SPLIT>
__device__ void attention(const kiln_sdpa_params &p, unsigned char *smem) {
  constexpr bool F32 = sizeof(T) == 4;
  constexpr int KN = F32 ? kKeys32 : kKeys16;
  constexpr int ROWS = 16 * WARPS, THREADS = 32 * WARPS * SPLIT, LD = F32 ? D + 4 : D + 8, NT = KN / 8, SK = SPLIT * KN;
  T *sQ = reinterpret_cast<T *>(smem);
  T *sK = sQ + ROWS * LD;          // two buffers of SK rows
  T *sV = sK + 2 * SK * LD;        // two buffers of SK rows

  // Blocks go query tile by query tile over every (batch, head); causal
  // attention starts with the last (costliest) tiles.
  // (The host checks that the block count fits in 31 bits.)
  const unsigned qTiles = (p.L + ROWS - 1) / ROWS, BH = (unsigned)p.B * p.H;
  int qt = static_cast<int>(blockIdx.x / BH);
  const unsigned bh = blockIdx.x % BH;
  if (p.causal) qt = qTiles - 1 - qt;
  const int b = static_cast<int>(bh / p.H), h = static_cast<int>(bh % p.H), hk = h / p.group;
  const int q0 = qt * ROWS;
  const char *gq = static_cast<const char *>(p.q) + (b * p.qs[0] + h * p.qs[1]) * (long long)sizeof(T);
  const char *gk = static_cast<const char *>(p.k) + (b * p.ks[0] + hk * p.ks[1]) * (long long)sizeof(T);
  const char *gv = static_cast<const char *>(p.v) + (b * p.vs[0] + hk * p.vs[1]) * (long long)sizeof(T);
  const long long maskBytes = p.maskKind == KILN_SDPA_MASK_BOOL ? 1 : (long long)sizeof(T);
  const char *gm = p.maskKind != KILN_SDPA_MASK_NONE
                       ? static_cast<const char *>(p.mask) + (b * p.ms[0] + h * p.ms[1]) * maskBytes
                       : nullptr;
  const bool vecQ = rowsVectorizable<T>(gq, p.qs[2], p.qs[3]);
  const bool vecK = rowsVectorizable<T>(gk, p.ks[2], p.ks[3]);
  const bool vecV = rowsVectorizable<T>(gv, p.vs[2], p.vs[3]);

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t4 = lane % 4;
  const int grp = SPLIT == 1 ? 0 : warp / WARPS;    // which key tile of each step this warp takes
  const int w0 = (warp % WARPS) * 16, qw = q0 + w0;  // this warp's first row (block-local, global)
  const int row0 = qw + g, row1 = row0 + 8; // this lane's two query rows
  // Their mask rows (null past the queries' end), and whether a lane's two
  // adjacent keys can be read with one load.
  const char *mr0 = gm && row0 < p.L ? gm + row0 * p.ms[2] * maskBytes : nullptr;
  const char *mr1 = gm && row1 < p.L ? gm + row1 * p.ms[2] * maskBytes : nullptr;
  const bool pairs = p.ms[3] == 1 && reinterpret_cast<unsigned long long>(mr0) % (2 * maskBytes) == 0 &&
                     reinterpret_cast<unsigned long long>(mr1) % (2 * maskBytes) == 0;

  int end = p.S;
  if (p.causal) end = min(end, q0 + ROWS);
  const int nTiles = (end + SK - 1) / SK;  // steps of SPLIT key tiles

  // Prologue: Q and the first K/V tiles in one group; the warp's Q fragments
  // move to registers once they have landed.
  loadTile16<T, D, LD, ROWS, THREADS>(sQ, gq, p.qs[2], p.qs[3], q0, p.L, p.E, vecQ);
  u32 qf[F32 ? 1 : D / 16][4];  // the warp's Q fragments (16-bit; float32 reads them from sQ)
  if (nTiles > 0) {
    loadTile16<T, D, LD, SK, THREADS>(sK, gk, p.ks[2], p.ks[3], 0, p.S, p.E, vecK);
    loadTile16<T, D, LD, SK, THREADS>(sV, gv, p.vs[2], p.vs[3], 0, p.S, p.Ev, vecV);
  }
  cpAsyncCommit();

  float o[D / 8][4];
#pragma unroll
  for (int n = 0; n < D / 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
  // Running max (log2 domain) and this lane's share of the running sum of rows row0, row1.
  float m0 = kNegInf, m1 = kNegInf, l0 = 0.0f, l1 = 0.0f;

  for (int j = 0; j < nTiles; ++j) {
    const int s0 = j * SK, k0 = s0 + grp * KN, buf = j & 1;
    // The next tiles go to the other buffer, whose last readers (step j - 1)
    // have passed the barrier at the end of the previous iteration.
    if (j + 1 < nTiles) {
      loadTile16<T, D, LD, SK, THREADS>(sK + (buf ^ 1) * SK * LD, gk, p.ks[2], p.ks[3], s0 + SK, p.S, p.E, vecK);
      loadTile16<T, D, LD, SK, THREADS>(sV + (buf ^ 1) * SK * LD, gv, p.vs[2], p.vs[3], s0 + SK, p.S, p.Ev, vecV);
    }
    cpAsyncCommit();
    // A warp has nothing to add from a tile past the keys (a group's tile of
    // the last step) or, causal, when its rows all lie before the tile.
    const bool active = (SPLIT == 1 || k0 < end) && !(p.causal && k0 > qw + 15);

    cpAsyncWait<1>();  // everything but the group just committed: Q and step j
    __syncthreads();
    const T *tK = sK + (buf * SK + grp * KN) * LD, *tV = sV + (buf * SK + grp * KN) * LD;
    if constexpr (!F32) {
      if (j == 0) {
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) ldmatrixX4(qf[kk], sQ + (w0 + (lane & 15)) * LD + kk * 16 + (lane >> 4) * 8);
      }
    }

    if (active) {
      // S = Q K^T (16 x KN for this warp).
      float s[NT][4];
#pragma unroll
      for (int n = 0; n < NT; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
      if constexpr (F32) {
#pragma unroll
        for (int kk = 0; kk < D / 8; ++kk) {
          const T *qr = sQ + (w0 + g) * LD + kk * 8 + t4;
          const float a[4] = {qr[0], qr[8 * LD], qr[4], qr[8 * LD + 4]};
          u32 ab[4], as[4];
#pragma unroll
          for (int i = 0; i < 4; ++i) splitTf32(a[i], ab[i], as[i]);
#pragma unroll
          for (int n = 0; n < NT; ++n) {
            const T *kr = tK + (n * 8 + g) * LD + kk * 8 + t4;
            mma1688x3(s[n], ab, as, kr[0], kr[4]);
          }
        }
      } else {
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
          for (int np = 0; np < NT / 2; ++np) {
            u32 bk[4];
            ldmatrixX4(bk, tK + (np * 16 + (lane & 7) + ((lane >> 4) << 3)) * LD + kk * 16 + ((lane >> 3) & 1) * 8);
            mma16816<T>(s[2 * np], qf[kk], bk[0], bk[1]);
            mma16816<T>(s[2 * np + 1], qf[kk], bk[2], bk[3]);
          }
        }
      }

      // Logits (log2 domain): scaled, masked, -inf past the keys' end and in
      // the causal future (only tiles at those edges check).
#pragma unroll
      for (int n = 0; n < NT; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[n][e] *= p.scaleLog2;
      if (gm) applyMask<T, NT>(s, p, mr0, mr1, k0, t4, pairs);
      if (k0 + KN > p.S || (p.causal && k0 + KN - 1 > qw)) {
#pragma unroll
        for (int n = 0; n < NT; ++n)
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int qi = e < 2 ? row0 : row1, kj = k0 + n * 8 + 2 * t4 + (e & 1);
            if (kj >= p.S || (p.causal && kj > qi)) s[n][e] = kNegInf;
          }
      }
      float mx0 = kNegInf, mx1 = kNegInf;
#pragma unroll
      for (int n = 0; n < NT; ++n) {
        mx0 = fmaxf(mx0, fmaxf(s[n][0], s[n][1]));
        mx1 = fmaxf(mx1, fmaxf(s[n][2], s[n][3]));
      }
      mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 1));
      mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 2));
      mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 1));
      mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 2));
      const float n0 = fmaxf(m0, mx0), n1 = fmaxf(m1, mx1);
      // A row with every key so far masked keeps max -inf: its factor is 1,
      // its probabilities 0 (exp2(-inf - 0)).
      const float alpha0 = n0 == kNegInf ? 1.0f : fastExp2(m0 - n0), alpha1 = n1 == kNegInf ? 1.0f : fastExp2(m1 - n1);
      const float base0 = n0 == kNegInf ? 0.0f : n0, base1 = n1 == kNegInf ? 0.0f : n1;
      m0 = n0, m1 = n1;
      float sum0 = 0.0f, sum1 = 0.0f;
#pragma unroll
      for (int n = 0; n < NT; ++n) {
        s[n][0] = fastExp2(s[n][0] - base0), s[n][1] = fastExp2(s[n][1] - base0);
        s[n][2] = fastExp2(s[n][2] - base1), s[n][3] = fastExp2(s[n][3] - base1);
        sum0 += s[n][0] + s[n][1];
        sum1 += s[n][2] + s[n][3];
      }
      l0 = l0 * alpha0 + sum0;
      l1 = l1 * alpha1 + sum1;
      if constexpr (!F32) {
#pragma unroll
        for (int n = 0; n < D / 8; ++n) o[n][0] *= alpha0, o[n][1] *= alpha0, o[n][2] *= alpha1, o[n][3] *= alpha1;
      }

      // O += P V: the accumulators of n-tiles 2kk and 2kk + 1, rounded to T,
      // are the A fragment of keys [16 kk, 16 kk + 16); float32: n-tile kk's
      // are the A fragment of keys [8 kk, 8 kk + 8) in the order above. The
      // float32 tile's P V is summed from zero and added to the rescaled O
      // by one FMA: the tensor cores' float32 sums round toward zero, which
      // over a long run of keys in one accumulator (1500 of them) drifts to
      // 1e-5 relative; a tile's 32 keys stay at float32's rounding.
      if constexpr (F32) {
        u32 pb[NT][4], ps[NT][4];
#pragma unroll
        for (int kk = 0; kk < NT; ++kk) {
          const float a[4] = {s[kk][0], s[kk][2], s[kk][1], s[kk][3]};
#pragma unroll
          for (int i = 0; i < 4; ++i) splitTf32(a[i], pb[kk][i], ps[kk][i]);
        }
#pragma unroll
        for (int dn = 0; dn < D / 8; ++dn) {
          float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
          for (int kk = 0; kk < NT; ++kk) {
            const T *vr = tV + (kk * 8 + 2 * t4) * LD + dn * 8 + g;
            mma1688x3(t, pb[kk], ps[kk], vr[0], vr[LD]);
          }
          o[dn][0] = fmaf(o[dn][0], alpha0, t[0]), o[dn][1] = fmaf(o[dn][1], alpha0, t[1]);
          o[dn][2] = fmaf(o[dn][2], alpha1, t[2]), o[dn][3] = fmaf(o[dn][3], alpha1, t[3]);
        }
      } else {
#pragma unroll
        for (int kk = 0; kk < KN / 16; ++kk) {
          const u32 a[4] = {pack2<T>(s[2 * kk][0], s[2 * kk][1]), pack2<T>(s[2 * kk][2], s[2 * kk][3]),
                            pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]), pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
          for (int dp = 0; dp < D / 16; ++dp) {
            u32 bv[4];
            ldmatrixX4Trans(bv, tV + (kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * LD + dp * 16 + (lane >> 4) * 8);
            mma16816<T>(o[2 * dp], a, bv[0], bv[1]);
            mma16816<T>(o[2 * dp + 1], a, bv[2], bv[3]);
          }
        }
      }
    }
    __syncthreads();  // step j's buffer is free for step j + 2
  }
  cpAsyncWait<0>();
  __syncwarp();

  if constexpr (SPLIT > 1) {
    // Groups 1.. hand their running maxima, sums and outputs to group 0
    // through the K/V buffers (free after the loop's last barrier), lane by
    // lane: warp w of each group holds the same rows in the same layout.
    constexpr int F = D / 2 + 4;  // floats a lane hands over
    static_assert((SPLIT - 1) * WARPS * F * 32 * 4 <= 4 * SK * LD * (int)sizeof(T), "hand-over fits the K/V buffers");
    float *xfer = reinterpret_cast<float *>(sK);
    if (grp > 0) {
      float *mine = xfer + ((grp - 1) * WARPS + warp % WARPS) * F * 32 + lane;
#pragma unroll
      for (int n = 0; n < D / 8; ++n)
#pragma unroll
        for (int e = 0; e < 4; ++e) mine[(n * 4 + e) * 32] = o[n][e];
      mine[(D / 2) * 32] = m0, mine[(D / 2 + 1) * 32] = m1;
      mine[(D / 2 + 2) * 32] = l0, mine[(D / 2 + 3) * 32] = l1;
    }
    __syncthreads();
    if (grp > 0) return;
#pragma unroll
    for (int gi = 1; gi < SPLIT; ++gi) {
      const float *theirs = xfer + ((gi - 1) * WARPS + warp) * F * 32 + lane;
      const float om0 = theirs[(D / 2) * 32], om1 = theirs[(D / 2 + 1) * 32];
      const float n0 = fmaxf(m0, om0), n1 = fmaxf(m1, om1);
      // Both -inf: neither has seen a key (both sums and outputs are 0).
      const float a0 = n0 == kNegInf ? 1.0f : fastExp2(m0 - n0), b0 = n0 == kNegInf ? 0.0f : fastExp2(om0 - n0);
      const float a1 = n1 == kNegInf ? 1.0f : fastExp2(m1 - n1), b1 = n1 == kNegInf ? 0.0f : fastExp2(om1 - n1);
      m0 = n0, m1 = n1;
      l0 = l0 * a0 + theirs[(D / 2 + 2) * 32] * b0;
      l1 = l1 * a1 + theirs[(D / 2 + 3) * 32] * b1;
#pragma unroll
      for (int n = 0; n < D / 8; ++n) {
        o[n][0] = o[n][0] * a0 + theirs[(n * 4 + 0) * 32] * b0;
        o[n][1] = o[n][1] * a0 + theirs[(n * 4 + 1) * 32] * b0;
        o[n][2] = o[n][2] * a1 + theirs[(n * 4 + 2) * 32] * b1;
        o[n][3] = o[n][3] * a1 + theirs[(n * 4 + 3) * 32] * b1;
      }
    }
  }

  // Normalise, stage this warp's rows as T in its own rows of sQ, and write
  // them out 16 bytes a lane where the output's rows allow.
  l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
  l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
  const float inv0 = l0 > 0.0f ? 1.0f / l0 : 0.0f, inv1 = l1 > 0.0f ? 1.0f / l1 : 0.0f;
  T *stage = sQ + w0 * LD;
#pragma unroll
  for (int n = 0; n < D / 8; ++n) {
    if constexpr (F32) {
      *reinterpret_cast<float2 *>(stage + g * LD + n * 8 + 2 * t4) = make_float2(o[n][0] * inv0, o[n][1] * inv0);
      *reinterpret_cast<float2 *>(stage + (g + 8) * LD + n * 8 + 2 * t4) = make_float2(o[n][2] * inv1, o[n][3] * inv1);
    } else {
      *reinterpret_cast<u32 *>(stage + g * LD + n * 8 + 2 * t4) = pack2<T>(o[n][0] * inv0, o[n][1] * inv0);
      *reinterpret_cast<u32 *>(stage + (g + 8) * LD + n * 8 + 2 * t4) = pack2<T>(o[n][2] * inv1, o[n][3] * inv1);
    }
  }
  __syncwarp();
  T *out = reinterpret_cast<T *>(static_cast<char *>(p.out) + (b * p.os[0] + h * p.os[1]) * (long long)sizeof(T));
  const bool vecO = rowsVectorizable<T>(reinterpret_cast<const char *>(out), p.os[2], p.os[3]);
  constexpr int V = 16 / sizeof(T), C = D / V;
#pragma unroll
  for (int idx = lane; idx < 16 * C; idx += 32) {
    const int r = idx / C, c = (idx % C) * V, qi = qw + r;
    if (qi >= p.L || c >= p.Ev) continue;
    const T *src = stage + r * LD + c;
    if (vecO && c + V <= p.Ev) {
      *reinterpret_cast<uint4 *>(out + qi * p.os[2] + c) = *reinterpret_cast<const uint4 *>(src);
    } else {
      for (int e = 0; e < V && c + e < p.Ev; ++e) out[qi * p.os[2] + (c + e) * p.os[3]] = src[e];
    }
  }
}

} // namespace

// Entry points, one per input type, padded head size D (E, Ev <= D) and key
// split (suffix _s2, _s4: 2 or 4 groups of warps; none: 1). Their
// shared-memory sizes are kiln_sdpa_smem_bytes() (AttentionParams.h).
#define KILN_SDPA_16_BODY(name, T, D, W, S, BOUNDS)                                               \
  extern "C" __global__ void BOUNDS name(kiln_sdpa_params p) {                                    \
    extern __shared__ __align__(128) unsigned char smem[];                                        \
    attention<T, D, W, S>(p, smem);                                                             \
  }
#define KILN_SDPA_16(name, T, D, S) KILN_SDPA_16_BODY(name, T, D, kWarps16, S, __launch_bounds__(32 * kWarps16 * S))
// On sm_90, D = 64 is held to 128 registers, 16 warps an SM (four blocks of
// one group, two of two, one of four; 16-bit: no spills there, 8% faster at
// 2048 tokens, the same at BERT's shape; float32's two-group kernel took 173
// registers uncapped and ran 35% slower than at 128 (performance.md (31))).
// sm_80 would spill at that cap.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define KILN_SDPA_16_D64(name, T, S)                                                              \
  KILN_SDPA_16_BODY(name, T, 64, kWarps16, S, __launch_bounds__(32 * kWarps16 * S, 4 / S))
#else
#define KILN_SDPA_16_D64(name, T, S) KILN_SDPA_16(name, T, 64, S)
#endif
// D = 128 has no four-group split: its shared memory would pass 227 KB.
#define KILN_SDPA_16_ALL(ty, T)                                                                   \
  KILN_SDPA_16(kiln_sdpa_##ty##_d32, T, 32, 1)                                                    \
  KILN_SDPA_16(kiln_sdpa_##ty##_d32_s2, T, 32, 2)                                                 \
  KILN_SDPA_16(kiln_sdpa_##ty##_d32_s4, T, 32, 4)                                                 \
  KILN_SDPA_16_D64(kiln_sdpa_##ty##_d64, T, 1)                                                    \
  KILN_SDPA_16_D64(kiln_sdpa_##ty##_d64_s2, T, 2)                                                 \
  KILN_SDPA_16_D64(kiln_sdpa_##ty##_d64_s4, T, 4)                                                 \
  KILN_SDPA_16(kiln_sdpa_##ty##_d128, T, 128, 1)                                                  \
  KILN_SDPA_16(kiln_sdpa_##ty##_d128_s2, T, 128, 2)
KILN_SDPA_16_ALL(bf16, __nv_bfloat16)
KILN_SDPA_16_ALL(f16, __half)
KILN_SDPA_16(kiln_sdpa_f32_d32, float, 32, 1)
KILN_SDPA_16(kiln_sdpa_f32_d32_s2, float, 32, 2)
KILN_SDPA_16(kiln_sdpa_f32_d32_s4, float, 32, 4)
KILN_SDPA_16_D64(kiln_sdpa_f32_d64, float, 1)
KILN_SDPA_16_D64(kiln_sdpa_f32_d64_s2, float, 2)
KILN_SDPA_16_D64(kiln_sdpa_f32_d64_s4, float, 4)
KILN_SDPA_16(kiln_sdpa_f32_d128, float, 128, 1)
KILN_SDPA_16(kiln_sdpa_f32_d128_s2, float, 128, 2)

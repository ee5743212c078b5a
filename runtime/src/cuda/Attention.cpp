// kiln runtime — the fused attention entry points of compiled models (kiln_gpu_sdpa_*), launching AttentionKernels.cu.
//
// kiln-gpu-fused-attention turns scaled_dot_product_attention on CUDA into
// calls of kiln_gpu_sdpa_{f32,bf16,f16}[_boolmask|_addmask] (C ABI through
// MLIR's C interface: rank-4 memref descriptors, any strides). They launch
// one kernel of the fatbin nvcc built with the runtime (embedded bytes,
// loaded once through the driver API) on the call's stream, so the call can
// be captured in a CUDA graph. A runtime built without nvcc has the entry
// points but no kernels: they fail with a message saying so. The launch also
// picks how many groups of warps split each block's keys (splitFor), from the
// grid's size against the GPU's multiprocessors.
#include "AttentionParams.h"
#include "Driver.h"

#include "../gpu/Backend.h"
#include "../gpu/Runtime.h"
#include "kiln/error.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>

#ifdef KILN_HAVE_SDPA_KERNELS
namespace {
const unsigned char kSdpaFatbin[] = {
#include "AttentionKernels.fatbin.inc"
};
} // namespace
#endif

namespace {

using namespace kiln::cuda;
using kiln::gpu::LaunchScope;

/// A rank-4 memref descriptor (MLIR's C interface) of any element type.
struct Desc4 {
  char *allocated, *aligned;
  int64_t offset, sizes[4], strides[4];
};

enum ElemType { F32 = 0, BF16 = 1, F16 = 2 };
constexpr int kHeadSizes[] = {32, 64, 128};
constexpr int kSplits[] = {1, 2, 4};  ///< groups of warps sharing a block's query rows

/// Whether the fatbin has the kernel of this type, head size index and split
/// index (a kernel that needs more shared memory than the GPU has is left out
/// at load).
[[maybe_unused]] bool hasKernel(int /*type*/, int head, int split) {
  return !(head == 2 && split == 2);  // D = 128 has no four-group split (shared memory)
}

/// The kernels, loaded once from the embedded fatbin.
struct Kernels {
  CUmodule module = nullptr;
  CUfunction fn[3][3][3] = {};  ///< [ElemType][head size index][split index]
  std::string error;
};

/// The split index (kSplits) for a launch of `blocks` blocks of 64 query
/// rows whose longest walks `keyTiles` key tiles (of 64 keys, 16-bit; of 32,
/// float32, whose tiles cost about as much to multiply), with head
/// size index `head` on a GPU of `sms` multiprocessors. A block of one group
/// has 4 warps, and an SM holds 16 of them (D <= 64; 8 for D = 128): a grid
/// of fewer blocks than that leaves warps idle, and each block's keys are a
/// chain of dependent steps. So the largest split whose warps still fit in
/// one wave, as long as each group keeps at least two key tiles; and for
/// causal attention with long rows (16 key tiles or more) at least two
/// groups: its last blocks, the ones with the most keys, run alone at the
/// end. Measured on an H200 (performance.md, section (24)): one sequence of
/// 512 tokens, 16 heads of 64, causal, 16.8 -> 12.9 us (four groups); a
/// decode step of 8 sequences over 1025 keys 55.1 -> 29.0 us (four groups);
/// 2048 tokens causal 83.8 -> 72.3 us (two); BERT-base and ViT-B/16 shapes
/// (384 blocks and more, not causal) stay at one group, where more were
/// slower.
int splitFor(int64_t blocks, int64_t keyTiles, bool causal, int head, int sms) {
  if (sms <= 0) return 0;
  const int64_t warpsPerSm = head == 2 ? 8 : 16;
  for (int i = head == 2 ? 1 : 2; i > 0; --i) {
    const int s = kSplits[i];
    if (blocks * 4 * s <= warpsPerSm * sms && keyTiles >= 2 * s) return i;
  }
  if (causal && head != 2 && keyTiles >= 16) return 1;
  return 0;
}

const Kernels &kernels() {
  static Kernels k;
  static std::once_flag once;
  std::call_once(once, [] {
#ifndef KILN_HAVE_SDPA_KERNELS
    k.error = "this kiln runtime was built without its fused attention kernels (no nvcc when it was built); "
              "compile the model with --cuda-attention=decomposed, or use a runtime built with the CUDA toolkit";
#else
    const Driver &d = driver();
    if (CUresult r = d.cuModuleLoadData(&k.module, kSdpaFatbin)) {
      k.error = "cannot load the fused attention kernels: " + errorString(r);
      return;
    }
    const char *types[] = {"f32", "bf16", "f16"};
    for (int t = 0; t < 3; ++t)
      for (int i = 0; i < 3; ++i)
        for (int si = 0; si < 3; ++si) {
          if (!hasKernel(t, i, si)) continue;
          std::string name = std::string("kiln_sdpa_") + types[t] + "_d" + std::to_string(kHeadSizes[i]) +
                             (si ? "_s" + std::to_string(kSplits[si]) : std::string());
          CUfunction &fn = k.fn[t][i][si];
          if (CUresult r = d.cuModuleGetFunction(&fn, k.module, name.c_str())) {
            k.error = "the fused attention kernel " + name + " is missing: " + errorString(r);
            return;
          }
          int smem = static_cast<int>(kiln_sdpa_smem_bytes(t == F32 ? 4 : 2, kHeadSizes[i], kSplits[si]));
          if (smem > 48 * 1024) {
            CUresult r = d.cuFuncSetAttribute
                             ? d.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem)
                             : 1;
            if (r && si) {  // a GPU with less shared memory an SM runs the kernels of one group
              fn = nullptr;
              continue;
            }
            if (r) {
              k.error = "the fused attention kernel " + name + " cannot get " + std::to_string(smem) +
                        " bytes of shared memory" + (d.cuFuncSetAttribute ? ": " + errorString(r) : std::string());
              return;
            }
          }
        }
#endif
  });
  return k;
}

/// Runs out = attention(q, k, v, mask) on the call's stream (see AttentionParams.h).
void sdpa(const char *name, ElemType type, int maskKind, Desc4 *q, Desc4 *k, Desc4 *v, Desc4 *mask, Desc4 *out,
          int32_t causal, int32_t group, float scale) {
  LaunchScope *scope = LaunchScope::current();
  if (!scope || scope->failed()) return;
  if (scope->backend().type() != kiln::DeviceType::CUDA)
    return scope->fail(std::string(name) + " runs on CUDA only, not on " + scope->backend().name());
  auto bad = [&](const std::string &why) { scope->fail(std::string(name) + ": " + why); };
  try {
    const int64_t B = out->sizes[0], H = out->sizes[1], L = out->sizes[2], Ev = out->sizes[3];
    const int64_t S = k->sizes[2], E = q->sizes[3];
    if (group < 1 || H % group) return bad("the query heads do not split into groups of " + std::to_string(group));
    // Each operand's [batch, heads] broadcast to the output's (stride 0 where of size 1).
    auto shape = [&](const char *what, Desc4 *d, int64_t b, int64_t h, int64_t r, int64_t c, long long *s) {
      const int64_t want[4] = {b, h, r, c};
      for (int i = 0; i < 4; ++i) {
        if (d->sizes[i] != want[i] && !(d->sizes[i] == 1 && (i < 2 || d == mask))) {
          bad(std::string(what) + " has size " + std::to_string(d->sizes[i]) + " in dim " + std::to_string(i) +
              ", expected " + std::to_string(want[i]));
          return false;
        }
        s[i] = d->sizes[i] == 1 && want[i] != 1 ? 0 : d->strides[i];
      }
      return true;
    };
    kiln_sdpa_params p{};
    if (!shape("the query", q, B, H, L, E, p.qs) || !shape("the key", k, B, H / group, S, E, p.ks) ||
        !shape("the value", v, B, H / group, S, Ev, p.vs) || !shape("the output", out, B, H, L, Ev, p.os) ||
        (mask && !shape("the mask", mask, B, H, L, S, p.ms)))
      return;
    if (B == 0 || H == 0 || L == 0 || Ev == 0) return;
    int hi = E <= 32 && Ev <= 32 ? 0 : E <= 64 && Ev <= 64 ? 1 : E <= 128 && Ev <= 128 ? 2 : -1;
    if (hi < 0) return bad("head sizes above 128 are not supported (E = " + std::to_string(E) +
                           ", Ev = " + std::to_string(Ev) + ")");
    const int rows = KILN_SDPA_ROWS_16;
    const int64_t blocks = B * H * ((L + rows - 1) / rows);
    if (L > INT32_MAX || S > INT32_MAX || B > INT32_MAX || H > INT32_MAX || blocks > INT32_MAX)
      return bad("the problem is too large for one launch");
    const Kernels &kn = kernels();
    if (!kn.error.empty()) return bad(kn.error);
    const int64_t keys = causal ? std::min(S, (L + rows - 1) / rows * rows) : S;
    const int keysPerTile = type == F32 ? KILN_SDPA_KEYS_32 : KILN_SDPA_KEYS_16;
    int si = splitFor(blocks, (keys + keysPerTile - 1) / keysPerTile, causal != 0, hi, deviceInfo().multiprocessors);
    if (!kn.fn[type][hi][si]) si = 0;
    size_t elem = type == F32 ? 4 : 2;
    auto at = [](Desc4 *d, size_t bytes) { return d->aligned + d->offset * bytes; };
    p.q = at(q, elem);
    p.k = at(k, elem);
    p.v = at(v, elem);
    p.out = at(out, elem);
    p.mask = mask ? at(mask, maskKind == KILN_SDPA_MASK_BOOL ? 1 : elem) : nullptr;
    p.maskKind = mask ? maskKind : KILN_SDPA_MASK_NONE;
    p.B = static_cast<int>(B), p.H = static_cast<int>(H), p.L = static_cast<int>(L), p.S = static_cast<int>(S);
    p.E = static_cast<int>(E), p.Ev = static_cast<int>(Ev), p.group = group, p.causal = causal != 0;
    p.scaleLog2 = static_cast<float>(static_cast<double>(scale) * 1.4426950408889634);
    void *args[] = {&p};
    const Driver &d = driver();
    const unsigned smem = kiln_sdpa_smem_bytes(static_cast<int>(elem), kHeadSizes[hi], kSplits[si]);
    const unsigned threads = 128 * kSplits[si];
    if (CUresult r = d.cuLaunchKernel(kn.fn[type][hi][si], static_cast<unsigned>(blocks), 1, 1, threads, 1, 1, smem,
                                      static_cast<CUstream>(scope->stream()), args, nullptr))
      bad("launching the fused attention kernel (" + std::to_string(blocks) + " blocks of " +
          std::to_string(threads) + " threads, " + std::to_string(smem) + " bytes of shared memory) failed: " +
          errorString(r));
  } catch (const std::exception &e) {
    scope->fail(e.what());
  }
}

} // namespace

#define KILN_GPU_SDPA(suffix, type)                                                                              \
  extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_gpu_sdpa_##suffix(                   \
      Desc4 *q, Desc4 *k, Desc4 *v, Desc4 *out, int32_t causal, int32_t group, float scale) {                     \
    sdpa("kiln_gpu_sdpa_" #suffix, type, KILN_SDPA_MASK_NONE, q, k, v, nullptr, out, causal, group, scale);       \
  }                                                                                                              \
  extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_gpu_sdpa_##suffix##_boolmask(         \
      Desc4 *q, Desc4 *k, Desc4 *v, Desc4 *mask, Desc4 *out, int32_t causal, int32_t group, float scale) {        \
    sdpa("kiln_gpu_sdpa_" #suffix "_boolmask", type, KILN_SDPA_MASK_BOOL, q, k, v, mask, out, causal, group,      \
         scale);                                                                                                 \
  }                                                                                                              \
  extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_gpu_sdpa_##suffix##_addmask(          \
      Desc4 *q, Desc4 *k, Desc4 *v, Desc4 *mask, Desc4 *out, int32_t causal, int32_t group, float scale) {        \
    sdpa("kiln_gpu_sdpa_" #suffix "_addmask", type, KILN_SDPA_MASK_ADD, q, k, v, mask, out, causal, group,        \
         scale);                                                                                                 \
  }
KILN_GPU_SDPA(f32, F32)
KILN_GPU_SDPA(bf16, BF16)
KILN_GPU_SDPA(f16, F16)
#undef KILN_GPU_SDPA

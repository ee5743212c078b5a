// kiln runtime — products of several rows with a constant weight on kiln's own kernel (Gemm.h).
//
// The weight op(B) (k x n) is copied once into panels of 16 columns: panel
// j holds k rows of the 16 values of columns [16j, 16j + 16) (zeros past n),
// so the kernel reads it as one stream. A tile of the result is 6 rows x 16
// columns in twelve AVX2 accumulators; each step of k broadcasts one element
// of each of the six rows of A, read where A lies (rows lda apart), and adds
// its products with the panel's two vectors. A pass covers at most 768 of k
// (the panel's slice, 48 KB, stays in L1 and L2 while every row tile of a
// column block reads it; A, read once per panel and pass, streams from L2
// and L3); the first pass starts from zero or from d, the last adds the
// bias and applies the ReLU before its one store. Built for
// AVX2+FMA and baseline x86-64 (target_clones), like Winograd.cpp, whose
// product kernel has the same shape.
#include "Gemm.h"
#include "Threads.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <sys/mman.h>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace kiln::cpu {
namespace {

typedef float V8 __attribute__((vector_size(32)));

// Helpers take vectors by reference: the kernel is also built for AVX2
// (target_clones), and a vector passed by value would change the ABI
// between the two builds.
inline void load(V8 &v, const float *p) { std::memcpy(&v, p, sizeof v); }
inline void store(float *p, const V8 &v) { std::memcpy(p, &v, sizeof v); }

constexpr int64_t kPanel = 16;          // columns of a panel
constexpr int kTileRows = 6;            // rows of a tile
constexpr int64_t kMaxDepth = 768;      // k of a pass
constexpr int64_t kBlockPanels = 32;    // panels of a column block (512 columns)
constexpr int64_t kMinWork = 1 << 20;   // multiply-adds a thread, at least

/// A weight in panels: panel j at data + j * k * kPanel.
struct Packed {
  float *data = nullptr;
  ~Packed() { std::free(data); }
};

/// Packed weights per (buffer, n, k, row stride, column stride).
using PackKey = std::tuple<const float *, int64_t, int64_t, int64_t, int64_t>;
std::mutex gPackedMutex;
std::map<PackKey, std::shared_ptr<const Packed>> gPacked;

std::shared_ptr<const Packed> packedFor(const MklProduct &p) {
  PackKey key{p.b, p.n, p.k, p.bRow, p.bCol};
  std::lock_guard<std::mutex> lock(gPackedMutex);
  auto found = gPacked.find(key);
  if (found != gPacked.end()) return found->second;
  const int64_t panels = (p.n + kPanel - 1) / kPanel;
  const size_t bytes = size_t(panels * p.k * kPanel) * sizeof(float);
  auto made = std::make_shared<Packed>();
  // Large weights on 2 MB pages where the system gives them on request.
  constexpr size_t kHuge = size_t(2) << 20;
  const size_t align = bytes >= kHuge ? kHuge : 64;
  made->data = static_cast<float *>(std::aligned_alloc(align, (bytes + align - 1) / align * align));
  if (!made->data)
    throw std::runtime_error("out of memory for a packed " + std::to_string(p.k) + "x" + std::to_string(p.n) +
                             " weight (" + std::to_string(bytes) + " bytes)");
  if (align == kHuge) ::madvise(made->data, (bytes + align - 1) / align * align, MADV_HUGEPAGE);
  for (int64_t j = 0; j < panels; ++j)
    for (int64_t q = 0; q < kPanel; ++q) {
      const int64_t col = j * kPanel + q;
      float *dst = made->data + j * p.k * kPanel + q;
      for (int64_t l = 0; l < p.k; ++l) dst[l * kPanel] = col < p.n ? p.b[l * p.bRow + col * p.bCol] : 0.0f;
    }
  gPacked[key] = made;
  return made;
}

/// One product as the kernel sees it.
struct Job {
  const float *a;
  int64_t lda;
  const float *b;  // packed
  int64_t n, k;
  float *d;
  int64_t ldd;
  const float *bias;  // null, or dense and zero-padded to whole panels
  bool overwrite, relu;
};

/// R rows x 16 columns of c (rows ldc apart): (c +) a * b over kc steps
/// (+ bias) (ReLU'd).
template <int R>
__attribute__((always_inline)) inline void tile(const float *a, int64_t lda, const float *b, int64_t kc, float *c,
                                                int64_t ldc, bool accumulate, const float *bias, bool relu) {
  V8 s[R][2];
  for (int r = 0; r < R; ++r) {
    if (accumulate) {
      load(s[r][0], c + r * ldc);
      load(s[r][1], c + r * ldc + 8);
    } else {
      s[r][0] = V8{};
      s[r][1] = V8{};
    }
  }
  for (int64_t l = 0; l < kc; ++l) {
    V8 b0, b1;
    load(b0, b + l * kPanel);
    load(b1, b + l * kPanel + 8);
    for (int r = 0; r < R; ++r) {
      const float x = a[r * lda + l];
      const V8 v = {x, x, x, x, x, x, x, x};
      s[r][0] += v * b0;
      s[r][1] += v * b1;
    }
  }
  if (bias) {
    V8 b0, b1;
    load(b0, bias);
    load(b1, bias + 8);
    for (int r = 0; r < R; ++r) s[r][0] += b0, s[r][1] += b1;
  }
  if (relu)  // a NaN stays NaN, as in PyTorch
    for (int r = 0; r < R; ++r)
      for (V8 &v : s[r]) v = v < V8{} ? V8{} : v;
  for (int r = 0; r < R; ++r) {
    store(c + r * ldc, s[r][0]);
    store(c + r * ldc + 8, s[r][1]);
  }
}

__attribute__((always_inline)) inline void tileRows(int rows, const float *a, int64_t lda, const float *b, int64_t kc,
                                                    float *c, int64_t ldc, bool accumulate, const float *bias,
                                                    bool relu) {
  switch (rows) {
  case 6: return tile<6>(a, lda, b, kc, c, ldc, accumulate, bias, relu);
  case 5: return tile<5>(a, lda, b, kc, c, ldc, accumulate, bias, relu);
  case 4: return tile<4>(a, lda, b, kc, c, ldc, accumulate, bias, relu);
  case 3: return tile<3>(a, lda, b, kc, c, ldc, accumulate, bias, relu);
  case 2: return tile<2>(a, lda, b, kc, c, ldc, accumulate, bias, relu);
  default: return tile<1>(a, lda, b, kc, c, ldc, accumulate, bias, relu);
  }
}

/// Rows [i0, i1) x panels [j0, j1) of the product.
__attribute__((target_clones("arch=x86-64-v3", "default"))) void runBlock(const Job &job, int64_t i0, int64_t i1,
                                                                         int64_t j0, int64_t j1) {
  const int64_t passes = (job.k + kMaxDepth - 1) / kMaxDepth, depth = (job.k + passes - 1) / passes;
  for (int64_t jb = j0; jb < j1; jb += kBlockPanels) {
    const int64_t jEnd = std::min(j1, jb + kBlockPanels);
    for (int64_t k0 = 0; k0 < job.k; k0 += depth) {
      const int64_t kc = std::min(depth, job.k - k0);
      const bool accumulate = k0 > 0 || !job.overwrite, last = k0 + kc == job.k;
      const bool relu = last && job.relu;
      for (int64_t j = jb; j < jEnd; ++j) {
        const float *b = job.b + (j * job.k + k0) * kPanel;
        const float *bias = last && job.bias ? job.bias + j * kPanel : nullptr;
        const int64_t cols = std::min(kPanel, job.n - j * kPanel);
        for (int64_t i = i0; i < i1; i += kTileRows) {
          const int rows = static_cast<int>(std::min<int64_t>(kTileRows, i1 - i));
          const float *a = job.a + i * job.lda + k0;
          float *c = job.d + i * job.ldd + j * kPanel;
          if (cols == kPanel) {
            tileRows(rows, a, job.lda, b, kc, c, job.ldd, accumulate, bias, relu);
            continue;
          }
          // The last panel's columns past n: through a whole tile.
          float t[kTileRows * kPanel] = {};
          for (int r = 0; r < rows && accumulate; ++r) std::memcpy(t + r * kPanel, c + r * job.ldd, cols * 4);
          tileRows(rows, a, job.lda, b, kc, t, kPanel, accumulate, bias, relu);
          for (int r = 0; r < rows; ++r) std::memcpy(c + r * job.ldd, t + r * kPanel, cols * 4);
        }
      }
    }
  }
}

} // namespace

bool constWeightGemm(const MklProduct &p, int threads) {
  static const bool off = [] {
    const char *env = std::getenv("KILN_CPU_GEMM");
    return env && (!std::strcmp(env, "off") || !std::strcmp(env, "0"));
  }();
  if (off || p.m < 1 || p.n < 1 || p.k < 1) return false;
  if ((p.aCol != 1 && p.k > 1) || (p.dCol != 1 && p.n > 1)) return false;
  std::shared_ptr<const Packed> packed = packedFor(p);
  const int64_t panels = (p.n + kPanel - 1) / kPanel;
  std::vector<float> bias;
  if (p.bias) {
    bias.assign(size_t(panels * kPanel), 0.0f);
    for (int64_t j = 0; j < p.n; ++j) bias[size_t(j)] = p.bias[j * p.biasStride];
  }
  const Job job{p.a,   p.m == 1 ? p.k : p.aRow, packed->data, p.n, p.k, p.d, p.m == 1 ? p.n : p.dRow,
                p.bias ? bias.data() : nullptr, p.overwrite, p.relu};
  // Columns shared out in whole panels where each thread gets a few, else
  // rows in whole tiles; each thread at least kMinWork multiply-adds. On
  // the model call's threads (parallelFor: its OpenMP team, or its oneTBB
  // arena when the team was not adopted), so a busy machine still gets them.
  // A few pieces a thread, handed out as threads ask, so that one the OS
  // delays leaves its share to the others: every piece reads all of A
  // anyway (once per panel), so smaller pieces cost nothing more.
  const int64_t useful = std::min<int64_t>(threads, p.m * p.n * p.k / kMinWork);
  const int64_t rowTiles = (p.m + kTileRows - 1) / kTileRows;
  if (useful >= 2 && panels >= 4 * useful) {
    parallelFor(panels, panels / (4 * useful), [&](int64_t lo, int64_t hi) { runBlock(job, 0, p.m, lo, hi); });
    return true;
  }
  if (useful >= 2 && rowTiles >= 2 * useful) {
    parallelFor(rowTiles, rowTiles / (2 * useful), [&](int64_t lo, int64_t hi) {
      runBlock(job, lo * kTileRows, std::min(p.m, hi * kTileRows), 0, panels);
    });
    return true;
  }
  runBlock(job, 0, p.m, 0, panels);
  return true;
}

void forgetGemmWeights() {
  std::lock_guard<std::mutex> lock(gPackedMutex);
  gPacked.clear();
}

} // namespace kiln::cpu

// kiln runtime — 3x3 stride-1 float32 convolutions by Winograd's minimal filtering F(4x4, 3x3).
//
// A 4x4 output tile of a 3x3 convolution is A^T [U . (B^T d B)] A, where d
// is the 6x6 input tile it reads, U = G g G^T the filter transformed once,
// and "." the elementwise product over the 36 positions: summed over input
// channels, each position is one matrix product (tiles x C) by (C x K).
// That is 36 multiply-adds per tile and channel pair where the direct
// convolution spends 144. The transformed filters are laid out once in
// panels of 16 output channels; the products run on a register-blocked
// kernel (6 tiles x 16 channels of accumulators, the input channels
// streamed; with AVX-512, 6 tiles x 32 channels in 16-float registers), the
// transforms are vector code over groups of 8 channels, all built for
// AVX-512 and AVX2 as well as baseline x86-64. The tiles are cut into blocks
// that one thread transforms, multiplies and writes back while they are in
// its caches.
// The transform matrices are the usual ones for the points 0, +-1, +-2
// (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks");
// in float32 they round a little more than the direct sum (relative errors
// of about 1e-6 to 1e-5 against 1e-7), well inside what a float32 model's
// comparison allows.
#include "Winograd.h"
#include "Threads.h"

#include "kiln/abi/cpu_calls.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace kiln::cpu {
namespace {

constexpr int kPositions = 36;  // a 6x6 input tile
constexpr int kOut = 4;         // a 4x4 output tile

/// Eight floats, one channel group, in vector registers.
typedef float V8 __attribute__((vector_size(32)));
/// Sixteen floats, one panel of output channels: the products' registers
/// where the CPU has AVX-512.
typedef float V16 __attribute__((vector_size(64)));

// Helpers take vectors by reference: runBlock is also built for AVX2
// (target_clones), and a vector passed by value would change the ABI
// between the two builds.
inline void load(V8 &v, const float *p) { std::memcpy(&v, p, sizeof v); }
inline void store(float *p, const V8 &v) { std::memcpy(p, &v, sizeof v); }
inline void load(V16 &v, const float *p) { std::memcpy(&v, p, sizeof v); }
inline void store(float *p, const V16 &v) { std::memcpy(p, &v, sizeof v); }

/// B^T applied to six values z[0], z[s], ..., z[5s] in place.
inline void inputRows(V8 *z, int s) {
  V8 z0 = z[0], z1 = z[s], z2 = z[2 * s], z3 = z[3 * s], z4 = z[4 * s], z5 = z[5 * s];
  z[0] = 4.0f * z0 - 5.0f * z2 + z4;
  z[s] = -4.0f * (z1 + z2) + z3 + z4;
  z[2 * s] = 4.0f * (z1 - z2) - z3 + z4;
  z[3 * s] = 2.0f * (z3 - z1) - z2 + z4;
  z[4 * s] = 2.0f * (z1 - z3) - z2 + z4;
  z[5 * s] = 4.0f * z1 - 5.0f * z3 + z5;
}

/// A^T applied to six values m[0], m[s], ..., m[5s], four results o[0], o[t], ...
inline void outputRows(const V8 *m, int s, V8 *o, int t) {
  V8 p1 = m[s] + m[2 * s], n1 = m[s] - m[2 * s], p2 = m[3 * s] + m[4 * s], n2 = m[3 * s] - m[4 * s];
  o[0] = m[0] + p1 + p2;
  o[t] = n1 + 2.0f * n2;
  o[2 * t] = p1 + 4.0f * p2;
  o[3 * t] = n1 + 8.0f * n2 + m[5 * s];
}

/// G, the filter transform (6x3).
constexpr double kG[6][3] = {{1.0 / 4, 0, 0},
                             {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                             {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                             {1.0 / 24, 1.0 / 12, 1.0 / 6},
                             {1.0 / 24, -1.0 / 12, 1.0 / 6},
                             {0, 0, 1}};

/// Output channels a panel of the transformed filters holds.
constexpr int64_t kPanel = 16;
/// Tiles one call of the product kernel takes.
constexpr int64_t kTileRows = 6;

/// The 36 transformed filters of one weight: for position p, panel j (output
/// channels [16j, 16j + 16), zero past K) and input channel ci, 16 values at
/// u[((p * panels + j) * C + ci) * 16].
struct Filters {
  int64_t panels = 0;
  std::vector<float> u;
};

using FilterKey = std::tuple<const float *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;
std::mutex gFiltersMutex;
std::map<FilterKey, std::shared_ptr<const Filters>> gFilters;

/// The transformed filters of `conv` (made on first use).
std::shared_ptr<const Filters> filtersFor(const WinogradConv &conv) {
  FilterKey key{conv.weight, conv.k, conv.c, conv.wK, conv.wC, conv.wH, conv.wW};
  std::lock_guard<std::mutex> lock(gFiltersMutex);
  auto found = gFilters.find(key);
  if (found != gFilters.end()) return found->second;
  const int64_t c = conv.c, k = conv.k, panels = (k + kPanel - 1) / kPanel;
  auto made = std::make_shared<Filters>();
  made->panels = panels;
  made->u.assign(size_t(kPositions * panels * c * kPanel), 0.0f);
  for (int64_t ko = 0; ko < k; ++ko)
    for (int64_t ci = 0; ci < c; ++ci) {
      double g[3][3], gg[6][3];
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) g[a][b] = conv.weight[ko * conv.wK + ci * conv.wC + a * conv.wH + b * conv.wW];
      for (int i = 0; i < 6; ++i)
        for (int b = 0; b < 3; ++b) gg[i][b] = kG[i][0] * g[0][b] + kG[i][1] * g[1][b] + kG[i][2] * g[2][b];
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
          made->u[size_t((((i * 6 + j) * panels + ko / kPanel) * c + ci) * kPanel + ko % kPanel)] =
              static_cast<float>(gg[i][0] * kG[j][0] + gg[i][1] * kG[j][1] + gg[i][2] * kG[j][2]);
    }
  gFilters[key] = made;
  return made;
}

/// m[t][0..16) = sum over ci of v[t * c + ci] * u[ci][0..16), for the six
/// tiles t: twelve vector accumulators, the filter panel read once.
__attribute__((always_inline)) inline void product6x16(const float *v, const float *u, int64_t c, float *m) {
  V8 acc[kTileRows][2] = {};
  for (int64_t ci = 0; ci < c; ++ci) {
    V8 b0, b1;
    load(b0, u + ci * kPanel);
    load(b1, u + ci * kPanel + 8);
    for (int t = 0; t < kTileRows; ++t) {
      const float x = v[t * c + ci];
      const V8 a = {x, x, x, x, x, x, x, x};
      acc[t][0] += a * b0;
      acc[t][1] += a * b1;
    }
  }
  for (int t = 0; t < kTileRows; ++t) {
    store(m + t * kPanel, acc[t][0]);
    store(m + t * kPanel + 8, acc[t][1]);
  }
}

/// product6x16 for two panels at once, u0's results into m0 and u1's into
/// m1: twelve 16-float accumulators, each tile's value loaded once for 32
/// output channels. Only the AVX-512 build of runBlock calls it (elsewhere
/// its registers would spill).
__attribute__((always_inline)) inline void product6x32(const float *v, const float *u0, const float *u1, int64_t c,
                                                       float *m0, float *m1) {
  V16 acc[kTileRows][2] = {};
  for (int64_t ci = 0; ci < c; ++ci) {
    V16 b0, b1;
    load(b0, u0 + ci * kPanel);
    load(b1, u1 + ci * kPanel);
    for (int t = 0; t < kTileRows; ++t) {
      const V16 a = V16{} + v[t * c + ci];
      acc[t][0] += a * b0;
      acc[t][1] += a * b1;
    }
  }
  for (int t = 0; t < kTileRows; ++t) {
    store(m0 + t * kPanel, acc[t][0]);
    store(m1 + t * kPanel, acc[t][1]);
  }
}

/// Whether runBlock's AVX-512 build runs (the one that multiplies two
/// panels at once): the loader picks the x86-64-v4 clone exactly when the
/// CPU has that level.
bool wideProducts() {
  static const bool wide = __builtin_cpu_supports("x86-64-v4");
  return wide;
}

/// The offset of channel `ch`'s group in an operand.
inline int64_t channelOffset(const WinogradOperand &o, int64_t ch) { return (ch / o.group) * o.block + ch % o.group; }

/// The activation of KILN_CPU_* `act` on eight values.
inline void activate(V8 &v, int32_t act) {
  float f[8];
  store(f, v);
  for (float &x : f) {
    if (act == KILN_CPU_RELU)
      x = x < 0.0f ? 0.0f : x;
    else if (act == KILN_CPU_HARDSWISH)
      x = x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
    else if (act == KILN_CPU_SILU)
      x = x / (1.0f + std::exp(-x));
    else if (act == KILN_CPU_SIGMOID)
      x = 1.0f / (1.0f + std::exp(-x));
  }
  load(v, f);
}

/// One thread's work on tiles [first, first + count) (count at most
/// `rows`, a multiple of 6) and the output-channel panels [p0, p1):
/// transform into `v` (36 x rows x C), multiply into `m` (36 x rows x 16
/// per panel), write back.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"))) void
runBlock(const WinogradConv &cv, const Filters &filters, int64_t rows, int64_t first, int64_t count, int64_t p0,
         int64_t p1, float *v, float *m, bool wide) {
  const int64_t tilesH = (cv.oh + kOut - 1) / kOut, tilesW = (cv.ow + kOut - 1) / kOut;
  const int64_t c = cv.c, k0 = p0 * kPanel, width = std::min(p1 * kPanel, cv.k) - k0, mw = (p1 - p0) * kPanel;
  const V8 zero = {};
  for (int64_t t = 0; t < count; ++t) {
    const int64_t tile = first + t, img = tile / (tilesH * tilesW), ty = tile / tilesW % tilesH, tx = tile % tilesW;
    const int64_t row0 = ty * kOut - cv.padTop, col0 = tx * kOut - cv.padLeft;
    const float *image = cv.x.data + img * cv.x.image;
    for (int64_t ch = 0; ch < c; ch += 8) {
      const float *base = image + channelOffset(cv.x, ch);
      V8 d[36];
      for (int i = 0; i < 6; ++i) {
        const int64_t r = row0 + i;
        for (int j = 0; j < 6; ++j) {
          const int64_t col = col0 + j;
          if (r >= 0 && r < cv.h && col >= 0 && col < cv.w)
            load(d[i * 6 + j], base + r * cv.x.row + col * cv.x.column);
          else
            d[i * 6 + j] = zero;
        }
      }
      for (int j = 0; j < 6; ++j) inputRows(d + j, 6);
      for (int i = 0; i < 6; ++i) inputRows(d + i * 6, 1);
      for (int p = 0; p < kPositions; ++p) store(v + (p * rows + t) * c + ch, d[p]);
    }
  }
  // Whole groups of 6 tiles (rows past `count` hold finite values of
  // earlier blocks or zeros; their products are never read).
  const int64_t used = (count + kTileRows - 1) / kTileRows * kTileRows;
  for (int p = 0; p < kPositions; ++p) {
    int64_t j = p0;
    if (wide)
      for (; j + 1 < p1; j += 2) {
        const float *u = filters.u.data() + ((p * filters.panels + j) * c) * kPanel;
        float *mj = m + ((p * (p1 - p0) + (j - p0)) * rows) * kPanel;
        for (int64_t t = 0; t < used; t += kTileRows)
          product6x32(v + (p * rows + t) * c, u, u + c * kPanel, c, mj + t * kPanel, mj + (rows + t) * kPanel);
      }
    for (; j < p1; ++j) {
      const float *u = filters.u.data() + ((p * filters.panels + j) * c) * kPanel;
      for (int64_t t = 0; t < used; t += kTileRows)
        product6x16(v + (p * rows + t) * c, u, c, m + ((p * (p1 - p0) + (j - p0)) * rows + t) * kPanel);
    }
  }
  for (int64_t t = 0; t < count; ++t) {
    const int64_t tile = first + t, img = tile / (tilesH * tilesW), ty = tile / tilesW % tilesH, tx = tile % tilesW;
    const int64_t outRows = std::min<int64_t>(kOut, cv.oh - ty * kOut);
    const int64_t outCols = std::min<int64_t>(kOut, cv.ow - tx * kOut);
    for (int64_t ch = 0; ch < width; ch += 8) {
      V8 mm[36], half[24], out[16];
      for (int p = 0; p < kPositions; ++p)
        load(mm[p], m + ((p * (p1 - p0) + ch / kPanel) * rows + t) * kPanel + ch % kPanel);
      for (int j = 0; j < 6; ++j) outputRows(mm + j, 6, half + j, 6);
      for (int a = 0; a < kOut; ++a) outputRows(half + a * 6, 1, out + a * kOut, 1);
      V8 bias = zero;
      if (cv.bias) load(bias, cv.bias + k0 + ch);
      float *yBase = cv.y.data + img * cv.y.image + channelOffset(cv.y, k0 + ch);
      const float *rBase = cv.r.data ? cv.r.data + img * cv.r.image + channelOffset(cv.r, k0 + ch) : nullptr;
      for (int64_t a = 0; a < outRows; ++a)
        for (int64_t b = 0; b < outCols; ++b) {
          const int64_t oy = ty * kOut + a, ox = tx * kOut + b;
          float *dst = yBase + oy * cv.y.row + ox * cv.y.column;
          V8 val = out[a * kOut + b] + bias, more;
          if (cv.accumulate) load(more, dst), val += more;
          if (rBase) load(more, rBase + oy * cv.r.row + ox * cv.r.column), val += more;
          if (cv.activation) activate(val, cv.activation);
          store(dst, val);
        }
    }
  }
}

/// The tiles of a convolution's output.
int64_t tileCount(int64_t n, int64_t oh, int64_t ow) { return n * ((oh + kOut - 1) / kOut) * ((ow + kOut - 1) / kOut); }

} // namespace

bool winogradPays(int64_t c, int64_t k, int64_t oh, int64_t ow) {
  // The products' multiply-adds at least halved: 9 per output against 36
  // per tile (a 2x2 output, one tile, would save none).
  const int64_t tiles = tileCount(1, oh, ow);
  return c >= 16 && k >= 16 && 9 * oh * ow >= 2 * kPositions * tiles;
}

namespace {
/// winogradPreferred's answer: -1 until first asked, then 0 or 1.
std::atomic<int> gPreferred{-1};
} // namespace

bool winogradPreferred() {
  int preferred = gPreferred.load(std::memory_order_relaxed);
  if (preferred < 0) {
    const char *env = std::getenv("KILN_CPU_WINOGRAD");
    if (env && (!std::strcmp(env, "off") || !std::strcmp(env, "0")))
      preferred = 0;
    else if (env && (!std::strcmp(env, "on") || !std::strcmp(env, "1")))
      preferred = 1;
    else
      preferred = !__builtin_cpu_supports("avx512f");
    gPreferred.store(preferred, std::memory_order_relaxed);
  }
  return preferred;
}

void setWinogradPreferred(bool preferred) { gPreferred.store(preferred, std::memory_order_relaxed); }

void runWinograd(const WinogradConv &cv, int threads) {
  const int64_t tiles = tileCount(cv.n, cv.oh, cv.ow);
  threads = std::max(threads, 1);
  // Blocks of about 16K input values a position (64 KB, in the L2 cache
  // while the kernel multiplies it), a multiple of 6 tiles; fewer blocks
  // than threads share out the panels of output channels too, so that no
  // thread reads more of the transformed filters (four times the filter's
  // size) than its part.
  const int64_t rows = std::min(std::max<int64_t>(16384 / cv.c / kTileRows, 3) * kTileRows,
                                (tiles + kTileRows - 1) / kTileRows * kTileRows);
  const int64_t blocks = (tiles + rows - 1) / rows;
  std::shared_ptr<const Filters> filters = filtersFor(cv);
  const int64_t panels = filters->panels;
  const int64_t shares = blocks >= threads ? 1 : std::min<int64_t>((threads + blocks - 1) / blocks, panels);
  const int64_t items = blocks * shares;
  const bool wide = wideProducts();
  auto work = [&](int64_t lo, int64_t hi) {
    thread_local std::vector<float> v, m;
    const size_t vSize = size_t(kPositions * rows * cv.c), mSize = size_t(kPositions * rows * panels * kPanel);
    if (v.size() < vSize) v.resize(vSize);
    if (m.size() < mSize) m.resize(mSize);
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t b = i / shares, share = i % shares;
      runBlock(cv, *filters, rows, b * rows, std::min(rows, tiles - b * rows), panels * share / shares,
               panels * (share + 1) / shares, v.data(), m.data(), wide);
    }
  };
  // On the model call's threads (its OpenMP team, or its oneTBB arena where
  // the team was not adopted: a busy machine).
  if (threads > 1 && items > 1)
    parallelFor(items, 1, work);
  else
    work(0, items);
}

void forgetWinogradWeights() {
  std::lock_guard<std::mutex> lock(gFiltersMutex);
  gFilters.clear();
}

} // namespace kiln::cpu

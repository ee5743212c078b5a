// kiln runtime — 3x3 stride-1 float32 convolutions by Winograd's minimal filtering F(4x4, 3x3).
//
// A 4x4 output tile of a 3x3 convolution is A^T [U . (B^T d B)] A, where d
// is the 6x6 input tile it reads, U = G g G^T the filter transformed once,
// and "." the elementwise product over the 36 positions: summed over input
// channels, each position is one matrix product (tiles x C) by (C x K).
// That is 36 multiply-adds per tile and channel pair where the direct
// convolution spends 144: the products run on oneMKL's packed GEMM (the 36
// transformed filters packed once), the transforms are vector code over
// groups of 8 channels. The tiles are cut into blocks that one thread
// transforms, multiplies and writes back while they are in its caches.
// The transform matrices are the usual ones for the points 0, +-1, +-2
// (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks");
// in float32 they round a little more than the direct sum (relative errors
// of about 1e-6 to 1e-5 against 1e-7), well inside what a float32 model's
// comparison allows.
#include "Winograd.h"
#include "Mkl.h"
#include "OpenMPTeam.h"

#include "kiln/abi/cpu_calls.h"

#include <algorithm>
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

// Helpers take vectors by reference: runBlock is also built for AVX2
// (target_clones), and a vector passed by value would change the ABI
// between the two builds.
inline void load(V8 &v, const float *p) { std::memcpy(&v, p, sizeof v); }
inline void store(float *p, const V8 &v) { std::memcpy(p, &v, sizeof v); }

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

/// The 36 transformed filters of one weight, packed for products of
/// `rows` tiles, each cut into `cols.size() - 1` panels of output channels
/// (panel j: channels [cols[j], cols[j + 1])); packed[p * panels + j].
struct Filters {
  int64_t rows = 0;
  std::vector<int64_t> cols;
  std::vector<std::shared_ptr<const float>> packed;
  int64_t panels() const { return static_cast<int64_t>(cols.size()) - 1; }
};

using FilterKey = std::tuple<const float *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;
std::mutex gFiltersMutex;
std::map<FilterKey, std::shared_ptr<const Filters>> gFilters;

/// The filters of `conv` for blocks of `rows` tiles in `panels` panels
/// (made on first use); null without oneMKL.
std::shared_ptr<const Filters> filtersFor(const WinogradConv &conv, int64_t rows, int64_t panels) {
  FilterKey key{conv.weight, conv.k, conv.c, conv.wK, conv.wC, conv.wH, conv.wW, rows, panels};
  std::lock_guard<std::mutex> lock(gFiltersMutex);
  auto found = gFilters.find(key);
  if (found != gFilters.end()) return found->second;
  // U[p][ci][ko] = (G g G^T)[p] for filter (ko, ci): position-major, each
  // position a row-major C x K matrix.
  const int64_t c = conv.c, k = conv.k;
  std::vector<float> u(size_t(kPositions * c * k));
  for (int64_t ko = 0; ko < k; ++ko)
    for (int64_t ci = 0; ci < c; ++ci) {
      double g[3][3], gg[6][3];
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) g[a][b] = conv.weight[ko * conv.wK + ci * conv.wC + a * conv.wH + b * conv.wW];
      for (int i = 0; i < 6; ++i)
        for (int b = 0; b < 3; ++b) gg[i][b] = kG[i][0] * g[0][b] + kG[i][1] * g[1][b] + kG[i][2] * g[2][b];
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
          u[size_t(((i * 6 + j) * c + ci) * k + ko)] =
              static_cast<float>(gg[i][0] * kG[j][0] + gg[i][1] * kG[j][1] + gg[i][2] * kG[j][2]);
    }
  auto made = std::make_shared<Filters>();
  made->rows = rows;
  for (int64_t j = 0; j <= panels; ++j) made->cols.push_back(k * j / panels / 8 * 8);
  made->cols.back() = k;
  for (int p = 0; p < kPositions; ++p)
    for (int64_t j = 0; j < panels; ++j) {
      const int64_t k0 = made->cols[size_t(j)], k1 = made->cols[size_t(j + 1)];
      std::shared_ptr<const float> packed = mklPackB(u.data() + p * c * k + k0, rows, k1 - k0, c, k);
      if (!packed) return nullptr;
      made->packed.push_back(std::move(packed));
    }
  gFilters[key] = made;
  return made;
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

/// One thread's work on tiles [first, first + count) and the output
/// channels of panel `panel`: transform into `v` (36 x rows x C), multiply
/// into `m` (36 x rows x panel width), write back.
__attribute__((target_clones("arch=x86-64-v3", "default"))) void runBlock(const WinogradConv &cv,
                                                                            const Filters &filters, int64_t first,
                                                                            int64_t count, int64_t panel, float *v,
                                                                            float *m) {
  const int64_t rows = filters.rows, tilesH = (cv.oh + kOut - 1) / kOut, tilesW = (cv.ow + kOut - 1) / kOut;
  const int64_t c = cv.c, k0 = filters.cols[size_t(panel)], width = filters.cols[size_t(panel + 1)] - k0;
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
  const int64_t panels = filters.panels();
  for (int p = 0; p < kPositions; ++p)
    mklComputePacked(v + p * rows * c, c, filters.packed[size_t(p * panels + panel)].get(), m + p * rows * width,
                     width, rows, width, c);
  for (int64_t t = 0; t < count; ++t) {
    const int64_t tile = first + t, img = tile / (tilesH * tilesW), ty = tile / tilesW % tilesH, tx = tile % tilesW;
    const int64_t outRows = std::min<int64_t>(kOut, cv.oh - ty * kOut), outCols = std::min<int64_t>(kOut, cv.ow - tx * kOut);
    for (int64_t ch = 0; ch < width; ch += 8) {
      V8 mm[36], half[24], out[16];
      for (int p = 0; p < kPositions; ++p) load(mm[p], m + (p * rows + t) * width + ch);
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

bool winogradPays(int64_t n, int64_t c, int64_t k, int64_t oh, int64_t ow) {
  static const bool off = [] {
    const char *env = std::getenv("KILN_CPU_WINOGRAD");
    return env && (!std::strcmp(env, "off") || !std::strcmp(env, "0"));
  }();
  const int64_t tiles = tileCount(n, oh, ow);
  return !off && c >= 64 && k >= 64 && tiles >= 16 && kPositions * c * k * tiles >= (int64_t(1) << 24);
}

bool runWinograd(const WinogradConv &cv, int threads) {
  const int64_t tiles = tileCount(cv.n, cv.oh, cv.ow);
  threads = std::max(threads, 1);
  // Blocks of about 16K input values a position (64 KB, in the L2 cache
  // while oneMKL multiplies it), a multiple of 8 tiles; fewer blocks than
  // threads share out panels of output channels too (at least 64 wide),
  // so that no thread reads more of the transformed filters than its part.
  const int64_t rows = std::min(std::clamp<int64_t>(16384 / cv.c / 8 * 8, 16, 256), (tiles + 7) / 8 * 8);
  const int64_t blocks = (tiles + rows - 1) / rows;
  const int64_t panels =
      blocks >= threads ? 1 : std::clamp<int64_t>((threads + blocks - 1) / blocks, 1, std::max<int64_t>(cv.k / 64, 1));
  std::shared_ptr<const Filters> filters = filtersFor(cv, rows, panels);
  if (!filters) return false;
  const int64_t items = blocks * panels;
  auto work = [&](int64_t lo, int64_t hi) {
    thread_local std::vector<float> v, m;
    const size_t vSize = size_t(kPositions * rows * cv.c), mSize = size_t(kPositions * rows * cv.k);
    if (v.size() < vSize) v.resize(vSize);
    if (m.size() < mSize) m.resize(mSize);
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t b = i / panels;
      runBlock(cv, *filters, b * rows, std::min(rows, tiles - b * rows), i % panels, v.data(), m.data());
    }
  };
  if (!(threads > 1 && items > 1 && openmpParallelFor(threads, items, items, work))) work(0, items);
  return true;
}

void forgetWinogradWeights() {
  std::lock_guard<std::mutex> lock(gFiltersMutex);
  gFilters.clear();
}

} // namespace kiln::cpu

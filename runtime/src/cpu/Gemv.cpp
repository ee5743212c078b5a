// kiln runtime — single-row products with a constant weight (Gemv.h).
//
// Two forms, by which dim of op(B) is unit-stride:
// - k contiguous (a linear layer's (n, k) weight): each output column is a
//   dot product of the row with one weight row; four columns at a time,
//   two partial sums each, eight floats a step.
// - n contiguous (a (k, n) weight): the output is a sum of weight rows
//   scaled by the row's elements; 32 columns at a time in registers.
// Both read the weight exactly once, in its own order.
#include "Gemv.h"
#include "Threads.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace kiln::cpu {
namespace {

typedef float V8 __attribute__((vector_size(32)));

// Helpers take vectors by reference: the kernels are also built for AVX2
// (target_clones), and a vector passed by value would change the ABI
// between the two builds.
inline void load(V8 &v, const float *p) { std::memcpy(&v, p, sizeof v); }
inline void store(float *p, const V8 &v) { std::memcpy(p, &v, sizeof v); }
inline float sum(const V8 &v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

/// out[j] = sum_l a[l] * w[j * ld + l] for j in [0, n): rows of the weight
/// `ld` apart, the row `a` contiguous.
__attribute__((target_clones("arch=x86-64-v3", "default"))) void dotColumns(const float *a, const float *w,
                                                                           int64_t ld, int64_t n, int64_t k,
                                                                           float *out) {
  const int64_t k16 = k / 16 * 16, k8 = k / 8 * 8;
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const float *w0 = w + j * ld, *w1 = w0 + ld, *w2 = w1 + ld, *w3 = w2 + ld;
    V8 s0{}, s1{}, s2{}, s3{}, t0{}, t1{}, t2{}, t3{}, x, y, v;
    int64_t l = 0;
    for (; l < k16; l += 16) {
      load(x, a + l), load(y, a + l + 8);
      load(v, w0 + l), s0 += v * x, load(v, w0 + l + 8), t0 += v * y;
      load(v, w1 + l), s1 += v * x, load(v, w1 + l + 8), t1 += v * y;
      load(v, w2 + l), s2 += v * x, load(v, w2 + l + 8), t2 += v * y;
      load(v, w3 + l), s3 += v * x, load(v, w3 + l + 8), t3 += v * y;
    }
    for (; l < k8; l += 8) {
      load(x, a + l);
      load(v, w0 + l), s0 += v * x;
      load(v, w1 + l), s1 += v * x;
      load(v, w2 + l), s2 += v * x;
      load(v, w3 + l), s3 += v * x;
    }
    s0 += t0, s1 += t1, s2 += t2, s3 += t3;
    float r0 = sum(s0), r1 = sum(s1), r2 = sum(s2), r3 = sum(s3);
    for (; l < k; ++l) r0 += w0[l] * a[l], r1 += w1[l] * a[l], r2 += w2[l] * a[l], r3 += w3[l] * a[l];
    out[j] = r0, out[j + 1] = r1, out[j + 2] = r2, out[j + 3] = r3;
  }
  for (; j < n; ++j) {
    const float *wj = w + j * ld;
    V8 s{}, x, v;
    int64_t l = 0;
    for (; l < k8; l += 8) load(x, a + l), load(v, wj + l), s += v * x;
    float r = sum(s);
    for (; l < k; ++l) r += wj[l] * a[l];
    out[j] = r;
  }
}

/// out[j] = sum_l a[l] * w[l * ld + j] for j in [0, n): columns of the
/// weight contiguous, its rows `ld` apart.
__attribute__((target_clones("arch=x86-64-v3", "default"))) void sumRows(const float *a, const float *w, int64_t ld,
                                                                        int64_t n, int64_t k, float *out) {
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) {
    V8 s0{}, s1{}, s2{}, s3{}, v;
    for (int64_t l = 0; l < k; ++l) {
      const float *row = w + l * ld + j;
      const float x = a[l];
      load(v, row), s0 += v * x;
      load(v, row + 8), s1 += v * x;
      load(v, row + 16), s2 += v * x;
      load(v, row + 24), s3 += v * x;
    }
    store(out + j, s0), store(out + j + 8, s1), store(out + j + 16, s2), store(out + j + 24, s3);
  }
  for (; j + 8 <= n; j += 8) {
    V8 s{}, v;
    for (int64_t l = 0; l < k; ++l) load(v, w + l * ld + j), s += v * a[l];
    store(out + j, s);
  }
  for (; j < n; ++j) {
    float r = 0.0f;
    for (int64_t l = 0; l < k; ++l) r += a[l] * w[l * ld + j];
    out[j] = r;
  }
}

} // namespace

bool constWeightGemv(const MklProduct &p, int threads) {
  static const bool off = [] {
    const char *env = std::getenv("KILN_CPU_GEMV");
    return env && (!std::strcmp(env, "off") || !std::strcmp(env, "0"));
  }();
  if (off || p.m != 1 || p.n <= 0 || p.k <= 0) return false;
  const bool dot = p.bRow == 1 || p.k == 1;  // the k elements of a column are contiguous
  if (!dot && p.bCol != 1) return false;
  // The row, contiguous (a strided row is gathered once: k floats).
  std::vector<float> gathered;
  const float *a = p.a;
  if (p.aCol != 1 && p.k > 1) {
    gathered.resize(size_t(p.k));
    for (int64_t l = 0; l < p.k; ++l) gathered[size_t(l)] = p.a[l * p.aCol];
    a = gathered.data();
  }
  auto columns = [&](int64_t j0, int64_t j1) {
    float part[256];
    for (int64_t c0 = j0; c0 < j1; c0 += 256) {
      const int64_t c1 = std::min(j1, c0 + 256);
      if (dot)
        dotColumns(a, p.b + c0 * p.bCol, p.bCol, c1 - c0, p.k, part);
      else
        sumRows(a, p.b + c0, p.bRow, c1 - c0, p.k, part);
      for (int64_t j = c0; j < c1; ++j) {
        float &out = p.d[j * p.dCol];
        float v = part[j - c0] + (p.overwrite ? 0.0f : out);
        if (p.bias) v += p.bias[j * p.biasStride];
        out = p.relu && v < 0.0f ? 0.0f : v;
      }
    }
  };
  // Threads where each streams at least ~128 kB of the weight, in pieces
  // of whole 32-column blocks, on the model call's threads (parallelFor:
  // its OpenMP team when the runtime adopted it, else its oneTBB arena; a
  // memory-bound loop gains most from a second core, whose own path to the
  // caches and memory it brings).
  constexpr int64_t kMinPerThread = int64_t(1) << 15;  // weights
  const int64_t blocks = (p.n + 31) / 32;
  const int64_t useful = std::min<int64_t>({int64_t(threads), blocks, p.n * p.k / kMinPerThread});
  if (useful < 2) {
    columns(0, p.n);
    return true;
  }
  // Every block a piece: the team hands them out in shrinking runs (a
  // thread the OS delays leaves its share to the other), oneTBB in ranges
  // it splits as threads ask.
  parallelFor(blocks, 1, [&](int64_t lo, int64_t hi) { columns(lo * 32, std::min(p.n, hi * 32)); });
  return true;
}

} // namespace kiln::cpu

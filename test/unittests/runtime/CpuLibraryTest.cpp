// GoogleTests of the CPU library calls (kiln_cpu_conv_f32, kiln_cpu_gemm_f32, kiln_cpu_gemm_lt_f32) against naive loops.
#include "Dnnl.h"
#include "Gemv.h"
#include "Library.h"
#include "Mkl.h"
#include "Threads.h"
#include "Winograd.h"
#include "kiln/abi/cpu_calls.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

template <int R> struct Desc {
  float *allocated, *aligned;
  int64_t offset, sizes[R], strides[R];
};

} // namespace

extern "C" void _mlir_ciface_kiln_cpu_conv_f32(int32_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                                               int64_t, int64_t, int64_t, int64_t, Desc<5> *, Desc<5> *, Desc<5> *);
extern "C" void _mlir_ciface_kiln_cpu_conv_bias_f32(int32_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                                                    int64_t, int64_t, int64_t, int64_t, Desc<5> *, Desc<5> *,
                                                    Desc<5> *, Desc<1> *);
extern "C" void _mlir_ciface_kiln_cpu_conv_bias_add_f32(int32_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                                                        int64_t, int64_t, int64_t, int64_t, int64_t, Desc<5> *,
                                                        Desc<5> *, Desc<5> *, Desc<1> *, Desc<5> *);
extern "C" void _mlir_ciface_kiln_cpu_gemm_f32(int32_t, int32_t, int32_t, Desc<3> *, Desc<3> *, Desc<3> *);
extern "C" void _mlir_ciface_kiln_cpu_gemm_lt_f32(int32_t, int32_t, int32_t, Desc<3> *, Desc<3> *, Desc<3> *,
                                                  Desc<1> *);

namespace {

using kiln::test::randomData;

/// A view of `data` with `sizes`, the dims stored in `order` (outermost
/// first) with `pad` extra elements after each row of the innermost dim.
template <int R>
Desc<R> view(std::vector<float> &data, std::array<int64_t, R> sizes, std::array<int, R> order, int64_t pad = 0,
             int64_t offset = 0) {
  Desc<R> d{};
  int64_t stride = 1;
  for (int i = R - 1; i >= 0; --i) {
    d.sizes[order[i]] = sizes[order[i]];
    d.strides[order[i]] = stride;
    stride *= sizes[order[i]] + (i == R - 1 ? pad : 0);
  }
  data.assign(static_cast<size_t>(stride + offset), 0.0f);
  d.allocated = d.aligned = data.data();
  d.offset = offset;
  return d;
}

template <int R> float &at(const Desc<R> &d, std::array<int64_t, static_cast<size_t>(R)> idx) {
  int64_t o = d.offset;
  for (int i = 0; i < R; ++i) o += idx[i] * d.strides[i];
  return d.aligned[o];
}

/// Fills every element of `d` with random values.
template <int R> void fill(const Desc<R> &d, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::array<int64_t, static_cast<size_t>(R)> idx{};
  int64_t n = 1;
  for (int i = 0; i < R; ++i) n *= d.sizes[i];
  for (int64_t e = 0; e < n; ++e) {
    int64_t r = e;
    for (int i = R - 1; i >= 0; --i) idx[i] = r % d.sizes[i], r /= d.sizes[i];
    at(d, idx) = dist(gen);
  }
}

/// The convolution, naively: y[n, f, o..] (+)= sum x[n, g*C/G + c, o*s - p + k*d] w[f, c, k..].
std::vector<float> referenceConv(const Desc<5> &x, const Desc<5> &w, const Desc<5> &y, int64_t groups,
                                 std::array<int64_t, 9> params, bool accumulate) {
  std::vector<float> out;
  int64_t F = y.sizes[1], Cg = w.sizes[1], Fg = F / groups;
  for (int64_t n = 0; n < y.sizes[0]; ++n)
    for (int64_t f = 0; f < F; ++f)
      for (int64_t o0 = 0; o0 < y.sizes[2]; ++o0)
        for (int64_t o1 = 0; o1 < y.sizes[3]; ++o1)
          for (int64_t o2 = 0; o2 < y.sizes[4]; ++o2) {
            double acc = accumulate ? at(y, {n, f, o0, o1, o2}) : 0.0;
            int64_t g = f / Fg;
            for (int64_t c = 0; c < Cg; ++c)
              for (int64_t k0 = 0; k0 < w.sizes[2]; ++k0)
                for (int64_t k1 = 0; k1 < w.sizes[3]; ++k1)
                  for (int64_t k2 = 0; k2 < w.sizes[4]; ++k2) {
                    int64_t i0 = o0 * params[0] - params[3] + k0 * params[6];
                    int64_t i1 = o1 * params[1] - params[4] + k1 * params[7];
                    int64_t i2 = o2 * params[2] - params[5] + k2 * params[8];
                    if (i0 < 0 || i1 < 0 || i2 < 0 || i0 >= x.sizes[2] || i1 >= x.sizes[3] || i2 >= x.sizes[4])
                      continue;
                    acc += double(at(x, {n, g * Cg + c, i0, i1, i2})) * at(w, {f, c, k0, k1, k2});
                  }
            out.push_back(static_cast<float>(acc));
          }
  return out;
}

std::vector<float> contents(const Desc<5> &y) {
  std::vector<float> out;
  for (int64_t n = 0; n < y.sizes[0]; ++n)
    for (int64_t f = 0; f < y.sizes[1]; ++f)
      for (int64_t a = 0; a < y.sizes[2]; ++a)
        for (int64_t b = 0; b < y.sizes[3]; ++b)
          for (int64_t c = 0; c < y.sizes[4]; ++c) out.push_back(at(y, {n, f, a, b, c}));
  return out;
}

/// got == want within 1e-4 relative, plus `ofLargest` times the largest
/// |want| (Winograd's transforms round in proportion to the output's scale,
/// not to each element).
void expectClose(const std::vector<float> &got, const std::vector<float> &want, float ofLargest = 0.0f) {
  ASSERT_EQ(got.size(), want.size());
  float largest = 0.0f;
  for (float v : want) largest = std::max(largest, std::fabs(v));
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4f * (1.0f + std::fabs(want[i])) + ofLargest * largest) << "element " << i;
}

struct ConvCase {
  std::string name;
  int64_t n, c, f, groups;
  std::array<int64_t, 3> in, k;
  std::array<int64_t, 9> params;  // stride, padding, dilation per spatial dim
  bool channelsLast = false, accumulate = false;
  int64_t rowPad = 0, offset = 0;  ///< a strided view: padded rows, an offset
};

int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

void runConv(const ConvCase &t, int32_t extraFlags = 0, float ofLargest = 0.0f, std::vector<float> *got = nullptr) {
  SCOPED_TRACE(t.name);
  std::array<int64_t, 3> out;
  for (int i = 0; i < 3; ++i) out[i] = outSize(t.in[i], t.k[i], t.params[i], t.params[3 + i], t.params[6 + i]);
  std::array<int, 5> nchw{0, 1, 2, 3, 4}, nhwc{0, 2, 3, 4, 1};
  std::array<int, 5> order = t.channelsLast ? nhwc : nchw;
  std::vector<float> xb, wb, yb;
  Desc<5> x = view<5>(xb, {t.n, t.c, t.in[0], t.in[1], t.in[2]}, order, t.rowPad, t.offset);
  Desc<5> w = view<5>(wb, {t.f, t.c / t.groups, t.k[0], t.k[1], t.k[2]}, order);
  Desc<5> y = view<5>(yb, {t.n, t.f, out[0], out[1], out[2]}, order, t.rowPad);
  fill(x, 1), fill(w, 2), fill(y, 3);
  std::vector<float> want = referenceConv(x, w, y, t.groups, t.params, t.accumulate);
  kiln::cpu::clearError();
  const auto &p = t.params;
  _mlir_ciface_kiln_cpu_conv_f32((t.accumulate ? 0 : KILN_CPU_OVERWRITE) | extraFlags, t.groups, p[0], p[1], p[2],
                                 p[3], p[4], p[5], p[6], p[7], p[8], &x, &w, &y);
  ASSERT_EQ(kiln::cpu::takeError(), "");
  expectClose(contents(y), want, ofLargest);
  if (got) *got = contents(y);
}

/// Winograd's F(4x4, 3x3) error bound for these tests, a fraction of the
/// largest output (measured: 6.2e-6 to 6.9e-6 of it with 64 and 96 input
/// channels, where the direct sums are within 1e-4 of each element).
constexpr float kWinogradTolerance = 2e-5f;

TEST(CpuLibrary, Convolutions) {
  std::vector<ConvCase> cases = {
      {"3x3 pad 1", 1, 16, 32, 1, {1, 14, 14}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}},
      {"odd sizes, stride 2, batch 3", 3, 5, 7, 1, {1, 13, 9}, {1, 3, 5}, {1, 2, 2, 0, 1, 2, 1, 1, 1}},
      {"stride 2 no padding, leftover rows", 2, 8, 4, 1, {1, 8, 9}, {1, 1, 2}, {1, 2, 2, 0, 0, 0, 1, 1, 1}},
      {"dilation 2", 1, 4, 6, 1, {1, 11, 12}, {1, 3, 3}, {1, 1, 1, 0, 2, 2, 1, 2, 2}},
      {"groups 2", 2, 8, 6, 2, {1, 9, 9}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}},
      {"depthwise", 1, 12, 12, 12, {1, 10, 10}, {1, 3, 3}, {1, 2, 2, 0, 1, 1, 1, 1, 1}},
      {"1-d", 2, 6, 5, 1, {1, 1, 17}, {1, 1, 4}, {1, 1, 1, 0, 0, 2, 1, 1, 1}},
      {"3-d", 1, 3, 4, 1, {5, 6, 7}, {3, 3, 2}, {1, 2, 1, 1, 1, 0, 1, 1, 2}},
      {"channels last", 2, 16, 8, 1, {1, 7, 7}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, true},
      {"channels last, groups 4", 1, 16, 8, 4, {1, 6, 5}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, true},
      // A downsampling shortcut: the last row and column read by no window
      // stay in the (dense) view, a right padding of 0 rounding down.
      {"channels last, 1x1 stride 2 over an even input", 2, 32, 64, 1, {1, 14, 14}, {1, 1, 1},
       {1, 2, 2, 0, 0, 0, 1, 1, 1}, true},
      {"accumulate (a residual)", 2, 4, 4, 1, {1, 6, 6}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, false, true},
      // Channels in whole groups of 8 with a window: oneDNN's own blocked
      // layouts, the input, output (accumulated into) and weights reordered.
      {"channels last, accumulate, 16 channels", 2, 16, 24, 1, {1, 8, 7}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1},
       true, true},
      {"channels last, 16 channels, row padding", 1, 16, 16, 1, {1, 9, 9}, {1, 3, 3}, {1, 2, 2, 0, 1, 1, 1, 1, 1},
       true, false, 4},
      {"3-d, 8 channels", 1, 8, 8, 1, {4, 5, 6}, {3, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1}},
      {"strided views with an offset", 1, 3, 5, 1, {1, 9, 10}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, false, false,
       3, 7},
  };
  for (const ConvCase &t : cases) runConv(t);
  // Constant weights: the same results from the weight copy kept across calls.
  for (const ConvCase &t : cases) {
    runConv(t, KILN_CPU_CONST_WEIGHT);
    kiln::cpu::forgetWeights();
  }
}

// The convolution with a bias (batch norm folded into it) and each activation post-op:
// channels first and last, grouped, overwriting and accumulating, a strided bias.
TEST(CpuLibrary, ConvolutionsWithBiasAndReLU) {
  std::vector<ConvCase> cases = {
      {"3x3 pad 1", 1, 16, 32, 1, {1, 14, 14}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}},
      {"channels last, stride 2", 2, 16, 8, 1, {1, 9, 9}, {1, 3, 3}, {1, 2, 2, 0, 1, 1, 1, 1, 1}, true},
      {"depthwise, channels last", 1, 12, 12, 12, {1, 10, 10}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, true},
      {"accumulate", 2, 4, 4, 1, {1, 6, 6}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, false, true},
  };
  for (const ConvCase &t : cases)
    for (int32_t act : {0, (int)KILN_CPU_RELU, (int)KILN_CPU_HARDSWISH, (int)KILN_CPU_SILU, (int)KILN_CPU_SIGMOID})
      for (int64_t biasStride : {1, 3}) {
        SCOPED_TRACE(t.name + ", activation " + std::to_string(act) + ", bias stride " + std::to_string(biasStride));
        std::array<int64_t, 3> out;
        for (int i = 0; i < 3; ++i) out[i] = outSize(t.in[i], t.k[i], t.params[i], t.params[3 + i], t.params[6 + i]);
        std::array<int, 5> order = t.channelsLast ? std::array<int, 5>{0, 2, 3, 4, 1} : std::array<int, 5>{0, 1, 2, 3, 4};
        std::vector<float> xb, wb, yb;
        Desc<5> x = view<5>(xb, {t.n, t.c, t.in[0], t.in[1], t.in[2]}, order);
        Desc<5> w = view<5>(wb, {t.f, t.c / t.groups, t.k[0], t.k[1], t.k[2]}, order);
        Desc<5> y = view<5>(yb, {t.n, t.f, out[0], out[1], out[2]}, order);
        fill(x, 1), fill(w, 2), fill(y, 3);
        std::vector<float> biasData = randomData(t.f * biasStride, 9);
        Desc<1> bias{biasData.data(), biasData.data(), 0, {t.f}, {biasStride}};
        std::vector<float> want = referenceConv(x, w, y, t.groups, t.params, t.accumulate);
        int64_t per = (int64_t)want.size() / (t.n * t.f);
        for (size_t i = 0; i < want.size(); ++i) {
          want[i] += biasData[((int64_t)i / per % t.f) * biasStride];
          double v = want[i];
          if (act == KILN_CPU_RELU) v = std::max(v, 0.0);
          if (act == KILN_CPU_HARDSWISH) v = v * std::min(std::max(v + 3, 0.0), 6.0) / 6;
          if (act == KILN_CPU_SILU) v = v / (1 + std::exp(-v));
          if (act == KILN_CPU_SIGMOID) v = 1 / (1 + std::exp(-v));
          want[i] = (float)v;
        }
        kiln::cpu::clearError();
        const auto &p = t.params;
        _mlir_ciface_kiln_cpu_conv_bias_f32((t.accumulate ? 0 : KILN_CPU_OVERWRITE) | act,
                                            t.groups, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], &x, &w,
                                            &y, &bias);
        ASSERT_EQ(kiln::cpu::takeError(), "");
        expectClose(contents(y), want);
      }
  // A bias of the wrong length is an error naming the entry.
  std::vector<float> xb, wb, yb, bb(3);
  std::array<int, 5> order{0, 1, 2, 3, 4};
  Desc<5> x = view<5>(xb, {1, 8, 1, 6, 6}, order), w = view<5>(wb, {4, 8, 1, 3, 3}, order),
          y = view<5>(yb, {1, 4, 1, 6, 6}, order);
  Desc<1> bias{bb.data(), bb.data(), 0, {3}, {1}};
  kiln::cpu::clearError();
  _mlir_ciface_kiln_cpu_conv_bias_f32(KILN_CPU_OVERWRITE, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, &x, &w, &y, &bias);
  std::string error = kiln::cpu::takeError();
  EXPECT_NE(error.find("kiln_cpu_conv_bias_f32: the bias has 3 elements for 4 output channels"), std::string::npos)
      << error;
}

// A residual added to the convolution's biased result before its
// activation (oneDNN's binary post-op): NCHW and NHWC, the residual dense
// or strided (a slice of a wider buffer), overwriting and accumulating,
// grouped.
TEST(CpuLibrary, ConvolutionsWithAResidual) {
  std::vector<ConvCase> cases = {
      {"1x1", 1, 16, 32, 1, {1, 7, 7}, {1, 1, 1}, {1, 1, 1, 0, 0, 0, 1, 1, 1}},
      {"channels last, 3x3", 2, 16, 16, 1, {1, 9, 9}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, true},
      {"channels last, stride 2", 2, 8, 16, 1, {1, 10, 10}, {1, 3, 3}, {1, 2, 2, 0, 1, 1, 1, 1, 1}, true},
      {"depthwise, channels last", 1, 12, 12, 12, {1, 10, 10}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, true},
      {"accumulate", 2, 4, 4, 1, {1, 6, 6}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, true, true},
      {"accumulate, 16 channels", 2, 16, 16, 1, {1, 6, 6}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, true, true},
      // Large enough for Winograd's F(4x4, 3x3) (WinogradConvolutions).
      {"channels last, 3x3, 64 channels", 2, 64, 64, 1, {1, 36, 36}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, true},
  };
  for (const ConvCase &t : cases)
    for (int32_t act : {0, (int)KILN_CPU_RELU, (int)KILN_CPU_SILU})
      for (int64_t rowPad : {0, 5}) {
        SCOPED_TRACE(t.name + ", activation " + std::to_string(act) + ", residual row padding " +
                     std::to_string(rowPad));
        std::array<int64_t, 3> out;
        for (int i = 0; i < 3; ++i) out[i] = outSize(t.in[i], t.k[i], t.params[i], t.params[3 + i], t.params[6 + i]);
        std::array<int, 5> order = t.channelsLast ? std::array<int, 5>{0, 2, 3, 4, 1} : std::array<int, 5>{0, 1, 2, 3, 4};
        std::vector<float> xb, wb, yb, rb;
        Desc<5> x = view<5>(xb, {t.n, t.c, t.in[0], t.in[1], t.in[2]}, order);
        Desc<5> w = view<5>(wb, {t.f, t.c / t.groups, t.k[0], t.k[1], t.k[2]}, order);
        Desc<5> y = view<5>(yb, {t.n, t.f, out[0], out[1], out[2]}, order);
        Desc<5> r = view<5>(rb, {t.n, t.f, out[0], out[1], out[2]}, order, rowPad);
        fill(x, 1), fill(w, 2), fill(y, 3), fill(r, 4);
        std::vector<float> biasData = randomData(t.f, 9);
        Desc<1> bias{biasData.data(), biasData.data(), 0, {t.f}, {1}};
        std::vector<float> want = referenceConv(x, w, y, t.groups, t.params, t.accumulate), res = contents(r);
        int64_t per = (int64_t)want.size() / (t.n * t.f);
        for (size_t i = 0; i < want.size(); ++i) {
          double v = (double)want[i] + biasData[(int64_t)i / per % t.f] + res[i];
          if (act == KILN_CPU_RELU) v = std::max(v, 0.0);
          if (act == KILN_CPU_SILU) v = v / (1 + std::exp(-v));
          want[i] = (float)v;
        }
        kiln::cpu::clearError();
        const auto &p = t.params;
        _mlir_ciface_kiln_cpu_conv_bias_add_f32((t.accumulate ? 0 : KILN_CPU_OVERWRITE) | act | KILN_CPU_CONST_WEIGHT,
                                                t.groups, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], &x,
                                                &w, &y, &bias, &r);
        ASSERT_EQ(kiln::cpu::takeError(), "");
        expectClose(contents(y), want, t.c >= 64 ? kWinogradTolerance : 0.0f);
        kiln::cpu::forgetWeights();
      }
  // A residual of another shape is an error naming the entry.
  std::vector<float> xb, wb, yb, rb, bb(4);
  std::array<int, 5> order{0, 1, 2, 3, 4};
  Desc<5> x = view<5>(xb, {1, 8, 1, 6, 6}, order), w = view<5>(wb, {4, 8, 1, 3, 3}, order),
          y = view<5>(yb, {1, 4, 1, 6, 6}, order), r = view<5>(rb, {1, 4, 1, 6, 5}, order);
  Desc<1> bias{bb.data(), bb.data(), 0, {4}, {1}};
  kiln::cpu::clearError();
  _mlir_ciface_kiln_cpu_conv_bias_add_f32(KILN_CPU_OVERWRITE, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, &x, &w, &y, &bias, &r);
  std::string error = kiln::cpu::takeError();
  EXPECT_NE(error.find("kiln_cpu_conv_bias_add_f32: the added tensor's shape differs from the output's"),
            std::string::npos)
      << error;
}

// 3x3 stride-1 convolutions with enough channels and tiles run by
// Winograd's F(4x4, 3x3) (Winograd.h): through the entries (channels last,
// every padding from 0 to 2, output sizes not a multiple of 4, accumulating,
// the constant filter transformed once and reused), and runWinograd itself
// on two threads, where a single block of tiles is shared out as panels of
// output channels, the last one 8 channels wide (on a CPU with AVX-512, the
// products of two panels at once and of the odd one left). The entries take
// it when winogradPreferred() (by default only without AVX-512), and
// oneDNN's direct kernel otherwise: the two round differently.
TEST(CpuLibrary, WinogradConvolutions) {
  kiln::cpu::dnnl();  // the OpenMP team the blocks run on comes with oneDNN
  const bool preferred = kiln::cpu::winogradPreferred();
  std::vector<ConvCase> cases = {
      {"pad 1, 30x30", 2, 64, 72, 1, {1, 30, 30}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, true},
      {"pad 0, 31x29 input", 3, 64, 64, 1, {1, 31, 29}, {1, 3, 3}, {1, 1, 1, 0, 0, 0, 1, 1, 1}, true},
      {"pad 2, accumulate", 1, 96, 64, 1, {1, 34, 33}, {1, 3, 3}, {1, 1, 1, 0, 2, 2, 1, 1, 1}, true, true},
  };
  for (const ConvCase &t : cases) {
    const int64_t oh = outSize(t.in[1], 3, 1, t.params[4], 1), ow = outSize(t.in[2], 3, 1, t.params[5], 1);
    ASSERT_TRUE(kiln::cpu::winogradPays(t.c, t.f, oh, ow)) << t.name;
    std::vector<float> winograd, direct;
    kiln::cpu::setWinogradPreferred(true);
    for (int run = 0; run < 2; ++run) runConv(t, KILN_CPU_CONST_WEIGHT, kWinogradTolerance, &winograd);
    kiln::cpu::forgetWeights();
    kiln::cpu::setWinogradPreferred(false);
    runConv(t, KILN_CPU_CONST_WEIGHT, 0.0f, &direct);
    kiln::cpu::forgetWeights();
    EXPECT_NE(winograd, direct) << t.name << ": both calls ran the same algorithm";
  }
  kiln::cpu::setWinogradPreferred(preferred);
  // runWinograd on its own: NHWC, bias and ReLU, 136 output channels.
  const int64_t n = 1, c = 64, k = 136, hw = 20;
  std::array<int, 5> nhwc{0, 2, 3, 4, 1};
  std::vector<float> xb, wb, yb;
  Desc<5> x = view<5>(xb, {n, c, 1, hw, hw}, nhwc), w = view<5>(wb, {k, c, 1, 3, 3}, {0, 1, 2, 3, 4}),
          y = view<5>(yb, {n, k, 1, hw, hw}, nhwc);
  fill(x, 11), fill(w, 12);
  std::vector<float> biasData = randomData(size_t(k), 13);
  std::vector<float> want = referenceConv(x, w, y, 1, {1, 1, 1, 0, 1, 1, 1, 1, 1}, false);
  for (size_t i = 0; i < want.size(); ++i) want[i] = std::max(want[i] + biasData[i / (hw * hw)], 0.0f);
  kiln::cpu::WinogradConv cv;
  cv.n = n, cv.c = c, cv.k = k, cv.h = cv.w = cv.oh = cv.ow = hw, cv.padTop = cv.padLeft = 1;
  cv.x = {x.aligned + x.offset, hw * hw * c, 0, c, hw * c, c};
  cv.y = {y.aligned + y.offset, hw * hw * k, 0, k, hw * k, k};
  cv.weight = w.aligned + w.offset, cv.wK = c * 9, cv.wC = 9, cv.wH = 3, cv.wW = 1;
  cv.bias = biasData.data(), cv.activation = KILN_CPU_RELU;
  kiln::cpu::runWinograd(cv, 2);
  expectClose(contents(y), want, kWinogradTolerance);
  kiln::cpu::forgetWeights();
}

TEST(CpuLibrary, ConstantWeightsAreForgottenWithTheirModel) {
  ConvCase t{"cached", 1, 8, 8, 1, {1, 6, 6}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}};
  std::vector<float> xb, wb, yb;
  std::array<int, 5> order{0, 1, 2, 3, 4};
  Desc<5> x = view<5>(xb, {1, 8, 1, 6, 6}, order), w = view<5>(wb, {8, 8, 1, 3, 3}, order),
          y = view<5>(yb, {1, 8, 1, 6, 6}, order);
  fill(x, 4);
  const auto &p = t.params;
  for (unsigned seed : {5u, 6u}) {
    fill(w, seed);  // the same buffer with new contents after forgetWeights()
    std::vector<float> want = referenceConv(x, w, y, 1, p, false);
    for (int run = 0; run < 2; ++run) {
      _mlir_ciface_kiln_cpu_conv_f32(KILN_CPU_OVERWRITE | KILN_CPU_CONST_WEIGHT, 1, p[0], p[1], p[2], p[3], p[4],
                                     p[5], p[6], p[7], p[8], &x, &w, &y);
      ASSERT_EQ(kiln::cpu::takeError(), "");
      expectClose(contents(y), want);
    }
    kiln::cpu::forgetWeights();
  }
}

// A convolution's geometry and plan are kept per calling thread for its
// flags, parameters, sizes, strides and thread count: the same problem
// again on new buffers, the same sizes in another layout (other strides),
// on a pool of two threads, and with a stride that fits no window (an
// error, not a kept geometry) each give their own, right answer.
TEST(CpuLibrary, ConvolutionCallsKeepTheirShapePerKey) {
  ConvCase nchw{"nchw", 1, 16, 24, 1, {1, 9, 9}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}};
  ConvCase nhwc = nchw;
  nhwc.name = "nhwc", nhwc.channelsLast = true;
  ConvCase depthwise{"depthwise", 1, 16, 16, 16, {1, 9, 9}, {1, 3, 3}, {1, 1, 1, 0, 1, 1, 1, 1, 1}, true};
  for (int round = 0; round < 2; ++round)
    for (const ConvCase *t : {&nchw, &nhwc, &depthwise, &nchw}) {
      runConv(*t);
      runConv(*t, KILN_CPU_CONST_WEIGHT);
      kiln::cpu::threadPool(2)->run([&] { runConv(*t); });
    }
  kiln::cpu::forgetWeights();
  std::vector<float> xb, wb, yb;
  std::array<int, 5> order{0, 1, 2, 3, 4};
  Desc<5> x = view<5>(xb, {1, 16, 1, 9, 9}, order), w = view<5>(wb, {24, 16, 1, 3, 3}, order),
          y = view<5>(yb, {1, 24, 1, 9, 9}, order);
  for (int run = 0; run < 2; ++run) {
    kiln::cpu::clearError();
    _mlir_ciface_kiln_cpu_conv_f32(KILN_CPU_OVERWRITE, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, &x, &w, &y);
    std::string error = kiln::cpu::takeError();
    EXPECT_NE(error.find("invalid stride"), std::string::npos) << error;
  }
}

TEST(CpuLibrary, ConvolutionErrorsAreReported) {
  std::vector<float> xb, wb, yb;
  std::array<int, 5> order{0, 1, 2, 3, 4};
  Desc<5> x = view<5>(xb, {1, 8, 1, 6, 6}, order), w = view<5>(wb, {4, 3, 1, 3, 3}, order),
          y = view<5>(yb, {1, 4, 1, 6, 6}, order);
  kiln::cpu::clearError();
  _mlir_ciface_kiln_cpu_conv_f32(KILN_CPU_OVERWRITE, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, &x, &w, &y);
  std::string error = kiln::cpu::takeError();
  EXPECT_NE(error.find("kiln_cpu_conv_f32"), std::string::npos) << error;
  EXPECT_NE(error.find("filter"), std::string::npos) << error;
}

struct GemmCase {
  std::string name;
  int64_t batch, m, n, k;
  bool transA, transB, accumulate, bias, relu, constWeights;
};

TEST(CpuLibrary, MatrixProducts) {
  std::vector<GemmCase> cases;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (int64_t batch : {1, 3})
        cases.push_back({"plain", batch, 5, 7, 13, ta, tb, false, false, false, false});
  cases.push_back({"accumulate", 2, 17, 9, 33, false, false, true, false, false, false});
  cases.push_back({"linear: bias and ReLU", 1, 128, 96, 64, false, true, false, true, true, true});
  cases.push_back({"linear: bias, batched", 4, 9, 31, 20, false, true, false, true, false, true});
  cases.push_back({"constant weights", 1, 33, 65, 129, false, false, false, false, false, true});
  cases.push_back({"constant weights, A transposed", 1, 40, 24, 72, true, true, false, false, false, true});
  cases.push_back({"constant weights, accumulate, ReLU", 1, 16, 48, 96, false, true, true, false, true, true});
  cases.push_back({"empty sum", 1, 3, 4, 0, false, false, false, true, true, false});
  // One row (a batch-1 linear layer): kiln's own loop (Gemv.h), both weight layouts.
  cases.push_back({"one row, weight (n, k)", 1, 1, 300, 77, false, true, false, true, true, true});
  cases.push_back({"one row, weight (k, n), batched", 3, 1, 75, 40, false, false, true, false, false, true});
  for (const GemmCase &t : cases) {
    SCOPED_TRACE(t.name + " transA " + std::to_string(t.transA) + " transB " + std::to_string(t.transB) +
                 " batch " + std::to_string(t.batch));
    std::vector<float> ab, bb, cb, biasData = randomData(static_cast<size_t>(2 * t.n), 9);
    // A and B stored as given (transposed or not), C with padded rows.
    Desc<3> A = view<3>(ab, t.transA ? std::array<int64_t, 3>{t.batch, t.k, t.m} : std::array<int64_t, 3>{t.batch, t.m, t.k},
                        {0, 1, 2});
    Desc<3> B = view<3>(bb, t.transB ? std::array<int64_t, 3>{t.batch, t.n, t.k} : std::array<int64_t, 3>{t.batch, t.k, t.n},
                        {0, 1, 2});
    Desc<3> C = view<3>(cb, {t.batch, t.m, t.n}, {0, 1, 2}, 3);
    Desc<1> bias{biasData.data(), biasData.data(), 0, {t.n}, {2}};  // every other element
    if (t.k) fill(A, 10), fill(B, 11);
    fill(C, 12);
    std::vector<float> want;
    for (int64_t b = 0; b < t.batch; ++b)
      for (int64_t i = 0; i < t.m; ++i)
        for (int64_t j = 0; j < t.n; ++j) {
          double acc = t.accumulate ? at(C, {b, i, j}) : 0.0;
          for (int64_t l = 0; l < t.k; ++l)
            acc += double(t.transA ? at(A, {b, l, i}) : at(A, {b, i, l})) * (t.transB ? at(B, {b, j, l}) : at(B, {b, l, j}));
          if (t.bias) acc += biasData[2 * j];
          if (t.relu) acc = std::max(acc, 0.0);
          want.push_back(static_cast<float>(acc));
        }
    int32_t flags = (t.accumulate ? 0 : KILN_CPU_OVERWRITE) | (t.relu ? KILN_CPU_RELU : 0) |
                    (t.constWeights ? KILN_CPU_CONST_WEIGHT : 0);
    for (int run = 0; run < 2; ++run) {
      if (t.accumulate && run) break;
      kiln::cpu::clearError();
      if (t.bias)
        _mlir_ciface_kiln_cpu_gemm_lt_f32(t.transA, t.transB, flags, &A, &B, &C, &bias);
      else
        _mlir_ciface_kiln_cpu_gemm_f32(t.transA, t.transB, flags, &A, &B, &C);
      ASSERT_EQ(kiln::cpu::takeError(), "");
      std::vector<float> got;
      for (int64_t b = 0; b < t.batch; ++b)
        for (int64_t i = 0; i < t.m; ++i)
          for (int64_t j = 0; j < t.n; ++j) got.push_back(at(C, {b, i, j}));
      expectClose(got, want);
    }
  }
  kiln::cpu::forgetWeights();
}

/// C[b] = A[b] * W for every b, W one (k, n) buffer: the reference.
std::vector<float> referenceShared(const std::vector<float> &a, const std::vector<float> &w, int64_t batch, int64_t m,
                                   int64_t n, int64_t k) {
  std::vector<float> want;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t l = 0; l < k; ++l) acc += double(a[(b * m + i) * k + l]) * w[l * n + j];
        want.push_back(static_cast<float>(acc));
      }
  return want;
}

// A weight broadcast over the batch (batch stride 0), kept across runs and
// forgotten with its model: the same buffer with new contents gives new
// results after forgetWeights() (oneMKL's packed copy, where it is used,
// and oneDNN's reordered one alike).
TEST(CpuLibrary, SharedConstantWeightsAreForgottenWithTheirModel) {
  const int64_t batch = 3, m = 20, n = 36, k = 52;
  std::vector<float> a = randomData(size_t(batch * m * k), 21), w, c(size_t(batch * m * n));
  Desc<3> A{a.data(), a.data(), 0, {batch, m, k}, {m * k, k, 1}};
  Desc<3> C{c.data(), c.data(), 0, {batch, m, n}, {m * n, n, 1}};
  for (unsigned seed : {22u, 23u}) {
    w = randomData(size_t(k * n), seed);
    Desc<3> B{w.data(), w.data(), 0, {batch, k, n}, {0, n, 1}};
    std::vector<float> want = referenceShared(a, w, batch, m, n, k);
    for (int run = 0; run < 2; ++run) {
      kiln::cpu::clearError();
      _mlir_ciface_kiln_cpu_gemm_f32(0, 0, KILN_CPU_OVERWRITE | KILN_CPU_CONST_WEIGHT, &A, &B, &C);
      ASSERT_EQ(kiln::cpu::takeError(), "");
      expectClose(c, want);
    }
    kiln::cpu::forgetWeights();
  }
}

// Where the build found oneMKL (KILN_DEFAULT_MKL), constant-weight products
// go through its packed GEMM; views it cannot read are declined, for oneDNN.
TEST(CpuLibrary, OneMklPackedProducts) {
  const int64_t m = 64, n = 80, k = 96;
  std::vector<float> a = randomData(size_t(m * k), 31), w = randomData(size_t(k * n), 32), c(size_t(m * n), 5.0f);
  std::vector<float> bias = randomData(size_t(n), 33);
  kiln::cpu::MklProduct p{m, n, k, a.data(), k, 1, w.data(), n, 1, c.data(), n, 1, bias.data(), 1, true, true};
  bool used = kiln::cpu::mklConstWeightGemm(p, 1);
#ifdef KILN_DEFAULT_MKL
  const char *env = std::getenv("KILN_MKL");
  if (!env || std::string(env) != "off") ASSERT_TRUE(used) << "oneMKL was found at configure time: " KILN_DEFAULT_MKL;
#endif
  if (used) {
    std::vector<float> want = referenceShared(a, w, 1, m, n, k);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) want[i * n + j] = std::max(want[i * n + j] + bias[j], 0.0f);
    expectClose(c, want);
  }
  // Columns of the result not unit-stride: declined whatever is installed.
  kiln::cpu::MklProduct strided = p;
  strided.dRow = 1, strided.dCol = m;
  EXPECT_FALSE(kiln::cpu::mklConstWeightGemm(strided, 1));
  // A with neither dim unit-stride: declined.
  kiln::cpu::MklProduct gather = p;
  gather.aRow = 2 * k, gather.aCol = 2;
  EXPECT_FALSE(kiln::cpu::mklConstWeightGemm(gather, 1));
  kiln::cpu::forgetWeights();
}

} // namespace

// A product large enough to share runs as one column panel per thread (each
// panel packed on its own, its bias and ReLU applied by its thread): a
// linear layer's transposed weight, a strided bias, accumulated into the
// output, columns not a multiple of the panels' 16-column rounding.
TEST(CpuLibrary, OneMklProductsInColumnPanelsPerThread) {
  kiln::cpu::dnnl();  // the OpenMP team the panels run on comes with oneDNN
  const int64_t m = 40, n = 300, k = 200;
  std::vector<float> a = randomData(size_t(m * k), 41), wt = randomData(size_t(n * k), 42);
  std::vector<float> bias = randomData(size_t(2 * n), 43), c = randomData(size_t(m * n), 44);
  std::vector<float> want(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = c[size_t(i * n + j)] + bias[size_t(2 * j)];
      for (int64_t l = 0; l < k; ++l) acc += double(a[size_t(i * k + l)]) * wt[size_t(j * k + l)];
      want[size_t(i * n + j)] = std::max(static_cast<float>(acc), 0.0f);
    }
  for (int threads : {2, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    std::vector<float> got = c;
    // op(B) is k x n with rows 1 apart and columns k apart (the weight (n, k)).
    kiln::cpu::MklProduct p{m, n, k, a.data(), k, 1, wt.data(), 1, k, got.data(), n, 1, bias.data(), 2, false, true};
    if (!kiln::cpu::mklConstWeightGemm(p, threads)) {
#ifdef KILN_DEFAULT_MKL
      const char *env = std::getenv("KILN_MKL");
      ASSERT_TRUE(env && std::string(env) == "off") << "oneMKL was found at configure time: " KILN_DEFAULT_MKL;
#endif
      return;
    }
    expectClose(got, want);
    // Again from the panels packed by the first call.
    got = c;
    ASSERT_TRUE(kiln::cpu::mklConstWeightGemm(p, threads));
    expectClose(got, want);
  }
  kiln::cpu::forgetWeights();
}

// Single-row products (Gemv.h) against the reference: both weight layouts,
// column counts around the 4-, 8- and 32-column steps and the 256-column
// chunks, row lengths around the 8- and 16-float steps, a strided row,
// bias and output, accumulation and ReLU, one to three threads.
TEST(CpuLibrary, SingleRowProducts) {
  kiln::cpu::dnnl();  // the OpenMP team the columns are shared on comes with oneDNN
  for (bool dot : {true, false})
    for (int64_t n : {1, 7, 36, 263, 1100})
      for (int64_t k : {1, 15, 33, 700})
        for (int threads : {1, 2, 3}) {
          SCOPED_TRACE((dot ? "weight (n, k)" : "weight (k, n)") + std::string(" n ") + std::to_string(n) + " k " +
                       std::to_string(k) + " threads " + std::to_string(threads));
          const bool accumulate = (n + k) % 2, relu = n % 2, strided = k % 2;
          std::vector<float> a = randomData(size_t(2 * k), 51), w = randomData(size_t(n * k), 52);
          std::vector<float> bias = randomData(size_t(3 * n), 53), d = randomData(size_t(2 * n), 54);
          const int64_t aCol = strided ? 2 : 1, dCol = strided ? 2 : 1;
          std::vector<float> expected(static_cast<size_t>(n));
          for (int64_t j = 0; j < n; ++j) {
            double acc = (accumulate ? d[size_t(j * dCol)] : 0.0) + bias[size_t(3 * j)];
            for (int64_t l = 0; l < k; ++l)
              acc += double(a[size_t(l * aCol)]) * (dot ? w[size_t(j * k + l)] : w[size_t(l * n + j)]);
            expected[size_t(j)] = relu ? std::max(static_cast<float>(acc), 0.0f) : static_cast<float>(acc);
          }
          kiln::cpu::MklProduct p{1, n, k, a.data(), k * aCol, aCol, w.data(), dot ? 1 : n, dot ? k : 1,
                                  d.data(), n * dCol, dCol, bias.data(), 3, !accumulate, relu};
          ASSERT_TRUE(kiln::cpu::constWeightGemv(p, threads));
          std::vector<float> got(static_cast<size_t>(n));
          for (int64_t j = 0; j < n; ++j) got[size_t(j)] = d[size_t(j * dCol)];
          expectClose(got, expected);
        }
  // Two rows, or a weight with neither dim unit-stride: declined.
  std::vector<float> a(8), w(64), d(16);
  kiln::cpu::MklProduct two{2, 8, 4, a.data(), 4, 1, w.data(), 8, 1, d.data(), 8, 1, nullptr, 0, true, false};
  EXPECT_FALSE(kiln::cpu::constWeightGemv(two, 1));
  kiln::cpu::MklProduct gather{1, 8, 4, a.data(), 4, 1, w.data(), 16, 2, d.data(), 8, 1, nullptr, 0, true, false};
  EXPECT_FALSE(kiln::cpu::constWeightGemv(gather, 1));
}

// A single row large enough to share its columns, run inside a model call's
// pool of 2 and 3 threads (the columns go through parallelFor: the pool's
// oneTBB arena, or oneDNN's team where the runtime adopted it): every
// column bitwise what one thread computes (each column is one thread's dot
// product, in the same order), both weight layouts.
TEST(CpuLibrary, SingleRowProductsOnAPoolsThreads) {
  kiln::cpu::dnnl();
  for (bool dot : {true, false}) {
    const int64_t n = 1283, k = 960;  // 41 blocks of 32 columns, ~1.2M weights
    std::vector<float> a = randomData(size_t(k), 61), w = randomData(size_t(n * k), 62), bias = randomData(size_t(n), 63);
    auto product = [&](std::vector<float> &d, int threads) {
      kiln::cpu::MklProduct p{1, n, k, a.data(), k, 1, w.data(), dot ? 1 : n, dot ? k : 1,
                              d.data(), n, 1, bias.data(), 1, true, true};
      return kiln::cpu::constWeightGemv(p, threads);
    };
    std::vector<float> one(size_t(n), -1.0f);
    ASSERT_TRUE(product(one, 1));
    for (int threads : {2, 3}) {
      SCOPED_TRACE((dot ? "weight (n, k)" : "weight (k, n)") + std::string(" threads ") + std::to_string(threads));
      std::vector<float> got(size_t(n), -1.0f);
      bool ran = false;
      kiln::cpu::threadPool(threads)->run([&] { ran = product(got, threads); });
      ASSERT_TRUE(ran);
      for (int64_t j = 0; j < n; ++j) ASSERT_EQ(got[size_t(j)], one[size_t(j)]) << "column " << j;
    }
  }
}

// Buffers the compiler marks KILN_CPU_*_BLOCKED hold oneDNN's blocked layout
// between calls: a chain x -> a (y blocked) -> b = relu(conv(a) + bias + a)
// (x, y and the residual blocked) -> c = conv1x1(b) (x blocked, y NHWC)
// gives the NHWC chain's result, Winograd's 3x3 convolutions reading and
// writing the blocked layout or oneDNN's; a marked view that is not a whole
// dense NHWC buffer is an error.
TEST(CpuLibrary, BlockedBuffersBetweenConvolutions) {
  const int64_t n = 2, ch = 16, hw = 9;
  std::array<int, 5> nhwc{0, 2, 3, 4, 1};
  std::vector<float> xb, w1b, w2b, w3b, ab, bb, cb, refA, refB;
  Desc<5> x = view<5>(xb, {n, ch, 1, hw, hw}, nhwc), w1 = view<5>(w1b, {ch, ch, 1, 3, 3}, nhwc),
          w2 = view<5>(w2b, {ch, ch, 1, 3, 3}, nhwc), w3 = view<5>(w3b, {8, ch, 1, 1, 1}, nhwc);
  Desc<5> a = view<5>(ab, {n, ch, 1, hw, hw}, nhwc), b = view<5>(bb, {n, ch, 1, hw, hw}, nhwc),
          c = view<5>(cb, {n, 8, 1, hw, hw}, nhwc);
  fill(x, 1), fill(w1, 2), fill(w2, 3), fill(w3, 4);
  std::vector<float> biasData = randomData(ch, 5);
  Desc<1> bias{biasData.data(), biasData.data(), 0, {ch}, {1}};
  // The NHWC chain, naively.
  std::array<int64_t, 9> pad1{1, 1, 1, 0, 1, 1, 1, 1, 1}, none{1, 1, 1, 0, 0, 0, 1, 1, 1};
  std::vector<float> wantA = referenceConv(x, w1, a, 1, pad1, false);
  std::vector<float> ra, rb;
  Desc<5> aRef = view<5>(ra, {n, ch, 1, hw, hw}, {0, 1, 2, 3, 4}), bRef = view<5>(rb, {n, ch, 1, hw, hw}, {0, 1, 2, 3, 4});
  std::copy(wantA.begin(), wantA.end(), ra.begin());
  std::vector<float> wantB = referenceConv(aRef, w2, bRef, 1, pad1, false);
  int64_t per = hw * hw;
  for (size_t i = 0; i < wantB.size(); ++i)
    wantB[i] = std::max(wantB[i] + biasData[(int64_t)i / per % ch] + wantA[i], 0.0f);
  std::copy(wantB.begin(), wantB.end(), rb.begin());
  std::vector<float> rc;
  Desc<5> cRef = view<5>(rc, {n, 8, 1, hw, hw}, {0, 1, 2, 3, 4});
  std::vector<float> wantC = referenceConv(bRef, w3, cRef, 1, none, false);

  const int32_t ow = KILN_CPU_OVERWRITE | KILN_CPU_CONST_WEIGHT;
  const bool preferred = kiln::cpu::winogradPreferred();
  for (bool winograd : {true, false}) {
    SCOPED_TRACE(winograd ? "Winograd" : "oneDNN");
    kiln::cpu::setWinogradPreferred(winograd);
    kiln::cpu::clearError();
    _mlir_ciface_kiln_cpu_conv_f32(ow | KILN_CPU_Y_BLOCKED, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, &x, &w1, &a);
    _mlir_ciface_kiln_cpu_conv_bias_add_f32(ow | KILN_CPU_RELU | KILN_CPU_X_BLOCKED | KILN_CPU_Y_BLOCKED |
                                                KILN_CPU_R_BLOCKED,
                                            1, 1, 1, 1, 0, 1, 1, 1, 1, 1, &a, &w2, &b, &bias, &a);
    _mlir_ciface_kiln_cpu_conv_f32(ow | KILN_CPU_X_BLOCKED, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, &b, &w3, &c);
    ASSERT_EQ(kiln::cpu::takeError(), "");
    expectClose(contents(c), wantC, kWinogradTolerance);
    // The intermediate buffer holds NHWC only where that is the machine's
    // blocked layout (a single group of all channels).
    std::vector<float> aBlocked(size_t(n * ch * hw * hw));
    const int64_t g = kiln::cpu::blockedGroup(ch);
    ASSERT_TRUE(g == 8 || g == 16) << g;  // 16 channels: 16 is NHWC too
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < ch; ++c)
        for (int64_t p = 0; p < hw * hw; ++p)
          aBlocked[size_t(((i * (ch / g) + c / g) * hw * hw + p) * g + c % g)] = wantA[size_t((i * ch + c) * hw * hw + p)];
    std::vector<float> raw(ab.begin(), ab.begin() + (long)aBlocked.size());
    expectClose(raw, aBlocked, kWinogradTolerance);
    kiln::cpu::forgetWeights();
  }
  kiln::cpu::setWinogradPreferred(preferred);
  // 24 channels: not a whole number of 16-channel groups.
  const int64_t g24 = kiln::cpu::blockedGroup(24);
  EXPECT_TRUE(g24 == 8 || g24 == 24) << g24;

  // A row-padded view cannot be read as the blocked layout.
  std::vector<float> pb;
  Desc<5> padded = view<5>(pb, {n, ch, 1, hw, hw}, nhwc, 3);
  _mlir_ciface_kiln_cpu_conv_f32(ow | KILN_CPU_X_BLOCKED, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, &padded, &w1, &a);
  std::string error = kiln::cpu::takeError();
  EXPECT_NE(error.find("kiln_cpu_conv_f32: x is marked blocked but is not a whole dense (N, H, W, C) buffer"),
            std::string::npos)
      << error;
  kiln::cpu::forgetWeights();
}

// GoogleTests of kiln's own constant-weight products of several rows (runtime/src/cpu/Gemm.h) against a
// reference in double.
#include "Dnnl.h"
#include "Gemm.h"
#include "Library.h"

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using kiln::test::randomData;

struct Case {
  int64_t m, n, k;
  bool linear;  // the weight stored (n, k) (a linear layer's), else (k, n)
  bool accumulate, bias, relu;
  int threads;
};

std::string describe(const Case &c) {
  return std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) +
         (c.linear ? " weight (n, k)" : " weight (k, n)") + (c.accumulate ? " accumulate" : "") +
         (c.bias ? " bias" : "") + (c.relu ? " relu" : "") + " threads " + std::to_string(c.threads);
}

/// Runs `c` twice (the second time from the weight packed by the first) with
/// A's and d's rows padded, and compares with the reference.
void check(const Case &c) {
  SCOPED_TRACE(describe(c));
  const int64_t lda = c.k + 3, ldd = c.n + 5;
  std::vector<float> a = randomData(size_t(c.m * lda), 1), w = randomData(size_t(c.n * c.k), 2);
  std::vector<float> bias = randomData(size_t(2 * c.n), 3), d0 = randomData(size_t(c.m * ldd), 4);
  auto weight = [&](int64_t l, int64_t j) { return c.linear ? w[size_t(j * c.k + l)] : w[size_t(l * c.n + j)]; };
  std::vector<float> want(size_t(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double acc = (c.accumulate ? d0[size_t(i * ldd + j)] : 0.0) + (c.bias ? bias[size_t(2 * j)] : 0.0);
      for (int64_t l = 0; l < c.k; ++l) acc += double(a[size_t(i * lda + l)]) * weight(l, j);
      want[size_t(i * c.n + j)] = c.relu ? std::max(static_cast<float>(acc), 0.0f) : static_cast<float>(acc);
    }
  for (int run = 0; run < 2; ++run) {
    std::vector<float> d = d0;
    kiln::cpu::MklProduct p{c.m, c.n, c.k, a.data(), lda, 1,
                            w.data(), c.linear ? 1 : c.n, c.linear ? c.k : 1, d.data(), ldd, 1,
                            c.bias ? bias.data() : nullptr, 2, !c.accumulate, c.relu};
    ASSERT_TRUE(kiln::cpu::constWeightGemm(p, c.threads));
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        const float got = d[size_t(i * ldd + j)], expected = want[size_t(i * c.n + j)];
        ASSERT_NEAR(got, expected, 2e-5f * std::sqrt(float(c.k)) * (1.0f + std::fabs(expected)))
            << "row " << i << " column " << j;
      }
      // The padding after each row of d is left alone.
      for (int64_t j = c.n; j < ldd && i + 1 < c.m; ++j) ASSERT_EQ(d[size_t(i * ldd + j)], d0[size_t(i * ldd + j)]);
    }
  }
}

} // namespace

// Rows around the 6-row tile, columns around the 16-column panel and the
// 512-column block, k within one pass and over several (768 a pass), both
// weight layouts, accumulation, a strided bias, ReLU.
TEST(CpuGemm, ConstantWeightProducts) {
  for (int64_t m : {2, 5, 6, 7, 13})
    for (int64_t n : {1, 15, 16, 17, 40, 530})
      for (int64_t k : {1, 9, 769}) {
        const bool odd = (m + n + k) % 2;
        check({m, n, k, odd, odd, !odd, n % 2 == 1, 1});
      }
  check({3, 33, 1600, true, true, true, true, 1});  // three passes of k
}

// Large enough to share: columns in whole panels (many panels), else rows
// in whole tiles (few panels), on the caller's threads (the OpenMP team
// that comes with oneDNN, or oneTBB's); two and three threads, results
// equal to one thread's reference.
TEST(CpuGemm, ConstantWeightProductsOnThreads) {
  kiln::cpu::dnnl();
  for (int threads : {2, 3}) {
    check({64, 300, 769, true, true, true, true, threads});    // columns
    check({200, 40, 800, false, false, true, false, threads});  // rows
    check({197, 2304, 96, true, false, true, false, threads});  // a transformer's QKV shape, short k
  }
}

// ReLU keeps a NaN (PyTorch's relu does), and a NaN in one row of A
// reaches only that row.
TEST(CpuGemm, ReluKeepsNaN) {
  const int64_t m = 7, n = 20, k = 5;
  std::vector<float> a = randomData(size_t(m * k), 5), w = randomData(size_t(k * n), 6), d(size_t(m * n));
  a[size_t(3 * k + 2)] = std::nanf("");
  kiln::cpu::MklProduct p{m, n, k, a.data(), k, 1, w.data(), n, 1, d.data(), n, 1, nullptr, 0, true, true};
  ASSERT_TRUE(kiln::cpu::constWeightGemm(p, 1));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float v = d[size_t(i * n + j)];
      if (i == 3)
        EXPECT_TRUE(std::isnan(v)) << "column " << j;
      else
        EXPECT_TRUE(v >= 0.0f) << "row " << i << " column " << j;
    }
  kiln::cpu::forgetWeights();
}

// Layouts the kernel does not read are declined, for oneMKL or oneDNN.
TEST(CpuGemm, DeclinesStridedRows) {
  std::vector<float> a(64), w(64), d(64);
  kiln::cpu::MklProduct p{4, 4, 4, a.data(), 1, 4, w.data(), 4, 1, d.data(), 4, 1, nullptr, 0, true, false};
  EXPECT_FALSE(kiln::cpu::constWeightGemm(p, 1));  // A's k not unit-stride
  p.aRow = 4, p.aCol = 1, p.dRow = 1, p.dCol = 4;
  EXPECT_FALSE(kiln::cpu::constWeightGemm(p, 1));  // d's columns not unit-stride
  p.dRow = 4, p.dCol = 1;
  EXPECT_TRUE(kiln::cpu::constWeightGemm(p, 1));
  kiln::cpu::forgetWeights();
}

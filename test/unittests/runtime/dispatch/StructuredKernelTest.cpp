// GoogleTests of the eager kernels of composite ops the rule table cannot
// state (kernels/cpu/Structured.cpp), on small hand-checked cases.
#include "kiln/library.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace kiln;

namespace {
Tensor F(const std::vector<int64_t> &shape, const std::vector<float> &v) {
  Tensor t = Tensor::empty(shape, DType::Float32);
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}
Tensor I(const std::vector<int64_t> &shape, const std::vector<int64_t> &v) {
  Tensor t = Tensor::empty(shape, DType::Int64);
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}
std::vector<float> fv(const Tensor &t) { return {t.data<float>(), t.data<float>() + t.numel()}; }
using Dims = std::optional<std::vector<int64_t>>;
} // namespace

TEST(StructuredKernels, ShiftsAndDiagonals) {
  Tensor x = F({5}, {0, 1, 2, 3, 4});
  EXPECT_EQ(fv(call("aten::fft_fftshift", x, Dims())), (std::vector<float>{3, 4, 0, 1, 2}));
  EXPECT_EQ(fv(call("aten::fft_ifftshift", x, Dims())), (std::vector<float>{2, 3, 4, 0, 1}));
  Tensor m = F({2, 2}, {0, 1, 2, 3});
  EXPECT_EQ(fv(call("aten::fft_fftshift", m, Dims(std::vector<int64_t>{1}))),
            (std::vector<float>{1, 0, 3, 2}));
  EXPECT_EQ(fv(call("aten::diag", F({2}, {5, 6}), (int64_t)1)),
            (std::vector<float>{0, 5, 0, 0, 0, 6, 0, 0, 0}));
  EXPECT_EQ(fv(call("aten::diag", F({2, 3}, {1, 2, 3, 4, 5, 6}), (int64_t)-1)),
            (std::vector<float>{4}));
  Tensor e = call("aten::diag_embed", F({2, 2}, {1, 2, 3, 4}), (int64_t)0, (int64_t)-2, (int64_t)-1);
  EXPECT_EQ(e.sizes(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(fv(e), (std::vector<float>{1, 0, 0, 2, 3, 0, 0, 4}));
}

TEST(StructuredKernels, IntegralsAndProducts) {
  Tensor y = F({2, 3}, {1, 2, 3, 4, 5, 6}), x = F({3}, {0, 1, 3});
  EXPECT_EQ(fv(call("aten::trapezoid.x", y, x, (int64_t)-1)), (std::vector<float>{6.5f, 15.5f}));
  EXPECT_EQ(fv(call("aten::cumulative_trapezoid.x", y, x, (int64_t)-1)),
            (std::vector<float>{1.5f, 6.5f, 4.5f, 15.5f}));
  EXPECT_EQ(fv(call("aten::trapezoid.dx", y, 2.0, (int64_t)0)), (std::vector<float>{5, 7, 9}));
  // tensordot contracting a's last dim with b's first: a matrix product.
  Tensor a = F({2, 2}, {1, 2, 3, 4}), b = F({2, 2}, {5, 6, 7, 8});
  EXPECT_EQ(fv(call("aten::tensordot", a, b, std::vector<int64_t>{1}, std::vector<int64_t>{0})),
            (std::vector<float>{19, 22, 43, 50}));
  EXPECT_EQ(fv(call("aten::cross", F({3}, {1, 0, 0}), F({3}, {0, 1, 0}), std::optional<int64_t>())),
            (std::vector<float>{0, 0, 1}));
  EXPECT_EQ(fv(call("aten::linalg_vander", F({2}, {2, 3}), std::optional<int64_t>(3))),
            (std::vector<float>{1, 2, 4, 1, 3, 9}));
  EXPECT_EQ(fv(call("aten::block_diag", std::vector<Tensor>{F({1, 2}, {1, 2}), F({}, {3})})),
            (std::vector<float>{1, 2, 0, 0, 0, 3}));
  Tensor c = call("aten::combinations", F({3}, {1, 2, 3}), (int64_t)2, false);
  EXPECT_EQ(c.sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(fv(c), (std::vector<float>{1, 2, 1, 3, 2, 3}));
}

TEST(StructuredKernels, ScattersHistogramsAndLosses) {
  // renorm: row 0 has norm 5 > 1 and is scaled to (almost) 1; row 1 has norm 0.5.
  std::vector<float> r = fv(call("aten::renorm", F({2, 2}, {3, 4, 0.3f, 0.4f}), 2.0, (int64_t)0, 1.0));
  EXPECT_NEAR(r[0], 0.6f, 1e-6);
  EXPECT_NEAR(r[3], 0.4f, 1e-7);
  EXPECT_EQ(fv(call("aten::put", F({2, 2}, {0, 0, 0, 0}), I({2}, {3, -4}), F({2}, {7, 8}), false)),
            (std::vector<float>{8, 0, 0, 7}));
  EXPECT_EQ(fv(call("aten::histc", F({5}, {0, 1, 1, 2, 9}), (int64_t)3, 0.0, 3.0)),
            (std::vector<float>{1, 2, 1}));
  // im2col of a 1x1x2x3 image with 2x2 blocks: 2 positions.
  Tensor cols = call("aten::im2col", F({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6}), std::vector<int64_t>{2, 2},
                     std::vector<int64_t>{1, 1}, std::vector<int64_t>{0, 0}, std::vector<int64_t>{1, 1});
  EXPECT_EQ(cols.sizes(), (std::vector<int64_t>{1, 4, 2}));
  EXPECT_EQ(fv(cols), (std::vector<float>{1, 2, 2, 3, 4, 5, 5, 6}));
  // col2im (fold), im2col's adjoint: the two blocks sum back where they overlap (column 1).
  Tensor img = call("aten::col2im", F({1, 4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), std::vector<int64_t>{2, 3},
                    std::vector<int64_t>{2, 2}, std::vector<int64_t>{1, 1}, std::vector<int64_t>{0, 0},
                    std::vector<int64_t>{1, 1});
  EXPECT_EQ(img.sizes(), (std::vector<int64_t>{1, 1, 2, 3}));
  EXPECT_EQ(fv(img), (std::vector<float>{1, 5, 4, 5, 13, 8}));
  // Unbatched, a block count that does not match output_size: a clear error.
  EXPECT_THROW(call("aten::col2im", F({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
                    std::vector<int64_t>{2, 3}, std::vector<int64_t>{2, 2}, std::vector<int64_t>{1, 1},
                    std::vector<int64_t>{0, 0}, std::vector<int64_t>{1, 1}),
               Error);
  // multi_margin: target 0 of x = [1, 0.5, 2]: (max(0, 1 - 1 + 0.5) + max(0, 1 - 1 + 2)) / 3.
  std::vector<float> mm = fv(call("aten::multi_margin_loss", F({3}, {1, 0.5f, 2}), I({}, {0}), 1.0,
                                  1.0, std::optional<Tensor>(), (int64_t)1));
  EXPECT_NEAR(mm[0], 2.5f / 3, 1e-6);
  // multilabel: targets {0} of x = [1, 0.5, 2]: (max(0, 1 - 0.5) + max(0, 1 + 1)) / 3.
  std::vector<float> ml =
      fv(call("aten::multilabel_margin_loss", F({3}, {1, 0.5f, 2}), I({3}, {0, -1, 2}), (int64_t)1));
  EXPECT_NEAR(ml[0], 2.5f / 3, 1e-6);
}

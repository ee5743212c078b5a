// GoogleTests of the eager selection and resampling kernels
// (kernels/cpu/Selection.cpp, Resampling.cpp): kthvalue, median, nanmedian,
// mode, cummax/cummin, adaptive max pooling, grid_sampler, index_reduce and
// segment_reduce on small hand-checked cases.
#include "kiln/library.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace kiln;

namespace {
using T2 = std::tuple<Tensor, Tensor>;
Tensor F(const std::vector<int64_t> &shape, const std::vector<float> &v) {
  Tensor t = Tensor::empty(shape, DType::Float32);
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}
Tensor I(const std::vector<int64_t> &v) {
  Tensor t = Tensor::empty({(int64_t)v.size()}, DType::Int64);
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}
std::vector<float> fv(const Tensor &t) { return {t.data<float>(), t.data<float>() + t.numel()}; }
std::vector<int64_t> iv(const Tensor &t) {
  return {t.data<int64_t>(), t.data<int64_t>() + t.numel()};
}
} // namespace

TEST(SelectionKernels, KthMedianMode) {
  Tensor x = F({2, 4}, {3, 1, 4, 1.5f, 9, 2, 6, 5});
  auto [kv, ki] = call<T2>("aten::kthvalue", x, (int64_t)2, (int64_t)1, false);
  EXPECT_EQ(fv(kv), (std::vector<float>{1.5f, 5}));
  EXPECT_EQ(iv(ki), (std::vector<int64_t>{3, 3}));
  auto [mv, mi] = call<T2>("aten::median.dim", x, (int64_t)1, true);
  EXPECT_EQ(mv.sizes(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(fv(mv), (std::vector<float>{1.5f, 5})); // the lower median
  EXPECT_EQ(fv(call("aten::median", x)), (std::vector<float>{3}));
  Tensor withNaN = F({4}, {2, NAN, 1, 3});
  EXPECT_TRUE(std::isnan(fv(call("aten::median", withNaN))[0]));
  EXPECT_EQ(fv(call("aten::nanmedian", withNaN)), (std::vector<float>{2}));
  auto [dv, di] = call<T2>("aten::mode", F({6}, {2, 7, 2, 7, 1, 0}), (int64_t)-1, false);
  EXPECT_EQ(fv(dv), (std::vector<float>{2})); // the smallest of the most frequent
  EXPECT_EQ(iv(di), (std::vector<int64_t>{2}));
  auto [cv, ci] = call<T2>("aten::cummax", F({5}, {1, 3, 3, NAN, 5}), (int64_t)0);
  std::vector<float> c = fv(cv);
  EXPECT_EQ(c[2], 3);
  EXPECT_TRUE(std::isnan(c[3]) && std::isnan(c[4])); // NaN stays
  EXPECT_EQ(iv(ci), (std::vector<int64_t>{0, 1, 2, 3, 3}));
  auto [nv, ni] = call<T2>("aten::cummin", F({4}, {4, 2, 3, 1}), (int64_t)0);
  EXPECT_EQ(fv(nv), (std::vector<float>{4, 2, 2, 1}));
  EXPECT_THROW(call<T2>("aten::kthvalue", x, (int64_t)5, (int64_t)1, false), Error);
}

TEST(SelectionKernels, AdaptiveMaxPoolAndGridSampler) {
  // 1x3x3 pooled to 2x2: windows rows [0,2) [1,3), cols the same.
  Tensor x = F({1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto [v, i] = call<T2>("aten::adaptive_max_pool2d", x, std::vector<int64_t>{2, 2});
  EXPECT_EQ(fv(v), (std::vector<float>{5, 6, 8, 9}));
  EXPECT_EQ(iv(i), (std::vector<int64_t>{4, 5, 7, 8}));
  // An identity grid with align_corners reads every pixel back.
  Tensor img = F({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor grid = F({1, 2, 3, 2}, {-1, -1, 0, -1, 1, -1, -1, 1, 0, 1, 1, 1});
  for (int64_t mode : {0, 1})
    EXPECT_EQ(fv(call("aten::grid_sampler_2d", img, grid, mode, (int64_t)0, true)),
              fv(img));
  // Halfway between pixels 1 and 2, and outside the image with zero padding.
  Tensor g2 = F({1, 1, 2, 2}, {-0.5f, -1, 3, 0});
  std::vector<float> s = fv(call("aten::grid_sampler_2d", img, g2, (int64_t)0, (int64_t)0, true));
  EXPECT_FLOAT_EQ(s[0], 1.5f);
  EXPECT_FLOAT_EQ(s[1], 0);
  // Border padding clamps to the edge: x = 3 reads the last column (y halfway: 4.5).
  std::vector<float> b = fv(call("aten::grid_sampler_2d", img, g2, (int64_t)0, (int64_t)1, true));
  EXPECT_FLOAT_EQ(b[1], 4.5f);
}

TEST(SelectionKernels, IndexAndSegmentReduce) {
  Tensor self = F({3}, {1, 5, 2});
  Tensor src = F({4}, {4, 7, 3, 8});
  Tensor idx = I({0, 0, 2, 2});
  EXPECT_EQ(fv(call("aten::index_reduce", self, (int64_t)0, idx, src, std::string("amax"), true)),
            (std::vector<float>{7, 5, 8}));
  EXPECT_EQ(fv(call("aten::index_reduce", self, (int64_t)0, idx, src, std::string("mean"), false)),
            (std::vector<float>{5.5f, 5, 5.5f}));
  EXPECT_EQ(fv(call("aten::index_reduce", self, (int64_t)0, idx, src, std::string("prod"), true)),
            (std::vector<float>{28, 5, 48}));
  Tensor data = F({5}, {1, 2, 3, 4, 5});
  std::optional<Tensor> none;
  std::optional<double> noInit;
  EXPECT_EQ(fv(call("aten::segment_reduce", data, std::string("sum"), std::optional<Tensor>(I({2, 0, 3})),
                    none, none, (int64_t)0, false, noInit)),
            (std::vector<float>{3, 0, 12}));
  EXPECT_EQ(fv(call("aten::segment_reduce", data, std::string("max"), none, none,
                    std::optional<Tensor>(I({0, 1, 5})), (int64_t)0, false, std::optional<double>(2.0))),
            (std::vector<float>{2, 5}));
}

// Tests of the eager CPU kernels against hand-computed values, and of their
// Meta (shape) kernels.
#include "kiln/library.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace kiln;

namespace {
Tensor T(const std::vector<int64_t> &shape, const std::vector<float> &v) {
  Tensor t = Tensor::empty(shape, DType::Float32);
  EXPECT_EQ((size_t)t.numel(), v.size());
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}
Tensor arange(const std::vector<int64_t> &shape, float start = 0, float step = 1) {
  Tensor t = Tensor::empty(shape, DType::Float32);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + step * (float)i;
  return t;
}
std::vector<float> values(const Tensor &t) {
  Tensor c = t.contiguous();
  return std::vector<float>(c.data<float>(), c.data<float>() + c.numel());
}
void expectNear(const Tensor &t, const std::vector<float> &want, float tol = 1e-5f) {
  std::vector<float> got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}
const Device kMeta{DeviceType::Meta, 0};
} // namespace

TEST(Kernels, AtenSchemasAreRegistered) {
  for (const char *op :
       {"aten::linear", "aten::relu", "aten::gelu", "aten::conv2d", "aten::convolution",
        "aten::batch_norm", "aten::_native_batch_norm_legit_no_training", "aten::max_pool2d",
        "aten::max_pool2d_with_indices", "aten::adaptive_avg_pool2d", "aten::flatten.using_ints",
        "aten::addmm", "aten::mm", "aten::permute", "aten::view", "aten::reshape", "aten::mean.dim",
        "aten::add.Tensor", "aten::mul.Tensor", "aten::t", "aten::transpose.int"}) {
    OperatorHandle h = Dispatcher::get().findOp(op);
    ASSERT_TRUE(h.valid()) << op;
    EXPECT_TRUE(h.tableEntry(DispatchKey::CPU).fn) << op;
    EXPECT_TRUE(h.tableEntry(DispatchKey::Meta).fn) << op;
  }
  EXPECT_TRUE(Dispatcher::get().findOp("aten::relu.default").valid());
  EXPECT_TRUE(Dispatcher::get().registrationErrors().empty());
}

TEST(Kernels, ElementwiseAndBroadcast) {
  Tensor x = T({2, 3}, {-1, 0, 2, 3, -4, 5});
  expectNear(call("aten::relu", x), {0, 0, 2, 3, 0, 5});
  Tensor g = call("aten::gelu", T({3}, {-1, 0, 1.5f}));
  auto gelu = [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); };
  expectNear(g, {(float)gelu(-1), 0, (float)gelu(1.5)});
  Tensor gt = call("aten::gelu", T({1}, {1.0f}), std::string("tanh"));
  expectNear(gt, {(float)(0.5 * (1 + std::tanh(std::sqrt(2 / M_PI) * (1 + 0.044715))))});
  EXPECT_THROW(call("aten::gelu", x, std::string("fast")), Error);
  // add with broadcasting and alpha
  Tensor row = T({3}, {10, 20, 30});
  expectNear(call("aten::add.Tensor", x, row), {9, 20, 32, 13, 16, 35});
  expectNear(call("aten::add.Tensor", x, row, 2.0), {19, 40, 62, 23, 36, 65});
  Tensor col = T({2, 1}, {1, 2});
  Tensor m = call("aten::mul.Tensor", x, col);
  EXPECT_EQ(m.sizes(), (std::vector<int64_t>{2, 3}));
  expectNear(m, {-1, 0, 2, 6, -8, 10});
  // strided input (a transposed view)
  Tensor xt = call("aten::t", x);
  expectNear(call("aten::mul.Tensor", xt, T({1}, {2})), {-2, 6, 0, -8, 4, 10});
  EXPECT_THROW(call("aten::add.Tensor", x, T({2}, {1, 2})), Error);
  // float64 works and int/float promotes
  Tensor d = Tensor::empty({2}, DType::Float64);
  d.data<double>()[0] = 1.5;
  d.data<double>()[1] = -2;
  Tensor dd = call("aten::mul.Tensor", d, d);
  EXPECT_EQ(dd.dtype(), DType::Float64);
  EXPECT_DOUBLE_EQ(dd.data<double>()[1], 4);
  EXPECT_EQ(call("aten::add.Tensor", T({2}, {1, 2}), d).dtype(), DType::Float64);
}

TEST(Kernels, MatrixOps) {
  Tensor a = arange({2, 3}, 1); // [[1,2,3],[4,5,6]]
  Tensor b = arange({3, 2}, 1); // [[1,2],[3,4],[5,6]]
  expectNear(call("aten::mm", a, b), {22, 28, 49, 64});
  Tensor bias = T({2}, {1, -1});
  expectNear(call("aten::addmm", bias, a, b), {23, 27, 50, 63});
  expectNear(call("aten::addmm", bias, a, b, 2.0, 0.5), {13, 12, 26.5f, 30});
  // linear: x @ W^T + b, batch dims kept
  Tensor x = arange({2, 1, 3}, 1);
  Tensor w = T({2, 3}, {1, 0, 0, 0, 1, 1});
  Tensor y = call("aten::linear", x, w, bias);
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{2, 1, 2}));
  expectNear(y, {2, 4, 5, 10});
  expectNear(call("aten::linear", x, w), {1, 5, 4, 11});
  // addmm with a transposed operand (what linear decomposes to)
  expectNear(call("aten::addmm", bias, a, call("aten::permute", w, std::vector<int64_t>{1, 0})),
             {2, 4, 5, 10});
  EXPECT_THROW(call("aten::mm", a, a), Error);
  // A bigger product, checked against a naive loop (exercises tiling and threads).
  Tensor p = arange({67, 129}, -3, 0.01f), q = arange({129, 300}, 2, -0.003f);
  Tensor r = call("aten::mm", p, q);
  for (int64_t i : {0, 33, 66})
    for (int64_t j : {0, 150, 299}) {
      double s = 0;
      for (int64_t k = 0; k < 129; ++k) s += (double)p.data<float>()[i * 129 + k] * q.data<float>()[k * 300 + j];
      EXPECT_NEAR(r.data<float>()[i * 300 + j], s, 1e-2 + 1e-4 * std::fabs(s));
    }
}

TEST(Kernels, Conv2d) {
  // 1 image, 1 channel 3x3, 2x2 kernel of ones: sums of 2x2 windows.
  Tensor x = arange({1, 1, 3, 3}, 1);
  Tensor w = T({1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor y = call("aten::conv2d", x, w);
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{1, 1, 2, 2}));
  expectNear(y, {12, 16, 24, 28});
  // padding 1, stride 2, bias
  Tensor yb = call("aten::conv2d", x, w, T({1}, {0.5f}), std::vector<int64_t>{2, 2},
                   std::vector<int64_t>{1, 1});
  EXPECT_EQ(yb.sizes(), (std::vector<int64_t>{1, 1, 2, 2}));
  expectNear(yb, {1.5f, 5.5f, 11.5f, 28.5f});
  // dilation 2 on 3x3: only the corners
  expectNear(call("aten::conv2d", x, w, std::nullopt, (int64_t)1, (int64_t)0, (int64_t)2), {20});
  // groups=2: each output channel sees one input channel
  Tensor x2 = arange({1, 2, 2, 2}, 1);
  Tensor w2 = T({2, 1, 1, 1}, {1, 10});
  expectNear(call("aten::conv2d", x2, w2, std::nullopt, (int64_t)1, (int64_t)0, (int64_t)1, (int64_t)2),
             {1, 2, 3, 4, 50, 60, 70, 80});
  // convolution (core ATen form) agrees with conv2d
  Tensor c = call("aten::convolution", x, w, std::nullopt, std::vector<int64_t>{1, 1},
                  std::vector<int64_t>{0, 0}, std::vector<int64_t>{1, 1}, false,
                  std::vector<int64_t>{0, 0}, (int64_t)1);
  expectNear(c, {12, 16, 24, 28});
  EXPECT_THROW(call("aten::conv2d", x, T({1, 2, 1, 1}, {1, 1})), Error);
}

TEST(Kernels, BatchNorm) {
  Tensor x = arange({2, 2, 1, 1}, 0); // channel 0: {0, 2}, channel 1: {1, 3}
  Tensor w = T({2}, {1, 2}), b = T({2}, {0, 1}), mean = T({2}, {1, 2}), var = T({2}, {4, 1});
  double eps = 0;
  Tensor y = call("aten::batch_norm", x, w, b, mean, var, false, 0.1, eps, false);
  // (x - mean) / sqrt(var) * w + b
  expectNear(y, {-0.5f, -1, 0.5f, 3});
  auto [o, sm, si] = call<std::tuple<Tensor, Tensor, Tensor>>(
      "aten::_native_batch_norm_legit_no_training", x, w, b, mean, var, 0.1, eps);
  expectNear(o, {-0.5f, -1, 0.5f, 3});
  EXPECT_EQ(sm.sizes(), (std::vector<int64_t>{0}));
  // training: batch statistics, running stats updated
  Tensor rm = T({2}, {0, 0}), rv = T({2}, {1, 1});
  Tensor yt = call("aten::batch_norm", x, std::nullopt, std::nullopt, rm, rv, true, 0.5, 0.0, false);
  expectNear(yt, {-1, -1, 1, 1});
  expectNear(rm, {0.5f, 1});
  expectNear(rv, {1.5f, 1.5f}); // 0.5 * 1 + 0.5 * (unbiased var 2)
}

TEST(Kernels, Pooling) {
  Tensor x = arange({1, 1, 4, 4}, 0);
  Tensor p = call("aten::max_pool2d", x, std::vector<int64_t>{2, 2});
  EXPECT_EQ(p.sizes(), (std::vector<int64_t>{1, 1, 2, 2}));
  expectNear(p, {5, 7, 13, 15});
  auto [v, idx] = call<std::tuple<Tensor, Tensor>>("aten::max_pool2d_with_indices", x,
                                                   std::vector<int64_t>{3, 3},
                                                   std::vector<int64_t>{2, 2},
                                                   std::vector<int64_t>{1, 1});
  EXPECT_EQ(v.sizes(), (std::vector<int64_t>{1, 1, 2, 2}));
  expectNear(v, {5, 7, 13, 15});
  EXPECT_EQ(idx.dtype(), DType::Int64);
  EXPECT_EQ(idx.data<int64_t>()[3], 15);
  // ceil_mode adds a partial window
  Tensor c = call("aten::max_pool2d", arange({1, 1, 5, 5}), std::vector<int64_t>{2, 2},
                  std::vector<int64_t>{2, 2}, std::vector<int64_t>{0, 0},
                  std::vector<int64_t>{1, 1}, true);
  EXPECT_EQ(c.sizes(), (std::vector<int64_t>{1, 1, 3, 3}));
  expectNear(c, {6, 8, 9, 16, 18, 19, 21, 23, 24});
  // adaptive average: 4x4 -> 2x2 is 2x2 means; 4x4 -> 3x3 overlapping windows
  expectNear(call("aten::adaptive_avg_pool2d", x, std::vector<int64_t>{2, 2}), {2.5f, 4.5f, 10.5f, 12.5f});
  Tensor a3 = call("aten::adaptive_avg_pool2d", x, std::vector<int64_t>{3, 3});
  expectNear(a3, {2.5f, 3.5f, 4.5f, 6.5f, 7.5f, 8.5f, 10.5f, 11.5f, 12.5f});
  expectNear(call("aten::adaptive_avg_pool2d", x, std::vector<int64_t>{1, 1}), {7.5f});
}

TEST(Kernels, MeanDim) {
  Tensor x = arange({2, 3}, 0);
  expectNear(call("aten::mean.dim", x, std::vector<int64_t>{1}), {1, 4});
  Tensor k = call("aten::mean.dim", x, std::vector<int64_t>{0}, true);
  EXPECT_EQ(k.sizes(), (std::vector<int64_t>{1, 3}));
  expectNear(k, {1.5f, 2.5f, 3.5f});
  expectNear(call("aten::mean.dim", x, std::nullopt), {2.5f});
  Tensor img = arange({1, 2, 2, 2});
  Tensor hw = call("aten::mean.dim", img, std::vector<int64_t>{-1, -2}, true);
  EXPECT_EQ(hw.sizes(), (std::vector<int64_t>{1, 2, 1, 1}));
  expectNear(hw, {1.5f, 5.5f});
  Tensor d = call("aten::mean.dim", x, std::vector<int64_t>{1}, false, (int64_t)DType::Float64);
  EXPECT_EQ(d.dtype(), DType::Float64);
}

TEST(Kernels, Views) {
  Tensor x = arange({2, 3, 4});
  Tensor p = call("aten::permute", x, std::vector<int64_t>{2, 0, 1});
  EXPECT_EQ(p.sizes(), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(p.storage(), x.storage()); // a view
  EXPECT_EQ(values(p)[1], 4);
  Tensor v = call("aten::view", x, std::vector<int64_t>{6, -1});
  EXPECT_EQ(v.sizes(), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(v.storage(), x.storage());
  // Not viewable with these strides: a graph's view node was valid on
  // PyTorch's layouts, which the eager kernels need not reproduce, so the data
  // is copied (as reshape does) instead of failing.
  Tensor pv = call("aten::view", p, std::vector<int64_t>{24});
  EXPECT_NE(pv.storage(), x.storage());
  EXPECT_EQ(values(pv)[1], 4);
  // view of a permuted tensor where the merged dims are still contiguous
  Tensor tr = call("aten::transpose.int", x, (int64_t)0, (int64_t)1); // [3, 2, 4]
  EXPECT_EQ(call("aten::view", tr, std::vector<int64_t>{3, 2, 2, 2}).storage(), x.storage());
  Tensor r = call("aten::reshape", p, std::vector<int64_t>{24});
  EXPECT_NE(r.storage(), x.storage()); // had to copy
  EXPECT_EQ(values(r)[1], 4);
  Tensor f = call("aten::flatten.using_ints", x, (int64_t)1);
  EXPECT_EQ(f.sizes(), (std::vector<int64_t>{2, 12}));
  Tensor f2 = call("aten::flatten.using_ints", x);
  EXPECT_EQ(f2.sizes(), (std::vector<int64_t>{24}));
  Tensor t = call("aten::t", arange({2, 3}));
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values(t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_THROW(call("aten::t", x), Error);
  EXPECT_THROW(call("aten::permute", x, std::vector<int64_t>{0, 0, 1}), Error);
}

TEST(Kernels, MetaShapes) {
  Tensor x = Tensor::empty({8, 3, 32, 32}, DType::Float32, kMeta);
  Tensor w = Tensor::empty({16, 3, 3, 3}, DType::Float32, kMeta);
  Tensor y = call("aten::conv2d", x, w, std::nullopt, (int64_t)2, (int64_t)1);
  EXPECT_EQ(y.device().type, DeviceType::Meta);
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{8, 16, 16, 16}));
  Tensor pooled = call("aten::max_pool2d", y, std::vector<int64_t>{2, 2});
  EXPECT_EQ(pooled.sizes(), (std::vector<int64_t>{8, 16, 8, 8}));
  Tensor flat = call("aten::flatten.using_ints", call("aten::adaptive_avg_pool2d", pooled,
                                                      std::vector<int64_t>{1, 1}), (int64_t)1);
  EXPECT_EQ(flat.sizes(), (std::vector<int64_t>{8, 16}));
  Tensor lw = Tensor::empty({10, 16}, DType::Float32, kMeta);
  EXPECT_EQ(call("aten::linear", flat, lw).sizes(), (std::vector<int64_t>{8, 10}));
  EXPECT_EQ(call("aten::mean.dim", y, std::vector<int64_t>{2, 3}).sizes(),
            (std::vector<int64_t>{8, 16}));
  EXPECT_THROW(call("aten::mm", flat, flat), Error);
}

namespace {
std::vector<int64_t> ints(const Tensor &t) {
  Tensor c = t.contiguous();
  EXPECT_EQ(c.dtype(), DType::Int64);
  return std::vector<int64_t>(c.data<int64_t>(), c.data<int64_t>() + c.numel());
}
} // namespace

TEST(Kernels, SortOrdersNaNLastAndKeepsTiesInOrder) {
  float nan = std::nanf("");
  Tensor x = T({2, 4}, {3, nan, 1, 3, 2, 2, 5, nan});
  auto [v, i] = call<std::tuple<Tensor, Tensor>>("aten::sort", x, (int64_t)-1, false);
  std::vector<float> got = values(v);
  EXPECT_EQ(ints(i), (std::vector<int64_t>{2, 0, 3, 1, 0, 1, 2, 3}));
  EXPECT_EQ(got[0], 1);
  EXPECT_TRUE(std::isnan(got[3]) && std::isnan(got[7]));
  // Descending: NaN first, ties still in input order.
  auto [vd, id] = call<std::tuple<Tensor, Tensor>>("aten::sort", x, (int64_t)1, true);
  EXPECT_EQ(ints(id), (std::vector<int64_t>{1, 0, 3, 2, 3, 2, 0, 1}));
  // Along dim 0 (a strided row) with the stable overload.
  auto [v0, i0] = call<std::tuple<Tensor, Tensor>>("aten::sort.stable", x, std::optional<bool>(true),
                                                   (int64_t)0, false);
  EXPECT_EQ(ints(i0), (std::vector<int64_t>{1, 1, 0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(values(v0)[0], 2);
}

TEST(Kernels, SortIntegersExactly) {
  Tensor x = Tensor::empty({5}, DType::Int64);
  int64_t big = (int64_t)1 << 60;
  int64_t in[5] = {big + 1, big, -7, big + 1, 0};
  std::copy(in, in + 5, x.data<int64_t>());
  auto [v, i] = call<std::tuple<Tensor, Tensor>>("aten::sort", x, (int64_t)0, false);
  EXPECT_EQ(ints(v), (std::vector<int64_t>{-7, 0, big, big + 1, big + 1}));
  EXPECT_EQ(ints(i), (std::vector<int64_t>{2, 4, 1, 0, 3}));
}

TEST(Kernels, Topk) {
  float nan = std::nanf("");
  Tensor x = T({5}, {1, nan, 3, -2, 3});
  auto [v, i] = call<std::tuple<Tensor, Tensor>>("aten::topk", x, (int64_t)3, (int64_t)-1, true, true);
  // NaN first; the two 3s in the order PyTorch's selection leaves them
  // (torch.topk gives indices [1, 4, 2] here).
  EXPECT_EQ(ints(i), (std::vector<int64_t>{1, 4, 2}));
  auto [vs, is] = call<std::tuple<Tensor, Tensor>>("aten::topk", x, (int64_t)2, (int64_t)0, false, true);
  expectNear(vs, {-2, 1});
  EXPECT_EQ(ints(is), (std::vector<int64_t>{3, 0}));
  EXPECT_THROW((call<std::tuple<Tensor, Tensor>>("aten::topk", x, (int64_t)6, (int64_t)0, true, true)),
               Error);
  // Meta: shapes only.
  Tensor m = Tensor::empty({4, 7}, DType::Float16, kMeta);
  auto [mv, mi] = call<std::tuple<Tensor, Tensor>>("aten::topk", m, (int64_t)2, (int64_t)1, true, true);
  EXPECT_EQ(mv.sizes(), (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(mi.dtype(), DType::Int64);
}

TEST(Kernels, MaskedScatterFillsMaskedPositionsInOrder) {
  Tensor self = T({2, 3}, {0, 1, 2, 3, 4, 5});
  // A [3] mask broadcasts over the rows: columns 0 and 2 of each row.
  Tensor mask = Tensor::empty({3}, DType::Bool);
  uint8_t m[3] = {1, 0, 1};
  std::copy(m, m + 3, mask.data<uint8_t>());
  Tensor source = T({2, 3}, {10, 11, 12, 13, 14, 15});
  expectNear(call("aten::masked_scatter", self, mask, source), {10, 1, 11, 12, 4, 13});
  // Too few source elements for the mask's ones.
  EXPECT_THROW(call("aten::masked_scatter", self, mask, T({3}, {1, 2, 3})), Error);
}

TEST(Kernels, CdistAndPdist) {
  // Rows (0,0), (3,4) against (0,0), (1,1), (6,8).
  Tensor a = T({2, 2}, {0, 0, 3, 4});
  Tensor b = T({3, 2}, {0, 0, 1, 1, 6, 8});
  expectNear(call("aten::_cdist_forward", a, b, 2.0, std::optional<int64_t>()),
             {0, std::sqrt(2.0f), 10, 5, std::sqrt(13.0f), 5});
  expectNear(call("aten::_cdist_forward", a, b, 1.0, std::optional<int64_t>()), {0, 2, 14, 7, 5, 7});
  expectNear(call("aten::_cdist_forward", a, b, 0.0, std::optional<int64_t>()), {0, 2, 2, 2, 2, 2});
  expectNear(call("aten::_cdist_forward", a, b, INFINITY, std::optional<int64_t>()),
             {0, 1, 8, 4, 3, 4});
  // compute_mode 1: through the matrix product, same numbers here.
  expectNear(call("aten::_cdist_forward", a, b, 2.0, std::optional<int64_t>(1)),
             {0, std::sqrt(2.0f), 10, 5, std::sqrt(13.0f), 5}, 1e-4f);
  // Batch dims broadcast: [2, 2, 2] against [2, 3, 2].
  Tensor a2 = T({2, 2, 2}, {0, 0, 3, 4, 0, 0, 3, 4});
  Tensor b3 = T({1, 3, 2}, {0, 0, 1, 1, 6, 8});
  EXPECT_EQ(call("aten::_cdist_forward", a2, b3, 2.0, std::optional<int64_t>()).sizes(),
            (std::vector<int64_t>{2, 2, 3}));
  EXPECT_THROW(call("aten::_cdist_forward", a, T({1, 3}, {1, 2, 3}), 2.0, std::optional<int64_t>()),
               Error);
  // pdist: pairs (0,1), (0,2), (1,2) of the rows of b.
  expectNear(call("aten::_pdist_forward", b, 2.0), {std::sqrt(2.0f), 10, std::sqrt(74.0f)});
  EXPECT_EQ(call("aten::_pdist_forward", T({1, 2}, {1, 2}), 2.0).numel(), 0);
}

namespace {
Tensor I64(const std::vector<int64_t> &v) {
  Tensor t = Tensor::empty({(int64_t)v.size()}, DType::Int64);
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}
} // namespace

TEST(Kernels, EmbeddingBagModes) {
  // Row r of the weight is [3r, 3r+1, 3r+2]; bags [1, 2, 4, 5] and [4, 3, 2, 9].
  Tensor w = arange({10, 3});
  Tensor idx = I64({1, 2, 4, 5, 4, 3, 2, 9}), off = I64({0, 4});
  using R = std::tuple<Tensor, Tensor, Tensor, Tensor>;
  auto none = std::optional<Tensor>();
  auto [s, s2b, sSize, sMax] =
      call<R>("aten::_embedding_bag", w, idx, off, false, (int64_t)0, false, none, false, (int64_t)-1);
  expectNear(s, {36, 40, 44, 54, 58, 62});
  EXPECT_EQ(s2b.numel(), 0); // a plain sum computes no offset2bag, as ATen
  EXPECT_EQ(ints(sSize), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(ints(sMax), (std::vector<int64_t>{0, 0}));
  // Mean, skipping padding_idx 4.
  auto [m, m2b, mSize, mMax] =
      call<R>("aten::_embedding_bag", w, idx, off, false, (int64_t)1, false, none, false, (int64_t)4);
  expectNear(m, {8, 9, 10, 14, 15, 16});
  EXPECT_EQ(ints(m2b), (std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(ints(mSize), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(ints(mMax), (std::vector<int64_t>{3, 3}));
  // Max: the rows each maximum came from.
  auto [x, x2b, xSize, xMax] =
      call<R>("aten::_embedding_bag", w, idx, off, false, (int64_t)2, false, none, false, (int64_t)-1);
  expectNear(x, {15, 16, 17, 27, 28, 29});
  EXPECT_EQ(ints(xMax), (std::vector<int64_t>{5, 5, 5, 9, 9, 9}));
  // Per-sample weights scale each row of a sum.
  Tensor psw = T({8}, {1, 0, 0, 0, 0, 0, 0, 2});
  auto [ws, a, b, c] = call<R>("aten::_embedding_bag", w, idx, off, false, (int64_t)0, false,
                               std::optional<Tensor>(psw), false, (int64_t)-1);
  expectNear(ws, {3, 4, 5, 54, 56, 58});
  EXPECT_THROW((call<R>("aten::_embedding_bag", w, I64({10}), I64({0}), false, (int64_t)0, false,
                        none, false, (int64_t)-1)),
               Error);
}

TEST(Kernels, GcdAndLcmOfIntegers) {
  auto I = [](const std::vector<int64_t> &v) {
    Tensor t = Tensor::empty({(int64_t)v.size()}, DType::Int64);
    for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
    return t;
  };
  auto ints = [](const Tensor &t) {
    Tensor c = t.contiguous();
    return std::vector<int64_t>(c.data<int64_t>(), c.data<int64_t>() + c.numel());
  };
  Tensor a = I({-8, 6, 9, 0, 0, 12}), b = I({6, -4, 0, 5, 0, 18});
  // ATen's: non-negative, gcd(x, 0) = |x|, gcd(0, 0) = 0; lcm 0 when either is 0.
  Tensor g = call("aten::gcd", a, b);
  EXPECT_EQ(g.dtype(), DType::Int64);
  EXPECT_EQ(ints(g), (std::vector<int64_t>{2, 2, 9, 5, 0, 6}));
  EXPECT_EQ(ints(call("aten::lcm", a, b)), (std::vector<int64_t>{24, 12, 0, 0, 0, 36}));
  EXPECT_THROW(call("aten::gcd", T({1}, {2}), T({1}, {4})), Error); // floats: not for gcd
}

// Kernels held-out models needed (session 34), against ATen's values.
TEST(Kernels, HeldOutReductionsAndSpecials) {
  Tensor x = T({2, 3}, {1, 2, 4, -1, 5, 5});
  // var.correction: correction 1 by default, 0 when given; all dims for None.
  expectNear(call("aten::var.correction", x, std::vector<int64_t>{1}), {7.0f / 3, 12});
  expectNear(call("aten::var.correction", x, std::vector<int64_t>{1}, IValue((int64_t)0)), {14.0f / 9, 8});
  expectNear(call("aten::var.correction", x, std::nullopt), {88.0f / 15});
  // One element with correction 1: 0 / 0, NaN as in ATen.
  EXPECT_TRUE(std::isnan(values(call("aten::var.correction", T({1}, {3}), std::nullopt))[0]));
  // argmax / argmin: the first extreme; NaN wins; dim None flattens.
  Tensor am = call("aten::argmax", x, (int64_t)1);
  EXPECT_EQ(am.dtype(), DType::Int64);
  EXPECT_EQ(std::vector<int64_t>(am.data<int64_t>(), am.data<int64_t>() + 2), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(call("aten::argmin", x, std::nullopt).data<int64_t>()[0], 3);
  EXPECT_EQ(call("aten::argmax", T({3}, {1, NAN, 9}), std::nullopt).data<int64_t>()[0], 1);
  // rms_norm over the last dim, eps None: the dtype's epsilon.
  Tensor r = call("aten::rms_norm", T({1, 2}, {3, 4}), std::vector<int64_t>{2}, std::nullopt, std::nullopt);
  float s = std::sqrt(12.5f + 1.1920929e-07f);
  expectNear(r, {3 / s, 4 / s});
  // erfinv: erf(erfinv(x)) = x, +-inf at +-1, NaN outside [-1, 1].
  std::vector<float> e = values(call("aten::erfinv", T({6}, {0, 0.5f, -0.999f, 1, -1, 1.5f})));
  EXPECT_EQ(e[0], 0.0f);
  EXPECT_NEAR(std::erf((double)e[1]), 0.5, 1e-6);
  EXPECT_NEAR(e[2], -2.326753765513524f, 1e-5);
  EXPECT_TRUE(std::isinf(e[3]) && e[3] > 0);
  EXPECT_TRUE(std::isinf(e[4]) && e[4] < 0);
  EXPECT_TRUE(std::isnan(e[5]));
  // masked_select: broadcast, set elements in row-major order.
  Tensor m = Tensor::empty({1, 3}, DType::Bool);
  bool mv[3] = {true, false, true};
  for (int i = 0; i < 3; ++i) m.data<bool>()[i] = mv[i];
  expectNear(call("aten::masked_select", x, m), {1, 4, -1, 5});
}

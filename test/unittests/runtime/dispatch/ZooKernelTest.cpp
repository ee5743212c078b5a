// Tests of the eager CPU kernels that models of the zoo needed (triu/tril,
// pixel_shuffle/unshuffle, scatter.value, integer sums, the trigonometric and
// other float unary ops), against values worked out from ATen's definitions.
#include "TensorValues.h"
#include "kiln/library.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace kiln;
using kiln::test::vals;

namespace {
/// 0, 1, 2, ... in `dt` (float32, float64, int64, int32 or bool: nonzero is true).
Tensor iota(const std::vector<int64_t> &shape, DType dt = DType::Float32) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i)
    v[i] = (double)i;
  return kiln::test::make(shape, dt, v);
}
const Device kMeta{DeviceType::Meta, 0};
} // namespace

TEST(ZooKernels, TrilTriuKeepTheirSideOfTheDiagonal) {
  Tensor x = iota({2, 2, 3}); // two 2x3 matrices
  EXPECT_EQ(vals(call("aten::tril", x, (int64_t)0)), (std::vector<double>{0, 0, 0, 3, 4, 0, 6, 0, 0, 9, 10, 0}));
  EXPECT_EQ(vals(call("aten::triu", x, (int64_t)1)), (std::vector<double>{0, 1, 2, 0, 0, 5, 0, 7, 8, 0, 0, 11}));
  EXPECT_EQ(vals(call("aten::tril", x, (int64_t)-1)), (std::vector<double>{0, 0, 0, 3, 0, 0, 0, 0, 0, 9, 0, 0}));
  // A bool mask keeps its dtype; a transposed (strided) input reads as its values.
  Tensor ones = Tensor::empty({3, 3}, DType::Bool);
  for (int k = 0; k < 9; ++k) ones.data<uint8_t>()[k] = 1;
  Tensor m = call("aten::triu", ones, (int64_t)0);
  EXPECT_EQ(m.dtype(), DType::Bool);
  EXPECT_EQ(vals(m), (std::vector<double>{1, 1, 1, 0, 1, 1, 0, 0, 1}));
  Tensor t = call("aten::transpose.int", iota({3, 2}), (int64_t)0, (int64_t)1); // [[0,2,4],[1,3,5]]
  EXPECT_EQ(vals(call("aten::tril", t, (int64_t)0)), (std::vector<double>{0, 0, 0, 1, 3, 0}));
  EXPECT_THROW(call("aten::triu", iota({3}), (int64_t)0), Error);
}

TEST(ZooKernels, PixelShuffleMovesChannelsIntoSpace) {
  // [1, 4, 1, 2] with r = 2 -> [1, 1, 2, 4]: out[0, 0, i, 2w + j] = x[0, 2i + j, 0, w].
  Tensor x = iota({1, 4, 1, 2});
  Tensor y = call("aten::pixel_shuffle", x, (int64_t)2);
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{1, 1, 2, 4}));
  EXPECT_EQ(vals(y), (std::vector<double>{0, 2, 1, 3, 4, 6, 5, 7}));
  // pixel_unshuffle is its inverse, with extra leading dims too.
  Tensor z = iota({2, 3, 8, 4, 6});
  Tensor u = call("aten::pixel_unshuffle", z, (int64_t)2);
  EXPECT_EQ(u.sizes(), (std::vector<int64_t>{2, 3, 32, 2, 3}));
  EXPECT_EQ(vals(call("aten::pixel_shuffle", u, (int64_t)2)), vals(z));
  EXPECT_THROW(call("aten::pixel_shuffle", iota({1, 3, 2, 2}), (int64_t)2), Error);
  EXPECT_THROW(call("aten::pixel_unshuffle", iota({1, 1, 3, 2}), (int64_t)2), Error);
  EXPECT_EQ(call("aten::pixel_shuffle", Tensor::empty({5, 18, 3, 4}, DType::Float32, kMeta), (int64_t)3).sizes(),
            (std::vector<int64_t>{5, 2, 9, 12}));
}

TEST(ZooKernels, ScatterValueWritesTheScalar) {
  Tensor self = Tensor::empty({2, 3}, DType::Float32);
  for (int i = 0; i < 6; ++i) self.data<float>()[i] = 0;
  Tensor idx = Tensor::empty({2, 1}, DType::Int64);
  idx.data<int64_t>()[0] = 2;
  idx.data<int64_t>()[1] = 0;
  Tensor r = call("aten::scatter.value", self, (int64_t)1, idx, 1.5);
  EXPECT_EQ(vals(r), (std::vector<double>{0, 0, 1.5, 1.5, 0, 0}));
  EXPECT_EQ(vals(self), (std::vector<double>(6, 0))); // the functional form leaves self alone
  // In place along dim 0: self[idx2[0][j]][j] = 7.
  Tensor idx2 = Tensor::empty({1, 2}, DType::Int64);
  idx2.data<int64_t>()[0] = 1;
  idx2.data<int64_t>()[1] = 0;
  Tensor s = call("aten::scatter_.value", self, (int64_t)0, idx2, (int64_t)7);
  EXPECT_EQ(vals(self), (std::vector<double>{0, 7, 0, 7, 0, 0}));
  EXPECT_EQ(vals(s), vals(self));
  idx2.data<int64_t>()[0] = 2; // out of range: an error, not a write
  EXPECT_THROW(call("aten::scatter.value", self, (int64_t)0, idx2, 1.0), Error);
}

TEST(ZooKernels, IntegerSumsAreInt64) {
  Tensor b = call("aten::gt.Scalar", iota({2, 3}), 1.5); // [[0,0,1],[1,1,1]]
  Tensor s = call("aten::sum.dim_IntList", b, std::vector<int64_t>{1}, false, IValue());
  EXPECT_EQ(s.dtype(), DType::Int64);
  EXPECT_EQ(vals(s), (std::vector<double>{1, 3}));
  Tensor i = iota({2, 3}, DType::Int32);
  Tensor t = call("aten::sum.dim_IntList", i, std::vector<int64_t>{0}, true, IValue());
  EXPECT_EQ(t.dtype(), DType::Int64);
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(vals(t), (std::vector<double>{3, 5, 7}));
  // An explicit dtype is kept; a mean of integers is refused, as ATen does.
  EXPECT_EQ(call("aten::sum.dim_IntList", i, IValue(), false, (int64_t)DType::Int32).dtype(), DType::Int32);
  EXPECT_EQ(vals(call("aten::sum.dim_IntList", i, IValue(), false, (int64_t)DType::Float64)), std::vector<double>{15});
  EXPECT_THROW(call("aten::mean.dim", i, std::vector<int64_t>{0}, false, IValue()), Error);
}

TEST(ZooKernels, FloatUnaryOpsFollowLibm) {
  Tensor x = iota({3}); // 0, 1, 2
  Tensor h = call("aten::mul.Scalar", x, 0.25); // 0, 0.25, 0.5
  auto near = [](const Tensor &t, std::vector<double> want) {
    std::vector<double> got = vals(t);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-6) << k;
  };
  near(call("aten::acos", h), {std::acos(0.0), std::acos(0.25), std::acos(0.5)});
  near(call("aten::asin", h), {0, std::asin(0.25), std::asin(0.5)});
  near(call("aten::atan", x), {0, std::atan(1.0), std::atan(2.0)});
  near(call("aten::tan", h), {0, std::tan(0.25), std::tan(0.5)});
  near(call("aten::sinh", x), {0, std::sinh(1.0), std::sinh(2.0)});
  near(call("aten::cosh", x), {1, std::cosh(1.0), std::cosh(2.0)});
  near(call("aten::asinh", x), {0, std::asinh(1.0), std::asinh(2.0)});
  near(call("aten::atanh", h), {0, std::atanh(0.25), std::atanh(0.5)});
  near(call("aten::expm1", h), {0, std::expm1(0.25), std::expm1(0.5)});
  near(call("aten::exp2", x), {1, 2, 4});
  near(call("aten::log2", call("aten::add.Scalar", x, 1.0, 1.0)), {0, 1, std::log2(3.0)});
  near(call("aten::log10", call("aten::add.Scalar", x, 1.0, 1.0)), {0, std::log10(2.0), std::log10(3.0)});
  near(call("aten::erfc", x), {1, std::erfc(1.0), std::erfc(2.0)});
  EXPECT_TRUE(std::isnan(vals(call("aten::acosh", h))[0])); // outside the domain: NaN
  // Integers compute in float32.
  EXPECT_EQ(call("aten::acos", iota({2}, DType::Int64)).dtype(), DType::Float32);
}

TEST(ZooKernels, CoreIrAdaptiveAvgPoolNames) {
  // _adaptive_avg_pool2d (Core ATen IR) is adaptive_avg_pool2d.
  Tensor x = iota({1, 1, 2, 4});
  Tensor y = call("aten::_adaptive_avg_pool2d", x, std::vector<int64_t>{1, 2});
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{1, 1, 1, 2}));
  EXPECT_EQ(vals(y), (std::vector<double>{(0 + 1 + 4 + 5) / 4.0, (2 + 3 + 6 + 7) / 4.0}));
  EXPECT_EQ(vals(call("aten::_adaptive_avg_pool3d", iota({1, 2, 1, 2, 2}), std::vector<int64_t>{1, 1, 1})),
            (std::vector<double>{1.5, 5.5}));
}

TEST(ZooKernels, ConvPaddingModes) {
  // "same" keeps the size; a kernel of even extent (2, dilation 1) pads one more
  // element after than before: [0, 1] here, so y[i] = x[i] * w0 + x[i+1] * w1.
  Tensor x = iota({1, 1, 4});
  Tensor w = iota({1, 1, 2}); // w = [0, 1]
  Tensor y = call("aten::conv1d.padding", x, w, IValue(), std::vector<int64_t>{1}, std::string("same"),
                  std::vector<int64_t>{1}, (int64_t)1);
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{1, 1, 4}));
  EXPECT_EQ(vals(y), (std::vector<double>{1, 2, 3, 0}));
  // An odd extent (3 taps, dilation 2: 5) pads 2 on each side in 2-D; "valid" pads nothing.
  Tensor x2 = iota({1, 1, 5, 5});
  Tensor w2 = Tensor::empty({1, 1, 3, 3}, DType::Float32);
  for (int k = 0; k < 9; ++k) w2.data<float>()[k] = k == 4 ? 1.0f : 0.0f; // the centre tap: identity
  Tensor same = call("aten::conv2d.padding", x2, w2, IValue(), std::vector<int64_t>{1, 1}, std::string("same"),
                     std::vector<int64_t>{2, 2}, (int64_t)1);
  EXPECT_EQ(vals(same), vals(x2));
  Tensor valid = call("aten::conv2d.padding", x2, w2, IValue(), std::vector<int64_t>{1, 1}, std::string("valid"),
                      std::vector<int64_t>{1, 1}, (int64_t)1);
  EXPECT_EQ(valid.sizes(), (std::vector<int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(vals(valid), (std::vector<double>{6, 7, 8, 11, 12, 13, 16, 17, 18}));
  EXPECT_THROW(call("aten::conv2d.padding", x2, w2, IValue(), std::vector<int64_t>{2, 2}, std::string("same"),
                    std::vector<int64_t>{1, 1}, (int64_t)1),
               Error);
  EXPECT_THROW(call("aten::conv2d.padding", x2, w2, IValue(), std::vector<int64_t>{1, 1}, std::string("full"),
                    std::vector<int64_t>{1, 1}, (int64_t)1),
               Error);
}

TEST(ZooKernels, SumOfEverything) {
  // sum.default: every element; integers give int64 unless a dtype is given.
  EXPECT_EQ(vals(call("aten::sum", iota({2, 3}), IValue())), std::vector<double>{15});
  Tensor i = call("aten::sum", iota({2, 3}, DType::Int32), IValue());
  EXPECT_EQ(i.dtype(), DType::Int64);
  EXPECT_EQ(i.dim(), 0);
  EXPECT_EQ(call("aten::sum", iota({4}, DType::Bool), (int64_t)DType::Int32).dtype(), DType::Int32);
}

TEST(ZooKernels, IndexAddAccumulatesRepeatedPositions) {
  // out[idx[i], :] += alpha * src[i, :]; position 0 twice.
  Tensor self = iota({3, 2});
  Tensor idx = Tensor::empty({3}, DType::Int64);
  for (int k = 0; k < 3; ++k) idx.data<int64_t>()[k] = k == 1 ? 2 : 0;
  Tensor src = iota({3, 2});
  Tensor r = call("aten::index_add", self, (int64_t)0, idx, src, 2.0);
  EXPECT_EQ(vals(r), (std::vector<double>{0 + 2 * (0 + 4), 1 + 2 * (1 + 5), 2, 3, 4 + 2 * 2, 5 + 2 * 3}));
  EXPECT_EQ(vals(self), vals(iota({3, 2}))); // functional
  // Along the last dim, alpha 1: both columns of src added into column 1.
  Tensor ones = Tensor::empty({2}, DType::Int64);
  ones.data<int64_t>()[0] = ones.data<int64_t>()[1] = 1;
  Tensor c = call("aten::index_add", self, (int64_t)-1, ones, iota({3, 2}), (int64_t)1);
  EXPECT_EQ(vals(c), (std::vector<double>{0, 1 + 0 + 1, 2, 3 + 2 + 3, 4, 5 + 4 + 5}));
  EXPECT_THROW(call("aten::index_add", self, (int64_t)0, idx, iota({2, 2}), (int64_t)1), Error);
}

TEST(ZooKernels, InplaceViewsAndScatterSrc) {
  // unsqueeze_ / squeeze_.dim give the new view (the interpreter rebinds self to it).
  Tensor x = iota({2, 3});
  EXPECT_EQ(call("aten::unsqueeze_", x, (int64_t)1).sizes(), (std::vector<int64_t>{2, 1, 3}));
  EXPECT_EQ(call("aten::squeeze_.dim", iota({2, 1, 3}), (int64_t)1).sizes(), (std::vector<int64_t>{2, 3}));
  // scatter_.src writes src into self along dim 1 and returns self.
  Tensor self = Tensor::empty({2, 2}, DType::Float32);
  for (int k = 0; k < 4; ++k) self.data<float>()[k] = 0;
  Tensor idx = Tensor::empty({2, 1}, DType::Int64);
  idx.data<int64_t>()[0] = 1;
  idx.data<int64_t>()[1] = 0;
  Tensor r = call("aten::scatter_.src", self, (int64_t)1, idx, iota({2, 1}));
  EXPECT_EQ(vals(self), (std::vector<double>{0, 0, 1, 0}));
  EXPECT_EQ(vals(r), vals(self));
}

TEST(ZooKernels, FlipReadsBackwardsAlongTheFlippedDims) {
  // Reading backwards means negative element offsets: computed in signed
  // arithmetic (the ASan+UBSan build reports a pointer overflow otherwise;
  // fuzz-eager-load found it on a repository archive).
  Tensor x = iota({2, 3});
  EXPECT_EQ(vals(call("aten::flip", x, std::vector<int64_t>{1})), (std::vector<double>{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(vals(call("aten::flip", x, std::vector<int64_t>{0, -1})), (std::vector<double>{5, 4, 3, 2, 1, 0}));
  Tensor t = call("aten::transpose.int", iota({3, 2}), (int64_t)0, (int64_t)1); // [[0,2,4],[1,3,5]]
  EXPECT_EQ(vals(call("aten::flip", t, std::vector<int64_t>{0})), (std::vector<double>{1, 3, 5, 0, 2, 4}));
  EXPECT_THROW(call("aten::flip", x, std::vector<int64_t>{1, -1}), Error);
}

TEST(ZooKernels, MeanOfEveryElement) {
  // aten::mean.default (x.mean()): a 0-d result; dtype casts first.
  Tensor m = call("aten::mean", iota({2, 3}), IValue());
  EXPECT_EQ(m.dim(), 0);
  EXPECT_EQ(vals(m), (std::vector<double>{2.5}));
  Tensor d = call("aten::mean", iota({4}), (int64_t)DType::Float64);
  EXPECT_EQ(d.dtype(), DType::Float64);
  EXPECT_EQ(vals(d), (std::vector<double>{1.5}));
}

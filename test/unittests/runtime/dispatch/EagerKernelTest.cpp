// Tests of the generic eager CPU kernels' tricky parts: ATen's type promotion
// (Scalar and 0-dim operands), broadcasting, views' strides and storage
// sharing, in-place ops, advanced indexing shapes, and their Meta kernels.
#include "TensorValues.h"
#include "kiln/library.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace kiln;
using kiln::test::make;
using kiln::test::vals;

namespace {
Tensor F(const std::vector<int64_t> &s, const std::vector<float> &v) { return make(s, DType::Float32, v); }
Tensor L(const std::vector<int64_t> &s, const std::vector<int64_t> &v) { return make(s, DType::Int64, v); }
void expectVals(const Tensor &t, const std::vector<double> &want, double tol = 1e-6) {
  std::vector<double> got = vals(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}
const Device kMeta{DeviceType::Meta, 0};
} // namespace

TEST(EagerKernels, TypePromotionFollowsATen) {
  // An int tensor times a float Scalar is float32 (the default dtype), not float64.
  Tensor m = call("aten::mul.Scalar", L({3}, {1, 2, 3}), 0.5);
  EXPECT_EQ(m.dtype(), DType::Float32);
  expectVals(m, {0.5, 1, 1.5});
  // A float Scalar does not widen a float32 tensor; an int Scalar keeps int64.
  EXPECT_EQ(call("aten::mul.Scalar", F({1}, {1}), 0.1).dtype(), DType::Float32);
  EXPECT_EQ(call("aten::mul.Scalar", L({1}, {1}), (int64_t)3).dtype(), DType::Int64);
  // A 0-dim float64 tensor does not widen a float32 tensor of rank 1...
  Tensor d0 = make<double>({}, DType::Float64, {2});
  EXPECT_EQ(call("aten::sub.Tensor", F({2}, {5, 6}), d0).dtype(), DType::Float32);
  // ...but raises an int tensor's category (to its own float64).
  EXPECT_EQ(call("aten::sub.Tensor", L({2}, {5, 6}), d0).dtype(), DType::Float64);
  // int32 with a 0-dim int64 stays int32.
  EXPECT_EQ(call("aten::sub.Tensor", make<int>({2}, DType::Int32, {5, 6}), L({}, {1})).dtype(), DType::Int32);
  // Comparisons see the Scalar rounded to the tensor's dtype: float32(0.1) == 0.1.
  Tensor eq = call("aten::eq.Scalar", F({2}, {0.1f, 0.2f}), 0.1);
  EXPECT_EQ(eq.dtype(), DType::Bool);
  expectVals(eq, {1, 0});
  // True division of integers is float32; floor and trunc keep int64.
  Tensor q = call("aten::div.Tensor", L({2}, {7, -7}), L({1}, {2}));
  EXPECT_EQ(q.dtype(), DType::Float32);
  expectVals(q, {3.5, -3.5});
  expectVals(call("aten::div.Tensor_mode", L({2}, {7, -7}), L({1}, {2}), std::string("floor")), {3, -4});
  expectVals(call("aten::div.Tensor_mode", L({2}, {7, -7}), L({1}, {2}), std::string("trunc")), {3, -3});
  EXPECT_THROW(call("aten::div.Tensor_mode", L({1}, {7}), L({1}, {0}), std::string("floor")), Error);
  // remainder follows the divisor's sign, fmod the dividend's.
  expectVals(call("aten::remainder.Scalar", L({2}, {-7, 7}), (int64_t)3), {2, 1});
  expectVals(call("aten::fmod.Scalar", L({2}, {-7, 7}), (int64_t)3), {-1, 1});
}

TEST(EagerKernels, BroadcastingAndWhere) {
  Tensor cond = make<int>({2, 1}, DType::Bool, {1, 0});
  Tensor a = F({3}, {1, 2, 3});
  Tensor w = call("aten::where.ScalarOther", cond, a, -1.0);
  EXPECT_EQ(w.sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(w.dtype(), DType::Float32);
  expectVals(w, {1, 2, 3, -1, -1, -1});
  Tensor mf = call("aten::masked_fill.Scalar", F({2, 2}, {1, 2, 3, 4}), make<int>({2}, DType::Bool, {0, 1}),
                   -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isinf(vals(mf)[1]) && std::isinf(vals(mf)[3]));
  EXPECT_EQ(vals(mf)[0], 1);
  EXPECT_THROW(call("aten::where.self", cond, F({4}, {1, 2, 3, 4}), F({3}, {1, 2, 3})), Error);
}

TEST(EagerKernels, ViewsShareStorageWithTheirStrides) {
  Tensor x = F({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor u = call("aten::unsqueeze", x, (int64_t)1);
  EXPECT_EQ(u.sizes(), (std::vector<int64_t>{2, 1, 3}));
  EXPECT_EQ(u.strides(), (std::vector<int64_t>{3, 3, 1}));
  Tensor e = call("aten::expand", u, std::vector<int64_t>{2, 4, -1});
  EXPECT_EQ(e.strides(), (std::vector<int64_t>{3, 0, 1}));
  Tensor s = call("aten::slice.Tensor", x, (int64_t)1, (int64_t)0, (int64_t)100, (int64_t)2);
  EXPECT_EQ(s.sizes(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(s.strides(), (std::vector<int64_t>{3, 2}));
  expectVals(s, {0, 2, 3, 5});
  Tensor r = call("aten::select.int", x, (int64_t)0, (int64_t)-1);
  EXPECT_EQ(r.offset(), 3);
  expectVals(r, {3, 4, 5});
  // Writing through a view changes the base.
  call("aten::fill_.Scalar", s, 9.0);
  expectVals(x, {9, 1, 9, 9, 4, 9});
  EXPECT_EQ(s.storage(), x.storage());
  auto parts = call<std::vector<Tensor>>("aten::split_with_sizes", x, std::vector<int64_t>{1, 2}, (int64_t)1);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].offset(), 1);
  EXPECT_EQ(parts[1].strides(), (std::vector<int64_t>{3, 1}));
  Tensor as = call("aten::as_strided", x, std::vector<int64_t>{2, 2}, std::vector<int64_t>{1, 2}, IValue());
  expectVals(as, {9, 9, 1, 9});
  EXPECT_THROW(call("aten::as_strided", x, std::vector<int64_t>{4}, std::vector<int64_t>{2}, IValue()), Error);
  EXPECT_THROW(call("aten::expand", x, std::vector<int64_t>{2, 4}), Error);
}

TEST(EagerKernels, InPlaceOpsWriteIntoSelf) {
  Tensor x = F({2, 2}, {-1, 2, -3, 4});
  Tensor xt = call("aten::t", x);
  Tensor r = call("aten::relu_", xt); // a non-contiguous self
  EXPECT_EQ(r.storage(), x.storage());
  expectVals(x, {0, 2, 0, 4});
  Tensor y = call("aten::add_.Tensor", x, F({2}, {1, 10}), 2.0);
  EXPECT_EQ(y.storage(), x.storage());
  expectVals(x, {2, 22, 2, 24});
  // An in-place op cannot change self's dtype or shape.
  EXPECT_THROW(call("aten::add_.Tensor", L({2}, {1, 2}), F({2}, {0.5f, 1})), Error);
  EXPECT_THROW(call("aten::add_.Tensor", F({2}, {1, 2}), F({2, 2}, {1, 2, 3, 4})), Error);
  Tensor z = L({3}, {-5, 0, 5});
  call("aten::clamp_", z, (int64_t)-2, (int64_t)3);
  expectVals(z, {-2, 0, 3});
}

TEST(EagerKernels, AdvancedIndexingShapes) {
  Tensor x = Tensor::empty({2, 3, 4}, DType::Float32);
  for (int64_t i = 0; i < 24; ++i) x.data<float>()[i] = (float)i;
  Tensor idx = L({2}, {2, 0});
  // x[:, idx]: the index dim stays in place.
  Tensor a = call("aten::index.Tensor", x, IValue::list({IValue(), IValue(idx)}));
  EXPECT_EQ(a.sizes(), (std::vector<int64_t>{2, 2, 4}));
  EXPECT_EQ(vals(a)[0], 8);
  // x[idx0, :, idx2]: non-adjacent indices put the broadcast dims first.
  Tensor b = call("aten::index.Tensor", x, IValue::list({IValue(L({2}, {1, 0})), IValue(), IValue(L({2}, {3, 1}))}));
  EXPECT_EQ(b.sizes(), (std::vector<int64_t>{2, 3}));
  expectVals(b, {15, 19, 23, 1, 5, 9});
  // A bool mask selects its true positions.
  Tensor mask = make<int>({2}, DType::Bool, {0, 1});
  Tensor c = call("aten::index.Tensor", x, IValue::list({IValue(mask)}));
  EXPECT_EQ(c.sizes(), (std::vector<int64_t>{1, 3, 4}));
  EXPECT_THROW(call("aten::index.Tensor", x, IValue::list({IValue(L({1}, {2}))})), Error);
  // Meta: shapes only.
  Tensor xm = Tensor::empty({2, 3, 4}, DType::Float32, kMeta);
  Tensor cm = call("aten::cat", std::vector<Tensor>{xm, xm}, (int64_t)-1);
  EXPECT_EQ(cm.sizes(), (std::vector<int64_t>{2, 3, 8}));
  EXPECT_EQ(cm.device().type, DeviceType::Meta);
  Tensor em = call("aten::embedding", Tensor::empty({10, 5}, DType::Float32, kMeta), L({2, 3}, {0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(em.sizes(), (std::vector<int64_t>{2, 3, 5}));
}

TEST(EagerKernels, AttentionMatchesTheFormula) {
  // One head, L = 2, S = 2, E = 1: softmax(q k^T / 1) v.
  Tensor q = F({1, 1, 2, 1}, {1, 2}), k = F({1, 1, 2, 1}, {0, 1}), v = F({1, 1, 2, 1}, {10, 20});
  Tensor o = call("aten::scaled_dot_product_attention", q, k, v, Tensor(), 0.0, false, IValue(), false);
  auto soft = [](double a, double b) { return (10 * std::exp(a) + 20 * std::exp(b)) / (std::exp(a) + std::exp(b)); };
  expectVals(o, {soft(0, 1), soft(0, 2)}, 1e-4);
  // Causal: the first query sees only the first key.
  Tensor c = call("aten::scaled_dot_product_attention", q, k, v, Tensor(), 0.0, true, IValue(), false);
  expectVals(c, {10, soft(0, 2)}, 1e-4);
  // Training-mode dropout needs random numbers the eager runtime does not draw.
  EXPECT_THROW(call("aten::scaled_dot_product_attention", q, k, v, Tensor(), 0.1, false, IValue(), false), Error);
  EXPECT_THROW(call("aten::dropout", q, 0.5, true), Error);
  expectVals(call("aten::dropout", q, 0.5, false), {1, 2});
}

TEST(EagerKernels, CopiesAndPointwiseResultsKeepTheLayout) {
  // ATen's preserve_format: a copy of a transposed tensor is transposed too,
  // so a later view that relies on that layout works.
  Tensor x = F({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor xt = call("aten::t", x);
  Tensor c = call("aten::clone", xt, IValue());
  EXPECT_EQ(c.strides(), (std::vector<int64_t>{1, 3}));
  expectVals(c, {0, 3, 1, 4, 2, 5});
  EXPECT_NE(c.storage(), x.storage());
  // clone(memory_format=torch.contiguous_format) (export's code 1) is row-major.
  Tensor cc = call("aten::clone", xt, IValue((int64_t)1));
  EXPECT_EQ(cc.strides(), (std::vector<int64_t>{2, 1}));
  expectVals(cc, {0, 3, 1, 4, 2, 5});
  // A pointwise result follows its first input's layout.
  Tensor s = call("aten::sigmoid", xt);
  EXPECT_EQ(s.strides(), (std::vector<int64_t>{1, 3}));
  EXPECT_NEAR(vals(s)[1], 1 / (1 + std::exp(-3.0)), 1e-6);
  // An expanded (overlapping) input gives a row-major result.
  Tensor e = call("aten::expand", call("aten::unsqueeze", F({3}, {1, 2, 3}), (int64_t)0), std::vector<int64_t>{2, 3});
  EXPECT_EQ(call("aten::neg", e).strides(), (std::vector<int64_t>{3, 1}));
}

TEST(EagerKernels, StackUnbindLeakyReluSquareReshapeAs) {
  Tensor a = F({2, 2}, {1, 2, 3, 4}), b = F({2, 2}, {5, 6, 7, 8});
  Tensor s1 = call("aten::stack", std::vector<Tensor>{a, b}, (int64_t)1);
  EXPECT_EQ(s1.sizes(), (std::vector<int64_t>{2, 2, 2}));
  expectVals(s1, {1, 2, 5, 6, 3, 4, 7, 8});
  Tensor s2 = call("aten::stack", std::vector<Tensor>{a, b}, (int64_t)-1);
  expectVals(s2, {1, 5, 2, 6, 3, 7, 4, 8});
  EXPECT_THROW(call("aten::stack", std::vector<Tensor>{a, F({2}, {1, 2})}, (int64_t)0), Error);
  auto rows = call<std::vector<Tensor>>("aten::unbind.int", a, (int64_t)1);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].storage(), a.storage()); // views of self
  expectVals(rows[1], {2, 4});
  Tensor x = F({4}, {-2, -0.5f, 0, 3});
  expectVals(call("aten::leaky_relu", x, 0.1), {-0.2, -0.05, 0, 3});
  call("aten::leaky_relu_", x, 0.5);
  expectVals(x, {-1, -0.25, 0, 3});
  EXPECT_THROW(call("aten::leaky_relu", L({1}, {1}), 0.1), Error);
  expectVals(call("aten::square", L({3}, {-3, 0, 4})), {9, 0, 16});
  Tensor ra = call("aten::reshape_as", a, F({4}, {0, 0, 0, 0}));
  EXPECT_EQ(ra.sizes(), (std::vector<int64_t>{4}));
  EXPECT_EQ(ra.storage(), a.storage()); // a view of a contiguous tensor
  expectVals(ra, {1, 2, 3, 4});
  EXPECT_EQ(call("aten::square", L({1}, {2})).dtype(), DType::Int64);
}

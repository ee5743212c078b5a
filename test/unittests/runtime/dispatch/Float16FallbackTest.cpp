// Tests of 16-bit floats through the float32 CPU kernels (runtime/src/dispatch/Float16Fallback.h):
// a kernel without bfloat16/float16 loops computes in float32 and rounds its result, as PyTorch's
// CPU kernels do; ops that write or alias their arguments are left to refuse.
#include "kiln/half.h"
#include "kiln/library.h"

#include <gtest/gtest.h>

using namespace kiln;

namespace {
Tensor sixteen(const std::vector<int64_t> &shape, DType dt, const std::vector<float> &v) {
  Tensor t = Tensor::empty(shape, dt);
  auto *p = static_cast<uint16_t *>(t.rawData());
  for (size_t i = 0; i < v.size(); ++i) p[i] = dt == DType::BFloat16 ? floatToBF16Bits(v[i]) : floatToHalfBits(v[i]);
  return t;
}
std::vector<float> floats(const Tensor &t) {
  Tensor c = t.contiguous();
  std::vector<float> r;
  auto *p = static_cast<const uint16_t *>(c.rawData());
  for (int64_t i = 0; i < c.numel(); ++i)
    r.push_back(c.dtype() == DType::BFloat16 ? bf16BitsToFloat(p[i]) : halfBitsToFloat(p[i]));
  return r;
}
float roundTo(DType dt, float v) {
  return dt == DType::BFloat16 ? bf16BitsToFloat(floatToBF16Bits(v)) : halfBitsToFloat(floatToHalfBits(v));
}
} // namespace

TEST(Float16Fallback, ElementwiseAndReductionsComputeInFloat32AndRound) {
  for (DType dt : {DType::BFloat16, DType::Float16}) {
    Tensor a = sixteen({2, 3}, dt, {1.5f, -2.25f, 3.0f, 0.1f, 7.0f, -0.5f});
    Tensor b = sixteen({3}, dt, {2.0f, 0.5f, -1.0f});
    std::vector<float> av = floats(a), bv = floats(b);
    Tensor m = call("aten::mul.Tensor", a, b);
    ASSERT_EQ(m.dtype(), dt);
    std::vector<float> mv = floats(m);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(mv[i], roundTo(dt, av[i] * bv[i % 3])) << dtypeName(dt) << " " << i;
    Tensor s = call("aten::_softmax", a, (int64_t)1, false);
    ASSERT_EQ(s.dtype(), dt);
    std::vector<float> sv = floats(s);
    float row = std::exp(av[0]) + std::exp(av[1]) + std::exp(av[2]);
    EXPECT_NEAR(sv[0], std::exp(av[0]) / row, dt == DType::BFloat16 ? 4e-3 : 5e-4);
  }
}

TEST(Float16Fallback, OpsThatWriteTheirArgumentsStillRefuse) {
  // Training batch norm writes its running statistics: a float32 copy would lose the update.
  Tensor x = sixteen({2, 2}, DType::BFloat16, {1, 2, 3, 4});
  Tensor mean = Tensor::empty({2}, DType::Float32), var = Tensor::empty({2}, DType::Float32);
  mean.data<float>()[0] = mean.data<float>()[1] = 0.5f;
  var.data<float>()[0] = var.data<float>()[1] = 2.0f;
  EXPECT_THROW((call<std::tuple<Tensor, Tensor, Tensor>>("aten::_native_batch_norm_legit", x, Tensor(), Tensor(), mean, var, true, 0.1, 1e-5)),
               Error);
  EXPECT_EQ(mean.data<float>()[0], 0.5f);
  EXPECT_EQ(var.data<float>()[1], 2.0f);
}

TEST(Float16Fallback, AttentionBroadcastsOneKeyHeadToEveryQueryHead) {
  // query [1, 2, 1, 2] (two heads), key/value [1, 1, 2, 2] (one head, shared).
  Tensor q = sixteen({1, 2, 1, 2}, DType::BFloat16, {1, 0, 0, 1});
  Tensor k = sixteen({1, 1, 2, 2}, DType::BFloat16, {1, 0, 0, 1});
  Tensor v = sixteen({1, 1, 2, 2}, DType::BFloat16, {10, 0, 0, 20});
  Tensor o = call("aten::scaled_dot_product_attention", q, k, v, Tensor(), 0.0, false, 1.0, false);
  ASSERT_EQ(o.sizes(), (std::vector<int64_t>{1, 2, 1, 2}));
  std::vector<float> ov = floats(o);
  float p = std::exp(1.0f) / (std::exp(1.0f) + 1.0f); // head 0 prefers key 0, head 1 key 1
  EXPECT_NEAR(ov[0], 10 * p, 0.1f);
  EXPECT_NEAR(ov[1], 20 * (1 - p), 0.1f);
  EXPECT_NEAR(ov[2], 10 * (1 - p), 0.1f);
  EXPECT_NEAR(ov[3], 20 * p, 0.1f);
}

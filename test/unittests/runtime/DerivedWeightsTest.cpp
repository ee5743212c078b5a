// kiln tests — the loader's derived weights (`derive` lines): batch norm folded into a convolution,
// linear layers' weights stacked.
#include "DerivedWeights.h"
#include "kiln/error.h"
#include "Manifest.h"
#include "kiln/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace kiln;

namespace {

const char *kManifest = "kiln-manifest 1\nname m\nweights external\n"
                        "arg param w f32 2 2 3\narg param b f32 1 2\narg param g f32 1 2\n"
                        "arg param beta f32 1 2\narg buffer mean f32 1 2\narg buffer var f32 1 2\n"
                        "arg derived w#bn f32 2 2 3\narg derived w#bn_bias f32 1 2\n"
                        "arg derived w#nog f32 2 2 3\narg derived w#none f32 1 2\n"
                        "derive w#bn conv-bn-weight 0.5 w g var\n"
                        "derive w#bn_bias conv-bn-bias 0.5 b g beta mean var\n"
                        "derive w#nog conv-bn-weight 0.5 w - var\n"
                        "derive w#none conv-bn-bias 0.5 - - - mean var\n"
                        "end\n";

Tensor filled(std::vector<int64_t> sizes, std::vector<float> values) {
  Tensor t = Tensor::empty(sizes, DType::Float32);
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

} // namespace

TEST(DerivedWeights, FoldsBatchNormIntoTheFilterAndBias) {
  Manifest m = parseManifest(kManifest);
  std::vector<Tensor> w(m.args.size());
  w[0] = filled({2, 3}, {1, 2, 3, 4, 5, 6});
  w[1] = filled({2}, {0.5f, -1});
  w[2] = filled({2}, {2, -3});
  w[3] = filled({2}, {0.25f, 4});
  w[4] = filled({2}, {1, -2});
  w[5] = filled({2}, {3.5f, 1.5f});  // + eps 0.5: 4 and 2
  const float s0 = 2 / 2.0f, s1 = -3 / std::sqrt(2.0f);
  Tensor fw = deriveWeight(m, m.args[6], w, "m.so");
  ASSERT_EQ(fw.sizes(), (std::vector<int64_t>{2, 3}));
  for (int j = 0; j < 3; ++j) {
    EXPECT_FLOAT_EQ(fw.data<float>()[j], (1 + j) * s0);
    EXPECT_FLOAT_EQ(fw.data<float>()[3 + j], (4 + j) * s1);
  }
  Tensor fb = deriveWeight(m, m.args[7], w, "m.so");
  EXPECT_FLOAT_EQ(fb.data<float>()[0], (0.5f - 1) * s0 + 0.25f);
  EXPECT_FLOAT_EQ(fb.data<float>()[1], (-1 + 2) * s1 + 4);
  // No gamma: scale 1 / sqrt(var + eps); no bias, no beta: -mean * scale.
  Tensor ng = deriveWeight(m, m.args[8], w, "m.so");
  EXPECT_FLOAT_EQ(ng.data<float>()[4], 5 / std::sqrt(2.0f));
  Tensor nb = deriveWeight(m, m.args[9], w, "m.so");
  EXPECT_FLOAT_EQ(nb.data<float>()[0], -1 / 2.0f);
  EXPECT_FLOAT_EQ(nb.data<float>()[1], 2 / std::sqrt(2.0f));
}

TEST(DerivedWeights, AnOperandOfAnotherShapeIsAnError) {
  Manifest m = parseManifest(kManifest);
  std::vector<Tensor> w(m.args.size());
  w[0] = filled({2, 3}, {1, 2, 3, 4, 5, 6});
  for (int i = 1; i < 6; ++i) w[i] = filled({2}, {1, 1});
  w[5] = filled({3}, {1, 1, 1});
  try {
    deriveWeight(m, m.args[6], w, "m.so");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), KILN_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("derived weight 'w#bn' (conv-bn-weight): operand 'var' is f32 [3], "
                                         "expected f32 [2]"),
              std::string::npos)
        << e.what();
  }
}

// 16-bit weights (CUDA folds bf16 and f16 convolutions): computed in double
// from the 16-bit operands, rounded once to the weights' type.
TEST(DerivedWeights, SixteenBitWeightsRoundOnceToTheirType) {
  for (const char *type : {"bf16", "f16"}) {
    bool bf16 = std::string(type) == "bf16";
    std::string text = kManifest;
    for (size_t at; (at = text.find(" f32 ")) != std::string::npos;) text.replace(at, 5, std::string(" ") + type + " ");
    Manifest m = parseManifest(text);
    DType dt = bf16 ? DType::BFloat16 : DType::Float16;
    auto from = [&](std::vector<int64_t> sizes, std::vector<float> values) {
      Tensor t = Tensor::empty(sizes, dt);
      for (size_t i = 0; i < values.size(); ++i)
        t.data<uint16_t>()[i] = bf16 ? floatToBF16Bits(values[i]) : floatToHalfBits(values[i]);
      return t;
    };
    auto value = [&](const Tensor &t, int64_t i) {
      uint16_t b = t.data<uint16_t>()[i];
      return bf16 ? bf16BitsToFloat(b) : halfBitsToFloat(b);
    };
    std::vector<Tensor> w(m.args.size());
    w[0] = from({2, 3}, {1, 2, 3, 4, 5, 6});
    w[1] = from({2}, {0.5f, -1});
    w[2] = from({2}, {2, -3});
    w[3] = from({2}, {0.25f, 4});
    w[4] = from({2}, {1, -2});
    w[5] = from({2}, {3.5f, 1.5f});
    const double s0 = 1, s1 = -3 / std::sqrt(2.0);
    Tensor fw = deriveWeight(m, m.args[6], w, "m.so");
    ASSERT_EQ(fw.dtype(), dt);
    for (int j = 0; j < 3; ++j) {
      float want = (4 + j) * (float)s1;
      EXPECT_EQ(fw.data<uint16_t>()[3 + j], bf16 ? floatToBF16Bits(want) : floatToHalfBits(want)) << type << " " << j;
      EXPECT_EQ(value(fw, j), (1 + j) * (float)s0);
    }
    Tensor fb = deriveWeight(m, m.args[7], w, "m.so");
    EXPECT_NEAR(value(fb, 1), (-1 + 2) * s1 + 4, bf16 ? 1e-2 : 1e-3) << type;
  }
}

// Linear layers that read one input (kiln-concat-linear): their weights and
// biases stacked along dim 0, bit for bit, in any float type.
TEST(DerivedWeights, ConcatRowsStacksTheOperandsExactly) {
  const char *text = "kiln-manifest 1\nname m\nweights external\n"
                     "arg param q bf16 2 2 3\narg param k bf16 2 1 3\narg param v bf16 2 3 3\n"
                     "arg derived q#cat bf16 2 6 3\narg derived q#short bf16 2 5 3\n"
                     "derive q#cat concat-rows 0 q k v\nderive q#short concat-rows 0 q k v\nend\n";
  Manifest m = parseManifest(text);
  std::vector<Tensor> w(m.args.size());
  uint16_t bits = 0x3f80;
  for (int i = 0; i < 3; ++i) {
    w[i] = Tensor::empty({i == 0 ? 2 : i == 1 ? 1 : 3, 3}, DType::BFloat16);
    for (int64_t j = 0; j < w[i].numel(); ++j) w[i].data<uint16_t>()[j] = bits++;
  }
  Tensor cat = deriveWeight(m, m.args[3], w, "m.so");
  ASSERT_EQ(cat.sizes(), (std::vector<int64_t>{6, 3}));
  ASSERT_EQ(cat.dtype(), DType::BFloat16);
  for (int64_t j = 0; j < 18; ++j) EXPECT_EQ(cat.data<uint16_t>()[j], 0x3f80 + j) << j;
  // The derived shape must hold the operands' rows exactly.
  try {
    deriveWeight(m, m.args[4], w, "m.so");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_EQ(e.code(), KILN_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("derived weight 'q#short' (concat-rows): operand 'v' is bf16 [3, 3], "
                                         "expected bf16 [at most 2, 3]"),
              std::string::npos)
        << e.what();
  }
  // An operand of other trailing dims is named.
  w[1] = Tensor::empty({1, 4}, DType::BFloat16);
  try {
    deriveWeight(m, m.args[3], w, "m.so");
    FAIL() << "no error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("operand 'k' is bf16 [1, 4]"), std::string::npos) << e.what();
  }
}

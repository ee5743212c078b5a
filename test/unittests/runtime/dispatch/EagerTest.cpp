// Tests of the eager .pt2 interpreter on the shared corpus, against PyTorch's outputs.
#include "kiln/eager.h"
#include "kiln/library.h"
#include "kiln/npy.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace kiln;

namespace {
struct Case {
  const char *model;
  const char *archive;
};
class EagerCorpus : public ::testing::TestWithParam<Case> {};

void expectClose(const Tensor &got, const Tensor &want, double atol, double rtol) {
  ASSERT_EQ(got.sizes(), want.sizes());
  ASSERT_EQ(got.dtype(), DType::Float32);
  Tensor g = got.contiguous(), w = want.contiguous();
  double worst = 0;
  for (int64_t i = 0; i < g.numel(); ++i) {
    double a = g.data<float>()[i], b = w.data<float>()[i];
    worst = std::max(worst, std::fabs(a - b) - rtol * std::fabs(b));
  }
  EXPECT_LE(worst, atol);
}
} // namespace

TEST_P(EagerCorpus, MatchesPyTorch) {
  std::string dir = std::string(KILN_TEST_CORPUS) + "/" + GetParam().model;
  std::string err;
  ASSERT_TRUE(loadPlugin(KILN_EXAMPLE_OPS, err)) << err; // for custom_op
  auto prog = eager::Program::load(dir + "/" + GetParam().archive);
  ASSERT_EQ(prog->inputs().size(), 1u);
  Tensor x = readNpy(dir + "/input0.npy");
  std::vector<Tensor> out = prog->run({x});
  ASSERT_EQ(out.size(), 1u);
  expectClose(out[0], readNpy(dir + "/output0.npy"), 1e-4, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, EagerCorpus,
    ::testing::Values(Case{"mlp", "model.pt2"}, Case{"mlp", "model.core.pt2"},
                      Case{"mlp_dynamic", "model.pt2"}, Case{"mlp_dynamic", "model.core.pt2"},
                      Case{"convnet", "model.pt2"}, Case{"convnet", "model.core.pt2"},
                      Case{"convnet_dynamic", "model.pt2"}, Case{"convnet_dynamic", "model.core.pt2"},
                      Case{"custom_op", "model.pt2"}, Case{"custom_op", "model.core.pt2"}),
    [](const ::testing::TestParamInfo<Case> &i) {
      return std::string(i.param.model) + (std::string(i.param.archive) == "model.pt2" ? "" : "_core");
    });

TEST(Eager, DynamicBatchAndInputChecks) {
  std::string dir = std::string(KILN_TEST_CORPUS) + "/convnet_dynamic";
  auto prog = eager::Program::load(dir + "/model.core.pt2");
  const eager::ValueSpec &in = prog->inputs()[0];
  EXPECT_EQ(in.sizes[0], -1);
  EXPECT_EQ(in.minSizes[0], 1);
  // Another batch size runs; each row matches the batch-2 result's row.
  Tensor x = readNpy(dir + "/input0.npy");
  Tensor want = prog->run({x})[0];
  Tensor x1 = Tensor::empty({1, x.size(1), x.size(2), x.size(3)}, DType::Float32);
  std::copy(x.data<float>(), x.data<float>() + x1.numel(), x1.data<float>());
  Tensor y1 = prog->run({x1})[0];
  ASSERT_EQ(y1.size(0), 1);
  for (int64_t j = 0; j < y1.size(1); ++j) EXPECT_NEAR(y1.data<float>()[j], want.data<float>()[j], 1e-5);
  // Wrong rank, dtype and static dim are refused with a message.
  EXPECT_THROW(prog->run({Tensor::zeros({2, 3}, DType::Float32)}), Error);
  EXPECT_THROW(prog->run({Tensor::zeros({2, 3, 32, 32}, DType::Float64)}), Error);
  try {
    prog->run({Tensor::zeros({2, 4, 32, 32}, DType::Float32)});
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("dim 1 must be 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW(prog->run({}), Error);
}

TEST(Eager, MissingPluginNamesTheNodeAndLine) {
  // Another test in this process may have loaded the example plugin already
  // (ctest runs each test alone, where it is not): then the program loads.
  // kiln-run's tests check the missing-plugin message in a fresh process too.
  std::string path = std::string(KILN_TEST_CORPUS) + "/custom_op/model.pt2";
  if (Dispatcher::get().findOp("kilntest::scaled_gelu").valid()) {
    EXPECT_NO_THROW(eager::Program::load(path));
    return;
  }
  try {
    eager::Program::load(path);
    FAIL();
  } catch (const Error &e) {
    std::string m = e.what();
    EXPECT_NE(m.find("kilntest::scaled_gelu"), std::string::npos) << m;
    EXPECT_NE(m.find("is its plugin loaded?"), std::string::npos) << m;
    EXPECT_NE(m.find("line 83"), std::string::npos) << m;
  }
}

class EagerGrads : public ::testing::TestWithParam<Case> {};

// grads/: the gradients of sum(output0 * cotangent0) for the sample input
// and every parameter, as PyTorch computed them.
TEST_P(EagerGrads, MatchesPyTorch) {
  std::string dir = std::string(KILN_TEST_CORPUS) + "/" + GetParam().model;
  std::string err;
  ASSERT_TRUE(loadPlugin(KILN_EXAMPLE_OPS, err)) << err;
  auto prog = eager::Program::load(dir + "/" + GetParam().archive);
  Tensor x = readNpy(dir + "/input0.npy");
  Tensor ct = readNpy(dir + "/grads/cotangent0.npy");
  eager::Program::Gradients g = prog->grad({x}, {ct});
  expectClose(g.outputs[0], readNpy(dir + "/output0.npy"), 1e-4, 1e-4);
  ASSERT_EQ(g.inputs.size(), 1u);
  ASSERT_TRUE(g.inputs[0].defined());
  {
    SCOPED_TRACE("input0");
    expectClose(g.inputs[0], readNpy(dir + "/grads/input0.npy"), 1e-4, 1e-3);
  }
  ASSERT_FALSE(g.parameterNames.empty());
  for (size_t i = 0; i < g.parameterNames.size(); ++i) {
    SCOPED_TRACE(g.parameterNames[i]);
    ASSERT_TRUE(g.parameters[i].defined());
    expectClose(g.parameters[i], readNpy(dir + "/grads/" + g.parameterNames[i] + ".npy"), 1e-4, 1e-3);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, EagerGrads,
    ::testing::Values(Case{"mlp", "model.pt2"}, Case{"mlp", "model.core.pt2"},
                      Case{"convnet", "model.pt2"}, Case{"convnet", "model.core.pt2"},
                      Case{"custom_op", "model.pt2"}, Case{"custom_op", "model.core.pt2"}),
    [](const ::testing::TestParamInfo<Case> &i) {
      return std::string(i.param.model) + (std::string(i.param.archive) == "model.pt2" ? "" : "_core");
    });

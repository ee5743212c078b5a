// Tests of plugin loading: the example plugin, and the errors for a missing
// file, a missing symbol, a schema defined twice and a namespace defined twice.
#include "kiln/library.h"
#include "kiln/rt_call.h"

#include <cmath>
#include <cstdlib>
#include <gtest/gtest.h>

using namespace kiln;

namespace {
void loadOrDie(const char *path) {
  std::string err;
  ASSERT_TRUE(loadPlugin(path, err)) << err;
}
double gelu(double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }
} // namespace

TEST(Plugins, ExampleOpsLoadAndRun) {
  loadOrDie(KILN_EXAMPLE_OPS);
  loadOrDie(KILN_EXAMPLE_OPS); // loading twice is harmless
  OperatorHandle op = Dispatcher::get().findOpOrThrow("kilntest::scaled_gelu");
  EXPECT_EQ(op.schema().str(), "kilntest::scaled_gelu(Tensor x, float scale) -> Tensor");
  Tensor x = Tensor::empty({3}, DType::Float32);
  float xs[3] = {-1, 0.5f, 2};
  for (int i = 0; i < 3; ++i) x.data<float>()[i] = xs[i];
  Tensor y = call<Tensor>("kilntest::scaled_gelu", x, 3.0);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(y.data<float>()[i], gelu(xs[i]) * 3, 1e-6);
  // Its fake function and its autograd formula.
  Tensor m = call<Tensor>(op, Tensor::empty({5, 7}, DType::Float32, Device{DeviceType::Meta, 0}), 1.0);
  EXPECT_EQ(m.sizes(), (std::vector<int64_t>{5, 7}));
  EXPECT_EQ(m.device().type, DeviceType::Meta);
  ASSERT_TRUE(op.backward());
  x.setRequiresGrad(true);
  autograd::Tape tape;
  Tensor z = call<Tensor>(op, x, 2.0);
  EXPECT_TRUE(z.requiresGrad());
  Tensor ones = Tensor::empty({3}, DType::Float32);
  for (int i = 0; i < 3; ++i) ones.data<float>()[i] = 1;
  Tensor gx = tape.gradient({z}, {ones}, {x})[0];
  ASSERT_TRUE(gx.defined());
  for (int i = 0; i < 3; ++i) {
    double h = 1e-3, num = (gelu(xs[i] + h) - gelu(xs[i] - h)) / (2 * h) * 2;
    EXPECT_NEAR(gx.data<float>()[i], num, 1e-3);
  }
  // And through the compiled-code bridge.
  int64_t desc[5] = {(int64_t)xs, (int64_t)xs, 0, 3, 1};
  int64_t out[5] = {};
  kiln_rt_value args[2] = {{KILN_RT_TENSOR, 0, 1, desc, 0, 0}, {KILN_RT_FLOAT, 0, 0, nullptr, 0, 0.5}};
  kiln_rt_value res[1] = {{KILN_RT_TENSOR, 0, 1, out, 0, 0}};
  ASSERT_EQ(kiln_rt_call_op("kilntest::scaled_gelu", 2, args, 1, res), 0) << kiln_rt_last_error();
  EXPECT_NEAR(((float *)out[1])[2], gelu(2) * 0.5, 1e-6);
  std::free((void *)out[0]);
}

TEST(Plugins, MissingFile) {
  std::string err;
  EXPECT_FALSE(loadPlugin("/nonexistent/libnothing.so", err));
  EXPECT_NE(err.find("/nonexistent/libnothing.so"), std::string::npos) << err;
  EXPECT_NE(err.find("no such file"), std::string::npos) << err;
}

TEST(Plugins, MissingSymbol) {
  std::string err;
  EXPECT_FALSE(loadPlugin(KILN_MISSING_SYMBOL, err));
  EXPECT_NE(err.find("kiln_test_function_nobody_defines"), std::string::npos) << err;
  EXPECT_FALSE(Dispatcher::get().findOp("kilnmissing::uses_missing").valid());
}

TEST(Plugins, SchemaDefinedTwiceLeavesNothingBehind) {
  loadOrDie(KILN_EXAMPLE_OPS);
  std::string err;
  EXPECT_FALSE(loadPlugin(KILN_DUP_SCHEMA, err));
  EXPECT_NE(err.find("'kilntest::scaled_gelu' is defined twice"), std::string::npos) << err;
  // The plugin's other op went away with it; the example's op is intact.
  EXPECT_FALSE(Dispatcher::get().findOp("kilntest::dup_extra").valid());
  EXPECT_TRUE(Dispatcher::get().findOp("kilntest::scaled_gelu").valid());
  Tensor x = Tensor::zeros({2}, DType::Float32);
  EXPECT_EQ(call<Tensor>("kilntest::scaled_gelu", x, 1.0).numel(), 2);
}

TEST(Plugins, NamespaceDefinedTwice) {
  std::string err;
  EXPECT_FALSE(loadPlugin(KILN_DUP_NAMESPACE, err));
  EXPECT_NE(err.find("namespace 'aten' is already defined"), std::string::npos) << err;
  EXPECT_NE(err.find("KILN_LIBRARY_FRAGMENT"), std::string::npos) << err;
  EXPECT_FALSE(Dispatcher::get().findOp("aten::kiln_test_op").valid());
  EXPECT_TRUE(Dispatcher::get().findOp("aten::relu").valid());
}

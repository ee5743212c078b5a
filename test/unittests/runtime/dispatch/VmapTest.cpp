// Tests of batching rules: register_vmap, kiln::vmap (rule or loop), the
// "#vmap" runtime call compiled code makes, the query API and opcheck's test_vmap.
#include "kiln/abi/query.h"
#include "kiln/library.h"
#include "kiln/rt_call.h"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace kiln;

namespace {
void loadOrDie(const char *path) {
  std::string err;
  ASSERT_TRUE(loadPlugin(path, err)) << err;
}
Tensor iota(std::vector<int64_t> sizes, float scale = 0.1f) {
  Tensor t = Tensor::empty(sizes, DType::Float32);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = scale * (float)(i - 5);
  return t;
}
float at(const Tensor &t, std::vector<int64_t> idx) {
  int64_t off = t.offset();
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.stride(d);
  return static_cast<const float *>(t.storage()->data())[off];
}
std::string errorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const std::exception &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(Vmap, ExampleRuleMatchesTheLoopAtAnyInDim) {
  loadOrDie(KILN_EXAMPLE_OPS);
  OperatorHandle op = Dispatcher::get().findOpOrThrow("kilntest::scaled_gelu");
  ASSERT_TRUE((bool)op.vmapRule());
  Tensor x = iota({4, 3}); // a batch of 3 along dim 1
  Stack rule = vmap(op, {1}, {IValue(x), IValue(2.0)});
  Stack loop = vmap(op, {1}, {IValue(x), IValue(2.0)}, VmapMode::Loop);
  ASSERT_EQ(rule.size(), 1u);
  const Tensor &r = rule[0].toTensor(), &l = loop[0].toTensor();
  EXPECT_EQ(r.sizes(), (std::vector<int64_t>{3, 4})); // batch first
  EXPECT_EQ(l.sizes(), (std::vector<int64_t>{3, 4}));
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t i = 0; i < 4; ++i) EXPECT_NEAR(at(r, {b, i}), at(l, {b, i}), 1e-6);
}

TEST(Vmap, RuntimeCallUsesTheRule) {
  // kilnbad::cumsum0's rule sums along the batch: a "#vmap" call that gave the
  // loop's numbers would not be using it.
  loadOrDie(KILN_BAD_VMAP_OPS);
  float x[6] = {1, 2, 3, 4, 5, 6}; // 3 samples of [2]
  int64_t xw2[7] = {(int64_t)x, (int64_t)x, 0, 3, 2, 2, 1}; // a [3, 2] descriptor
  kiln_rt_value args[2] = {{KILN_RT_TENSOR, (int64_t)DType::Float32, 2, xw2, 0, 0},
                           {KILN_RT_INT, 0, 0, nullptr, 0, 0}};
  int64_t out[7] = {};
  kiln_rt_value res[1] = {{KILN_RT_TENSOR, (int64_t)DType::Float32, 2, out, 0, 0}};
  ASSERT_EQ(kiln_rt_call_op("kilnbad::cumsum0#vmap", 2, args, 1, res), 0) << kiln_rt_last_error();
  const float *o = (const float *)out[1];
  // Along the batch: [1,2], [4,6], [9,12]; the loop would give [1,3], [3,7], [5,11].
  EXPECT_FLOAT_EQ(o[2], 4);
  EXPECT_FLOAT_EQ(o[5], 12);
  std::free((void *)out[0]);
  // The same call with an in_dim that is not an int is refused.
  args[1].tag = KILN_RT_FLOAT;
  EXPECT_NE(kiln_rt_call_op("kilnbad::cumsum0#vmap", 2, args, 1, res), 0);
  EXPECT_NE(std::string(kiln_rt_last_error()).find("in_dim 0 is not an int"), std::string::npos)
      << kiln_rt_last_error();
}

TEST(Vmap, OpsWithoutARuleRunOncePerSample) {
  OperatorHandle op = Dispatcher::get().findOpOrThrow("aten::sum.dim_IntList");
  ASSERT_FALSE((bool)op.vmapRule());
  Tensor x = iota({2, 3});
  Stack r = vmap(op, {0}, {IValue(x), IValue(std::vector<int64_t>{0})});
  ASSERT_EQ(r[0].toTensor().sizes(), (std::vector<int64_t>{2}));
  EXPECT_NEAR(at(r[0].toTensor(), {0}), 0.1f * (-5 - 4 - 3), 1e-6);
  EXPECT_NEAR(at(r[0].toTensor(), {1}), 0.1f * (-2 - 1 + 0), 1e-6);
}

TEST(Vmap, BadCallsAndBadRulesAreClearErrors) {
  loadOrDie(KILN_EXAMPLE_OPS);
  OperatorHandle gelu = Dispatcher::get().findOpOrThrow("kilntest::scaled_gelu");
  EXPECT_NE(errorOf([&] { vmap(gelu, {std::nullopt}, {IValue(iota({2})), IValue(1.0)}); })
                .find("no argument is batched"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { vmap(gelu, {0, 0}, {IValue(iota({2})), IValue(1.0)}); })
                .find("is not a tensor"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { vmap(gelu, {3}, {IValue(iota({2})), IValue(1.0)}); }).find("out of range"), std::string::npos);

  Library lib(Library::DEF, "vmaptest", std::nullopt, __FILE__, __LINE__);
  lib.def("twice(Tensor x) -> Tensor", [](const Tensor &x) { return x.clone(); });
  // A rule that loses the batch: its out_dim does not hold the batch size.
  lib.register_vmap("twice", [](const VmapInfo &, const InDims &, const Stack &args) {
    return VmapResult{{IValue(selectDim(args[0].toTensor(), 0, 0))}, {0}};
  });
  OperatorHandle twice = Dispatcher::get().findOpOrThrow("vmaptest::twice");
  std::string e = errorOf([&] { vmap(twice, {0}, {IValue(iota({3, 2}))}); });
  EXPECT_NE(e.find("the batching rule of vmaptest::twice, result 0 has size 2 at its out_dim 0"),
            std::string::npos)
      << e;
  // One rule per op.
  e = errorOf([&] {
    lib.register_vmap("twice", [](const VmapInfo &, const InDims &, const Stack &) { return VmapResult{}; });
  });
  EXPECT_NE(e.find("already has a batching rule"), std::string::npos) << e;
  lib.reset();
}

TEST(Vmap, QueryReportsTheRule) {
  loadOrDie(KILN_EXAMPLE_OPS);
  kiln_query_op *op = nullptr;
  ASSERT_EQ(kiln_query_find_op("kilntest::scaled_gelu", &op), 0);
  EXPECT_EQ(op->has_vmap, 1);
  kiln_query_op_free(op);
  ASSERT_EQ(kiln_query_find_op("aten::sum.dim_IntList", &op), 0);
  EXPECT_EQ(op->has_vmap, 0);
  kiln_query_op_free(op);
}

TEST(Vmap, OpcheckCatchesAWrongRule) {
  loadOrDie(KILN_EXAMPLE_OPS);
  loadOrDie(KILN_BAD_VMAP_OPS);
  OpcheckReport good = opcheck("kilntest::scaled_gelu");
  int checked = 0;
  for (auto &r : good.results)
    if (r.test == "test_vmap" && r.passed && !r.skipped) ++checked;
  EXPECT_EQ(checked, 3) << good.str();
  OpcheckReport bad = opcheck("kilnbad::cumsum0");
  ASSERT_FALSE(bad.ok());
  for (auto &f : bad.failures()) {
    EXPECT_EQ(f.test, "test_vmap");
    EXPECT_NE(f.message.find("the batching rule disagrees with running the op once per sample"),
              std::string::npos)
        << f.message;
  }
}

// kiln tests — the model C ABI end to end against the hand-written fake model .so files.
#include "TestUtil.h"
#include "kiln/kiln.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

namespace {

using kiln::test::Status;

kiln_tensor_t f32(std::vector<int64_t> sizes, std::vector<float> values = {}) {
  kiln_tensor_t t = nullptr;
  Status st{kiln_tensor_create(KILN_DTYPE_F32, sizes.size(), sizes.data(), &t)};
  EXPECT_EQ(st.s, nullptr) << st.message();
  if (!values.empty()) {
    EXPECT_EQ(values.size() * 4, kiln_tensor_nbytes(t));
    std::memcpy(kiln_tensor_data(t), values.data(), kiln_tensor_nbytes(t));
  }
  return t;
}

std::vector<float> values(kiln_tensor_t t) {
  auto *p = static_cast<const float *>(kiln_tensor_data(t));
  return std::vector<float>(p, p + kiln_tensor_nbytes(t) / 4);
}

std::vector<int64_t> sizes(kiln_tensor_t t) {
  return std::vector<int64_t>(kiln_tensor_sizes(t), kiln_tensor_sizes(t) + kiln_tensor_rank(t));
}

class FakeModel : public ::testing::Test {
protected:
  void SetUp() override {
    Status st{kiln_model_load(KILN_FAKE_MODEL, nullptr, &model)};
    ASSERT_EQ(st.s, nullptr) << st.message();
  }
  void TearDown() override { kiln_model_free(model); }

  // Runs with the given inputs; returns the status, filling `out` (3 outputs) on success.
  Status run(std::vector<kiln_tensor_t> in, std::vector<kiln_tensor_t> &out) {
    out.assign(3, nullptr);
    Status st{kiln_model_run(model, in.data(), in.size(), out.data(), out.size())};
    for (kiln_tensor_t t : in) kiln_tensor_release(t);
    return Status{std::exchange(st.s, nullptr)};
  }
  Status runExpectingError(std::vector<kiln_tensor_t> in) {
    std::vector<kiln_tensor_t> out;
    Status st = run(std::move(in), out);
    EXPECT_NE(st.s, nullptr);
    for (kiln_tensor_t t : out) EXPECT_EQ(t, nullptr);  // untouched on failure
    return Status{std::exchange(st.s, nullptr)};
  }

  kiln_model_t model = nullptr;
};

} // namespace

TEST_F(FakeModel, ParamRead) {
  kiln_tensor_t w = nullptr;
  ASSERT_EQ(kiln_model_param_read(model, 0, &w), nullptr);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(kiln_tensor_dtype(w), KILN_DTYPE_F32);
  ASSERT_EQ(kiln_tensor_rank(w), 1u);
  EXPECT_EQ(kiln_tensor_sizes(w)[0], 4);
  const float *p = static_cast<const float *>(kiln_tensor_data(w));
  EXPECT_EQ(p[0], 1.0f);
  EXPECT_EQ(p[3], 4.0f);
  kiln_tensor_release(w);
  kiln_tensor_t none = nullptr;
  Status oor{kiln_model_param_read(model, 1, &none)};
  EXPECT_EQ(oor.code(), KILN_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(none, nullptr);
  Status noOut{kiln_model_param_read(model, 0, nullptr)};
  EXPECT_EQ(noOut.code(), KILN_STATUS_INVALID_ARGUMENT);
}

TEST_F(FakeModel, Metadata) {
  EXPECT_STREQ(kiln_model_name(model), "fake");
  EXPECT_EQ(kiln_model_num_inputs(model), 2u);
  EXPECT_EQ(kiln_model_num_outputs(model), 3u);
  EXPECT_EQ(kiln_model_num_params(model), 1u);

  kiln_value_info_t info;
  std::memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  ASSERT_EQ(kiln_model_input_info(model, 0, &info), nullptr);
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.kind, KILN_VALUE_INPUT);
  EXPECT_EQ(info.dtype, KILN_DTYPE_F32);
  ASSERT_EQ(info.rank, 2u);
  EXPECT_EQ(info.dims[0], -1);
  EXPECT_EQ(info.dims[1], 4);
  EXPECT_EQ(info.dim_min[0], 1);
  EXPECT_EQ(info.dim_max[0], 16);
  EXPECT_EQ(info.dim_min[1], 4);
  EXPECT_EQ(info.dim_max[1], 4);
  EXPECT_STREQ(info.dim_symbols[0], "s0");
  EXPECT_STREQ(info.dim_symbols[1], "");

  ASSERT_EQ(kiln_model_input_info(model, 1, &info), nullptr);
  EXPECT_STREQ(info.name, "b");
  EXPECT_STREQ(info.dim_symbols[0], "s0");

  ASSERT_EQ(kiln_model_output_info(model, 2, &info), nullptr);
  EXPECT_STREQ(info.name, "w_again");
  EXPECT_EQ(info.kind, KILN_VALUE_OUTPUT);

  ASSERT_EQ(kiln_model_param_info(model, 0, &info), nullptr);
  EXPECT_STREQ(info.name, "w");
  EXPECT_EQ(info.kind, KILN_VALUE_PARAM);
  ASSERT_EQ(info.rank, 1u);
  EXPECT_EQ(info.dims[0], 4);

  Status oor{kiln_model_output_info(model, 3, &info)};
  EXPECT_EQ(oor.code(), KILN_STATUS_OUT_OF_RANGE);
  kiln_value_info_t unset;
  std::memset(&unset, 0, sizeof unset);
  Status noSize{kiln_model_input_info(model, 0, &unset)};
  EXPECT_EQ(noSize.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(noSize.message().find("struct_size"), std::string::npos);
}

TEST_F(FakeModel, Runs) {
  kiln_tensor_t x = f32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  kiln_tensor_t b = f32({2}, {10, 20});
  void *xData = kiln_tensor_data(x);
  kiln_tensor_retain(x);  // keep x to modify it after the run
  std::vector<kiln_tensor_t> out;
  Status st = run({x, b}, out);
  ASSERT_EQ(st.s, nullptr) << st.message();
  // y = x * w + b[:, None] + 1 with w = [1, 2, 3, 4]
  EXPECT_EQ(sizes(out[0]), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(values(out[0]), (std::vector<float>{12, 15, 20, 27, 26, 33, 42, 53}));
  // Outputs aliasing arguments come back as copies.
  EXPECT_NE(kiln_tensor_data(out[1]), xData);
  static_cast<float *>(xData)[0] = 100;
  EXPECT_EQ(values(out[1]), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(values(out[2]), (std::vector<float>{1, 2, 3, 4}));
  kiln_tensor_release(x);
  // Outputs outlive the model.
  kiln_model_free(model);
  model = nullptr;
  EXPECT_EQ(values(out[2]), (std::vector<float>{1, 2, 3, 4}));
  for (kiln_tensor_t t : out) kiln_tensor_release(t);
}

TEST_F(FakeModel, RangeEndsAreInclusive) {
  for (int64_t n : {1, 16}) {
    std::vector<kiln_tensor_t> out;
    Status st = run({f32({n, 4}), f32({n})}, out);
    ASSERT_EQ(st.s, nullptr) << st.message();
    EXPECT_EQ(sizes(out[0])[0], n);
    for (kiln_tensor_t t : out) kiln_tensor_release(t);
  }
}

TEST_F(FakeModel, WrongInputCount) {
  Status st = runExpectingError({f32({2, 4})});
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(st.message().find("expects 2 inputs, got 1"), std::string::npos) << st.message();
}

TEST_F(FakeModel, WrongOutputCount) {
  kiln_tensor_t in[2] = {f32({2, 4}), f32({2})};
  kiln_tensor_t out[2] = {nullptr, nullptr};
  Status st{kiln_model_run(model, in, 2, out, 2)};
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(st.message().find("num_outputs is 2"), std::string::npos) << st.message();
  kiln_tensor_release(in[0]);
  kiln_tensor_release(in[1]);
}

TEST_F(FakeModel, WrongDType) {
  int64_t s[] = {2, 4};
  kiln_tensor_t x = nullptr;
  ASSERT_EQ(kiln_tensor_create(KILN_DTYPE_F64, 2, s, &x), nullptr);
  Status st = runExpectingError({x, f32({2})});
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(st.message(), "input 0 (\"x\"): dtype is f64, expected f32");
}

TEST_F(FakeModel, DeviceTensorIsRefusedByACpuModel) {
  // A GPU pointer handed to a CPU model is refused before anything reads it.
  int64_t s[] = {2, 4};
  kiln_tensor_t x = nullptr;
  ASSERT_EQ(kiln_tensor_wrap_device(reinterpret_cast<void *>(uintptr_t(0x7f0000001000)), KILN_DEVICE_CUDA,
                                    KILN_DTYPE_F32, 2, s, nullptr, nullptr, &x),
            nullptr);
  Status st = runExpectingError({x, f32({2})});
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(st.message(), "input 0 (\"x\"): tensor is on device cuda, expected cpu");
}

TEST_F(FakeModel, WrongRank) {
  Status st = runExpectingError({f32({2, 4, 1}), f32({2})});
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(st.message().find("input 0 (\"x\"): rank is 3"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("expected 2 [s0, 4]"), std::string::npos) << st.message();
}

TEST_F(FakeModel, WrongStaticDim) {
  Status st = runExpectingError({f32({2, 5}), f32({2})});
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(st.message().find("input 0 (\"x\"): dim 1 is 5, expected 4"), std::string::npos) << st.message();
}

TEST_F(FakeModel, DynamicDimOutOfRange) {
  Status hi = runExpectingError({f32({17, 4}), f32({17})});
  EXPECT_EQ(hi.code(), KILN_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(hi.message(), "input 0 (\"x\"): dim 0 is 17, outside the range [1, 16] of symbol s0");
  Status lo = runExpectingError({f32({0, 4}), f32({0})});
  EXPECT_EQ(lo.code(), KILN_STATUS_OUT_OF_RANGE);
  EXPECT_NE(lo.message().find("dim 0 is 0, outside the range [1, 16]"), std::string::npos);
}

TEST_F(FakeModel, InconsistentDynamicDims) {
  Status st = runExpectingError({f32({3, 4}), f32({2})});
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(st.message(), "input 1 (\"b\"): dim 0 is 2, but symbol s0 is already 3 from input 0 (\"x\") dim 0");
}

TEST_F(FakeModel, NullInputs) {
  kiln_tensor_t in[2] = {nullptr, nullptr};
  kiln_tensor_t out[3];
  Status st{kiln_model_run(model, in, 2, out, 3)};
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  Status st2{kiln_model_run(nullptr, in, 2, out, 3)};
  EXPECT_EQ(st2.code(), KILN_STATUS_INVALID_ARGUMENT);
}

TEST_F(FakeModel, EntryFailureIsInternal) {
  Status st = runExpectingError({f32({1, 4}), f32({1}, {-999})});
  EXPECT_EQ(st.code(), KILN_STATUS_INTERNAL);
  EXPECT_NE(st.message().find("output 0 (\"y\"): the model entry failed"), std::string::npos) << st.message();
}

TEST_F(FakeModel, ManyThreadsAtOnce) {
  constexpr int kThreads = 8, kRuns = 300;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        int64_t n = 1 + (t + r) % 16;
        std::vector<float> xv(n * 4), bv(n);
        for (int64_t i = 0; i < n * 4; ++i) xv[i] = (float)(t * 1000 + r + i);
        for (int64_t i = 0; i < n; ++i) bv[i] = (float)(t - i);
        kiln_tensor_t in[2] = {f32({n, 4}, xv), f32({n}, bv)};
        kiln_tensor_t out[3] = {};
        kiln_status_t st = kiln_model_run(model, in, 2, out, 3);
        if (st) {
          ++failures;
          kiln_status_free(st);
        } else {
          std::vector<float> y = values(out[0]);
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < 4; ++j)
              if (y[i * 4 + j] != xv[i * 4 + j] * (j + 1) + bv[i] + 1) ++failures;
          if (values(out[1]) != xv) ++failures;
          for (kiln_tensor_t o : out) kiln_tensor_release(o);
        }
        kiln_tensor_release(in[0]);
        kiln_tensor_release(in[1]);
      }
    });
  for (auto &th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

namespace {
Status load(const std::string &path, const kiln_model_options_t *o = nullptr) {
  kiln_model_t m = nullptr;
  Status st{kiln_model_load(path.c_str(), o, &m)};
  EXPECT_EQ(m == nullptr, st.s != nullptr);
  kiln_model_free(m);
  return Status{std::exchange(st.s, nullptr)};
}
} // namespace

TEST(ModelLoad, MissingFile) {
  Status st = load("/nonexistent/model.so");
  EXPECT_EQ(st.code(), KILN_STATUS_NOT_FOUND);
  EXPECT_EQ(st.message(), "model file '/nonexistent/model.so' does not exist");
}

TEST(ModelLoad, NotAKilnModel) {
  Status st = load(KILN_NOT_A_MODEL);
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(st.message().find("is not a kiln model: it does not export kiln_model_manifest"), std::string::npos);
  EXPECT_NE(st.message().find(KILN_NOT_A_MODEL), std::string::npos);
}

TEST(ModelLoad, NotASharedLibrary) {
  kiln::test::TempDir dir;
  { std::ofstream(dir / "text.so") << "just text"; }
  Status st = load(dir / "text.so");
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(st.message().find("cannot load model"), std::string::npos) << st.message();
  Status d = load(dir.path());
  EXPECT_NE(d.message().find("is not a regular file"), std::string::npos) << d.message();
}

TEST(ModelLoad, MissingEntry) {
  Status st = load(KILN_FAKE_MODEL_NO_ENTRY);
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(st.message().find("does not export kiln_model_entry"), std::string::npos);
  EXPECT_NE(st.message().find(KILN_FAKE_MODEL_NO_ENTRY), std::string::npos);
}

TEST(ModelLoad, BadManifest) {
  Status st = load(KILN_FAKE_MODEL_BAD_MANIFEST);
  EXPECT_EQ(st.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(st.message().find("manifest line 3"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("unknown directive 'frobnicate'"), std::string::npos);
}

TEST(ModelLoad, Pt2IsNotACompiledModel) {
  Status st = load(std::string(KILN_TEST_CORPUS) + "/mlp/model.pt2");
  EXPECT_EQ(st.code(), KILN_STATUS_UNIMPLEMENTED);
}

TEST(ModelLoad, Options) {
  kiln_model_options_t o;
  kiln_model_options_init(&o);
  EXPECT_EQ(o.struct_size, sizeof o);
  EXPECT_EQ(o.weights_path, nullptr);
  EXPECT_EQ(o.num_plugins, 0u);

  const char *missing[] = {"/nonexistent/plugin.so"};
  o.plugin_paths = missing;
  o.num_plugins = 1;
  Status st = load(KILN_FAKE_MODEL, &o);
  EXPECT_EQ(st.code(), KILN_STATUS_FAILED_PRECONDITION);
  // The message comes from kiln::loadPlugin (the loader's default or the dispatcher's).
  EXPECT_NE(st.message().find("/nonexistent/plugin.so"), std::string::npos) << st.message();

  const char *good[] = {KILN_NOT_A_MODEL};
  o.plugin_paths = good;
  EXPECT_EQ(load(KILN_FAKE_MODEL, &o).s, nullptr);

  kiln_model_options_t ext;
  kiln_model_options_init(&ext);
  std::string weights = std::string(KILN_TEST_CORPUS) + "/mlp/model.core.pt2";
  ext.weights_path = weights.c_str();
  EXPECT_EQ(load(KILN_FAKE_MODEL_EXTERNAL, &ext).s, nullptr);
  EXPECT_EQ(load(KILN_FAKE_MODEL_EXTERNAL).code(), KILN_STATUS_FAILED_PRECONDITION);

  kiln_model_options_t zero;
  std::memset(&zero, 0, sizeof zero);
  EXPECT_EQ(load(KILN_FAKE_MODEL, &zero).code(), KILN_STATUS_INVALID_ARGUMENT);
}

TEST(ModelLoad, SameModelTwice) {
  kiln_model_t a = nullptr, b = nullptr;
  ASSERT_EQ(kiln_model_load(KILN_FAKE_MODEL, nullptr, &a), nullptr);
  ASSERT_EQ(kiln_model_load(KILN_FAKE_MODEL, nullptr, &b), nullptr);
  kiln_model_free(a);
  kiln_tensor_t in[2] = {f32({1, 4}, {1, 1, 1, 1}), f32({1}, {0})};
  kiln_tensor_t out[3] = {};
  Status st{kiln_model_run(b, in, 2, out, 3)};
  ASSERT_EQ(st.s, nullptr) << st.message();
  EXPECT_EQ(values(out[0]), (std::vector<float>{2, 3, 4, 5}));
  for (auto t : out) kiln_tensor_release(t);
  for (auto t : in) kiln_tensor_release(t);
  kiln_model_free(b);
}

TEST(ModelLoad, CallerWeightsAreBoundInPlace) {
  kiln_tensor_t bias = f32({10}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const char *names[] = {"l3.bias"};
  kiln_model_options_t o;
  kiln_model_options_init(&o);
  o.weight_names = names;
  o.weight_tensors = &bias;
  o.num_weights = 1;
  kiln_model_t m = nullptr;
  Status st{kiln_model_load(KILN_FAKE_MODEL_EXTERNAL, &o, &m)};
  ASSERT_EQ(st.s, nullptr) << st.message();
  kiln_tensor_t x = f32({1, 10}, std::vector<float>(10, 1.0f));
  auto run = [&] {
    kiln_tensor_t y = nullptr;
    Status r{kiln_model_run(m, &x, 1, &y, 1)};
    EXPECT_EQ(r.s, nullptr) << r.message();
    std::vector<float> v = values(y);
    kiln_tensor_release(y);
    return v;
  };
  EXPECT_EQ(run(), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  // Read in place: the caller's write shows in the next run.
  static_cast<float *>(kiln_tensor_data(bias))[0] = 100.0f;
  EXPECT_EQ(run()[0], 101.0f);
  kiln_model_free(m);
  kiln_tensor_release(x);

  // Every weight named once, of its dtype and shape; only models with external weights.
  kiln_tensor_t wrong = f32({9});
  const char *other[] = {"l3.weight"};
  o.weight_names = other;
  Status missing = load(KILN_FAKE_MODEL_EXTERNAL, &o);
  EXPECT_EQ(missing.code(), KILN_STATUS_NOT_FOUND);
  EXPECT_NE(missing.message().find("weight 'l3.bias' is not among the 1 weights given"), std::string::npos)
      << missing.message();
  o.weight_names = names;
  o.weight_tensors = &wrong;
  Status shape = load(KILN_FAKE_MODEL_EXTERNAL, &o);
  EXPECT_EQ(shape.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(shape.message().find("the weight given as 'l3.bias' is f32 [9], expected f32 [10]"),
            std::string::npos)
      << shape.message();
  o.weight_tensors = &bias;
  EXPECT_EQ(load(KILN_FAKE_MODEL, &o).code(), KILN_STATUS_FAILED_PRECONDITION);
  std::string weights = std::string(KILN_TEST_CORPUS) + "/mlp/model.core.pt2";
  o.weights_path = weights.c_str();
  EXPECT_EQ(load(KILN_FAKE_MODEL_EXTERNAL, &o).code(), KILN_STATUS_INVALID_ARGUMENT);
  o.weights_path = nullptr;
  o.weight_tensors = nullptr;
  EXPECT_EQ(load(KILN_FAKE_MODEL_EXTERNAL, &o).code(), KILN_STATUS_INVALID_ARGUMENT);
  kiln_tensor_release(wrong);
  kiln_tensor_release(bias);
}

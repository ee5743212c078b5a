// Tests of kiln_rt_call_op, the boxed bridge compiled code uses.
#include "kiln/library.h"
#include "kiln/rt_call.h"

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <gtest/gtest.h>

using namespace kiln;

namespace {
/// A rank-r memref descriptor in 8-byte words.
struct Desc {
  std::vector<int64_t> w;
  Desc(void *data, std::vector<int64_t> sizes, std::vector<int64_t> strides = {}, int64_t offset = 0) {
    if (strides.empty()) strides = Tensor::contiguousStrides(sizes);
    w = {(int64_t)data, (int64_t)data, offset};
    w.insert(w.end(), sizes.begin(), sizes.end());
    w.insert(w.end(), strides.begin(), strides.end());
  }
  explicit Desc(int64_t rank) : w(3 + 2 * rank, 0) {}
};
kiln_rt_value tensorValue(Desc &d, int64_t rank, DType dt = DType::Float32) {
  return kiln_rt_value{KILN_RT_TENSOR, (int64_t)dt, rank, d.w.data(), 0, 0};
}
kiln_rt_value intValue(int64_t i) { return kiln_rt_value{KILN_RT_INT, 0, 0, nullptr, i, 0}; }
kiln_rt_value floatValue(double f) { return kiln_rt_value{KILN_RT_FLOAT, 0, 0, nullptr, 0, f}; }
} // namespace

TEST(RtCall, AddmmWithTransposedView) {
  float bias[2] = {1, -1};
  float a[6] = {1, 2, 3, 4, 5, 6};   // [2, 3]
  float w[6] = {1, 0, 0, 0, 1, 1};   // [2, 3]; passed as its transpose [3, 2]
  Desc db(bias, {2}), da(a, {2, 3}), dw(w, {3, 2}, {1, 3});
  Desc out(2);
  kiln_rt_value args[3] = {tensorValue(db, 1), tensorValue(da, 2), tensorValue(dw, 2)};
  kiln_rt_value res[1] = {tensorValue(out, 2)};
  ASSERT_EQ(kiln_rt_call_op("aten::addmm", 3, args, 1, res), 0) << kiln_rt_last_error();
  EXPECT_STREQ(kiln_rt_last_error(), "");
  float *o = (float *)out.w[1];
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(out.w[0], out.w[1]);
  EXPECT_EQ(out.w[2], 0);
  EXPECT_EQ(out.w[3], 2);
  EXPECT_EQ(out.w[4], 2);
  EXPECT_EQ(out.w[5], 2); // contiguous strides
  EXPECT_EQ(out.w[6], 1);
  EXPECT_FLOAT_EQ(o[0], 2);
  EXPECT_FLOAT_EQ(o[1], 4);
  EXPECT_FLOAT_EQ(o[2], 5);
  EXPECT_FLOAT_EQ(o[3], 10);
  std::free((void *)out.w[0]);
}

TEST(RtCall, ScalarsListsDefaultsAndMultipleResults) {
  float x[16];
  for (int i = 0; i < 16; ++i) x[i] = (float)i;
  Desc dx(x, {1, 1, 4, 4});
  int64_t kernel[2] = {2, 2};
  kiln_rt_value args[2] = {tensorValue(dx, 4), {KILN_RT_INT_LIST, 0, 2, kernel, 0, 0}};
  Desc o0(4), o1(4);
  kiln_rt_value res[2] = {tensorValue(o0, 4), tensorValue(o1, 4, DType::Int64)};
  // Trailing arguments (stride, padding, dilation, ceil_mode) take their defaults.
  ASSERT_EQ(kiln_rt_call_op("aten::max_pool2d_with_indices", 2, args, 2, res), 0)
      << kiln_rt_last_error();
  EXPECT_FLOAT_EQ(((float *)o0.w[1])[3], 15);
  EXPECT_EQ(((int64_t *)o1.w[1])[3], 15);
  std::free((void *)o0.w[0]);
  std::free((void *)o1.w[0]);

  // add.Tensor with alpha given as an int for a Scalar; view with an int list.
  float y[4] = {1, 2, 3, 4};
  Desc dy(y, {4});
  kiln_rt_value addArgs[3] = {tensorValue(dy, 1), tensorValue(dy, 1), intValue(3)};
  Desc sum(1);
  kiln_rt_value sumRes[1] = {tensorValue(sum, 1)};
  ASSERT_EQ(kiln_rt_call_op("aten::add.Tensor", 3, addArgs, 1, sumRes), 0) << kiln_rt_last_error();
  EXPECT_FLOAT_EQ(((float *)sum.w[1])[3], 16);
  std::free((void *)sum.w[0]);

  // A view result is copied into a fresh buffer the caller owns.
  int64_t shape[2] = {2, 2};
  kiln_rt_value viewArgs[2] = {tensorValue(dy, 1), {KILN_RT_INT_LIST, 0, 2, shape, 0, 0}};
  Desc v(2);
  kiln_rt_value viewRes[1] = {tensorValue(v, 2)};
  ASSERT_EQ(kiln_rt_call_op("aten::view", 2, viewArgs, 1, viewRes), 0) << kiln_rt_last_error();
  EXPECT_NE((void *)v.w[1], (void *)y);
  EXPECT_FLOAT_EQ(((float *)v.w[1])[2], 3);
  std::free((void *)v.w[0]);

  // gelu's keyword-only str argument through the string extension tag (7).
  const char *approx = "tanh";
  kiln_rt_value geluArgs[2] = {tensorValue(dy, 1), {7, 0, 0, (void *)approx, 0, 0}};
  Desc g(1);
  kiln_rt_value geluRes[1] = {tensorValue(g, 1)};
  ASSERT_EQ(kiln_rt_call_op("aten::gelu", 2, geluArgs, 1, geluRes), 0) << kiln_rt_last_error();
  std::free((void *)g.w[0]);
  // A float where a float is expected, none for an optional.
  kiln_rt_value bnArgs[1] = {floatValue(1.0)};
  (void)bnArgs;
}

TEST(RtCall, ErrorsAreReportedNotThrown) {
  float y[2] = {1, 2};
  Desc dy(y, {2});
  kiln_rt_value args[1] = {tensorValue(dy, 1)};
  Desc out(1);
  kiln_rt_value res[1] = {tensorValue(out, 1)};
  EXPECT_NE(kiln_rt_call_op("nosuch::op", 1, args, 1, res), 0);
  EXPECT_NE(std::string(kiln_rt_last_error()).find("unknown op 'nosuch::op'"), std::string::npos);
  // Wrong result rank.
  Desc out2(2);
  kiln_rt_value res2[1] = {tensorValue(out2, 2)};
  EXPECT_NE(kiln_rt_call_op("aten::relu", 1, args, 1, res2), 0);
  EXPECT_NE(std::string(kiln_rt_last_error()).find("rank"), std::string::npos) << kiln_rt_last_error();
  // Wrong result count.
  EXPECT_NE(kiln_rt_call_op("aten::relu", 1, args, 2, res), 0);
  // Missing argument.
  EXPECT_NE(kiln_rt_call_op("aten::mm", 1, args, 1, res), 0);
  EXPECT_NE(std::string(kiln_rt_last_error()).find("missing argument 'mat2'"), std::string::npos)
      << kiln_rt_last_error();
  // Success clears the message.
  ASSERT_EQ(kiln_rt_call_op("aten::relu", 1, args, 1, res), 0);
  EXPECT_STREQ(kiln_rt_last_error(), "");
  std::free((void *)out.w[0]);
}

// A kernel that throws (a plugin's bug, or memory running out) is an error
// return with its message, whatever it throws; the process goes on and the
// next call works.
TEST(RtCall, ThrowingKernelsAreReportedAndCallsGoOn) {
  Library lib(Library::DEF, "rtcall_throw", std::nullopt, __FILE__, __LINE__);
  lib.def("std(Tensor x) -> Tensor",
          [](const Tensor &) -> Tensor { throw std::runtime_error("the kernel failed"); });
  lib.def("oom(Tensor x) -> Tensor", [](const Tensor &) -> Tensor { throw std::bad_alloc(); });
  lib.def("other(Tensor x) -> Tensor", [](const Tensor &) -> Tensor { throw 42; });
  float y[2] = {1, -2};
  Desc dy(y, {2});
  kiln_rt_value args[1] = {tensorValue(dy, 1)};
  for (int round = 0; round < 3; ++round) {
    Desc out(1);
    kiln_rt_value res[1] = {tensorValue(out, 1)};
    EXPECT_NE(kiln_rt_call_op("rtcall_throw::std", 1, args, 1, res), 0);
    EXPECT_NE(std::string(kiln_rt_last_error()).find("the kernel failed"), std::string::npos)
        << kiln_rt_last_error();
    EXPECT_NE(kiln_rt_call_op("rtcall_throw::oom", 1, args, 1, res), 0);
    EXPECT_NE(std::string(kiln_rt_last_error()).find("bad_alloc"), std::string::npos)
        << kiln_rt_last_error();
    EXPECT_NE(kiln_rt_call_op("rtcall_throw::other", 1, args, 1, res), 0);
    EXPECT_NE(std::string(kiln_rt_last_error()).find("unknown error"), std::string::npos)
        << kiln_rt_last_error();
    ASSERT_EQ(kiln_rt_call_op("aten::relu", 1, args, 1, res), 0) << kiln_rt_last_error();
    EXPECT_EQ(static_cast<float *>((void *)out.w[1])[1], 0.0f);
    std::free((void *)out.w[0]);
  }
}

// Outside a GPU model's call, the device variant is the host bridge.
TEST(RtCall, DeviceVariantOutsideAGPUCallRunsOnTheHost) {
  float y[4] = {1, 2, 3, 4};
  Desc dy(y, {4});
  kiln_rt_value args[3] = {tensorValue(dy, 1), tensorValue(dy, 1), intValue(2)};
  Desc sum(1);
  kiln_rt_value res[1] = {tensorValue(sum, 1)};
  ASSERT_EQ(kiln_rt_call_op_device("aten::add.Tensor", 3, args, 1, res), 0) << kiln_rt_last_error();
  EXPECT_FLOAT_EQ(((float *)sum.w[1])[0], 3);
  EXPECT_FLOAT_EQ(((float *)sum.w[1])[3], 12);
  std::free((void *)sum.w[0]);
}

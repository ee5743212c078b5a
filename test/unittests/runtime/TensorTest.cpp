// kiln tests — kiln::Tensor basics and the tensor half of the C ABI.
#include "kiln/kiln.h"
#include "kiln/tensor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

using namespace kiln;

static_assert((int)KILN_DTYPE_F32 == (int)DType::Float32 && (int)KILN_DTYPE_F64 == (int)DType::Float64 &&
                  (int)KILN_DTYPE_F16 == (int)DType::Float16 && (int)KILN_DTYPE_BF16 == (int)DType::BFloat16 &&
                  (int)KILN_DTYPE_I64 == (int)DType::Int64 && (int)KILN_DTYPE_I32 == (int)DType::Int32 &&
                  (int)KILN_DTYPE_I16 == (int)DType::Int16 && (int)KILN_DTYPE_I8 == (int)DType::Int8 &&
                  (int)KILN_DTYPE_U8 == (int)DType::UInt8 && (int)KILN_DTYPE_BOOL == (int)DType::Bool,
              "kiln_dtype_t must follow kiln::DType");

TEST(Tensor, EmptyIsContiguousAndAligned) {
  Tensor t = Tensor::empty({2, 3, 4}, DType::Float32);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.nbytes(), 96u);
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_TRUE(t.isContiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.rawData()) % kAlignment, 0u);
  EXPECT_EQ(t.shapeString(), "[2, 3, 4]");
}

TEST(Tensor, DTypeNames) {
  for (int i = 0; i < kNumDTypes; ++i) {
    DType d;
    ASSERT_TRUE(parseDType(dtypeName((DType)i), d));
    EXPECT_EQ((int)d, i);
    EXPECT_EQ(kiln_dtype_size((kiln_dtype_t)i), dtypeSize((DType)i));
    EXPECT_STREQ(kiln_dtype_name((kiln_dtype_t)i), dtypeName((DType)i));
  }
  DType d;
  EXPECT_FALSE(parseDType("f128", d));
  EXPECT_STREQ(kiln_dtype_name((kiln_dtype_t)99), "?");
}

TEST(Tensor, NoElementsIsContiguousWhateverTheStrides) {
  // A [2, 0, 8, 32] result (attention over zero heads) as a device buffer
  // may carry any strides: with no element it is contiguous, as in PyTorch.
  Tensor t = Tensor::empty({4}, DType::Float32);
  Tensor none = Tensor::view(t.storage(), 0, {2, 0, 8, 32}, {1, 1, 1, 1}, DType::Float32);
  EXPECT_EQ(none.numel(), 0);
  EXPECT_TRUE(none.isContiguous());
}

TEST(Tensor, TransposedViewMadeContiguous) {
  Tensor t = Tensor::empty({2, 3}, DType::Int32);
  std::iota(t.data<int32_t>(), t.data<int32_t>() + 6, 0);
  Tensor tr = Tensor::view(t.storage(), 0, {3, 2}, {1, 3}, DType::Int32);
  EXPECT_FALSE(tr.isContiguous());
  Tensor c = tr.contiguous();
  EXPECT_TRUE(c.isContiguous());
  EXPECT_EQ(std::vector<int32_t>(c.data<int32_t>(), c.data<int32_t>() + 6),
            (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

TEST(Tensor, ReshapeAndClone) {
  Tensor t = Tensor::zeros({4, 6}, DType::Float64);
  Tensor r = t.reshape({2, -1, 3});
  EXPECT_EQ(r.sizes(), (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(r.storage(), t.storage());
  Tensor c = t.clone();
  EXPECT_NE(c.storage(), t.storage());
  EXPECT_THROW(t.reshape({5, 5}), std::invalid_argument);
}

TEST(CApiTensor, Version) {
  EXPECT_EQ(kiln_abi_version(), 1u << 16 | 9u);
  EXPECT_EQ(kiln_abi_version() >> 16, (uint32_t)KILN_ABI_VERSION_MAJOR);
}

TEST(CApiTensor, CreateIsZeroedAndAligned) {
  int64_t sizes[] = {3, 5};
  kiln_tensor_t t = nullptr;
  ASSERT_EQ(kiln_tensor_create(KILN_DTYPE_F64, 2, sizes, &t), nullptr);
  EXPECT_EQ(kiln_tensor_dtype(t), KILN_DTYPE_F64);
  EXPECT_EQ(kiln_tensor_rank(t), 2u);
  EXPECT_EQ(kiln_tensor_sizes(t)[0], 3);
  EXPECT_EQ(kiln_tensor_sizes(t)[1], 5);
  EXPECT_EQ(kiln_tensor_nbytes(t), 120u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(kiln_tensor_data(t)) % 64, 0u);
  auto *p = static_cast<double *>(kiln_tensor_data(t));
  for (int i = 0; i < 15; ++i) EXPECT_EQ(p[i], 0.0);
  kiln_tensor_release(t);
}

TEST(CApiTensor, ScalarAndEmpty) {
  kiln_tensor_t s = nullptr, e = nullptr;
  ASSERT_EQ(kiln_tensor_create(KILN_DTYPE_I64, 0, nullptr, &s), nullptr);
  EXPECT_EQ(kiln_tensor_nbytes(s), 8u);
  int64_t zero[] = {0, 7};
  ASSERT_EQ(kiln_tensor_create(KILN_DTYPE_F32, 2, zero, &e), nullptr);
  EXPECT_EQ(kiln_tensor_nbytes(e), 0u);
  kiln_tensor_release(s);
  kiln_tensor_release(e);
}

TEST(CApiTensor, CreateRejectsBadArguments) {
  int64_t neg[] = {2, -1};
  kiln_tensor_t t = nullptr;
  kiln_status_t st = kiln_tensor_create(KILN_DTYPE_F32, 2, neg, &t);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(kiln_status_code(st), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_status_message(st)).find("negative size"), std::string::npos);
  kiln_status_free(st);
  st = kiln_tensor_create((kiln_dtype_t)42, 0, nullptr, &t);
  EXPECT_EQ(kiln_status_code(st), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(st);
  st = kiln_tensor_create(KILN_DTYPE_F32, 1, nullptr, &t);
  EXPECT_EQ(kiln_status_code(st), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(st);
  int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 40};
  st = kiln_tensor_create(KILN_DTYPE_F32, 2, huge, &t);
  EXPECT_EQ(kiln_status_code(st), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(st);
  EXPECT_EQ(t, nullptr);  // outputs untouched on failure
}

TEST(CApiTensor, WrapCallsDeleterOnceOnLastRelease) {
  static int calls;
  calls = 0;
  float buf[6] = {1, 2, 3, 4, 5, 6};
  int64_t sizes[] = {2, 3};
  kiln_tensor_t t = nullptr;
  ASSERT_EQ(kiln_tensor_wrap(buf, KILN_DTYPE_F32, 2, sizes,
                             [](void *data, void *user) {
                               ++calls;
                               EXPECT_EQ(data, user);
                             },
                             buf, &t),
            nullptr);
  EXPECT_EQ(kiln_tensor_data(t), buf);
  kiln_tensor_retain(t);
  kiln_tensor_release(t);
  EXPECT_EQ(calls, 0);
  kiln_tensor_release(t);
  EXPECT_EQ(calls, 1);
}

TEST(CApiTensor, WrapFailureKeepsOwnership) {
  static int calls;
  calls = 0;
  int64_t sizes[] = {4};
  kiln_tensor_t t = nullptr;
  kiln_status_t st =
      kiln_tensor_wrap(nullptr, KILN_DTYPE_F32, 1, sizes, [](void *, void *) { ++calls; }, nullptr, &t);
  EXPECT_EQ(kiln_status_code(st), KILN_STATUS_INVALID_ARGUMENT);
  kiln_status_free(st);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(t, nullptr);
}

TEST(CApiTensor, WrapDeviceKeepsPointerAndDevice) {
  // The memory is never touched, so any address stands for a device pointer.
  static int calls;
  calls = 0;
  int64_t sizes[] = {2, 3};
  void *fake = reinterpret_cast<void *>(uintptr_t(0x7f0000001000));
  kiln_tensor_t t = nullptr;
  ASSERT_EQ(kiln_tensor_wrap_device(fake, KILN_DEVICE_CUDA, KILN_DTYPE_F32, 2, sizes,
                                    [](void *p, void *user) { ++calls; }, nullptr, &t),
            nullptr);
  EXPECT_EQ(kiln_tensor_device(t), KILN_DEVICE_CUDA);
  EXPECT_EQ(kiln_tensor_data(t), fake);
  EXPECT_EQ(kiln_tensor_nbytes(t), 24u);
  EXPECT_EQ(kiln_tensor_rank(t), 2u);
  kiln_tensor_release(t);
  EXPECT_EQ(calls, 1);

  // KILN_DEVICE_CPU is kiln_tensor_wrap.
  float host[6] = {};
  ASSERT_EQ(kiln_tensor_wrap_device(host, KILN_DEVICE_CPU, KILN_DTYPE_F32, 2, sizes, nullptr, nullptr, &t),
            nullptr);
  EXPECT_EQ(kiln_tensor_device(t), KILN_DEVICE_CPU);
  kiln_tensor_release(t);
}

TEST(CApiTensor, WrapDeviceRejectsBadArguments) {
  static int calls;
  calls = 0;
  int64_t sizes[] = {4};
  kiln_tensor_t t = nullptr;
  kiln_status_t st = kiln_tensor_wrap_device(reinterpret_cast<void *>(uintptr_t(0x1000)), (kiln_device_type_t)7,
                                             KILN_DTYPE_F32, 1, sizes, [](void *, void *) { ++calls; }, nullptr, &t);
  EXPECT_EQ(kiln_status_code(st), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_status_message(st), "kiln_tensor_wrap_device: unknown device 7");
  kiln_status_free(st);
  st = kiln_tensor_wrap_device(nullptr, KILN_DEVICE_CUDA, KILN_DTYPE_F32, 1, sizes,
                               [](void *, void *) { ++calls; }, nullptr, &t);
  EXPECT_EQ(kiln_status_code(st), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_status_message(st), "kiln_tensor_wrap_device: data is NULL for a non-empty tensor");
  kiln_status_free(st);
  EXPECT_EQ(calls, 0);  // ownership stays with the caller on failure
  EXPECT_EQ(t, nullptr);
}

TEST(CApiTensor, NullHandlesAreHarmless) {
  kiln_tensor_retain(nullptr);
  kiln_tensor_release(nullptr);
  kiln_status_free(nullptr);
  EXPECT_EQ(kiln_status_code(nullptr), KILN_STATUS_OK);
  EXPECT_STREQ(kiln_status_message(nullptr), "");
  EXPECT_STREQ(kiln_status_code_name(KILN_STATUS_OUT_OF_RANGE), "OUT_OF_RANGE");
}

TEST(Tensor, ContiguousStridesThatOverflowAreAnError) {
  const int64_t big = int64_t(1) << 62;
  // [2^62, 4]: strides [4, 1] would need 2^62 * 4 only past the first dim: fine.
  EXPECT_EQ(kiln::Tensor::contiguousStrides({big, 4}), (std::vector<int64_t>{4, 1}));
  // [2, 2^62, 4]: the first stride, 2^64, does not fit.
  EXPECT_THROW(kiln::Tensor::contiguousStrides({2, big, 4}), std::invalid_argument);
}

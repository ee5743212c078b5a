// kiln tests — the runtime's CUDA backend and C ABI 1.1 on a machine where no CUDA driver loads.
#include "Manifest.h"
#include "TestUtil.h"
#include "kiln/cuda.h"
#include "kiln/kiln.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

// The generated code's entry points into the runtime (runtime/src/gpu/MgpuAbi.cpp).
extern "C" {
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuModuleUnload(void *module);
void *mgpuMemAlloc(uint64_t size, void *stream, bool hostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuLaunchKernel(void *f, intptr_t gx, intptr_t gy, intptr_t gz, intptr_t bx, intptr_t by, intptr_t bz,
                      int32_t smem, void *stream, void **params, void **extra, size_t count);
// kiln/abi/gpu_calls.h: a host read of a device value (runtime/src/gpu/HostCalls.cpp).
void _mlir_ciface_kiln_gpu_read_to_host(int64_t dst, int64_t src, int64_t nbytes);
}

namespace {

// Before any test runs: the driver library does not exist, whatever the machine.
const bool kNoDriver = [] {
  setenv("KILN_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  return true;
}();

using kiln::test::Status;

TEST(Cuda, DeviceCheckSaysWhy) {
  ASSERT_TRUE(kNoDriver);
  Status cpu{kiln_device_check(KILN_DEVICE_CPU)};
  EXPECT_EQ(cpu.s, nullptr);
  Status cuda{kiln_device_check(KILN_DEVICE_CUDA)};
  EXPECT_EQ(cuda.code(), KILN_STATUS_DEVICE_ERROR);
  EXPECT_EQ(cuda.message().rfind("no CUDA driver: cannot load /nonexistent/libcuda.so.1 (", 0), 0u)
      << cuda.message();
  EXPECT_STREQ(kiln_status_code_name(KILN_STATUS_DEVICE_ERROR), "DEVICE_ERROR");
  Status bad{kiln_device_check((kiln_device_type_t)42)};
  EXPECT_EQ(bad.code(), KILN_STATUS_INVALID_ARGUMENT);

  std::string why;
  EXPECT_FALSE(kiln::cuda::available(&why));
  EXPECT_EQ(why, cuda.message());
  EXPECT_THROW(kiln::cuda::threadStream(), std::runtime_error);
  EXPECT_THROW(kiln::cuda::deviceDescription(), std::runtime_error);
}

TEST(Cuda, TensorsAndCopies) {
  int64_t sizes[] = {2, 3};
  kiln_tensor_t t = nullptr;
  Status st{kiln_tensor_create(KILN_DTYPE_F32, 2, sizes, &t)};
  ASSERT_EQ(st.s, nullptr);
  auto *p = static_cast<float *>(kiln_tensor_data(t));
  for (int i = 0; i < 6; ++i) p[i] = 0.5f * i;
  EXPECT_EQ(kiln_tensor_device(t), KILN_DEVICE_CPU);

  kiln_tensor_t c = nullptr;
  Status copy{kiln_tensor_copy_to(t, KILN_DEVICE_CPU, nullptr, &c)};
  ASSERT_EQ(copy.s, nullptr) << copy.message();
  EXPECT_NE(kiln_tensor_data(c), kiln_tensor_data(t));
  EXPECT_EQ(std::memcmp(kiln_tensor_data(c), p, 24), 0);
  EXPECT_EQ(kiln_tensor_device(c), KILN_DEVICE_CPU);
  kiln_tensor_release(c);

  kiln_tensor_t d = nullptr;
  Status gpu{kiln_tensor_copy_to(t, KILN_DEVICE_CUDA, nullptr, &d)};
  EXPECT_EQ(gpu.code(), KILN_STATUS_DEVICE_ERROR);
  EXPECT_EQ(d, nullptr);
  Status bad{kiln_tensor_copy_to(t, (kiln_device_type_t)7, nullptr, &d)};
  EXPECT_EQ(bad.code(), KILN_STATUS_INVALID_ARGUMENT);
  kiln_tensor_release(t);
}

TEST(Cuda, RunOptionsOnACpuModel) {
  kiln_model_t model = nullptr;
  Status load{kiln_model_load(KILN_FAKE_MODEL, nullptr, &model)};
  ASSERT_EQ(load.s, nullptr) << load.message();
  EXPECT_EQ(kiln_model_device(model), KILN_DEVICE_CPU);

  kiln_run_options_t o;
  std::memset(&o, 0xff, sizeof o);
  kiln_run_options_init(&o);
  EXPECT_EQ(o.struct_size, sizeof o);
  EXPECT_EQ(o.stream, nullptr);
  EXPECT_EQ(o.output_device, KILN_DEVICE_CPU);
  EXPECT_EQ(o.cuda_graphs, 1);
  EXPECT_EQ(o.static_inputs, nullptr);

  // The fake model: x [s0, 4] and b [s0] -> 3 outputs (see fake_model.c).
  int64_t xs[] = {2, 4}, bs[] = {2};
  kiln_tensor_t in[2] = {nullptr, nullptr};
  Status sx{kiln_tensor_create(KILN_DTYPE_F32, 2, xs, &in[0])};
  Status sb{kiln_tensor_create(KILN_DTYPE_F32, 1, bs, &in[1])};
  ASSERT_EQ(sx.s, nullptr);
  ASSERT_EQ(sb.s, nullptr);
  kiln_tensor_t out[3] = {nullptr, nullptr, nullptr};
  Status run{kiln_model_run_with_options(model, &o, in, 2, out, 3)};
  ASSERT_EQ(run.s, nullptr) << run.message();
  for (kiln_tensor_t t : out) {
    EXPECT_EQ(kiln_tensor_device(t), KILN_DEVICE_CPU);
    kiln_tensor_release(t);
  }
  // Static inputs matter only to a GPU model's graph: a CPU model runs the same.
  const unsigned char flags[2] = {0, 1};
  o.static_inputs = flags;
  Status withStatic{kiln_model_run_with_options(model, &o, in, 2, out, 3)};
  ASSERT_EQ(withStatic.s, nullptr) << withStatic.message();
  for (kiln_tensor_t t : out) kiln_tensor_release(t);
  o.static_inputs = nullptr;
  Status defaults{kiln_model_run_with_options(model, nullptr, in, 2, out, 3)};
  ASSERT_EQ(defaults.s, nullptr) << defaults.message();
  for (kiln_tensor_t t : out) kiln_tensor_release(t);

  o.output_device = KILN_DEVICE_CUDA;
  Status wrongDevice{kiln_model_run_with_options(model, &o, in, 2, out, 3)};
  EXPECT_EQ(wrongDevice.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(wrongDevice.message().find("neither the CPU nor the model's device (cpu)"), std::string::npos)
      << wrongDevice.message();
  o.struct_size = 0;
  Status unset{kiln_model_run_with_options(model, &o, in, 2, out, 3)};
  EXPECT_EQ(unset.code(), KILN_STATUS_INVALID_ARGUMENT);
  for (kiln_tensor_t t : in) kiln_tensor_release(t);
  kiln_model_free(model);
}

// The functions a CUDA model's host code calls degrade to "nothing loaded,
// nothing allocated" without a driver; the loader reports the driver error.
TEST(Cuda, GeneratedCodeEntryPointsWithoutADriver) {
  char blob[16] = {0};
  EXPECT_EQ(mgpuModuleLoad(blob, sizeof blob), nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(nullptr, "k"), nullptr);
  mgpuModuleUnload(nullptr);
  EXPECT_EQ(mgpuMemAlloc(0, nullptr, false), nullptr);
  mgpuMemFree(nullptr, nullptr);
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  // A host read of a device value that cannot be made leaves zeros, not
  // what the host scalar held before, and does not touch the source.
  int64_t value = -1, source = 42;
  _mlir_ciface_kiln_gpu_read_to_host(reinterpret_cast<int64_t>(&value), reinterpret_cast<int64_t>(&source),
                                     sizeof value);
  EXPECT_EQ(value, 0);
  EXPECT_EQ(source, 42);
}

TEST(Cuda, ManifestDeviceLine) {
  auto parse = [](const std::string &device) {
    return kiln::parseManifest("kiln-manifest 1\nname m\nweights embedded\n" + device +
                               "arg input x f32 1 4\nout y f32 1 4\nend\n");
  };
  kiln::Manifest cpu = parse("");
  EXPECT_EQ(cpu.device, kiln::DeviceType::CPU);
  kiln::Manifest cuda = parse("device cuda sm_90\n");
  EXPECT_EQ(cuda.device, kiln::DeviceType::CUDA);
  EXPECT_EQ(cuda.deviceArch, "sm_90");
  EXPECT_EQ(parse("device cpu\n").device, kiln::DeviceType::CPU);
  auto message = [&](const std::string &device) {
    try {
      parse(device);
    } catch (const std::exception &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("device cuda\n"),
            "manifest line 4 (\"device cuda\"): expected 'device cuda <arch>' (e.g. sm_90)");
  EXPECT_EQ(message("device tpu v4\n"),
            "manifest line 4 (\"device tpu v4\"): expected 'device cpu', 'device cuda <arch>' or 'device hip <arch>'");
  EXPECT_EQ(message("device cuda sm_90\ndevice cuda sm_80\n"),
            "manifest line 5 (\"device cuda sm_80\"): duplicate 'device' line");
}

} // namespace

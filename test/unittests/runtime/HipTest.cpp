// kiln tests — the runtime's HIP backend and C ABI 1.3 on a machine where no HIP runtime loads.
#include "Manifest.h"
#include "TestUtil.h"
#include "kiln/gpu.h"
#include "kiln/kiln.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

// The generated code's entry points into the runtime (runtime/src/gpu/MgpuAbi.cpp).
extern "C" {
void *mgpuModuleLoad(void *data, size_t size);
void *mgpuModuleGetFunction(void *module, const char *name);
}

namespace {

// Before any test runs: the HIP runtime library does not exist, whatever the machine.
const bool kNoRuntime = [] {
  setenv("KILN_HIP_RUNTIME", "/nonexistent/libamdhip64.so", 1);
  return true;
}();

using kiln::test::Status;

TEST(Hip, AbiVersionAndDeviceValue) {
  EXPECT_EQ(kiln_abi_version(), 1u << 16 | 9u);
  EXPECT_EQ((int)KILN_DEVICE_HIP, 2);
}

TEST(Hip, DeviceCheckSaysWhy) {
  ASSERT_TRUE(kNoRuntime);
  Status hip{kiln_device_check(KILN_DEVICE_HIP)};
  EXPECT_EQ(hip.code(), KILN_STATUS_DEVICE_ERROR);
  EXPECT_EQ(hip.message().rfind("no HIP runtime: cannot load /nonexistent/libamdhip64.so (", 0), 0u)
      << hip.message();
  EXPECT_NE(hip.message().find("kiln's ROCm models need an AMD GPU and ROCm's HIP runtime"), std::string::npos)
      << hip.message();

  std::string why;
  EXPECT_FALSE(kiln::gpu::available(kiln::DeviceType::HIP, &why));
  EXPECT_EQ(why, hip.message());
  EXPECT_THROW(kiln::gpu::threadStream(kiln::DeviceType::HIP), std::runtime_error);
  EXPECT_THROW(kiln::gpu::deviceDescription(kiln::DeviceType::HIP), std::runtime_error);
  EXPECT_THROW(kiln::gpu::createStream(kiln::DeviceType::HIP), std::runtime_error);
  EXPECT_THROW(kiln::gpu::EventTimer timer(kiln::DeviceType::HIP), std::runtime_error);
  // Neither the CPU nor Meta is a GPU.
  EXPECT_THROW(kiln::gpu::threadStream(kiln::DeviceType::CPU), std::runtime_error);
}

TEST(Hip, CopiesToTheDeviceFailWithTheReason) {
  int64_t sizes[] = {4};
  kiln_tensor_t t = nullptr;
  Status st{kiln_tensor_create(KILN_DTYPE_F32, 1, sizes, &t)};
  ASSERT_EQ(st.s, nullptr);
  kiln_tensor_t d = nullptr;
  Status gpu{kiln_tensor_copy_to(t, KILN_DEVICE_HIP, nullptr, &d)};
  EXPECT_EQ(gpu.code(), KILN_STATUS_DEVICE_ERROR);
  EXPECT_EQ(gpu.message().rfind("no HIP runtime", 0), 0u) << gpu.message();
  EXPECT_EQ(d, nullptr);
  kiln_tensor_release(t);
}

TEST(Hip, OutputDeviceMustBeTheModels) {
  kiln_model_t model = nullptr;
  Status load{kiln_model_load(KILN_FAKE_MODEL, nullptr, &model)};
  ASSERT_EQ(load.s, nullptr) << load.message();
  kiln_run_options_t o;
  kiln_run_options_init(&o);
  o.output_device = KILN_DEVICE_HIP;
  int64_t xs[] = {2, 4}, bs[] = {2};
  kiln_tensor_t in[2] = {nullptr, nullptr};
  Status sx{kiln_tensor_create(KILN_DTYPE_F32, 2, xs, &in[0])};
  Status sb{kiln_tensor_create(KILN_DTYPE_F32, 1, bs, &in[1])};
  kiln_tensor_t out[3] = {nullptr, nullptr, nullptr};
  Status wrong{kiln_model_run_with_options(model, &o, in, 2, out, 3)};
  EXPECT_EQ(wrong.code(), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(wrong.message().find("output_device 2 is neither the CPU nor the model's device (cpu)"),
            std::string::npos)
      << wrong.message();
  for (kiln_tensor_t t : in) kiln_tensor_release(t);
  kiln_model_free(model);
}

// A ROCm model's constructor hands mgpuModuleLoad an AMDGPU code object: it
// goes to the HIP backend, which has no runtime here, so nothing is loaded.
TEST(Hip, AmdgpuImagesGoToTheHipBackend) {
  unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0x40};
  elf[18] = 224;  // EM_AMDGPU
  EXPECT_EQ(mgpuModuleLoad(elf, sizeof elf), nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(nullptr, "forward_kernel"), nullptr);
}

TEST(Hip, ManifestDeviceLine) {
  kiln::Manifest m = kiln::parseManifest(
      "kiln-manifest 1\nname forward\nweights embedded\ndevice hip gfx942\nout y f32 1 4\nend\n");
  EXPECT_EQ(m.device, kiln::DeviceType::HIP);
  EXPECT_EQ(m.deviceArch, "gfx942");
  try {
    kiln::parseManifest("kiln-manifest 1\nname forward\nweights embedded\ndevice hip\nout y f32 1 4\nend\n");
    ADD_FAILURE() << "a hip device line without an architecture was accepted";
  } catch (const std::exception &e) {
    EXPECT_NE(std::string(e.what()).find("expected 'device hip <arch>' (e.g. gfx90a)"), std::string::npos)
        << e.what();
  }
}

} // namespace

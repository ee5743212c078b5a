// GoogleTest: a model's CPU library call where oneDNN cannot be loaded fails with a message naming the library.
#include "Library.h"
#include "kiln/abi/cpu_calls.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {
struct Desc3 {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
};
} // namespace

extern "C" void _mlir_ciface_kiln_cpu_gemm_f32(int32_t, int32_t, int32_t, Desc3 *, Desc3 *, Desc3 *);

TEST(CpuLibraryMissing, TheErrorNamesTheLibraryAndTheOverride) {
  // Before anything loads oneDNN in this process (its own test binary).
  ASSERT_EQ(setenv("KILN_DNNL", "/nonexistent/libdnnl.so.2", 1), 0);
  float a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, c[4] = {};
  Desc3 A{a, a, 0, {1, 2, 2}, {4, 2, 1}}, B{b, b, 0, {1, 2, 2}, {4, 2, 1}}, C{c, c, 0, {1, 2, 2}, {4, 2, 1}};
  kiln::cpu::clearError();
  _mlir_ciface_kiln_cpu_gemm_f32(0, 0, KILN_CPU_OVERWRITE, &A, &B, &C);
  std::string error = kiln::cpu::takeError();
  EXPECT_NE(error.find("oneDNN"), std::string::npos) << error;
  EXPECT_NE(error.find("/nonexistent/libdnnl.so.2"), std::string::npos) << error;
  EXPECT_NE(error.find("KILN_DNNL"), std::string::npos) << error;
  EXPECT_NE(error.find("--cpu-library=off"), std::string::npos) << error;
  EXPECT_EQ(kiln::cpu::takeError(), "");  // taken once
}

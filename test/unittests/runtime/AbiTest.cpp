// Tests that the runtime implements what the ABI headers say the compiler may call (runtime/abi).
#include "kiln/abi/gpu_calls.h"
#include "kiln/abi/model_format.h"
#include "kiln/abi/query.h"
#include "kiln/abi/rt_call.h"
#include "kiln/kiln.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <string>

namespace {
/// Where to look the symbols up: this test links the runtime library.
void *runtime() { return RTLD_DEFAULT; }
} // namespace

TEST(Abi, RuntimeExportsEveryGpuLibraryCall) {
  int n = 0;
#define KILN_CHECK_CALL(name)                                                               \
  {                                                                                         \
    std::string sym = std::string(KILN_GPU_CALL_SYMBOL_PREFIX) + name;                      \
    EXPECT_NE(dlsym(runtime(), sym.c_str()), nullptr) << "the runtime does not define " << sym; \
    ++n;                                                                                    \
  }
  KILN_GPU_CALLS(KILN_CHECK_CALL)
#undef KILN_CHECK_CALL
  // GEMMs, convolutions (and those with a bias, and a residual) and their
  // gradients (bwd_data, bwd_filter), attention, reads of device values (1.8)
  EXPECT_EQ(n, 35);
}

TEST(Abi, RuntimeExportsTheRuntimeCallsAndQueries) {
  for (const char *sym : {KILN_RT_CALL_OP_SYMBOL, KILN_RT_CALL_OP_DEVICE_SYMBOL, "kiln_rt_last_error",
                          "kiln_query_version", "kiln_query_load_plugin", "kiln_query_find_op",
                          "kiln_query_op_free"})
    EXPECT_NE(dlsym(runtime(), sym), nullptr) << "the runtime does not define " << sym;
}

TEST(Abi, DtypeTokensAreTheRuntimesNames) {
  const std::pair<kiln_dtype_t, const char *> tokens[] = {
      {KILN_DTYPE_F32, KILN_DTYPE_TOKEN_F32}, {KILN_DTYPE_F64, KILN_DTYPE_TOKEN_F64},
      {KILN_DTYPE_F16, KILN_DTYPE_TOKEN_F16}, {KILN_DTYPE_BF16, KILN_DTYPE_TOKEN_BF16},
      {KILN_DTYPE_I64, KILN_DTYPE_TOKEN_I64}, {KILN_DTYPE_I32, KILN_DTYPE_TOKEN_I32},
      {KILN_DTYPE_I16, KILN_DTYPE_TOKEN_I16}, {KILN_DTYPE_I8, KILN_DTYPE_TOKEN_I8},
      {KILN_DTYPE_U8, KILN_DTYPE_TOKEN_U8},   {KILN_DTYPE_BOOL, KILN_DTYPE_TOKEN_BOOL}};
  for (auto [code, token] : tokens) EXPECT_STREQ(kiln_dtype_name(code), token);
}

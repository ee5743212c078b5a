// kiln tests — the HIP API the runtime declares itself (runtime/src/hip/HipApi.h) against Debian's HIP headers.
//
// The runtime loads libamdhip64 with dlopen and so needs no HIP headers to
// build; this test, built where libamdhip64-dev is installed, checks at
// compile time that every constant kiln uses has HIP's value and that every
// entry point kiln calls has HIP's arity, parameter sizes and return size.
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__
#endif
#include <hip/hip_runtime_api.h>

#include "HipApi.h"

#include "AbiShape.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <tuple>

namespace {

using kiln::test::sameShape;

#define KILN_CHECK_ENTRY(field)                                                                   \
  static_assert(sameShape<decltype(kiln::hip::Api::field), decltype(&::field)>(),                \
                "kiln's declaration of " #field " differs from HIP's");
// An overloaded entry point: the cast itself checks that HIP declares the C
// signature kiln loads.
#define KILN_CHECK_OVERLOADED(field, signature)                                                   \
  static_assert(sameShape<decltype(kiln::hip::Api::field),                                       \
                          decltype(static_cast<signature>(&::field))>(),                         \
                "kiln's declaration of " #field " differs from HIP's");
KILN_HIP_ENTRY_POINTS(KILN_CHECK_ENTRY, KILN_CHECK_OVERLOADED)
#undef KILN_CHECK_OVERLOADED
#undef KILN_CHECK_ENTRY

static_assert(kiln::hip::hipSuccess == ::hipSuccess);
static_assert(kiln::hip::hipErrorOutOfMemory == ::hipErrorOutOfMemory);
static_assert(kiln::hip::hipErrorNoDevice == ::hipErrorNoDevice);
static_assert(kiln::hip::hipErrorInvalidDevice == ::hipErrorInvalidDevice);
static_assert(kiln::hip::hipErrorInvalidImage == ::hipErrorInvalidImage);
static_assert(kiln::hip::hipErrorNoBinaryForGpu == ::hipErrorNoBinaryForGpu);
static_assert(kiln::hip::kHipStreamNonBlocking == hipStreamNonBlocking);
static_assert(kiln::hip::kHipEventDefault == hipEventDefault);
static_assert(kiln::hip::kHipEventDisableTiming == hipEventDisableTiming);
static_assert(kiln::hip::hipStreamCaptureModeThreadLocal == ::hipStreamCaptureModeThreadLocal);
static_assert(kiln::hip::hipMemcpyDefault == ::hipMemcpyDefault);
static_assert(kiln::hip::hipDeviceAttributeMultiprocessorCount == ::hipDeviceAttributeMultiprocessorCount);
static_assert(kiln::hip::kDevicePropSize == sizeof(hipDeviceProp_t));
static_assert(kiln::hip::kDevicePropGcnArchName == offsetof(hipDeviceProp_t, gcnArchName));
static_assert(sizeof(kiln::hip::hipError_t) == sizeof(::hipError_t));
static_assert(sizeof(kiln::hip::hipDeviceptr_t) == sizeof(::hipDeviceptr_t));

// The checks are the static_asserts above; this records that they compiled.
TEST(HipHeaders, DeclarationsMatchDebianHipHeaders) {
  int entryPoints = 0;
#define KILN_COUNT_ENTRY(field) ++entryPoints;
#define KILN_COUNT_OVERLOADED(field, signature) ++entryPoints;
  KILN_HIP_ENTRY_POINTS(KILN_COUNT_ENTRY, KILN_COUNT_OVERLOADED)
#undef KILN_COUNT_OVERLOADED
#undef KILN_COUNT_ENTRY
  EXPECT_EQ(entryPoints, 39);
  EXPECT_EQ(HIP_VERSION_MAJOR, 5);
}

} // namespace

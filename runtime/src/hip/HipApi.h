// kiln runtime — the HIP runtime API, loaded from libamdhip64 at run time (no HIP headers needed).
//
// The few types, constants and entry points kiln calls, with HIP's ABI
// (ROCm 5.x; later releases keep these entry points). A test compiled
// against Debian's HIP headers checks every declaration here against them
// (test/unittests/runtime/HipHeadersTest.cpp).
#ifndef KILN_HIP_API_H
#define KILN_HIP_API_H

#include <cstddef>

namespace kiln::hip {

using hipError_t = int;
using hipDevice_t = int;
using hipDeviceptr_t = void *;
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef struct ihipGraph *hipGraph_t;
typedef struct hipGraphExec *hipGraphExec_t;

constexpr hipError_t hipSuccess = 0;
constexpr hipError_t hipErrorOutOfMemory = 2;
constexpr hipError_t hipErrorNoDevice = 100;
constexpr hipError_t hipErrorInvalidDevice = 101;
constexpr hipError_t hipErrorInvalidImage = 200;
constexpr hipError_t hipErrorNoBinaryForGpu = 209;
// (Macros in HIP's headers, hence the k prefix.)
constexpr unsigned kHipStreamNonBlocking = 1;
constexpr unsigned kHipEventDefault = 0;
constexpr unsigned kHipEventDisableTiming = 2;
constexpr int hipStreamCaptureModeThreadLocal = 1;
constexpr int hipMemcpyDefault = 4;
constexpr int hipDeviceAttributeMultiprocessorCount = 63;
/// hipDeviceProp_t (the layout hipGetDeviceProperties fills): its size and
/// where the architecture name ("gfx90a:sramecc+:xnack-") is.
constexpr size_t kDevicePropSize = 792;
constexpr size_t kDevicePropGcnArchName = 396;

/// Entry points of libamdhip64 that kiln calls.
struct Api {
  hipError_t (*hipInit)(unsigned);
  const char *(*hipGetErrorName)(hipError_t);
  const char *(*hipGetErrorString)(hipError_t);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipSetDevice)(int);
  hipError_t (*hipDeviceGet)(hipDevice_t *, int);
  hipError_t (*hipDeviceGetName)(char *, int, hipDevice_t);
  hipError_t (*hipDeviceGetAttribute)(int *, int, int);
  hipError_t (*hipDeviceTotalMem)(size_t *, hipDevice_t);
  hipError_t (*hipGetDeviceProperties)(void *, int);
  hipError_t (*hipDeviceSynchronize)();
  hipError_t (*hipMemGetInfo)(size_t *, size_t *);
  hipError_t (*hipMalloc)(void **, size_t);
  hipError_t (*hipFree)(void *);
  hipError_t (*hipMemcpyHtoDAsync)(hipDeviceptr_t, void *, size_t, hipStream_t);
  hipError_t (*hipMemcpyDtoHAsync)(void *, hipDeviceptr_t, size_t, hipStream_t);
  hipError_t (*hipMemcpyDtoDAsync)(hipDeviceptr_t, hipDeviceptr_t, size_t, hipStream_t);
  hipError_t (*hipMemcpyAsync)(void *, const void *, size_t, int, hipStream_t);
  hipError_t (*hipMemsetD32Async)(hipDeviceptr_t, int, size_t, hipStream_t);
  hipError_t (*hipMemsetD16Async)(hipDeviceptr_t, unsigned short, size_t, hipStream_t);
  hipError_t (*hipStreamCreateWithFlags)(hipStream_t *, unsigned);
  hipError_t (*hipStreamDestroy)(hipStream_t);
  hipError_t (*hipStreamSynchronize)(hipStream_t);
  hipError_t (*hipStreamWaitEvent)(hipStream_t, hipEvent_t, unsigned);
  hipError_t (*hipEventCreateWithFlags)(hipEvent_t *, unsigned);
  hipError_t (*hipEventDestroy)(hipEvent_t);
  hipError_t (*hipEventRecord)(hipEvent_t, hipStream_t);
  hipError_t (*hipEventSynchronize)(hipEvent_t);
  hipError_t (*hipEventElapsedTime)(float *, hipEvent_t, hipEvent_t);
  hipError_t (*hipModuleLoadData)(hipModule_t *, const void *);
  hipError_t (*hipModuleUnload)(hipModule_t);
  hipError_t (*hipModuleGetFunction)(hipFunction_t *, hipModule_t, const char *);
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, hipStream_t, void **, void **);
  hipError_t (*hipStreamBeginCapture)(hipStream_t, int);
  hipError_t (*hipStreamEndCapture)(hipStream_t, hipGraph_t *);
  hipError_t (*hipGraphInstantiateWithFlags)(hipGraphExec_t *, hipGraph_t, unsigned long long);
  hipError_t (*hipGraphLaunch)(hipGraphExec_t, hipStream_t);
  hipError_t (*hipGraphExecDestroy)(hipGraphExec_t);
  hipError_t (*hipGraphDestroy)(hipGraph_t);
};

/// Every entry point of Api, named as the symbol it is loaded from, for the
/// loader and the header test: X(field), or O(field, signature) for one that
/// HIP's C++ headers overload (its C symbol has `signature`).
#define KILN_HIP_ENTRY_POINTS(X, O)                                                               \
  X(hipInit) X(hipGetErrorName) X(hipGetErrorString) X(hipGetDeviceCount) X(hipSetDevice)         \
  X(hipDeviceGet) X(hipDeviceGetName) X(hipDeviceGetAttribute) X(hipDeviceTotalMem)              \
  X(hipGetDeviceProperties) X(hipDeviceSynchronize) X(hipMemGetInfo)                             \
  O(hipMalloc, hipError_t (*)(void **, size_t)) X(hipFree)                                       \
  X(hipMemcpyHtoDAsync) X(hipMemcpyDtoHAsync) X(hipMemcpyDtoDAsync) X(hipMemcpyAsync)              \
  X(hipMemsetD32Async) X(hipMemsetD16Async) X(hipStreamCreateWithFlags) X(hipStreamDestroy)        \
  X(hipStreamSynchronize) X(hipStreamWaitEvent) X(hipEventCreateWithFlags) X(hipEventDestroy)      \
  X(hipEventRecord) X(hipEventSynchronize) X(hipEventElapsedTime) X(hipModuleLoadData)             \
  X(hipModuleUnload) X(hipModuleGetFunction) X(hipModuleLaunchKernel) X(hipStreamBeginCapture)     \
  X(hipStreamEndCapture) X(hipGraphInstantiateWithFlags) X(hipGraphLaunch) X(hipGraphExecDestroy)  \
  X(hipGraphDestroy)

} // namespace kiln::hip

#endif // KILN_HIP_API_H

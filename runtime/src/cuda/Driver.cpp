// kiln runtime — loading libcuda, initialising device 0 and naming driver errors.
#include "Driver.h"

#include "../gpu/VendorLibrary.h"
#include "kiln/error.h"

#include <cstdlib>
#include <dlfcn.h>

namespace kiln::cuda {

namespace {

struct Loaded {
  Driver api{};
  CUcontext context = nullptr;
  DeviceInfo info;
  std::string error;  ///< why CUDA cannot be used; empty when it can
};

/// Resolves every entry point; returns the name of the first one missing.
std::string resolve(void *lib, Driver &d) {
#define KILN_CU_SYM(field, symbol)                                                                \
  if (!(d.field = reinterpret_cast<decltype(d.field)>(::dlsym(lib, symbol))))                    \
    return symbol;
  KILN_CU_SYM(cuInit, "cuInit")
  KILN_CU_SYM(cuDriverGetVersion, "cuDriverGetVersion")
  KILN_CU_SYM(cuGetErrorName, "cuGetErrorName")
  KILN_CU_SYM(cuGetErrorString, "cuGetErrorString")
  KILN_CU_SYM(cuDeviceGetCount, "cuDeviceGetCount")
  KILN_CU_SYM(cuDeviceGet, "cuDeviceGet")
  KILN_CU_SYM(cuDeviceGetName, "cuDeviceGetName")
  KILN_CU_SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute")
  KILN_CU_SYM(cuDeviceTotalMem, "cuDeviceTotalMem_v2")
  KILN_CU_SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
  KILN_CU_SYM(cuCtxSetCurrent, "cuCtxSetCurrent")
  KILN_CU_SYM(cuCtxSynchronize, "cuCtxSynchronize")
  KILN_CU_SYM(cuMemGetInfo, "cuMemGetInfo_v2")
  KILN_CU_SYM(cuModuleLoadData, "cuModuleLoadData")
  KILN_CU_SYM(cuModuleLoadDataEx, "cuModuleLoadDataEx")
  KILN_CU_SYM(cuModuleUnload, "cuModuleUnload")
  KILN_CU_SYM(cuModuleGetFunction, "cuModuleGetFunction")
  KILN_CU_SYM(cuLaunchKernel, "cuLaunchKernel")
  KILN_CU_SYM(cuMemAlloc, "cuMemAlloc_v2")
  KILN_CU_SYM(cuMemFree, "cuMemFree_v2")
  KILN_CU_SYM(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")
  KILN_CU_SYM(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")
  KILN_CU_SYM(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2")
  KILN_CU_SYM(cuMemcpyAsync, "cuMemcpyAsync")
  KILN_CU_SYM(cuMemsetD32Async, "cuMemsetD32Async")
  KILN_CU_SYM(cuMemsetD16Async, "cuMemsetD16Async")
  KILN_CU_SYM(cuStreamCreate, "cuStreamCreate")
  KILN_CU_SYM(cuStreamDestroy, "cuStreamDestroy_v2")
  KILN_CU_SYM(cuStreamSynchronize, "cuStreamSynchronize")
  KILN_CU_SYM(cuStreamWaitEvent, "cuStreamWaitEvent")
  KILN_CU_SYM(cuEventCreate, "cuEventCreate")
  KILN_CU_SYM(cuEventDestroy, "cuEventDestroy_v2")
  KILN_CU_SYM(cuEventRecord, "cuEventRecord")
  KILN_CU_SYM(cuEventSynchronize, "cuEventSynchronize")
  KILN_CU_SYM(cuEventElapsedTime, "cuEventElapsedTime")
  KILN_CU_SYM(cuStreamBeginCapture, "cuStreamBeginCapture_v2")
  KILN_CU_SYM(cuStreamEndCapture, "cuStreamEndCapture")
  KILN_CU_SYM(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags")
  KILN_CU_SYM(cuGraphLaunch, "cuGraphLaunch")
  KILN_CU_SYM(cuGraphExecDestroy, "cuGraphExecDestroy")
  KILN_CU_SYM(cuGraphDestroy, "cuGraphDestroy")
#undef KILN_CU_SYM
  d.cuFuncSetAttribute = reinterpret_cast<decltype(d.cuFuncSetAttribute)>(::dlsym(lib, "cuFuncSetAttribute"));
  d.cuStreamIsCapturing = reinterpret_cast<decltype(d.cuStreamIsCapturing)>(::dlsym(lib, "cuStreamIsCapturing"));
  return "";
}

std::string nameOf(const Driver &d, CUresult r) {
  const char *name = nullptr, *text = nullptr;
  if (d.cuGetErrorName) d.cuGetErrorName(r, &name);
  if (d.cuGetErrorString) d.cuGetErrorString(r, &text);
  return gpu::errorMessage(name, text, "CUDA", r);
}

Loaded &loaded() {
  return gpu::loadOnce<Loaded>([](Loaded &s) {
    // $KILN_CUDA_DRIVER names another driver library (tests use it).
    const char *env = std::getenv("KILN_CUDA_DRIVER");
    std::string path = env && *env ? env : "libcuda.so.1", why;
    void *lib = gpu::openFirstLibrary({path}, why);
    if (!lib) {
      s.error = "no CUDA driver: cannot load " + path + " (" + why +
                "); kiln's CUDA models need an NVIDIA GPU and its driver";
      return;
    }
    std::string missing = resolve(lib, s.api);
    if (!missing.empty()) {
      s.error = "the CUDA driver library lacks " + missing + " (driver too old?)";
      return;
    }
    Driver &d = s.api;
    CUresult r = d.cuInit(0);
    if (r != CUDA_SUCCESS) {
      s.error = r == CUDA_ERROR_NO_DEVICE ? "no CUDA GPU: the driver finds no device (" + nameOf(d, r) + ")"
                                          : "cannot initialise the CUDA driver: " + nameOf(d, r);
      return;
    }
    int count = 0;
    if ((r = d.cuDeviceGetCount(&count)) != CUDA_SUCCESS || count == 0) {
      s.error = "no CUDA GPU: the driver reports " + std::to_string(count) + " devices" +
                (r != CUDA_SUCCESS ? " (" + nameOf(d, r) + ")" : "");
      return;
    }
    CUdevice dev = 0;
    char name[256] = {0};
    if ((r = d.cuDeviceGet(&dev, 0)) != CUDA_SUCCESS ||
        (r = d.cuDeviceGetName(name, sizeof name - 1, dev)) != CUDA_SUCCESS ||
        (r = d.cuDeviceGetAttribute(&s.info.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                    dev)) != CUDA_SUCCESS ||
        (r = d.cuDeviceGetAttribute(&s.info.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                    dev)) != CUDA_SUCCESS ||
        (r = d.cuDeviceGetAttribute(&s.info.multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                    dev)) != CUDA_SUCCESS ||
        (r = d.cuDeviceTotalMem(&s.info.totalBytes, dev)) != CUDA_SUCCESS ||
        (r = d.cuDevicePrimaryCtxRetain(&s.context, dev)) != CUDA_SUCCESS) {
      s.error = "cannot open CUDA device 0: " + nameOf(d, r);
      return;
    }
    s.info.name = name;
  });
}

} // namespace

const Driver &driver() {
  Loaded &s = loaded();
  if (!s.error.empty()) throw Error(KILN_STATUS_DEVICE_ERROR, s.error);
  thread_local CUcontext current = nullptr;
  if (current != s.context) {
    check(s.api.cuCtxSetCurrent(s.context), "making the CUDA context current");
    current = s.context;
  }
  return s.api;
}

std::string errorString(CUresult r) { return nameOf(loaded().api, r); }

void check(CUresult r, const std::string &what) {
  if (r != CUDA_SUCCESS) throw Error(KILN_STATUS_DEVICE_ERROR, what + ": " + errorString(r));
}

const DeviceInfo &deviceInfo() {
  driver();
  return loaded().info;
}

} // namespace kiln::cuda

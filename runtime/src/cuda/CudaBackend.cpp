// kiln runtime — the CUDA backend: gpu::Backend over the driver API, and kiln/cuda.h.
#include "Driver.h"

#include "../gpu/Backend.h"
#include "../gpu/Runtime.h"
#include "kiln/error.h"
#include "kiln/cuda.h"

#include <cstdio>

namespace kiln::cuda {

namespace {

CUdeviceptr dptr(const void *p) { return reinterpret_cast<CUdeviceptr>(p); }
CUstream st(void *s) { return static_cast<CUstream>(s); }

/// Compute capability of an `sm_NN[a]` architecture name, or -1.
int archCapability(const std::string &arch) {
  if (arch.rfind("sm_", 0) != 0) return -1;
  std::string digits = arch.substr(3);
  if (!digits.empty() && digits.back() == 'a') digits.pop_back();
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(digits);
}

class CudaBackend final : public gpu::Backend {
public:
  DeviceType type() const override { return DeviceType::CUDA; }
  const char *name() const override { return "CUDA"; }
  void ensure() const override { driver(); }
  std::string description() const override {
    const DeviceInfo &i = deviceInfo();
    char mem[32];
    std::snprintf(mem, sizeof mem, "%.1f MiB", i.totalBytes / 1048576.0);
    return i.name + ", compute capability " + std::to_string(i.major) + "." + std::to_string(i.minor) + ", " +
           std::to_string(i.multiprocessors) + " multiprocessors, " + mem;
  }
  std::string errorString(gpu::Result r) const override { return cuda::errorString(r); }
  bool isOutOfMemory(gpu::Result r) const override { return r == CUDA_ERROR_OUT_OF_MEMORY; }
  std::string moduleLoadError(gpu::Result r) const override {
    const DeviceInfo &i = deviceInfo();
    std::string base = "cannot load the model's GPU kernels on " + i.name + " (compute capability " +
                       std::to_string(i.major) + "." + std::to_string(i.minor) + "): ";
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_PTX || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
      return base + cuda::errorString(r) + "; compile the model for this GPU with --gpu-arch=sm_" +
             std::to_string(i.major) + std::to_string(i.minor);
    return base + cuda::errorString(r);
  }
  std::string archMismatch(const std::string &arch, bool &unknown) const override {
    int built = archCapability(arch), have = computeCapability();
    unknown = built < 0;
    if (unknown) return ": unknown GPU architecture '" + arch + "' in its manifest";
    // Code for sm_XY runs on a GPU of the same major version and a minor at
    // least Y; PTX in the binary lets the driver compile it for newer GPUs.
    if (built > have)
      return " was compiled for " + arch + ", but the GPU is " + cuda::deviceDescription() +
             "; recompile it with --gpu-arch=sm_" + std::to_string(have);
    return "";
  }

  gpu::Result memAlloc(void **p, size_t n) const override {
    CUdeviceptr d = 0;
    CUresult r = driver().cuMemAlloc(&d, n);
    *p = reinterpret_cast<void *>(d);
    return r;
  }
  gpu::Result memFree(void *p) const override { return driver().cuMemFree(dptr(p)); }
  gpu::Result memGetInfo(size_t *f, size_t *t) const override { return driver().cuMemGetInfo(f, t); }
  gpu::Result memcpyHtoD(void *dst, const void *src, size_t n, void *s) const override {
    return driver().cuMemcpyHtoDAsync(dptr(dst), src, n, st(s));
  }
  gpu::Result memcpyDtoH(void *dst, const void *src, size_t n, void *s) const override {
    return driver().cuMemcpyDtoHAsync(dst, dptr(src), n, st(s));
  }
  gpu::Result memcpyDtoD(void *dst, const void *src, size_t n, void *s) const override {
    return driver().cuMemcpyDtoDAsync(dptr(dst), dptr(src), n, st(s));
  }
  gpu::Result memcpyAny(void *dst, const void *src, size_t n, void *s) const override {
    return driver().cuMemcpyAsync(dptr(dst), dptr(src), n, st(s));
  }
  gpu::Result memsetD32(void *dst, unsigned v, size_t count, void *s) const override {
    return driver().cuMemsetD32Async(dptr(dst), v, count, st(s));
  }
  gpu::Result memsetD16(void *dst, unsigned short v, size_t count, void *s) const override {
    return driver().cuMemsetD16Async(dptr(dst), v, count, st(s));
  }
  gpu::Result deviceSynchronize() const override { return driver().cuCtxSynchronize(); }

  gpu::Result streamCreate(void **s) const override {
    return driver().cuStreamCreate(reinterpret_cast<CUstream *>(s), CU_STREAM_NON_BLOCKING);
  }
  gpu::Result streamDestroy(void *s) const override { return driver().cuStreamDestroy(st(s)); }
  gpu::Result streamSynchronize(void *s) const override { return driver().cuStreamSynchronize(st(s)); }
  gpu::Result streamWaitEvent(void *s, void *e) const override {
    return driver().cuStreamWaitEvent(st(s), static_cast<CUevent>(e), 0);
  }
  gpu::Result eventCreate(void **e, bool timing) const override {
    return driver().cuEventCreate(reinterpret_cast<CUevent *>(e), timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING);
  }
  gpu::Result eventDestroy(void *e) const override { return driver().cuEventDestroy(static_cast<CUevent>(e)); }
  gpu::Result eventRecord(void *e, void *s) const override {
    return driver().cuEventRecord(static_cast<CUevent>(e), st(s));
  }
  gpu::Result eventSynchronize(void *e) const override {
    return driver().cuEventSynchronize(static_cast<CUevent>(e));
  }
  gpu::Result eventElapsedMs(float *ms, void *b, void *e) const override {
    return driver().cuEventElapsedTime(ms, static_cast<CUevent>(b), static_cast<CUevent>(e));
  }

  gpu::Result moduleLoad(void **m, const void *image, bool jit, int optLevel) const override {
    const Driver &d = driver();
    if (!jit) return d.cuModuleLoadData(reinterpret_cast<CUmodule *>(m), image);
    int options[] = {CU_JIT_OPTIMIZATION_LEVEL};
    void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
    return d.cuModuleLoadDataEx(reinterpret_cast<CUmodule *>(m), image, 1, options, values);
  }
  gpu::Result moduleUnload(void *m) const override { return driver().cuModuleUnload(static_cast<CUmodule>(m)); }
  gpu::Result moduleGetFunction(void **f, void *m, const char *name) const override {
    return driver().cuModuleGetFunction(reinterpret_cast<CUfunction *>(f), static_cast<CUmodule>(m), name);
  }
  gpu::Result launchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                           unsigned smem, void *s, void **params, void **extra) const override {
    return driver().cuLaunchKernel(static_cast<CUfunction>(f), gx, gy, gz, bx, by, bz, smem, st(s), params, extra);
  }

  gpu::Result streamBeginCapture(void *s) const override {
    return driver().cuStreamBeginCapture(st(s), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  }
  gpu::Result streamEndCapture(void *s, void **g) const override {
    return driver().cuStreamEndCapture(st(s), reinterpret_cast<CUgraph *>(g));
  }
  gpu::Result graphInstantiate(void **exec, void *g) const override {
    return driver().cuGraphInstantiateWithFlags(reinterpret_cast<CUgraphExec *>(exec), static_cast<CUgraph>(g), 0);
  }
  gpu::Result graphLaunch(void *exec, void *s) const override {
    return driver().cuGraphLaunch(static_cast<CUgraphExec>(exec), st(s));
  }
  gpu::Result graphExecDestroy(void *exec) const override {
    return driver().cuGraphExecDestroy(static_cast<CUgraphExec>(exec));
  }
  gpu::Result graphDestroy(void *g) const override { return driver().cuGraphDestroy(static_cast<CUgraph>(g)); }
};

} // namespace

// ---- kiln/cuda.h: kiln/gpu.h on the CUDA backend.

bool available(std::string *why) { return gpu::available(DeviceType::CUDA, why); }
std::string deviceDescription() { return gpu::deviceDescription(DeviceType::CUDA); }
int computeCapability() {
  const DeviceInfo &i = deviceInfo();
  return i.major * 10 + i.minor;
}
void *threadStream() { return gpu::threadStream(DeviceType::CUDA); }
void *createStream() { return gpu::createStream(DeviceType::CUDA); }
void destroyStream(void *stream) { gpu::destroyStream(DeviceType::CUDA, stream); }
void synchronize(void *stream) { gpu::synchronize(DeviceType::CUDA, stream); }
Tensor toDevice(const Tensor &t, void *stream) { return gpu::toDevice(DeviceType::CUDA, t, stream); }
Tensor toHost(const Tensor &t, void *stream) {
  if (t.device().type != DeviceType::CUDA)
    throw Error(KILN_STATUS_INVALID_ARGUMENT, std::string("toHost: the tensor is on ") +
                                                  deviceTypeName(t.device().type) + ", not cuda");
  return gpu::toHost(t, stream);
}
Tensor emptyDevice(const std::vector<int64_t> &sizes, DType dtype, void *stream) {
  return gpu::emptyDevice(DeviceType::CUDA, sizes, dtype, stream);
}
MemoryStats memoryStats() { return gpu::memoryStats(DeviceType::CUDA); }
void emptyCache() { gpu::emptyCache(DeviceType::CUDA); }

} // namespace kiln::cuda

namespace kiln::gpu {
const Backend &cudaBackend() {
  static const cuda::CudaBackend *b = new cuda::CudaBackend();
  return *b;
}
} // namespace kiln::gpu

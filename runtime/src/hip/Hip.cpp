// kiln runtime — the HIP backend: libamdhip64 loaded at run time, device 0, and gpu::Backend over HIP.
#include "HipApi.h"

#include "../gpu/Backend.h"
#include "../gpu/VendorLibrary.h"
#include "kiln/gpu.h"
#include "kiln/error.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace kiln::hip {

namespace {

struct Loaded {
  Api api{};
  std::string name, arch;
  int computeUnits = 0;
  size_t totalBytes = 0;
  std::string error;  ///< why HIP cannot be used; empty when it can
};

/// Resolves every entry point; returns the name of the first one missing.
std::string resolve(void *lib, Api &a) {
#define KILN_HIP_SYM(field)                                                                       \
  if (!(a.field = reinterpret_cast<decltype(a.field)>(::dlsym(lib, #field)))) return #field;
#define KILN_HIP_SYM_O(field, signature) KILN_HIP_SYM(field)
  KILN_HIP_ENTRY_POINTS(KILN_HIP_SYM, KILN_HIP_SYM_O)
#undef KILN_HIP_SYM_O
#undef KILN_HIP_SYM
  return "";
}

std::string nameOf(const Api &a, hipError_t r) {
  const char *name = a.hipGetErrorName ? a.hipGetErrorName(r) : nullptr;
  const char *text = a.hipGetErrorString ? a.hipGetErrorString(r) : nullptr;
  return gpu::errorMessage(name, text, "HIP", r);
}

Loaded &loaded() {
  return gpu::loadOnce<Loaded>([](Loaded &s) {
    // $KILN_HIP_RUNTIME names another library (tests use it); otherwise the
    // HIP runtime of ROCm 6, 5, or the development link.
    const char *env = std::getenv("KILN_HIP_RUNTIME");
    std::vector<std::string> candidates;
    if (env && *env)
      candidates = {env};
    else
      candidates = {"libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};
    std::string why;
    void *lib = gpu::openFirstLibrary(candidates, why);
    if (!lib) {
      s.error = "no HIP runtime: cannot load " + (env && *env ? std::string(env) : std::string("libamdhip64")) +
                " (" + why + "); kiln's ROCm models need an AMD GPU and ROCm's HIP runtime";
      return;
    }
    std::string missing = resolve(lib, s.api);
    if (!missing.empty()) {
      s.error = "the HIP runtime library lacks " + missing + " (ROCm too old?)";
      return;
    }
    const Api &a = s.api;
    hipError_t r = a.hipInit(0);
    int count = 0;
    hipError_t rc = a.hipGetDeviceCount(&count);
    if (rc != hipSuccess || count == 0) {
      s.error = "no AMD GPU: the HIP runtime finds no device (" +
                nameOf(a, rc != hipSuccess ? rc : r != hipSuccess ? r : hipErrorNoDevice) + ")";
      return;
    }
    if (r != hipSuccess) {
      s.error = "cannot initialise the HIP runtime: " + nameOf(a, r);
      return;
    }
    hipDevice_t dev = 0;
    char name[256] = {0};
    std::vector<char> props(kDevicePropSize + 1024, 0);
    if ((r = a.hipSetDevice(0)) != hipSuccess || (r = a.hipDeviceGet(&dev, 0)) != hipSuccess ||
        (r = a.hipDeviceGetName(name, sizeof name - 1, dev)) != hipSuccess ||
        (r = a.hipDeviceGetAttribute(&s.computeUnits, hipDeviceAttributeMultiprocessorCount, 0)) != hipSuccess ||
        (r = a.hipDeviceTotalMem(&s.totalBytes, dev)) != hipSuccess ||
        (r = a.hipGetDeviceProperties(props.data(), 0)) != hipSuccess) {
      s.error = "cannot open HIP device 0: " + nameOf(a, r);
      return;
    }
    s.name = name;
    // "gfx90a:sramecc+:xnack-": the architecture is before the first ':'.
    std::string arch(&props[kDevicePropGcnArchName], strnlen(&props[kDevicePropGcnArchName], 256));
    s.arch = arch.substr(0, arch.find(':'));
  });
}

/// The API with device 0 current on the calling thread; throws why HIP
/// cannot be used here.
const Api &api() {
  Loaded &s = loaded();
  if (!s.error.empty()) throw Error(KILN_STATUS_DEVICE_ERROR, s.error);
  thread_local bool current = false;
  if (!current) {
    hipError_t r = s.api.hipSetDevice(0);
    if (r != hipSuccess) throw Error(KILN_STATUS_DEVICE_ERROR, "making HIP device 0 current: " + nameOf(s.api, r));
    current = true;
  }
  return s.api;
}

hipStream_t st(void *s) { return static_cast<hipStream_t>(s); }
hipEvent_t ev(void *e) { return static_cast<hipEvent_t>(e); }

class HipBackend final : public gpu::Backend {
public:
  DeviceType type() const override { return DeviceType::HIP; }
  const char *name() const override { return "HIP"; }
  void ensure() const override { api(); }
  std::string description() const override {
    api();
    const Loaded &s = loaded();
    char mem[32];
    std::snprintf(mem, sizeof mem, "%.1f MiB", s.totalBytes / 1048576.0);
    return s.name + ", " + (s.arch.empty() ? std::string("unknown architecture") : s.arch) + ", " +
           std::to_string(s.computeUnits) + " compute units, " + mem;
  }
  std::string errorString(gpu::Result r) const override { return nameOf(loaded().api, r); }
  bool isOutOfMemory(gpu::Result r) const override { return r == hipErrorOutOfMemory; }
  std::string archMismatch(const std::string &arch, bool &unknown) const override {
    // An AMDGPU code object runs on the architecture it was compiled for.
    unknown = false;
    api();
    std::string have = loaded().arch;
    if (!have.empty() && have != arch)
      return " was compiled for " + arch + ", but the GPU is " + gpu::deviceDescription(DeviceType::HIP) +
             "; recompile it with --gpu-arch=" + have;
    return "";
  }
  std::string moduleLoadError(gpu::Result r) const override {
    const Loaded &s = loaded();
    std::string base = "cannot load the model's GPU kernels on " + s.name + " (" + s.arch + "): ";
    if ((r == hipErrorNoBinaryForGpu || r == hipErrorInvalidImage) && !s.arch.empty())
      return base + errorString(r) + "; compile the model for this GPU with --gpu-arch=" + s.arch;
    return base + errorString(r);
  }

  gpu::Result memAlloc(void **p, size_t n) const override { return api().hipMalloc(p, n); }
  gpu::Result memFree(void *p) const override { return api().hipFree(p); }
  gpu::Result memGetInfo(size_t *f, size_t *t) const override { return api().hipMemGetInfo(f, t); }
  gpu::Result memcpyHtoD(void *dst, const void *src, size_t n, void *s) const override {
    return api().hipMemcpyHtoDAsync(dst, const_cast<void *>(src), n, st(s));
  }
  gpu::Result memcpyDtoH(void *dst, const void *src, size_t n, void *s) const override {
    return api().hipMemcpyDtoHAsync(dst, const_cast<void *>(src), n, st(s));
  }
  gpu::Result memcpyDtoD(void *dst, const void *src, size_t n, void *s) const override {
    return api().hipMemcpyDtoDAsync(dst, const_cast<void *>(src), n, st(s));
  }
  gpu::Result memcpyAny(void *dst, const void *src, size_t n, void *s) const override {
    return api().hipMemcpyAsync(dst, src, n, hipMemcpyDefault, st(s));
  }
  gpu::Result memsetD32(void *dst, unsigned v, size_t count, void *s) const override {
    return api().hipMemsetD32Async(dst, static_cast<int>(v), count, st(s));
  }
  gpu::Result memsetD16(void *dst, unsigned short v, size_t count, void *s) const override {
    return api().hipMemsetD16Async(dst, v, count, st(s));
  }
  gpu::Result deviceSynchronize() const override { return api().hipDeviceSynchronize(); }

  gpu::Result streamCreate(void **s) const override {
    return api().hipStreamCreateWithFlags(reinterpret_cast<hipStream_t *>(s), kHipStreamNonBlocking);
  }
  gpu::Result streamDestroy(void *s) const override { return api().hipStreamDestroy(st(s)); }
  gpu::Result streamSynchronize(void *s) const override { return api().hipStreamSynchronize(st(s)); }
  gpu::Result streamWaitEvent(void *s, void *e) const override { return api().hipStreamWaitEvent(st(s), ev(e), 0); }
  gpu::Result eventCreate(void **e, bool timing) const override {
    return api().hipEventCreateWithFlags(reinterpret_cast<hipEvent_t *>(e),
                                         timing ? kHipEventDefault : kHipEventDisableTiming);
  }
  gpu::Result eventDestroy(void *e) const override { return api().hipEventDestroy(ev(e)); }
  gpu::Result eventRecord(void *e, void *s) const override { return api().hipEventRecord(ev(e), st(s)); }
  gpu::Result eventSynchronize(void *e) const override { return api().hipEventSynchronize(ev(e)); }
  gpu::Result eventElapsedMs(float *ms, void *b, void *e) const override {
    return api().hipEventElapsedTime(ms, ev(b), ev(e));
  }

  // Code objects are machine code for one architecture: nothing to JIT.
  gpu::Result moduleLoad(void **m, const void *image, bool /*jit*/, int /*optLevel*/) const override {
    return api().hipModuleLoadData(reinterpret_cast<hipModule_t *>(m), image);
  }
  gpu::Result moduleUnload(void *m) const override { return api().hipModuleUnload(static_cast<hipModule_t>(m)); }
  gpu::Result moduleGetFunction(void **f, void *m, const char *name) const override {
    return api().hipModuleGetFunction(reinterpret_cast<hipFunction_t *>(f), static_cast<hipModule_t>(m), name);
  }
  gpu::Result launchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                           unsigned smem, void *s, void **params, void **extra) const override {
    return api().hipModuleLaunchKernel(static_cast<hipFunction_t>(f), gx, gy, gz, bx, by, bz, smem, st(s), params,
                                       extra);
  }

  gpu::Result streamBeginCapture(void *s) const override {
    return api().hipStreamBeginCapture(st(s), hipStreamCaptureModeThreadLocal);
  }
  gpu::Result streamEndCapture(void *s, void **g) const override {
    return api().hipStreamEndCapture(st(s), reinterpret_cast<hipGraph_t *>(g));
  }
  gpu::Result graphInstantiate(void **exec, void *g) const override {
    return api().hipGraphInstantiateWithFlags(reinterpret_cast<hipGraphExec_t *>(exec), static_cast<hipGraph_t>(g),
                                              0);
  }
  gpu::Result graphLaunch(void *exec, void *s) const override {
    return api().hipGraphLaunch(static_cast<hipGraphExec_t>(exec), st(s));
  }
  gpu::Result graphExecDestroy(void *exec) const override {
    return api().hipGraphExecDestroy(static_cast<hipGraphExec_t>(exec));
  }
  gpu::Result graphDestroy(void *g) const override { return api().hipGraphDestroy(static_cast<hipGraph_t>(g)); }
};

} // namespace

} // namespace kiln::hip

namespace kiln::gpu {
const Backend &hipBackend() {
  static const hip::HipBackend *b = new hip::HipBackend();
  return *b;
}
} // namespace kiln::gpu

// kiln runtime — the mgpu* functions that MLIR's GPU host code calls, over kiln's CUDA backend.
//
// A CUDA model's host code (from upstream gpu-to-llvm and the gpu.binary
// translation) loads its kernel module in a constructor and, per call, takes a
// stream (mgpuStreamCreate), allocates, launches, frees and finally
// synchronizes and destroys that stream. kiln runs that code inside a
// LaunchScope: the "created" stream is the scope's stream (the caller's or
// the thread's), destroying it does nothing, and synchronizing it is left to
// the runtime, which waits (or not, for a caller's stream) after the entry
// returns. Nothing reads device memory on the host in between, so stream
// order alone keeps every result correct. Errors cannot be returned through
// these void functions: the first one is kept in the scope, later launches
// are skipped, and the loader reports it.
#include "Driver.h"
#include "Runtime.h"

#include <map>
#include <mutex>
#include <unordered_map>

namespace kiln::cuda {
CUdeviceptr allocateForKernel(size_t nbytes, CUstream stream);
void releaseForKernel(CUdeviceptr p);
} // namespace kiln::cuda

using namespace kiln::cuda;

namespace {

/// Kernel handles by (module, name) and kernel names by handle.
struct FunctionCache {
  std::mutex mutex;
  std::map<std::pair<CUmodule, std::string>, CUfunction> byName;
  std::unordered_map<CUfunction, std::string> names;
};
FunctionCache &functions() {
  static FunctionCache *c = new FunctionCache();
  return *c;
}

void fail(const std::string &error) {
  if (LaunchScope *s = LaunchScope::current()) s->fail(error);
}

bool skip() {
  LaunchScope *s = LaunchScope::current();
  return s && s->failed();
}

CUstream streamOf(void *stream) {
  if (LaunchScope *s = LaunchScope::current()) return static_cast<CUstream>(s->stream());
  return static_cast<CUstream>(stream);
}

std::string moduleLoadError(CUresult r) {
  std::string base = "cannot load the model's GPU kernels on " + deviceInfo().name + " (compute capability " +
                     std::to_string(deviceInfo().major) + "." + std::to_string(deviceInfo().minor) + "): ";
  if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_PTX ||
      r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    return base + errorString(r) + "; compile the model for this GPU with --gpu-arch=sm_" +
           std::to_string(deviceInfo().major) + std::to_string(deviceInfo().minor);
  return base + errorString(r);
}

void *loadModule(const void *data, bool jit, int optLevel) {
  try {
    const Driver &d = driver();
    CUmodule m = nullptr;
    CUresult r;
    if (jit) {
      int options[] = {CU_JIT_OPTIMIZATION_LEVEL};
      void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
      r = d.cuModuleLoadDataEx(&m, data, 1, options, values);
    } else {
      r = d.cuModuleLoadData(&m, data);
    }
    if (r != CUDA_SUCCESS) {
      ModuleLoadScope::record(moduleLoadError(r), false);
      return nullptr;
    }
    ModuleLoadScope::record("", true);
    return m;
  } catch (const std::exception &e) {
    ModuleLoadScope::record(e.what(), false);
    return nullptr;
  }
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) void *mgpuModuleLoad(void *data, size_t /*size*/) {
  return loadModule(data, false, 0);
}

__attribute__((visibility("default"))) void *mgpuModuleLoadJIT(void *data, int optLevel) {
  return loadModule(data, true, optLevel);
}

__attribute__((visibility("default"))) void mgpuModuleUnload(void *module) {
  if (!module) return;
  FunctionCache &c = functions();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto it = c.byName.begin(); it != c.byName.end();) {
      if (it->first.first == static_cast<CUmodule>(module)) {
        c.names.erase(it->second);
        it = c.byName.erase(it);
      } else {
        ++it;
      }
    }
  }
  try {
    driver().cuModuleUnload(static_cast<CUmodule>(module));
  } catch (...) {
  }
}

__attribute__((visibility("default"))) void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module) {
    fail(std::string("the model's GPU kernels are not loaded (kernel '") + name + "')");
    return nullptr;
  }
  FunctionCache &c = functions();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto key = std::make_pair(static_cast<CUmodule>(module), std::string(name));
  auto it = c.byName.find(key);
  if (it != c.byName.end()) return it->second;
  try {
    CUfunction f = nullptr;
    CUresult r = driver().cuModuleGetFunction(&f, static_cast<CUmodule>(module), name);
    if (r != CUDA_SUCCESS) {
      fail(std::string("the model's GPU module has no kernel '") + name + "': " + errorString(r));
      return nullptr;
    }
    c.byName.emplace(key, f);
    c.names[f] = name;
    return f;
  } catch (const std::exception &e) {
    fail(e.what());
    return nullptr;
  }
}

__attribute__((visibility("default"))) void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                                             intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                                                             intptr_t blockZ, int32_t smem, void *stream,
                                                             void **params, void **extra, size_t /*count*/) {
  if (skip() || !function) return;
  // An empty grid (a tensor with no elements) has no work.
  if (gridX <= 0 || gridY <= 0 || gridZ <= 0 || blockX <= 0 || blockY <= 0 || blockZ <= 0) return;
  try {
    CUresult r = driver().cuLaunchKernel(static_cast<CUfunction>(function), (unsigned)gridX, (unsigned)gridY,
                                         (unsigned)gridZ, (unsigned)blockX, (unsigned)blockY, (unsigned)blockZ,
                                         (unsigned)smem, streamOf(stream), params, extra);
    if (r != CUDA_SUCCESS) {
      std::string name;
      {
        FunctionCache &c = functions();
        std::lock_guard<std::mutex> lock(c.mutex);
        auto it = c.names.find(static_cast<CUfunction>(function));
        if (it != c.names.end()) name = it->second;
      }
      fail("launching GPU kernel '" + name + "' (grid " + std::to_string(gridX) + "x" + std::to_string(gridY) +
           "x" + std::to_string(gridZ) + ", block " + std::to_string(blockX) + "x" + std::to_string(blockY) +
           "x" + std::to_string(blockZ) + ") failed: " + errorString(r));
    }
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void *mgpuStreamCreate() {
  if (LaunchScope *s = LaunchScope::current()) return s->stream();
  try {
    return createStream();
  } catch (const std::exception &e) {
    fail(e.what());
    return nullptr;
  }
}

__attribute__((visibility("default"))) void mgpuStreamDestroy(void *stream) {
  LaunchScope *s = LaunchScope::current();
  if (stream && (!s || stream != s->stream())) destroyStream(stream);
}

__attribute__((visibility("default"))) void mgpuStreamSynchronize(void *stream) {
  LaunchScope *s = LaunchScope::current();
  if (s && stream == s->stream()) return;  // the runtime waits after the entry returns
  try {
    synchronize(stream);
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void mgpuStreamWaitEvent(void *stream, void *event) {
  if (skip()) return;
  try {
    check(driver().cuStreamWaitEvent(streamOf(stream), static_cast<CUevent>(event), 0), "waiting for an event");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void *mgpuEventCreate() {
  try {
    CUevent e = nullptr;
    check(driver().cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "creating an event");
    return e;
  } catch (const std::exception &e) {
    fail(e.what());
    return nullptr;
  }
}

__attribute__((visibility("default"))) void mgpuEventDestroy(void *event) {
  if (event) driver().cuEventDestroy(static_cast<CUevent>(event));
}

__attribute__((visibility("default"))) void mgpuEventSynchronize(void *event) {
  if (skip() || !event) return;
  try {
    check(driver().cuEventSynchronize(static_cast<CUevent>(event)), "waiting for an event");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void mgpuEventRecord(void *event, void *stream) {
  if (skip() || !event) return;
  try {
    check(driver().cuEventRecord(static_cast<CUevent>(event), streamOf(stream)), "recording an event");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  if (skip() || sizeBytes == 0) return nullptr;
  if (isHostShared) {
    fail("host-shared GPU allocations are not supported");
    return nullptr;
  }
  if (PoolScope *pool = PoolScope::current()) {
    void *p = pool->take(sizeBytes);
    if (!p) fail("the model allocated differently while its CUDA graph was captured");
    return p;
  }
  if (AllocationRecorder *rec = AllocationRecorder::current()) rec->record(sizeBytes);
  try {
    return reinterpret_cast<void *>(allocateForKernel(sizeBytes, streamOf(stream)));
  } catch (const std::exception &e) {
    fail(e.what());
    return nullptr;
  }
}

__attribute__((visibility("default"))) void mgpuMemFree(void *ptr, void * /*stream*/) {
  if (PoolScope *pool = PoolScope::current(); pool && pool->owns(ptr)) return;  // the graph's memory
  if (ptr) releaseForKernel(reinterpret_cast<CUdeviceptr>(ptr));
}

__attribute__((visibility("default"))) void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  if (skip() || sizeBytes == 0) return;
  try {
    check(driver().cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst), reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                                 streamOf(stream)),
          "copying GPU memory");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream) {
  if (skip() || count == 0) return;
  try {
    check(driver().cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count, streamOf(stream)),
          "filling GPU memory");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                                         void *stream) {
  if (skip() || count == 0) return;
  try {
    check(driver().cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count, streamOf(stream)),
          "filling GPU memory");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

} // extern "C"

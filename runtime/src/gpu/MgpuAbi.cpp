// kiln runtime — the mgpu* functions that MLIR's GPU host code calls, over kiln's GPU backends.
//
// A GPU model's host code (from upstream gpu-to-llvm and the gpu.binary
// translation; the same for CUDA and ROCm models) loads its kernel module in
// a constructor and, per call, takes a stream (mgpuStreamCreate), allocates,
// launches, frees and finally synchronizes and destroys that stream. kiln
// runs that code inside a LaunchScope, which names the backend (CUDA or HIP)
// and the stream: the "created" stream is the scope's stream (the caller's
// or the thread's), destroying it does nothing, and synchronizing it is left
// to the runtime, which waits (or not, for a caller's stream) after the
// entry returns. The host reads device memory in between only through
// kiln_gpu_read_to_host (HostCalls.cpp), which waits for the stream, so
// stream order keeps every result correct. Modules go to the backend
// their image is for (an AMDGPU ELF to HIP), and functions to their
// module's. Errors cannot be returned through these void functions: the
// first one is kept in the scope, later launches are skipped, and the loader
// reports it.
#include "Backend.h"
#include "Runtime.h"

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

using namespace kiln;
using namespace kiln::gpu;

namespace {

/// Each loaded module's backend, kernel handles by (module, name), and each
/// kernel handle's name and backend.
struct FunctionCache {
  std::mutex mutex;
  std::unordered_map<void *, const Backend *> modules;
  std::map<std::pair<void *, std::string>, void *> byName;
  std::unordered_map<void *, std::pair<std::string, const Backend *>> functions;
};
FunctionCache &cache() {
  static FunctionCache *c = new FunctionCache();
  return *c;
}

/// KILN_FAULT_LAUNCH=N, for tests of the failure path (test/gpu/faults.sh):
/// the N-th kernel launch of the process fails as one the driver refused.
bool injectedLaunchFailure() {
  static const long nth = [] {
    const char *e = std::getenv("KILN_FAULT_LAUNCH");
    return e ? std::atol(e) : 0L;
  }();
  if (nth <= 0) return false;
  static std::atomic<long> launches{0};
  return ++launches == nth;
}

void fail(const std::string &error) {
  if (LaunchScope *s = LaunchScope::current()) s->fail(error);
}

bool skip() {
  LaunchScope *s = LaunchScope::current();
  return s && s->failed();
}

/// The backend of the running call (CUDA outside any call, as before ROCm).
const Backend &current() {
  if (LaunchScope *s = LaunchScope::current()) return s->backend();
  return backend(DeviceType::CUDA);
}

void *streamOf(void *stream) {
  if (LaunchScope *s = LaunchScope::current()) return s->stream();
  return stream;
}

void *loadModule(const void *data, bool jit, int optLevel) {
  try {
    const Backend &b = backendForImage(data);
    b.ensure();
    void *m = nullptr;
    Result r = b.moduleLoad(&m, data, jit, optLevel);
    if (r != 0) {
      ModuleLoadScope::record(b.moduleLoadError(r), false);
      return nullptr;
    }
    {
      FunctionCache &c = cache();
      std::lock_guard<std::mutex> lock(c.mutex);
      c.modules[m] = &b;
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
  const Backend *b = nullptr;
  {
    FunctionCache &c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    for (auto it = c.byName.begin(); it != c.byName.end();) {
      if (it->first.first == module) {
        c.functions.erase(it->second);
        it = c.byName.erase(it);
      } else {
        ++it;
      }
    }
    auto m = c.modules.find(module);
    if (m != c.modules.end()) {
      b = m->second;
      c.modules.erase(m);
    }
  }
  if (!b) return;
  try {
    b->moduleUnload(module);
  } catch (...) {
  }
}

__attribute__((visibility("default"))) void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!module) {
    fail(std::string("the model's GPU kernels are not loaded (kernel '") + name + "')");
    return nullptr;
  }
  FunctionCache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto key = std::make_pair(module, std::string(name));
  auto it = c.byName.find(key);
  if (it != c.byName.end()) return it->second;
  auto m = c.modules.find(module);
  if (m == c.modules.end()) {
    fail(std::string("kernel '") + name + "' is looked up in a GPU module kiln did not load");
    return nullptr;
  }
  const Backend &b = *m->second;
  try {
    void *f = nullptr;
    Result r = b.moduleGetFunction(&f, module, name);
    if (r != 0) {
      fail(std::string("the model's GPU module has no kernel '") + name + "': " + b.errorString(r));
      return nullptr;
    }
    c.byName.emplace(key, f);
    c.functions[f] = {name, &b};
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
  std::string name;
  const Backend *b = nullptr;
  {
    FunctionCache &c = cache();
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.functions.find(function);
    if (it != c.functions.end()) {
      name = it->second.first;
      b = it->second.second;
    }
  }
  if (!b) {
    fail("launching a GPU kernel kiln did not look up");
    return;
  }
  if (injectedLaunchFailure()) {
    fail("launching GPU kernel '" + name + "' failed: the failure KILN_FAULT_LAUNCH asked for");
    return;
  }
  try {
    Result r = b->launchKernel(function, (unsigned)gridX, (unsigned)gridY, (unsigned)gridZ, (unsigned)blockX,
                               (unsigned)blockY, (unsigned)blockZ, (unsigned)smem, streamOf(stream), params, extra);
    if (r != 0)
      fail("launching GPU kernel '" + name + "' (grid " + std::to_string(gridX) + "x" + std::to_string(gridY) +
           "x" + std::to_string(gridZ) + ", block " + std::to_string(blockX) + "x" + std::to_string(blockY) +
           "x" + std::to_string(blockZ) + ") failed: " + b->errorString(r));
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void *mgpuStreamCreate() {
  if (LaunchScope *s = LaunchScope::current()) return s->stream();
  try {
    return createStream(current().type());
  } catch (const std::exception &e) {
    fail(e.what());
    return nullptr;
  }
}

__attribute__((visibility("default"))) void mgpuStreamDestroy(void *stream) {
  LaunchScope *s = LaunchScope::current();
  if (stream && (!s || stream != s->stream())) current().streamDestroy(stream);
}

__attribute__((visibility("default"))) void mgpuStreamSynchronize(void *stream) {
  LaunchScope *s = LaunchScope::current();
  if (s && stream == s->stream()) return;  // the runtime waits after the entry returns
  try {
    synchronize(current(), stream);
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void mgpuStreamWaitEvent(void *stream, void *event) {
  if (skip()) return;
  try {
    check(current(), current().streamWaitEvent(streamOf(stream), event), "waiting for an event");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void *mgpuEventCreate() {
  try {
    void *e = nullptr;
    check(current(), current().eventCreate(&e, false), "creating an event");
    return e;
  } catch (const std::exception &e) {
    fail(e.what());
    return nullptr;
  }
}

__attribute__((visibility("default"))) void mgpuEventDestroy(void *event) {
  if (event) current().eventDestroy(event);
}

__attribute__((visibility("default"))) void mgpuEventSynchronize(void *event) {
  if (skip() || !event) return;
  try {
    check(current(), current().eventSynchronize(event), "waiting for an event");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void mgpuEventRecord(void *event, void *stream) {
  if (skip() || !event) return;
  try {
    check(current(), current().eventRecord(event, streamOf(stream)), "recording an event");
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
    if (!p) fail("the model allocated differently while its graph was captured");
    return p;
  }
  try {
    void *p = allocateForKernel(current(), sizeBytes, streamOf(stream));
    if (AllocationRecorder *rec = AllocationRecorder::current()) rec->record(sizeBytes, p);
    return p;
  } catch (const std::exception &e) {
    fail(e.what());
    return nullptr;
  }
}

// Frees come right after a buffer's last use (kiln-early-dealloc); the
// caching allocator hands the block only to later work on the same stream.
__attribute__((visibility("default"))) void mgpuMemFree(void *ptr, void * /*stream*/) {
  if (PoolScope *pool = PoolScope::current(); pool && pool->owns(ptr)) return;  // the graph's memory
  if (AllocationRecorder *rec = AllocationRecorder::current(); rec && ptr) rec->recordFree(ptr);
  if (ptr) releaseForKernel(current(), ptr);
}

__attribute__((visibility("default"))) void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  if (skip() || sizeBytes == 0) return;
  try {
    check(current(), current().memcpyAny(dst, src, sizeBytes, streamOf(stream)), "copying GPU memory");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream) {
  if (skip() || count == 0) return;
  try {
    check(current(), current().memsetD32(dst, value, count, streamOf(stream)), "filling GPU memory");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

__attribute__((visibility("default"))) void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                                         void *stream) {
  if (skip() || count == 0) return;
  try {
    check(current(), current().memsetD16(dst, value, count, streamOf(stream)), "filling GPU memory");
  } catch (const std::exception &e) {
    fail(e.what());
  }
}

} // extern "C"

// kiln runtime — CUDA streams, copies, the caching device allocator and timing.
#include "Driver.h"
#include "Runtime.h"

#include "../loader/Error.h"

#include <map>
#include <mutex>
#include <unordered_map>

namespace kiln::cuda {

namespace {

std::string mib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
  return buf;
}

/// A caching allocator: freed blocks stay with the stream they were
/// allocated on and are reused, best fit within twice the request, by later
/// allocations on that stream (stream order makes the reuse safe without
/// synchronisation). When the driver runs out of memory the cache is
/// returned to it and the allocation retried once.
class Allocator {
public:
  CUdeviceptr allocate(size_t nbytes, CUstream stream) {
    const Driver &d = driver();
    size_t size = round(nbytes);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.lower_bound({stream, size});
    if (it != free_.end() && it->first.first == stream && it->first.second < 2 * size) {
      CUdeviceptr p = it->second;
      cachedBytes_ -= it->first.second;
      live_[p] = {it->first.second, stream};
      inUseBytes_ += it->first.second;
      free_.erase(it);
      return p;
    }
    CUdeviceptr p = 0;
    CUresult r = d.cuMemAlloc(&p, size);
    if (r == CUDA_ERROR_OUT_OF_MEMORY && !free_.empty()) {
      releaseCachedLocked(d);
      r = d.cuMemAlloc(&p, size);
    }
    if (r != CUDA_SUCCESS) {
      size_t freeBytes = 0, totalBytes = 0;
      d.cuMemGetInfo(&freeBytes, &totalBytes);
      throw Error(KILN_STATUS_DEVICE_ERROR,
                  (r == CUDA_ERROR_OUT_OF_MEMORY ? "out of GPU memory" : "GPU allocation failed") +
                      std::string(": cannot allocate ") + mib(size) + " on " + deviceInfo().name +
                      " (" + mib(freeBytes) + " free of " + mib(totalBytes) + ", kiln holds " +
                      mib(inUseBytes_) + " in use): " + errorString(r));
    }
    ++driverAllocations_;
    live_[p] = {size, stream};
    inUseBytes_ += size;
    return p;
  }

  void release(CUdeviceptr p) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(p);
    if (it == live_.end()) return;
    inUseBytes_ -= it->second.size;
    cachedBytes_ += it->second.size;
    free_.emplace(std::make_pair(it->second.stream, it->second.size), p);
    live_.erase(it);
  }

  void emptyCache() {
    const Driver &d = driver();
    std::lock_guard<std::mutex> lock(mutex_);
    releaseCachedLocked(d);
  }

  MemoryStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {inUseBytes_, cachedBytes_, driverAllocations_};
  }

private:
  struct Block {
    size_t size;
    CUstream stream;
  };
  static size_t round(size_t n) {
    size_t unit = n < (1u << 20) ? 512 : (2u << 20);
    return (n + unit - 1) / unit * unit;
  }
  void releaseCachedLocked(const Driver &d) {
    // Work still queued on a cached block's stream may use it: wait first.
    d.cuCtxSynchronize();
    for (auto &kv : free_) d.cuMemFree(kv.second);
    free_.clear();
    cachedBytes_ = 0;
  }

  std::mutex mutex_;
  std::unordered_map<CUdeviceptr, Block> live_;
  std::multimap<std::pair<CUstream, size_t>, CUdeviceptr> free_;
  size_t inUseBytes_ = 0, cachedBytes_ = 0, driverAllocations_ = 0;
};

/// Never destroyed: device tensors may be released during static destruction.
Allocator &allocator() {
  static Allocator *a = new Allocator();
  return *a;
}

thread_local ModuleLoadScope *tlsModuleLoad = nullptr;
thread_local AllocationRecorder *tlsRecorder = nullptr;
thread_local PoolScope *tlsPool = nullptr;
thread_local LaunchScope *tlsLaunch = nullptr;

/// Owns this thread's stream.
struct ThreadStream {
  CUstream stream = nullptr;
  ~ThreadStream() {
    if (stream) driver().cuStreamDestroy(stream);
  }
};

CUstream asStream(void *s) { return static_cast<CUstream>(s); }

} // namespace

std::shared_ptr<Storage> allocateStorage(size_t nbytes, void *stream) {
  CUdeviceptr p = nbytes ? allocator().allocate(nbytes, asStream(stream)) : 0;
  return std::make_shared<Storage>(reinterpret_cast<void *>(p), nbytes, Device{DeviceType::CUDA, 0},
                                   [](void *q) { allocator().release(reinterpret_cast<CUdeviceptr>(q)); });
}

std::shared_ptr<Storage> adoptStorage(void *ptr, size_t nbytes) {
  return std::make_shared<Storage>(ptr, nbytes, Device{DeviceType::CUDA, 0},
                                   [](void *q) { allocator().release(reinterpret_cast<CUdeviceptr>(q)); });
}

std::vector<Tensor> uploadAll(const std::vector<Tensor> &hostTensors, void *stream) {
  constexpr size_t kAlign = 256;
  std::vector<size_t> offsets;
  size_t total = 0;
  for (const Tensor &t : hostTensors) {
    offsets.push_back(total);
    total += (t.nbytes() + kAlign - 1) / kAlign * kAlign;
  }
  auto storage = allocateStorage(total, stream);
  const Driver &d = driver();
  std::vector<Tensor> out;
  for (size_t i = 0; i < hostTensors.size(); ++i) {
    Tensor h = hostTensors[i].contiguous();
    char *dst = static_cast<char *>(storage->data()) + offsets[i];
    if (h.nbytes())
      check(d.cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst), h.rawData(), h.nbytes(), asStream(stream)),
            "copying the weights to the GPU");
    out.push_back(Tensor::view(storage, (int64_t)(offsets[i] / dtypeSize(h.dtype())), h.sizes(),
                               Tensor::contiguousStrides(h.sizes()), h.dtype()));
  }
  synchronize(stream);
  return out;
}

Tensor cloneOnDevice(const Tensor &t, void *stream) {
  Tensor out = emptyDevice(t.sizes(), t.dtype(), stream);
  if (t.nbytes())
    check(driver().cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(out.rawData()),
                                     reinterpret_cast<CUdeviceptr>(t.rawData()), t.nbytes(), asStream(stream)),
          "copying GPU memory");
  return out;
}

ModuleLoadScope::ModuleLoadScope() : prev_(tlsModuleLoad) { tlsModuleLoad = this; }
ModuleLoadScope::~ModuleLoadScope() { tlsModuleLoad = prev_; }
void ModuleLoadScope::record(const std::string &error, bool loaded) {
  ModuleLoadScope *s = tlsModuleLoad;
  if (!s) return;
  if (loaded) ++s->loaded_;
  if (!error.empty() && s->error_.empty()) s->error_ = error;
}

LaunchScope::LaunchScope(void *stream) : prev_(tlsLaunch), stream_(stream) { tlsLaunch = this; }
LaunchScope::~LaunchScope() { tlsLaunch = prev_; }
LaunchScope *LaunchScope::current() { return tlsLaunch; }

AllocationRecorder::AllocationRecorder() : prev_(tlsRecorder) { tlsRecorder = this; }
AllocationRecorder::~AllocationRecorder() { tlsRecorder = prev_; }
AllocationRecorder *AllocationRecorder::current() { return tlsRecorder; }

PoolScope::PoolScope(std::vector<std::shared_ptr<Storage>> blocks)
    : prev_(tlsPool), blocks_(std::move(blocks)) {
  tlsPool = this;
}
PoolScope::~PoolScope() { tlsPool = prev_; }
PoolScope *PoolScope::current() { return tlsPool; }
void *PoolScope::take(size_t n) {
  if (next_ >= blocks_.size() || blocks_[next_]->nbytes() != n) {
    failed_ = true;
    return nullptr;
  }
  return blocks_[next_++]->data();
}
bool PoolScope::owns(void *p) const {
  for (const auto &b : blocks_)
    if (b->data() == p) return true;
  return false;
}

Graph::Graph(void *stream, const std::function<void()> &body) {
  const Driver &d = driver();
  check(d.cuStreamBeginCapture(asStream(stream), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
        "starting a CUDA graph capture");
  CUgraph g = nullptr;
  try {
    body();
  } catch (...) {
    d.cuStreamEndCapture(asStream(stream), &g);
    if (g) d.cuGraphDestroy(g);
    throw;
  }
  check(d.cuStreamEndCapture(asStream(stream), &g), "capturing a CUDA graph");
  graph_ = g;
  CUgraphExec exec = nullptr;
  check(d.cuGraphInstantiateWithFlags(&exec, g, 0), "instantiating a CUDA graph");
  exec_ = exec;
}
Graph::~Graph() {
  const Driver &d = driver();
  if (exec_) d.cuGraphExecDestroy(static_cast<CUgraphExec>(exec_));
  if (graph_) d.cuGraphDestroy(static_cast<CUgraph>(graph_));
}
void Graph::launch(void *stream) {
  check(driver().cuGraphLaunch(static_cast<CUgraphExec>(exec_), asStream(stream)),
        "launching the model's CUDA graph");
}

Event::Event() {
  CUevent e = nullptr;
  check(driver().cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "creating a CUDA event");
  event_ = e;
}
Event::~Event() { driver().cuEventDestroy(static_cast<CUevent>(event_)); }
void Event::record(void *stream) {
  check(driver().cuEventRecord(static_cast<CUevent>(event_), asStream(stream)), "recording a CUDA event");
}
void Event::waitOn(void *stream) {
  check(driver().cuStreamWaitEvent(asStream(stream), static_cast<CUevent>(event_), 0),
        "ordering streams with a CUDA event");
}

void synchronizeDevice() { check(driver().cuCtxSynchronize(), "waiting for the GPU"); }

void copyInto(const Tensor &dst, const Tensor &src0, void *stream) {
  const Driver &d = driver();
  Tensor src = src0.device().type == DeviceType::CPU ? src0.contiguous() : src0;
  if (!src.nbytes()) return;
  auto to = reinterpret_cast<CUdeviceptr>(dst.rawData());
  if (src.device().type == DeviceType::CPU)
    check(d.cuMemcpyHtoDAsync(to, src.rawData(), src.nbytes(), asStream(stream)), "copying an input to the GPU");
  else
    check(d.cuMemcpyDtoDAsync(to, reinterpret_cast<CUdeviceptr>(src.rawData()), src.nbytes(), asStream(stream)),
          "copying an input on the GPU");
}

bool available(std::string *why) {
  try {
    driver();
    return true;
  } catch (const std::exception &e) {
    if (why) *why = e.what();
    return false;
  }
}

std::string deviceDescription() {
  const DeviceInfo &i = deviceInfo();
  return i.name + ", compute capability " + std::to_string(i.major) + "." + std::to_string(i.minor) +
         ", " + std::to_string(i.multiprocessors) + " multiprocessors, " + mib(i.totalBytes);
}

int computeCapability() {
  const DeviceInfo &i = deviceInfo();
  return i.major * 10 + i.minor;
}

void *threadStream() {
  thread_local ThreadStream ts;
  if (!ts.stream) check(driver().cuStreamCreate(&ts.stream, CU_STREAM_NON_BLOCKING), "creating a CUDA stream");
  return ts.stream;
}

void *createStream() {
  CUstream s = nullptr;
  check(driver().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "creating a CUDA stream");
  return s;
}

void destroyStream(void *stream) {
  if (stream) driver().cuStreamDestroy(asStream(stream));
}

void synchronize(void *stream) {
  check(driver().cuStreamSynchronize(asStream(stream)), "running the model's kernels on the GPU");
}

Tensor emptyDevice(const std::vector<int64_t> &sizes, DType dtype, void *stream) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  auto storage = allocateStorage((size_t)numel * dtypeSize(dtype), stream);
  return Tensor::view(storage, 0, sizes, Tensor::contiguousStrides(sizes), dtype);
}

Tensor toDevice(const Tensor &t0, void *stream) {
  if (t0.device().type != DeviceType::CPU)
    throw Error(KILN_STATUS_INVALID_ARGUMENT, std::string("toDevice: the tensor is on ") +
                                                  deviceTypeName(t0.device().type) + ", not cpu");
  Tensor t = t0.contiguous();
  Tensor out = emptyDevice(t.sizes(), t.dtype(), stream);
  if (t.nbytes())
    check(driver().cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(out.rawData()), t.rawData(), t.nbytes(),
                                     asStream(stream)),
          "copying " + mib(t.nbytes()) + " to the GPU");
  // Pageable host memory: the copy has read the data when the call returns,
  // but a pinned source could still be in flight; keep the source alive.
  synchronize(stream);
  return out;
}

Tensor toHost(const Tensor &t, void *stream) {
  if (t.device().type != DeviceType::CUDA)
    throw Error(KILN_STATUS_INVALID_ARGUMENT, std::string("toHost: the tensor is on ") +
                                                  deviceTypeName(t.device().type) + ", not cuda");
  if (!t.isContiguous())
    throw Error(KILN_STATUS_INTERNAL, "toHost: the device tensor is not contiguous");
  Tensor out = Tensor::empty(t.sizes(), t.dtype());
  if (t.nbytes())
    check(driver().cuMemcpyDtoHAsync(out.rawData(), reinterpret_cast<CUdeviceptr>(t.rawData()), t.nbytes(),
                                     asStream(stream)),
          "copying " + mib(t.nbytes()) + " from the GPU");
  synchronize(stream);
  return out;
}

MemoryStats memoryStats() { return allocator().stats(); }
void emptyCache() { allocator().emptyCache(); }

EventTimer::EventTimer() {
  const Driver &d = driver();
  CUevent b = nullptr, e = nullptr;
  check(d.cuEventCreate(&b, CU_EVENT_DEFAULT), "creating a CUDA event");
  check(d.cuEventCreate(&e, CU_EVENT_DEFAULT), "creating a CUDA event");
  begin_ = b;
  end_ = e;
}
EventTimer::~EventTimer() {
  const Driver &d = driver();
  d.cuEventDestroy(static_cast<CUevent>(begin_));
  d.cuEventDestroy(static_cast<CUevent>(end_));
}
void EventTimer::start(void *stream) {
  check(driver().cuEventRecord(static_cast<CUevent>(begin_), asStream(stream)), "recording a CUDA event");
}
double EventTimer::stopMs(void *stream) {
  const Driver &d = driver();
  check(d.cuEventRecord(static_cast<CUevent>(end_), asStream(stream)), "recording a CUDA event");
  check(d.cuEventSynchronize(static_cast<CUevent>(end_)), "waiting for a CUDA event");
  float ms = 0;
  check(d.cuEventElapsedTime(&ms, static_cast<CUevent>(begin_), static_cast<CUevent>(end_)),
        "reading a CUDA event timer");
  return ms;
}

/// For MgpuAbi.cpp: allocations made by the generated code.
CUdeviceptr allocateForKernel(size_t nbytes, CUstream stream) { return allocator().allocate(nbytes, stream); }
void releaseForKernel(CUdeviceptr p) { allocator().release(p); }

} // namespace kiln::cuda

// kiln runtime — GPU streams, copies, the caching device allocator, graphs and timing, for any backend.
#include "Backend.h"
#include "Runtime.h"

#include "kiln/error.h"

#include <map>
#include <mutex>
#include <unordered_map>

namespace kiln::gpu {

namespace {

std::string mib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
  return buf;
}

/// A caching allocator over one backend: freed blocks stay with the stream
/// they were allocated on and are reused, best fit within twice the request,
/// by later allocations on that stream (stream order makes the reuse safe
/// without synchronisation). When the device runs out of memory the cache is
/// returned to it and the allocation retried once.
class Allocator {
public:
  explicit Allocator(const Backend &b) : b_(b) {}

  void *allocate(size_t nbytes, void *stream) {
    b_.ensure();
    size_t size = round(nbytes);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.lower_bound({stream, size});
    if (it != free_.end() && it->first.first == stream && it->first.second < 2 * size) {
      void *p = it->second;
      cachedBytes_ -= it->first.second;
      live_[p] = {it->first.second, stream};
      inUseBytes_ += it->first.second;
      free_.erase(it);
      return p;
    }
    void *p = nullptr;
    Result r = b_.memAlloc(&p, size);
    if (b_.isOutOfMemory(r) && !free_.empty()) {
      releaseCachedLocked();
      r = b_.memAlloc(&p, size);
    }
    if (r != 0) {
      size_t freeBytes = 0, totalBytes = 0;
      b_.memGetInfo(&freeBytes, &totalBytes);
      // Running out is RESOURCE_EXHAUSTED, as on the host: the caller may free
      // memory (other models, its own tensors, kiln_cuda_empty_cache) and retry.
      throw Error(b_.isOutOfMemory(r) ? KILN_STATUS_RESOURCE_EXHAUSTED : KILN_STATUS_DEVICE_ERROR,
                  (b_.isOutOfMemory(r) ? "out of GPU memory" : "GPU allocation failed") +
                      std::string(": cannot allocate ") + mib(size) + " on " + b_.description() + " (" +
                      mib(freeBytes) + " free of " + mib(totalBytes) + ", kiln holds " + mib(inUseBytes_) +
                      " in use): " + b_.errorString(r));
    }
    ++driverAllocations_;
    live_[p] = {size, stream};
    inUseBytes_ += size;
    return p;
  }

  void release(void *p) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(p);
    if (it == live_.end()) return;
    inUseBytes_ -= it->second.size;
    cachedBytes_ += it->second.size;
    free_.emplace(std::make_pair(it->second.stream, it->second.size), p);
    live_.erase(it);
  }

  void emptyCache() {
    b_.ensure();
    std::lock_guard<std::mutex> lock(mutex_);
    releaseCachedLocked();
  }

  MemoryStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return {inUseBytes_, cachedBytes_, driverAllocations_};
  }

private:
  struct Block {
    size_t size;
    void *stream;
  };
  static size_t round(size_t n) {
    size_t unit = n < (1u << 20) ? 512 : (2u << 20);
    return (n + unit - 1) / unit * unit;
  }
  void releaseCachedLocked() {
    // Work still queued on a cached block's stream may use it: wait first.
    b_.deviceSynchronize();
    for (auto &kv : free_) b_.memFree(kv.second);
    free_.clear();
    cachedBytes_ = 0;
  }

  const Backend &b_;
  std::mutex mutex_;
  std::unordered_map<void *, Block> live_;
  std::multimap<std::pair<void *, size_t>, void *> free_;
  size_t inUseBytes_ = 0, cachedBytes_ = 0, driverAllocations_ = 0;
};

/// One per backend, never destroyed: device tensors may be released during
/// static destruction.
Allocator &allocator(const Backend &b) {
  static std::mutex mutex;
  static auto *all = new std::map<const Backend *, Allocator *>();
  std::lock_guard<std::mutex> lock(mutex);
  Allocator *&a = (*all)[&b];
  if (!a) a = new Allocator(b);
  return *a;
}

thread_local ModuleLoadScope *tlsModuleLoad = nullptr;
thread_local AllocationRecorder *tlsRecorder = nullptr;
thread_local PoolScope *tlsPool = nullptr;
thread_local LaunchScope *tlsLaunch = nullptr;

/// Owns this thread's stream of one backend.
struct ThreadStream {
  const Backend *b = nullptr;
  void *stream = nullptr;
  ~ThreadStream() {
    if (stream) b->streamDestroy(stream);
  }
};

Storage::Deleter releaser(const Backend &b) {
  Allocator *a = &allocator(b);
  return [a](void *q) { a->release(q); };
}

} // namespace

const Backend &backend(DeviceType type) {
  if (type == DeviceType::CUDA) return cudaBackend();
  if (type == DeviceType::HIP) return hipBackend();
  throw Error(KILN_STATUS_INVALID_ARGUMENT,
              std::string("device ") + deviceTypeName(type) + " is not a GPU (expected cuda or hip)");
}

const Backend &backendForImage(const void *image) {
  // ELF header: magic, then e_machine (little-endian) at byte 18; EM_AMDGPU is 224.
  const auto *p = static_cast<const unsigned char *>(image);
  bool amdgpu = p && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F' && p[18] == 224 && p[19] == 0;
  return backend(amdgpu ? DeviceType::HIP : DeviceType::CUDA);
}

void check(const Backend &b, Result r, const std::string &what) {
  if (r != 0) throw Error(KILN_STATUS_DEVICE_ERROR, what + ": " + b.errorString(r));
}

std::shared_ptr<Storage> allocateStorage(const Backend &b, size_t nbytes, void *stream) {
  void *p = nbytes ? allocator(b).allocate(nbytes, stream) : nullptr;
  return std::make_shared<Storage>(p, nbytes, Device{b.type(), 0}, releaser(b));
}

std::shared_ptr<Storage> adoptStorage(const Backend &b, void *ptr, size_t nbytes) {
  return std::make_shared<Storage>(ptr, nbytes, Device{b.type(), 0}, releaser(b));
}

std::vector<Tensor> uploadAll(const Backend &b, const std::vector<Tensor> &hostTensors, void *stream) {
  constexpr size_t kAlign = 256;
  std::vector<size_t> offsets;
  size_t total = 0;
  for (const Tensor &t : hostTensors) {
    offsets.push_back(total);
    total += (t.nbytes() + kAlign - 1) / kAlign * kAlign;
  }
  auto storage = allocateStorage(b, total, stream);
  std::vector<Tensor> out;
  for (size_t i = 0; i < hostTensors.size(); ++i) {
    Tensor h = hostTensors[i].contiguous();
    char *dst = static_cast<char *>(storage->data()) + offsets[i];
    if (h.nbytes())
      check(b, b.memcpyHtoD(dst, h.rawData(), h.nbytes(), stream), "copying the weights to the GPU");
    out.push_back(Tensor::view(storage, (int64_t)(offsets[i] / dtypeSize(h.dtype())), h.sizes(),
                               Tensor::contiguousStrides(h.sizes()), h.dtype()));
  }
  synchronize(b, stream);
  return out;
}

Tensor cloneOnDevice(const Backend &b, const Tensor &t, void *stream) {
  Tensor out = emptyDevice(b, t.sizes(), t.dtype(), stream);
  if (t.nbytes()) check(b, b.memcpyDtoD(out.rawData(), t.rawData(), t.nbytes(), stream), "copying GPU memory");
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

LaunchScope::LaunchScope(const Backend &backend, void *stream)
    : prev_(tlsLaunch), backend_(backend), stream_(stream) {
  tlsLaunch = this;
}
LaunchScope::~LaunchScope() { tlsLaunch = prev_; }
LaunchScope *LaunchScope::current() { return tlsLaunch; }

AllocationRecorder::AllocationRecorder() : prev_(tlsRecorder) { tlsRecorder = this; }
AllocationRecorder::~AllocationRecorder() { tlsRecorder = prev_; }
AllocationRecorder *AllocationRecorder::current() { return tlsRecorder; }
void AllocationRecorder::record(size_t n, void *p) {
  events_.push_back({n, -1});
  live_.emplace_back(p, allocations_++);
}
void AllocationRecorder::recordFree(void *p) {
  for (size_t i = live_.size(); i-- > 0;)
    if (live_[i].first == p) {
      events_.push_back({0, live_[i].second});
      live_.erase(live_.begin() + i);
      return;
    }
}

PoolScope::PoolScope(std::vector<std::shared_ptr<Storage>> blocks, PoolPlan plan)
    : prev_(tlsPool), blocks_(std::move(blocks)), plan_(std::move(plan)) {
  tlsPool = this;
}
PoolScope::~PoolScope() { tlsPool = prev_; }
PoolScope *PoolScope::current() { return tlsPool; }
void *PoolScope::take(size_t n) {
  if (next_ >= plan_.blockOf.size() || plan_.allocBytes[next_] != n || plan_.blockOf[next_] >= blocks_.size()) {
    failed_ = true;
    return nullptr;
  }
  return blocks_[plan_.blockOf[next_++]]->data();
}
bool PoolScope::owns(void *p) const {
  for (const auto &b : blocks_)
    if (b->data() == p) return true;
  return false;
}

Graph::Graph(const Backend &b, void *stream, const std::function<void()> &body) : b_(b) {
  check(b, b.streamBeginCapture(stream), std::string("starting a ") + b.name() + " graph capture");
  void *g = nullptr;
  try {
    body();
  } catch (...) {
    b.streamEndCapture(stream, &g);
    if (g) b.graphDestroy(g);
    throw;
  }
  check(b, b.streamEndCapture(stream, &g), std::string("capturing a ") + b.name() + " graph");
  graph_ = g;
  check(b, b.graphInstantiate(&exec_, g), std::string("instantiating a ") + b.name() + " graph");
}
Graph::~Graph() {
  if (exec_) b_.graphExecDestroy(exec_);
  if (graph_) b_.graphDestroy(graph_);
}
void Graph::launch(void *stream) {
  check(b_, b_.graphLaunch(exec_, stream), std::string("launching the model's ") + b_.name() + " graph");
}

Event::Event(const Backend &b) : b_(b) {
  check(b, b.eventCreate(&event_, false), std::string("creating a ") + b.name() + " event");
}
Event::~Event() { b_.eventDestroy(event_); }
void Event::record(void *stream) {
  check(b_, b_.eventRecord(event_, stream), std::string("recording a ") + b_.name() + " event");
}
void Event::waitOn(void *stream) {
  check(b_, b_.streamWaitEvent(stream, event_), std::string("ordering streams with a ") + b_.name() + " event");
}

void synchronizeDevice(const Backend &b) { check(b, b.deviceSynchronize(), "waiting for the GPU"); }

void copyInto(const Backend &b, const Tensor &dst, const Tensor &src0, void *stream) {
  Tensor src = src0.device().type == DeviceType::CPU ? src0.contiguous() : src0;
  if (!src.nbytes()) return;
  if (src.device().type == DeviceType::CPU)
    check(b, b.memcpyHtoD(dst.rawData(), src.rawData(), src.nbytes(), stream), "copying an input to the GPU");
  else
    check(b, b.memcpyDtoD(dst.rawData(), src.rawData(), src.nbytes(), stream), "copying an input on the GPU");
}

void *threadStream(const Backend &b) {
  thread_local ThreadStream streams[2];
  ThreadStream &ts = streams[b.type() == DeviceType::HIP ? 1 : 0];
  if (!ts.stream) {
    b.ensure();
    check(b, b.streamCreate(&ts.stream), std::string("creating a ") + b.name() + " stream");
    ts.b = &b;
  }
  return ts.stream;
}

void synchronize(const Backend &b, void *stream) {
  check(b, b.streamSynchronize(stream), "running the model's kernels on the GPU");
}

Tensor emptyDevice(const Backend &b, const std::vector<int64_t> &sizes, DType dtype, void *stream) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  auto storage = allocateStorage(b, (size_t)numel * dtypeSize(dtype), stream);
  return Tensor::view(storage, 0, sizes, Tensor::contiguousStrides(sizes), dtype);
}

Tensor toDevice(const Backend &b, const Tensor &t0, void *stream) {
  if (t0.device().type != DeviceType::CPU)
    throw Error(KILN_STATUS_INVALID_ARGUMENT, std::string("toDevice: the tensor is on ") +
                                                  deviceTypeName(t0.device().type) + ", not cpu");
  Tensor t = t0.contiguous();
  Tensor out = emptyDevice(b, t.sizes(), t.dtype(), stream);
  if (t.nbytes())
    check(b, b.memcpyHtoD(out.rawData(), t.rawData(), t.nbytes(), stream),
          "copying " + mib(t.nbytes()) + " to the GPU");
  // Pageable host memory: the copy has read the data when the call returns,
  // but a pinned source could still be in flight; keep the source alive.
  synchronize(b, stream);
  return out;
}

Tensor toHost(const Backend &b, const Tensor &t, void *stream) {
  if (t.device().type != b.type())
    throw Error(KILN_STATUS_INVALID_ARGUMENT, std::string("toHost: the tensor is on ") +
                                                  deviceTypeName(t.device().type) + ", not " +
                                                  deviceTypeName(b.type()));
  if (!t.isContiguous()) throw Error(KILN_STATUS_INTERNAL, "toHost: the device tensor is not contiguous");
  Tensor out = Tensor::empty(t.sizes(), t.dtype());
  if (t.nbytes())
    check(b, b.memcpyDtoH(out.rawData(), t.rawData(), t.nbytes(), stream),
          "copying " + mib(t.nbytes()) + " from the GPU");
  synchronize(b, stream);
  return out;
}

/// For MgpuAbi.cpp: allocations made by the generated code.
void *allocateForKernel(const Backend &b, size_t nbytes, void *stream) { return allocator(b).allocate(nbytes, stream); }
void releaseForKernel(const Backend &b, void *p) { allocator(b).release(p); }

// ---- kiln/gpu.h

bool available(DeviceType device, std::string *why) {
  try {
    backend(device).ensure();
    return true;
  } catch (const std::exception &e) {
    if (why) *why = e.what();
    return false;
  }
}

std::string deviceDescription(DeviceType device) { return backend(device).description(); }
void *threadStream(DeviceType device) { return threadStream(backend(device)); }

void *createStream(DeviceType device) {
  const Backend &b = backend(device);
  b.ensure();
  void *s = nullptr;
  check(b, b.streamCreate(&s), std::string("creating a ") + b.name() + " stream");
  return s;
}

void destroyStream(DeviceType device, void *stream) {
  if (stream) backend(device).streamDestroy(stream);
}

void synchronize(DeviceType device, void *stream) { synchronize(backend(device), stream); }
Tensor toDevice(DeviceType device, const Tensor &t, void *stream) { return toDevice(backend(device), t, stream); }
Tensor toHost(const Tensor &t, void *stream) { return toHost(backend(t.device().type), t, stream); }
Tensor emptyDevice(DeviceType device, const std::vector<int64_t> &sizes, DType dtype, void *stream) {
  return emptyDevice(backend(device), sizes, dtype, stream);
}
MemoryStats memoryStats(DeviceType device) { return allocator(backend(device)).stats(); }
void emptyCache(DeviceType device) { allocator(backend(device)).emptyCache(); }

EventTimer::EventTimer(DeviceType device) : device_(device) {
  const Backend &b = backend(device);
  b.ensure();
  check(b, b.eventCreate(&begin_, true), std::string("creating a ") + b.name() + " event");
  check(b, b.eventCreate(&end_, true), std::string("creating a ") + b.name() + " event");
}
EventTimer::~EventTimer() {
  const Backend &b = backend(device_);
  b.eventDestroy(begin_);
  b.eventDestroy(end_);
}
void EventTimer::start(void *stream) {
  const Backend &b = backend(device_);
  check(b, b.eventRecord(begin_, stream), std::string("recording a ") + b.name() + " event");
}
double EventTimer::stopMs(void *stream) {
  const Backend &b = backend(device_);
  check(b, b.eventRecord(end_, stream), std::string("recording a ") + b.name() + " event");
  check(b, b.eventSynchronize(end_), std::string("waiting for a ") + b.name() + " event");
  float ms = 0;
  check(b, b.eventElapsedMs(&ms, begin_, end_), std::string("reading a ") + b.name() + " event timer");
  return ms;
}

} // namespace kiln::gpu

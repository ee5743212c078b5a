// kiln runtime — what the loader needs from a GPU backend: storage, launch and module-load scopes, graphs.
#ifndef KILN_GPU_RUNTIME_H
#define KILN_GPU_RUNTIME_H

#include "Backend.h"
#include "PoolPlan.h"
#include "kiln/gpu.h"
#include "kiln/kiln.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::gpu {

/// Device storage of `nbytes` from the caching allocator, ordered on `stream`;
/// freed back to the cache with the last reference.
std::shared_ptr<Storage> allocateStorage(const Backend &b, size_t nbytes, void *stream);

/// Takes ownership of `ptr`, a block the generated code got from mgpuMemAlloc:
/// it returns to the cache with the last reference.
std::shared_ptr<Storage> adoptStorage(const Backend &b, void *ptr, size_t nbytes);

/// Device copies of host tensors, all in one allocation (256-byte aligned
/// each), copied before this returns.
std::vector<Tensor> uploadAll(const Backend &b, const std::vector<Tensor> &hostTensors, void *stream);

/// A contiguous device copy of contiguous device tensor `t`, ordered on `stream`.
Tensor cloneOnDevice(const Backend &b, const Tensor &t, void *stream);

/// Collects, on this thread, the kernel modules that a model's constructors
/// load while the model is dlopen'ed, and the first error.
class ModuleLoadScope {
public:
  ModuleLoadScope();
  ~ModuleLoadScope();
  ModuleLoadScope(const ModuleLoadScope &) = delete;
  ModuleLoadScope &operator=(const ModuleLoadScope &) = delete;
  const std::string &error() const { return error_; }
  size_t modulesLoaded() const { return loaded_; }
  /// Called by mgpuModuleLoad: the first failure is kept.
  static void record(const std::string &error, bool loaded);

private:
  ModuleLoadScope *prev_;
  std::string error_;
  size_t loaded_ = 0;
};

/// The backend, the stream and the first error of one call of a model's
/// entry on this thread. The mgpu* functions the generated code calls queue
/// their work on this stream; after an error they queue nothing more.
class LaunchScope {
public:
  LaunchScope(const Backend &backend, void *stream);
  ~LaunchScope();
  LaunchScope(const LaunchScope &) = delete;
  LaunchScope &operator=(const LaunchScope &) = delete;
  void *stream() const { return stream_; }
  const Backend &backend() const { return backend_; }
  bool failed() const { return !error_.empty(); }
  const std::string &error() const { return error_; }
  /// The innermost scope of this thread, or null.
  static LaunchScope *current();
  /// Keeps the first error of this scope.
  void fail(const std::string &error) {
    if (error_.empty()) error_ = error;
  }

private:
  LaunchScope *prev_;
  const Backend &backend_;
  void *stream_;
  std::string error_;
};

/// While alive, logs on this thread the allocations and frees the generated
/// code makes, in order (what a graph of the same call will need).
class AllocationRecorder {
public:
  AllocationRecorder();
  ~AllocationRecorder();
  AllocationRecorder(const AllocationRecorder &) = delete;
  AllocationRecorder &operator=(const AllocationRecorder &) = delete;
  const std::vector<PoolEvent> &events() const { return events_; }
  static AllocationRecorder *current();
  void record(size_t n, void *p);
  void recordFree(void *p);

private:
  AllocationRecorder *prev_;
  std::vector<PoolEvent> events_;
  std::vector<std::pair<void *, int64_t>> live_;
  int64_t allocations_ = 0;
};

/// While alive, the generated code's allocations on this thread are served
/// in order from `blocks` (a graph's private memory, laid out by `plan`:
/// a block freed earlier in the call serves a later allocation) and its frees
/// are ignored: no driver call happens while a stream is captured.
class PoolScope {
public:
  PoolScope(std::vector<std::shared_ptr<Storage>> blocks, PoolPlan plan);
  ~PoolScope();
  PoolScope(const PoolScope &) = delete;
  PoolScope &operator=(const PoolScope &) = delete;
  static PoolScope *current();
  /// The block of the next allocation if the plan has it with `n` bytes;
  /// null (and failed()) otherwise.
  void *take(size_t n);
  bool failed() const { return failed_; }
  bool owns(void *p) const;
  const std::vector<std::shared_ptr<Storage>> &blocks() const { return blocks_; }

private:
  PoolScope *prev_;
  std::vector<std::shared_ptr<Storage>> blocks_;
  PoolPlan plan_;
  size_t next_ = 0;
  bool failed_ = false;
};

/// A graph (CUDA graph, HIP graph) of the work one call queues on a stream.
class Graph {
public:
  /// Captures what `body` queues on `stream` (thread-local capture mode),
  /// and instantiates it. Throws kiln::Error if capturing fails; the stream
  /// is no longer capturing either way.
  Graph(const Backend &b, void *stream, const std::function<void()> &body);
  ~Graph();
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;
  void launch(void *stream);

private:
  const Backend &b_;
  void *graph_ = nullptr, *exec_ = nullptr;
};

/// A reusable event: record() on one stream, waitOn() from another.
class Event {
public:
  explicit Event(const Backend &b);
  ~Event();
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  void record(void *stream);
  void waitOn(void *stream);

private:
  const Backend &b_;
  void *event_ = nullptr;
};

/// Waits for everything queued on the device, on any stream.
void synchronizeDevice(const Backend &b);

/// Copies `src` (contiguous, host or device) into device tensor `dst` of the
/// same size, ordered on `stream`.
void copyInto(const Backend &b, const Tensor &dst, const Tensor &src, void *stream);

/// Raw device memory from the caching allocator, in the order of `stream`:
/// what generated code allocates (mgpuMemAlloc) and the buffers the runtime
/// hands to it (results of host calls); release with releaseForKernel.
void *allocateForKernel(const Backend &b, size_t nbytes, void *stream);
void releaseForKernel(const Backend &b, void *p);

/// The public functions of kiln/gpu.h, on a backend.
void *threadStream(const Backend &b);
void synchronize(const Backend &b, void *stream);
Tensor toDevice(const Backend &b, const Tensor &t, void *stream);
Tensor toHost(const Backend &b, const Tensor &t, void *stream);
Tensor emptyDevice(const Backend &b, const std::vector<int64_t> &sizes, DType dtype, void *stream);

} // namespace kiln::gpu

#endif // KILN_GPU_RUNTIME_H

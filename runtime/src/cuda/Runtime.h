// kiln runtime — what the loader needs from the CUDA backend: launch and module-load scopes.
#ifndef KILN_CUDA_RUNTIME_H
#define KILN_CUDA_RUNTIME_H

#include "kiln/cuda.h"
#include "kiln/kiln.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::cuda {

/// Device storage of `nbytes` from the caching allocator, ordered on `stream`;
/// freed back to the cache with the last reference.
std::shared_ptr<Storage> allocateStorage(size_t nbytes, void *stream);

/// Takes ownership of `ptr`, a block the generated code got from mgpuMemAlloc:
/// it returns to the cache with the last reference.
std::shared_ptr<Storage> adoptStorage(void *ptr, size_t nbytes);

/// Device copies of host tensors, all in one allocation (256-byte aligned
/// each), copied before this returns.
std::vector<Tensor> uploadAll(const std::vector<Tensor> &hostTensors, void *stream);

/// A contiguous device copy of contiguous device tensor `t`, ordered on `stream`.
Tensor cloneOnDevice(const Tensor &t, void *stream);

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

/// The stream and the first error of one call of a model's entry on this
/// thread. The mgpu* functions the generated code calls queue their work on
/// this stream; after an error they queue nothing more.
class LaunchScope {
public:
  explicit LaunchScope(void *stream);
  ~LaunchScope();
  LaunchScope(const LaunchScope &) = delete;
  LaunchScope &operator=(const LaunchScope &) = delete;
  void *stream() const { return stream_; }
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
  void *stream_;
  std::string error_;
};

} // namespace kiln::cuda

#endif // KILN_CUDA_RUNTIME_H

// kiln runtime — one GPU vendor's API (the CUDA driver, HIP) behind one interface.
//
// The vendor-neutral GPU runtime (streams, the caching allocator, graphs,
// events, the mgpu* functions a GPU model's host code calls) is written once
// against this interface; runtime/src/cuda and runtime/src/hip implement it
// over their vendor's library, which each loads with dlopen on first use.
#ifndef KILN_GPU_BACKEND_H
#define KILN_GPU_BACKEND_H

#include "kiln/tensor.h"

#include <cstddef>
#include <string>

namespace kiln::gpu {

/// A vendor's result code: 0 is success.
using Result = int;

/// Device 0 of one vendor. Every entry point first makes sure the library is
/// loaded and device 0 is current on the calling thread, and throws
/// kiln::Error(KILN_STATUS_DEVICE_ERROR) saying why the vendor cannot be used
/// here (no library, no device, ...) if it is not. Handles (streams, events,
/// modules, functions, graphs) are the vendor's, passed as void*.
class Backend {
public:
  virtual ~Backend() = default;
  /// CUDA or HIP: the device of the tensors this backend allocates.
  virtual DeviceType type() const = 0;
  /// "CUDA", "HIP": for messages.
  virtual const char *name() const = 0;
  /// Throws the reason the vendor cannot be used here, if any.
  virtual void ensure() const = 0;
  /// One line about device 0: name, architecture, compute units, memory.
  virtual std::string description() const = 0;
  /// "NAME (detail)" of a result code.
  virtual std::string errorString(Result r) const = 0;
  virtual bool isOutOfMemory(Result r) const = 0;
  /// Why the model's kernels do not load on this device, with advice on
  /// the architecture to compile for when that is the cause.
  virtual std::string moduleLoadError(Result r) const = 0;
  /// Why code compiled for `arch` (the architecture of a model manifest's
  /// `device` line) cannot run on device 0, as the rest of a sentence that
  /// starts "model 'PATH'"; "" if it can. Sets `unknown` when `arch` is no
  /// architecture of this vendor at all.
  virtual std::string archMismatch(const std::string &arch, bool &unknown) const = 0;

  virtual Result memAlloc(void **ptr, size_t nbytes) const = 0;
  virtual Result memFree(void *ptr) const = 0;
  virtual Result memGetInfo(size_t *freeBytes, size_t *totalBytes) const = 0;
  virtual Result memcpyHtoD(void *dst, const void *src, size_t n, void *stream) const = 0;
  virtual Result memcpyDtoH(void *dst, const void *src, size_t n, void *stream) const = 0;
  virtual Result memcpyDtoD(void *dst, const void *src, size_t n, void *stream) const = 0;
  /// Either direction, the pointers' kinds found by unified addressing.
  virtual Result memcpyAny(void *dst, const void *src, size_t n, void *stream) const = 0;
  virtual Result memsetD32(void *dst, unsigned value, size_t count, void *stream) const = 0;
  virtual Result memsetD16(void *dst, unsigned short value, size_t count, void *stream) const = 0;
  virtual Result deviceSynchronize() const = 0;

  /// A non-blocking stream.
  virtual Result streamCreate(void **stream) const = 0;
  virtual Result streamDestroy(void *stream) const = 0;
  virtual Result streamSynchronize(void *stream) const = 0;
  virtual Result streamWaitEvent(void *stream, void *event) const = 0;
  virtual Result eventCreate(void **event, bool timing) const = 0;
  virtual Result eventDestroy(void *event) const = 0;
  virtual Result eventRecord(void *event, void *stream) const = 0;
  virtual Result eventSynchronize(void *event) const = 0;
  virtual Result eventElapsedMs(float *ms, void *begin, void *end) const = 0;

  /// Loads a kernel image; `jit` asks for PTX-style compilation at `optLevel`
  /// where the vendor has it (otherwise a plain load).
  virtual Result moduleLoad(void **module, const void *image, bool jit, int optLevel) const = 0;
  virtual Result moduleUnload(void *module) const = 0;
  virtual Result moduleGetFunction(void **function, void *module, const char *name) const = 0;
  virtual Result launchKernel(void *function, unsigned gridX, unsigned gridY, unsigned gridZ, unsigned blockX,
                              unsigned blockY, unsigned blockZ, unsigned sharedBytes, void *stream, void **params,
                              void **extra) const = 0;

  /// Graph capture of what is queued on a stream (thread-local mode).
  virtual Result streamBeginCapture(void *stream) const = 0;
  virtual Result streamEndCapture(void *stream, void **graph) const = 0;
  virtual Result graphInstantiate(void **exec, void *graph) const = 0;
  virtual Result graphLaunch(void *exec, void *stream) const = 0;
  virtual Result graphExecDestroy(void *exec) const = 0;
  virtual Result graphDestroy(void *graph) const = 0;
};

/// The backend of a device type (CUDA or HIP); throws
/// kiln::Error(KILN_STATUS_INVALID_ARGUMENT) for another.
const Backend &backend(DeviceType type);

/// The backend whose kernels `image` (a model's embedded GPU binary) holds:
/// an AMDGPU ELF is HIP's, anything else (fatbin, cubin, PTX) CUDA's.
const Backend &backendForImage(const void *image);

/// The vendors' backends (runtime/src/cuda, runtime/src/hip).
const Backend &cudaBackend();
const Backend &hipBackend();

/// Throws kiln::Error(KILN_STATUS_DEVICE_ERROR, "<what>: <error>") unless `r` is success.
void check(const Backend &b, Result r, const std::string &what);

} // namespace kiln::gpu

#endif // KILN_GPU_BACKEND_H

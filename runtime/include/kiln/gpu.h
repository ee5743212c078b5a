// kiln runtime — GPU devices from C++, for either vendor: availability, streams, copies, memory and timing.
//
// `device` is DeviceType::CUDA (the CUDA driver, libcuda) or DeviceType::HIP
// (ROCm's HIP runtime, libamdhip64). The vendor's library is loaded on first
// use, so programs linking libkiln_runtime need neither installed until they
// touch a model or tensor of that device. Every function throws kiln's
// runtime error (a std::runtime_error whose status is
// KILN_STATUS_DEVICE_ERROR) when the device is unusable, except available().
// Device tensors are contiguous buffers of device 0 from kiln's caching
// allocator (one per vendor); a stream is the vendor's stream handle
// (CUstream, hipStream_t) passed as void* (NULL is not a valid stream here:
// use threadStream()). kiln/cuda.h has the CUDA-only shorthands.
#ifndef KILN_GPU_H
#define KILN_GPU_H

#include "kiln/tensor.h"

#include <cstddef>
#include <string>

namespace kiln::gpu {

/// Whether the vendor's library and a device are usable; if not and `why`
/// is given, it says why (no library, no device, ...). Thread-safe.
bool available(DeviceType device, std::string *why = nullptr);

/// One line about device 0: name, architecture, compute units, memory.
std::string deviceDescription(DeviceType device);

/// The calling thread's own non-blocking stream, created on first use.
void *threadStream(DeviceType device);
void *createStream(DeviceType device);
void destroyStream(DeviceType device, void *stream);
/// Waits for all work queued on `stream`.
void synchronize(DeviceType device, void *stream);

/// A contiguous device copy of host tensor `t`, queued on `stream` (the host
/// data may be reused when this returns).
Tensor toDevice(DeviceType device, const Tensor &t, void *stream);
/// A contiguous host copy of device tensor `t`, after the work queued on
/// `stream` (waits for the copy).
Tensor toHost(const Tensor &t, void *stream);
/// An uninitialised contiguous device tensor, ordered on `stream`.
Tensor emptyDevice(DeviceType device, const std::vector<int64_t> &sizes, DType dtype, void *stream);

/// What a vendor's caching allocator holds: bytes handed out, bytes cached
/// for reuse, and how many times it asked the library for memory.
struct MemoryStats {
  size_t inUseBytes = 0, cachedBytes = 0, driverAllocations = 0;
};
MemoryStats memoryStats(DeviceType device);
/// Returns every cached (free) block to the vendor's library.
void emptyCache(DeviceType device);

/// Measures device time between start() and stop() on one stream with a
/// pair of events.
class EventTimer {
public:
  explicit EventTimer(DeviceType device);
  ~EventTimer();
  EventTimer(const EventTimer &) = delete;
  EventTimer &operator=(const EventTimer &) = delete;
  void start(void *stream);
  /// Records the end, waits for it and returns the milliseconds between.
  double stopMs(void *stream);

private:
  DeviceType device_;
  void *begin_ = nullptr, *end_ = nullptr;
};

} // namespace kiln::gpu

#endif // KILN_GPU_H

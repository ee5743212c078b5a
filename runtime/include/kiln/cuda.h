// kiln runtime — CUDA devices from C++: availability, streams, copies, memory and timing (kiln/gpu.h on CUDA).
//
// The driver (libcuda) is loaded on first use, so programs linking
// libkiln_runtime need no CUDA installation until they touch a CUDA model or
// tensor. Every function throws kiln's runtime error (a std::runtime_error
// whose status is KILN_STATUS_DEVICE_ERROR) when CUDA is unusable, except
// available(). Device tensors are contiguous buffers of device 0 from kiln's
// caching allocator; a stream is a CUstream passed as void* (NULL is not a
// valid stream here: use threadStream()).
#ifndef KILN_CUDA_H
#define KILN_CUDA_H

#include "kiln/gpu.h"
#include "kiln/tensor.h"

#include <cstddef>
#include <string>

namespace kiln::cuda {

/// Whether a CUDA driver and device are usable; if not and `why` is given,
/// it says why (no driver library, no device, ...). Thread-safe.
bool available(std::string *why = nullptr);

/// One line about device 0: name, compute capability, multiprocessors, memory.
std::string deviceDescription();
/// Device 0's compute capability as major * 10 + minor (90 for an H100).
int computeCapability();

/// The calling thread's own non-blocking stream, created on first use.
void *threadStream();
void *createStream();
void destroyStream(void *stream);
/// Waits for all work queued on `stream`.
void synchronize(void *stream);

/// A contiguous device copy of host tensor `t`, queued on `stream` (the host
/// data may be reused when this returns).
Tensor toDevice(const Tensor &t, void *stream);
/// A contiguous host copy of device tensor `t`, after the work queued on
/// `stream` (waits for the copy).
Tensor toHost(const Tensor &t, void *stream);
/// An uninitialised contiguous device tensor, ordered on `stream`.
Tensor emptyDevice(const std::vector<int64_t> &sizes, DType dtype, void *stream);

/// What the caching allocator holds: bytes handed out, bytes cached for
/// reuse, and how many times it asked the driver for memory.
using MemoryStats = gpu::MemoryStats;
MemoryStats memoryStats();
/// Returns every cached (free) block to the driver.
void emptyCache();

/// Measures device time between start() and stop() on one stream with a
/// pair of CUDA events.
class EventTimer : public gpu::EventTimer {
public:
  EventTimer() : gpu::EventTimer(DeviceType::CUDA) {}
};

} // namespace kiln::cuda

#endif // KILN_CUDA_H

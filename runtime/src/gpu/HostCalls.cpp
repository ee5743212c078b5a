// kiln runtime — host work between a GPU model's kernels: dispatcher ops and reads of device values.
//
// kiln_rt_call_op_device:
// An op that kiln does not compile (a plugin's custom op, or an ATen op that
// runs through the runtime's eager kernels) sits between kernels in a GPU
// model. Its operands live in device memory and the dispatcher's kernels run
// on the CPU, so the call is a round trip: wait for the stream, copy each
// tensor operand's reachable bytes to the host, call the op, copy each result
// into a fresh device buffer from the caching allocator (the model frees it
// with gpu.dealloc like any other), and wait again. Such a model cannot be
// captured as a GPU graph (a capture may not wait for its own stream): the
// call refuses while a graph is captured, and the loader then runs the model
// without one. See docs/Rationale/gpu-host-calls.md.
//
// kiln_gpu_read_to_host (kiln/abi/gpu_calls.h): a value the kernels computed
// that the host code needs (a split size from `.tolist()`, an `.item()`
// that decides a branch or a loop bound) is copied to a host scalar once the
// stream has reached it. It is vendor-neutral: a copy through the backend.
#include "Backend.h"
#include "Runtime.h"

#include "kiln/rt_call.h"
#include "kiln/tensor.h"

#include <cstdlib>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

using namespace kiln;
using namespace kiln::gpu;

namespace {

/// A memref descriptor's words: allocated, aligned, offset, sizes, strides.
struct Descriptor {
  int64_t *w;
  int64_t rank;
  void *aligned() const { return reinterpret_cast<void *>(w[1]); }
  int64_t offset() const { return w[2]; }
  int64_t size(int64_t i) const { return w[3 + i]; }
  int64_t stride(int64_t i) const { return w[3 + rank + i]; }
};

/// Elements from the descriptor's offset to the last one it reaches, plus
/// one (0 when it is empty).
int64_t reachableElements(const Descriptor &d) {
  int64_t extent = 1;
  for (int64_t i = 0; i < d.rank; ++i) {
    if (d.size(i) == 0) return 0;
    if (d.stride(i) < 0) throw std::runtime_error("a tensor operand has a negative stride");
    extent += (d.size(i) - 1) * d.stride(i);
  }
  return extent;
}

size_t elementBytes(int64_t dtype) {
  if (dtype < 0 || dtype >= kNumDTypes) throw std::runtime_error("bad dtype code " + std::to_string(dtype));
  return dtypeSize(static_cast<DType>(dtype));
}

/// Host memory the round trip owns until it returns.
struct HostBuffers {
  std::vector<void *> blocks;
  void *take(size_t nbytes) {
    size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
    void *p = std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment);
    if (!p) throw std::runtime_error("out of host memory (" + std::to_string(nbytes) + " bytes)");
    blocks.push_back(p);
    return p;
  }
  ~HostBuffers() {
    for (void *p : blocks) std::free(p);
  }
};

} // namespace

extern "C" __attribute__((visibility("default"))) int32_t
kiln_rt_call_op_device(const char *qualified_name, int64_t nargs, kiln_rt_value *args, int64_t nresults,
                       kiln_rt_value *results) {
  std::string name = qualified_name ? qualified_name : "(null)";
  LaunchScope *scope = LaunchScope::current();
  if (!scope) return kiln_rt_call_op(qualified_name, nargs, args, nresults, results);  // not inside a GPU call
  if (scope->failed()) return 1;
  try {
    if (PoolScope::current())
      throw std::runtime_error("op " + name + " runs on the host between kernels, which a GPU graph cannot capture");
    const Backend &b = scope->backend();
    void *stream = scope->stream();
    // The kernels before the call must have written its operands.
    synchronize(b, stream);

    // Each tensor operand's reachable elements, copied to the host; the
    // host descriptor keeps the sizes and strides with offset 0.
    HostBuffers host;
    std::vector<kiln_rt_value> hostArgs(args, args + nargs);
    std::deque<std::vector<int64_t>> hostDescs;       // stable addresses
    std::deque<std::vector<kiln_rt_value>> hostLists; // a tensor list's host records
    auto toHost = [&](kiln_rt_value &v, const std::string &what) {
      if (!v.desc) throw std::runtime_error(what + " has no descriptor");
      Descriptor d{static_cast<int64_t *>(v.desc), v.rank};
      size_t esize = elementBytes(v.dtype);
      size_t nbytes = (size_t)reachableElements(d) * esize;
      void *dst = host.take(nbytes);
      if (nbytes)
        check(b, b.memcpyAny(dst, static_cast<char *>(d.aligned()) + d.offset() * esize, nbytes, stream),
              "copying " + what + " of " + name + " to the host");
      std::vector<int64_t> &hd = hostDescs.emplace_back(d.w, d.w + 3 + 2 * d.rank);
      hd[0] = hd[1] = reinterpret_cast<int64_t>(dst);
      hd[2] = 0;
      v.desc = hd.data();
    };
    for (int64_t i = 0; i < nargs; ++i) {
      std::string what = "argument " + std::to_string(i);
      if (hostArgs[i].tag == KILN_RT_TENSOR) toHost(hostArgs[i], what);
      if (hostArgs[i].tag != KILN_RT_TENSOR_LIST) continue;
      auto *elems = static_cast<kiln_rt_value *>(hostArgs[i].desc);
      if (hostArgs[i].rank && !elems) throw std::runtime_error(what + " has no elements");
      std::vector<kiln_rt_value> &list = hostLists.emplace_back(elems, elems + hostArgs[i].rank);
      for (size_t k = 0; k < list.size(); ++k) toHost(list[k], what + " element " + std::to_string(k));
      hostArgs[i].desc = list.data();
    }
    synchronize(b, stream);

    int32_t rc = kiln_rt_call_op(qualified_name, nargs, hostArgs.data(), nresults, results);
    if (rc != 0) {
      scope->fail(kiln_rt_last_error());
      return rc;
    }

    // Tensor results: the dispatcher's host buffers become device buffers.
    std::vector<void *> hostResults;
    for (int64_t i = 0; i < nresults; ++i)
      if (results[i].tag == KILN_RT_TENSOR)
        hostResults.push_back(reinterpret_cast<void *>(static_cast<int64_t *>(results[i].desc)[0]));
    struct FreeHost {
      std::vector<void *> &p;
      ~FreeHost() {
        for (void *q : p) std::free(q);
      }
    } freeHost{hostResults};
    std::vector<void *> device;
    try {
      for (int64_t i = 0; i < nresults; ++i) {
        if (results[i].tag != KILN_RT_TENSOR) continue;
        Descriptor d{static_cast<int64_t *>(results[i].desc), results[i].rank};
        size_t nbytes = (size_t)reachableElements(d) * elementBytes(results[i].dtype);
        void *p = nbytes ? allocateForKernel(b, nbytes, stream) : nullptr;
        if (p) device.push_back(p);
        if (nbytes)
          check(b, b.memcpyAny(p, d.aligned(), nbytes, stream),
                "copying result " + std::to_string(i) + " of " + name + " to the device");
        d.w[0] = d.w[1] = reinterpret_cast<int64_t>(p);
        d.w[2] = 0;
      }
      // The host buffers are freed on return: the copies must be done.
      synchronize(b, stream);
    } catch (...) {
      for (void *p : device) releaseForKernel(b, p);
      for (int64_t i = 0; i < nresults; ++i)
        if (results[i].tag == KILN_RT_TENSOR) {
          auto *w = static_cast<int64_t *>(results[i].desc);
          w[0] = w[1] = 0;
        }
      throw;
    }
    return 0;
  } catch (const std::exception &e) {
    scope->fail("op " + name + " on the host: " + e.what());
    return 1;
  }
}

extern "C" __attribute__((visibility("default"))) void _mlir_ciface_kiln_gpu_read_to_host(int64_t dst, int64_t src,
                                                                                      int64_t nbytes) {
  void *out = reinterpret_cast<void *>(dst);
  const void *in = reinterpret_cast<const void *>(src);
  // What the host code computes with when the value cannot be read: the
  // call has failed, and the loader reports its first error.
  std::memset(out, 0, (size_t)nbytes);
  LaunchScope *scope = LaunchScope::current();
  if (scope && scope->failed()) return;
  try {
    if (PoolScope::current())
      throw std::runtime_error("the host reads a value the kernels computed, which a GPU graph cannot capture");
    // Outside a model call (no scope) the copy is CUDA's, as the mgpu* functions'.
    const Backend &b = scope ? scope->backend() : backend(DeviceType::CUDA);
    void *stream = scope ? scope->stream() : nullptr;
    check(b, b.memcpyDtoH(out, in, (size_t)nbytes, stream),
          "copying " + std::to_string(nbytes) + " bytes of a device value to the host");
    synchronize(b, stream);
  } catch (const std::exception &e) {
    std::memset(out, 0, (size_t)nbytes);
    if (scope) scope->fail(std::string("reading a device value on the host: ") + e.what());
  }
}

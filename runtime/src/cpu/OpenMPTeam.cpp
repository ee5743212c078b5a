// kiln runtime — kiln's parallel loops on the OpenMP team that oneDNN's calls run on (docs/Rationale/cpu-threads.md).
//
// Debian's oneDNN runs each primitive on libgomp's threads. Between two
// library calls a model runs its generated loops; on oneTBB's workers those
// are a second set of threads, and every switch between the sets is a
// wake-up of one and a sleep (or a spin) of the other on the same cores.
// Once oneDNN is loaded, a model call with the pool to itself runs its loops
// on the same OpenMP team instead: one set of threads per call, which stays
// awake from one call or loop to the next.
#include "OpenMPTeam.h"

#include <algorithm>
#include <atomic>
#include <dlfcn.h>
#include <exception>
#include <mutex>

namespace kiln::cpu {
namespace {

/// libgomp's entry points (GCC's OpenMP ABI) and the standard queries.
struct OpenMP {
  void (*parallel)(void (*fn)(void *), void *data, unsigned threads, unsigned flags) = nullptr;
  int (*threadNum)() = nullptr;
  int (*numThreads)() = nullptr;
  int (*inParallel)() = nullptr;
};
OpenMP gOmp;
std::atomic<bool> gAdopted{false};

/// One parallel loop: the pieces not yet taken, and the first failure.
struct Loop {
  const std::function<void(int64_t, int64_t)> *f;
  int64_t n, pieces;
  std::atomic<int64_t> next{0};
  std::mutex errorMutex;
  std::exception_ptr error;

  int64_t bound(int64_t piece) const { return (int64_t)((__int128)n * piece / pieces); }

  /// Each team thread takes runs of pieces, half of an equal share of what
  /// is left at a time (so a thread the OS delays leaves its work to the
  /// others, and the first runs are long), until none are left.
  static void body(void *p) {
    Loop &l = *static_cast<Loop *>(p);
    int64_t team = std::max(1, gOmp.numThreads());
    for (;;) {
      int64_t start = l.next.load(std::memory_order_relaxed);
      int64_t take = 0;
      do {
        if (start >= l.pieces) return;
        take = std::max<int64_t>(1, (l.pieces - start) / (2 * team));
      } while (!l.next.compare_exchange_weak(start, start + take, std::memory_order_relaxed));
      try {
        (*l.f)(l.bound(start), l.bound(start + take));
      } catch (...) {
        std::lock_guard<std::mutex> lock(l.errorMutex);
        if (!l.error) l.error = std::current_exception();
        l.next.store(l.pieces, std::memory_order_relaxed);  // cancel what is not started
      }
    }
  }
};

} // namespace

void adoptOpenMP(void *dnnlHandle) {
  if (!dnnlHandle || gAdopted.load()) return;
  OpenMP o;
  // dlsym on the library's handle searches the libraries it depends on:
  // the OpenMP runtime it was linked with.
  o.parallel = reinterpret_cast<decltype(o.parallel)>(::dlsym(dnnlHandle, "GOMP_parallel"));
  o.threadNum = reinterpret_cast<decltype(o.threadNum)>(::dlsym(dnnlHandle, "omp_get_thread_num"));
  o.numThreads = reinterpret_cast<decltype(o.numThreads)>(::dlsym(dnnlHandle, "omp_get_num_threads"));
  o.inParallel = reinterpret_cast<decltype(o.inParallel)>(::dlsym(dnnlHandle, "omp_in_parallel"));
  if (!o.parallel || !o.threadNum || !o.numThreads || !o.inParallel) return;
  gOmp = o;
  gAdopted.store(true);
}

bool openmpParallelFor(int threads, int64_t n, int64_t pieces, const std::function<void(int64_t, int64_t)> &f) {
  if (!gAdopted.load(std::memory_order_acquire) || threads < 2 || pieces < 2 || gOmp.inParallel()) return false;
  Loop loop;
  loop.f = &f;
  loop.n = n;
  loop.pieces = pieces;
  gOmp.parallel(&Loop::body, &loop, (unsigned)std::min<int64_t>(threads, pieces), 0);
  if (loop.error) std::rethrow_exception(loop.error);
  return true;
}

} // namespace kiln::cpu

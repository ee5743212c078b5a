// kiln runtime — how many threads kiln's CPU code uses, and the shared oneTBB arenas it runs on.
#ifndef KILN_CPU_THREADS_H
#define KILN_CPU_THREADS_H

#include "kiln/kiln.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace kiln::cpu {

/// The largest thread count kiln accepts from a user.
constexpr int kMaxThreadCount = KILN_MAX_NUM_THREADS;

/// The environment variable that sets the default thread count.
constexpr const char *kThreadsEnv = "KILN_NUM_THREADS";

/// The cores this process may run on (sched_getaffinity), at least 1.
int availableCores();

/// `text` as a thread count in [1, kMaxThreadCount]; otherwise throws
/// kiln::Error (INVALID_ARGUMENT) whose message names `what` and the text.
int parseThreadCount(const std::string &text, const std::string &what);

/// Threads a model gets when its load options ask for none: KILN_NUM_THREADS
/// when set (a bad value throws, see parseThreadCount), else availableCores().
int defaultThreads();

/// The most threads kiln's CPU code may use on the calling thread now:
/// inside a model's call (ThreadPool::run), that model's count; elsewhere
/// defaultThreads() (availableCores() if KILN_NUM_THREADS is malformed).
/// Other runtime code (library calls that bring their own threading) reads
/// the setting here.
int maxThreads();

/// Runs f(lo, hi) on disjoint chunks covering [0, n) exactly once, each at
/// least `grain` long (one chunk [0, n) when n < 2 * grain), on the threads
/// of the arena the caller is in; returns when all are done. The first exception a chunk throws is rethrown here (chunks not yet
/// started are cancelled). Nested calls are allowed.
void parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &f);

/// A oneTBB arena of a fixed number of threads. Every model with the same
/// count shares one (threadPool()), and all arenas draw their workers from
/// oneTBB's one process-wide pool, so several models never run more threads
/// at once than the largest count among them.
class ThreadPool {
public:
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int threads() const { return threads_; }
  /// Runs f inside the arena, with maxThreads() == threads() while it runs;
  /// rethrows what f throws.
  void run(const std::function<void()> &f);

private:
  int threads_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The shared pool of `threads` threads (created on first use, kept while a
/// holder lives). A count above oneTBB's default concurrency raises the
/// process-wide limit (tbb::global_control) to it.
std::shared_ptr<ThreadPool> threadPool(int threads);

} // namespace kiln::cpu

#endif // KILN_CPU_THREADS_H

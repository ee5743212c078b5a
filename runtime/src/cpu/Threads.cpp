// kiln runtime — thread counts (load option, KILN_NUM_THREADS, cores available) and the shared arenas.
#include "Threads.h"

#include "OpenMPTeam.h"
#include "kiln/error.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sched.h>
#include <thread>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace kiln::cpu {

namespace {
/// The count of the pool whose run() the calling thread is inside (0: none),
/// and how many calls that pool is running now.
thread_local int tlsThreads = 0;
thread_local const std::atomic<int> *tlsCallers = nullptr;

struct ThreadsScope {
  int saved;
  const std::atomic<int> *savedCallers;
  ThreadsScope(int n, const std::atomic<int> *callers) : saved(tlsThreads), savedCallers(tlsCallers) {
    tlsThreads = n;
    tlsCallers = callers;
  }
  ~ThreadsScope() {
    tlsThreads = saved;
    tlsCallers = savedCallers;
  }
};
} // namespace

int availableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? (int)hw : 1;
}

int parseThreadCount(const std::string &text, const std::string &what) {
  const char *s = text.c_str();
  char *end = nullptr;
  errno = 0;
  long n = std::strtol(s, &end, 10);
  bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || *end || errno || n < 1 || n > kMaxThreadCount)
    throw Error(KILN_STATUS_INVALID_ARGUMENT,
                what + " expects a thread count from 1 to " + std::to_string(kMaxThreadCount) + ", got '" +
                    text + "'");
  return (int)n;
}

int defaultThreads() {
  if (const char *env = std::getenv(kThreadsEnv))
    return parseThreadCount(env, std::string("the environment variable ") + kThreadsEnv);
  return availableCores();
}

int maxThreads() {
  if (tlsThreads > 0) return tlsThreads;
  try {
    return defaultThreads();
  } catch (const Error &) {
    return availableCores();
  }
}

void parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)> &f) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  // n / grain pieces of at least `grain` iterations each; oneTBB hands out
  // runs of consecutive pieces, each one call of f.
  int64_t pieces = n / grain;
  if (pieces <= 1 || tbb::this_task_arena::max_concurrency() <= 1) {
    f(0, n);
    return;
  }
  // A call that has its pool to itself runs its loops on the OpenMP team
  // its oneDNN calls run on (once oneDNN is loaded): one set of threads,
  // kept awake between a library call and the loops around it. Concurrent
  // calls share the oneTBB arena, so that together they never run more
  // threads than the pool's count (docs/Rationale/cpu-threads.md).
  if (tlsThreads > 1 && tlsCallers && tlsCallers->load(std::memory_order_relaxed) == 1 &&
      openmpParallelFor(tlsThreads, n, pieces, f))
    return;
  auto bound = [&](int64_t piece) { return (int64_t)((__int128)n * piece / pieces); };
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, pieces),
                    [&](const tbb::blocked_range<int64_t> &r) { f(bound(r.begin()), bound(r.end())); });
}

struct ThreadPool::Impl {
  tbb::task_arena arena;
  std::atomic<int> callers{0};  ///< run()s in progress
  explicit Impl(int threads) : arena(threads) {}
};

ThreadPool::ThreadPool(int threads) : threads_(threads), impl_(new Impl(threads)) {}
ThreadPool::~ThreadPool() = default;

void ThreadPool::run(const std::function<void()> &f) {
  // The functor may run on another thread of the arena when every slot is
  // taken (concurrent calls): the count goes with it.
  struct Caller {
    std::atomic<int> &n;
    explicit Caller(std::atomic<int> &c) : n(c) { n.fetch_add(1); }
    ~Caller() { n.fetch_sub(1); }
  } caller(impl_->callers);
  impl_->arena.execute([&] {
    ThreadsScope scope(threads_, &impl_->callers);
    f();
  });
}

namespace {
std::mutex poolsMutex;
std::map<int, std::weak_ptr<ThreadPool>> &pools() {
  static auto *p = new std::map<int, std::weak_ptr<ThreadPool>>();
  return *p;
}
/// The process-wide limit on oneTBB's threads, raised past its default only
/// when a model asks for more threads than that.
std::unique_ptr<tbb::global_control> &raisedLimit() {
  static auto *p = new std::unique_ptr<tbb::global_control>();
  return *p;
}
int raisedTo = 0;
} // namespace

std::shared_ptr<ThreadPool> threadPool(int threads) {
  if (threads < 1 || threads > kMaxThreadCount)
    throw Error(KILN_STATUS_INVALID_ARGUMENT, "thread count " + std::to_string(threads) +
                                                  " is outside [1, " + std::to_string(kMaxThreadCount) + "]");
  std::lock_guard<std::mutex> lock(poolsMutex);
  if (threads > tbb::info::default_concurrency() && threads > raisedTo) {
    raisedLimit() = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                          (size_t)threads);
    raisedTo = threads;
  }
  std::weak_ptr<ThreadPool> &slot = pools()[threads];
  if (std::shared_ptr<ThreadPool> p = slot.lock()) return p;
  auto p = std::make_shared<ThreadPool>(threads);
  slot = p;
  return p;
}

} // namespace kiln::cpu

// GoogleTests of kiln's parallel loops on oneDNN's OpenMP team once oneDNN is loaded (runtime/src/cpu/OpenMPTeam.h).
#include "Dnnl.h"
#include "Threads.h"
#include "kiln/abi/cpu_parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using kiln::cpu::parallelFor;
using kiln::cpu::threadPool;

/// The loops join oneDNN's team only where its threads wait long between calls: on an idle
/// machine, or with a wait policy the user set (runtime/src/cpu/Dnnl.cpp). The test sets one
/// (the idle machine's spin count) before oneDNN loads, so the machine's load does not decide.
[[maybe_unused]] const bool kWaitPolicySet = [] { return ::setenv("GOMP_SPINCOUNT", "100000", 0) == 0; }();

/// omp_in_parallel of the OpenMP runtime oneDNN loaded (null: none).
int (*ompInParallel)() = nullptr;

/// Loads oneDNN as the first library call does; skips the test where the
/// oneDNN build is not an OpenMP one (then the loops keep oneTBB).
bool loadOneDnn() {
  if (!kiln::cpu::dnnl().error.empty()) return false;
  void *gomp = ::dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (gomp) ompInParallel = reinterpret_cast<int (*)()>(::dlsym(gomp, "omp_in_parallel"));
  return ompInParallel != nullptr;
}

struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  std::set<std::thread::id> threads;
  std::atomic<int> inOpenMP{0}, outsideOpenMP{0};
  explicit Coverage(int64_t n) : hits(n) {}
};

void countChunk(void *ctx, int64_t lo, int64_t hi) {
  auto *c = static_cast<Coverage *>(ctx);
  for (int64_t i = lo; i < hi; ++i) c->hits[i]++;
  (ompInParallel() ? c->inOpenMP : c->outsideOpenMP)++;
  std::lock_guard<std::mutex> lock(c->mutex);
  c->chunks.push_back({lo, hi});
  c->threads.insert(std::this_thread::get_id());
}

// With oneDNN loaded, a call that has its pool to itself runs each parallel
// loop on the OpenMP team: every index once, every chunk at least `grain`
// long, every chunk inside the OpenMP region, never more threads than the
// pool's count.
TEST(CpuLoopThreads, LoopsRunOnTheLibrarysTeam) {
  if (!loadOneDnn()) GTEST_SKIP() << "oneDNN is not loaded or not an OpenMP build";
  for (int threads : {2, 3})
    for (int64_t n : {2, 7, 64, 1000, 100003})
      for (int64_t grain : {1, 3, 64, 5000}) {
        Coverage c(n);
        threadPool(threads)->run([&] { kiln_cpu_parallel_for(countChunk, &c, n, grain); });
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(c.hits[i].load(), 1) << "index " << i << " of n=" << n << " grain=" << grain;
        for (auto [lo, hi] : c.chunks)
          if (n >= grain) EXPECT_GE(hi - lo, grain) << "n=" << n << " grain=" << grain;
        EXPECT_LE(c.threads.size(), (size_t)threads);
        if (n >= 2 * grain) {
          EXPECT_EQ(c.outsideOpenMP.load(), 0) << "n=" << n << " grain=" << grain;
        } else {
          ASSERT_EQ(c.chunks.size(), 1u);
          EXPECT_EQ(c.chunks[0], std::make_pair(int64_t(0), n));
        }
      }
}

// Both threads of a pool of 2 take part (each waits until the other ran a
// chunk: a team of one would never get there and time out).
TEST(CpuLoopThreads, BothThreadsOfTheTeamWork) {
  if (!loadOneDnn()) GTEST_SKIP() << "oneDNN is not loaded or not an OpenMP build";
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::atomic<bool> met{true};
  threadPool(2)->run([&] {
    parallelFor(64, 1, [&](int64_t, int64_t) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        ids.insert(std::this_thread::get_id());
      }
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      for (;;) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (ids.size() >= 2) break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
          met = false;
          break;
        }
        std::this_thread::yield();
      }
    });
  });
  EXPECT_TRUE(met.load());
  EXPECT_EQ(ids.size(), 2u);
}

// A chunk's exception reaches the caller; the next loop runs normally.
TEST(CpuLoopThreads, ExceptionsReachTheCaller) {
  if (!loadOneDnn()) GTEST_SKIP() << "oneDNN is not loaded or not an OpenMP build";
  auto pool = threadPool(2);
  EXPECT_THROW(pool->run([&] {
    parallelFor(10000, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        if (i == 4321) throw std::runtime_error("chunk failed");
    });
  }),
               std::runtime_error);
  Coverage c(5000);
  pool->run([&] { kiln_cpu_parallel_for(countChunk, &c, 5000, 1); });
  for (auto &h : c.hits) ASSERT_EQ(h.load(), 1);
}

// A loop inside a chunk (already in the OpenMP region) runs on oneTBB.
TEST(CpuLoopThreads, NestedLoops) {
  if (!loadOneDnn()) GTEST_SKIP() << "oneDNN is not loaded or not an OpenMP build";
  constexpr int64_t outer = 37, inner = 1001;
  std::vector<std::atomic<int>> hits(outer * inner);
  threadPool(2)->run([&] {
    parallelFor(outer, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        parallelFor(inner, 10, [&](int64_t a, int64_t b) {
          for (int64_t j = a; j < b; ++j) hits[i * inner + j]++;
        });
    });
  });
  for (auto &h : hits) ASSERT_EQ(h.load(), 1);
}

// While another call is inside the same pool, a loop runs on the shared
// oneTBB arena (two OpenMP teams would run twice the pool's threads).
TEST(CpuLoopThreads, ConcurrentCallsShareTheArena) {
  if (!loadOneDnn()) GTEST_SKIP() << "oneDNN is not loaded or not an OpenMP build";
  auto pool = threadPool(2);
  std::mutex mutex;
  std::condition_variable cv;
  bool inside = false, done = false;
  std::thread other([&] {
    pool->run([&] {
      std::unique_lock<std::mutex> lock(mutex);
      inside = true;
      cv.notify_all();
      cv.wait(lock, [&] { return done; });
    });
  });
  {
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return inside; });
  }
  Coverage c(100000);
  pool->run([&] { kiln_cpu_parallel_for(countChunk, &c, 100000, 100); });
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  cv.notify_all();
  other.join();
  for (auto &h : c.hits) ASSERT_EQ(h.load(), 1);
  EXPECT_EQ(c.inOpenMP.load(), 0);
  // Alone again: the team.
  Coverage alone(100000);
  pool->run([&] { kiln_cpu_parallel_for(countChunk, &alone, 100000, 100); });
  EXPECT_EQ(alone.outsideOpenMP.load(), 0);
}

} // namespace

// GoogleTests of kiln's parallel loops on oneDNN's OpenMP team once oneDNN is loaded (runtime/src/cpu/OpenMPTeam.h).
#include "Dnnl.h"
#include "ParallelForChecks.h"
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

using kiln::test::countChunk;
using kiln::test::Coverage;

// With oneDNN loaded, a call that has its pool to itself runs each parallel
// loop on the OpenMP team: every index once, every chunk at least `grain`
// long, every chunk inside the OpenMP region, never more threads than the
// pool's count.
TEST(CpuLoopThreads, LoopsRunOnTheLibrarysTeam) {
  if (!loadOneDnn()) GTEST_SKIP() << "oneDNN is not loaded or not an OpenMP build";
  for (int threads : {2, 3})
    for (int64_t n : {2, 7, 64, 1000, 100003})
      for (int64_t grain : {1, 3, 64, 5000}) {
        Coverage c(n, ompInParallel);
        kiln::test::expectChunksCoverOnce(c, threads, n, grain);
        EXPECT_LE(c.threads.size(), (size_t)threads);
        if (n >= 2 * grain) EXPECT_EQ(c.outside.load(), 0) << "n=" << n << " grain=" << grain;
      }
}

// Both threads of a pool of 2 take part (each waits until the other ran a
// chunk: a team of one would never get there and time out).
TEST(CpuLoopThreads, BothThreadsOfTheTeamWork) {
  if (!loadOneDnn()) GTEST_SKIP() << "oneDNN is not loaded or not an OpenMP build";
  auto [seen, met] = kiln::test::meet(2, 2);
  EXPECT_TRUE(met);
  EXPECT_EQ(seen, 2u);
}

// A chunk's exception reaches the caller; the next loop runs normally.
TEST(CpuLoopThreads, ExceptionsReachTheCaller) {
  if (!loadOneDnn()) GTEST_SKIP() << "oneDNN is not loaded or not an OpenMP build";
  kiln::test::expectExceptionsReachTheCaller();
}

// A loop inside a chunk (already in the OpenMP region) runs on oneTBB.
TEST(CpuLoopThreads, NestedLoops) {
  if (!loadOneDnn()) GTEST_SKIP() << "oneDNN is not loaded or not an OpenMP build";
  kiln::test::expectNestedLoopsCoverOnce();
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
  Coverage c(100000, ompInParallel);
  pool->run([&] { kiln_cpu_parallel_for(countChunk, &c, 100000, 100); });
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  cv.notify_all();
  other.join();
  for (auto &h : c.hits) ASSERT_EQ(h.load(), 1);
  EXPECT_EQ(c.inside.load(), 0);
  // Alone again: the team.
  Coverage alone(100000, ompInParallel);
  pool->run([&] { kiln_cpu_parallel_for(countChunk, &alone, 100000, 100); });
  EXPECT_EQ(alone.outside.load(), 0);
}

} // namespace

// kiln tests — shared checks of kiln_cpu_parallel_for: what one call covered, and the loops both thread runtimes must pass.
#ifndef KILN_TEST_UNITTESTS_RUNTIME_PARALLELFORCHECKS_H
#define KILN_TEST_UNITTESTS_RUNTIME_PARALLELFORCHECKS_H

#include "Threads.h"
#include "kiln/abi/cpu_parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace kiln::test {

/// What one kiln_cpu_parallel_for call saw: how often each index ran, the
/// chunks, the threads, and (with `inRegion` set, e.g. omp_in_parallel) how
/// many chunks ran inside and outside that runtime's parallel region.
struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::mutex mutex;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  std::set<std::thread::id> threads;
  int (*inRegion)() = nullptr;
  std::atomic<int> inside{0}, outside{0};
  explicit Coverage(int64_t n, int (*inRegion)() = nullptr) : hits(n), inRegion(inRegion) {}
};

inline void countChunk(void *ctx, int64_t lo, int64_t hi) {
  auto *c = static_cast<Coverage *>(ctx);
  for (int64_t i = lo; i < hi; ++i) c->hits[i]++;
  if (c->inRegion) (c->inRegion() ? c->inside : c->outside)++;
  std::lock_guard<std::mutex> lock(c->mutex);
  c->chunks.push_back({lo, hi});
  c->threads.insert(std::this_thread::get_id());
}

/// Runs one loop of n on a pool of `threads` and checks it: every index once,
/// every chunk non-empty and at least `grain` long, one chunk when the range
/// is under two grains.
inline void expectChunksCoverOnce(Coverage &c, int threads, int64_t n, int64_t grain) {
  kiln::cpu::threadPool(threads)->run([&] { kiln_cpu_parallel_for(countChunk, &c, n, grain); });
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(c.hits[i].load(), 1) << "index " << i << " of n=" << n << " grain=" << grain;
  for (auto [lo, hi] : c.chunks) {
    EXPECT_LT(lo, hi);
    if (n >= grain) EXPECT_GE(hi - lo, grain) << "n=" << n << " grain=" << grain;
  }
  if (n < 2 * grain) {
    ASSERT_EQ(c.chunks.size(), 1u);
    EXPECT_EQ(c.chunks[0], std::make_pair(int64_t(0), n));
  }
}

/// A chunk may start a parallel loop of its own: every inner index runs once.
inline void expectNestedLoopsCoverOnce() {
  constexpr int64_t outer = 37, inner = 1001;
  std::vector<std::atomic<int>> hits(outer * inner);
  kiln::cpu::threadPool(2)->run([&] {
    kiln::cpu::parallelFor(outer, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        kiln::cpu::parallelFor(inner, 10, [&](int64_t a, int64_t b) {
          for (int64_t j = a; j < b; ++j) hits[i * inner + j]++;
        });
    });
  });
  for (auto &h : hits) ASSERT_EQ(h.load(), 1);
}

/// A chunk's exception reaches the caller of a pool of 2, and the next loop
/// on that pool covers its range once.
inline void expectExceptionsReachTheCaller() {
  auto pool = kiln::cpu::threadPool(2);
  EXPECT_THROW(pool->run([&] {
    kiln::cpu::parallelFor(10000, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        if (i == 4321) throw std::runtime_error("chunk failed");
    });
  }),
               std::runtime_error);
  Coverage c(5000);
  pool->run([&] { kiln_cpu_parallel_for(countChunk, &c, 5000, 1); });
  for (auto &h : c.hits) ASSERT_EQ(h.load(), 1);
}

/// Runs `pieces` chunks of one iteration that each wait (up to 20 s) until
/// `pieces` of them run at once; returns the distinct threads seen and
/// whether they all met.
inline std::pair<size_t, bool> meet(int threads, int pieces) {
  std::atomic<int> started{0};
  std::atomic<bool> met{true};
  std::mutex mutex;
  std::set<std::thread::id> ids;
  kiln::cpu::threadPool(threads)->run([&] {
    kiln::cpu::parallelFor(pieces, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          ids.insert(std::this_thread::get_id());
        }
        started++;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (started.load() < pieces) {
          if (std::chrono::steady_clock::now() > deadline) {
            met = false;
            break;
          }
          std::this_thread::yield();
        }
      }
    });
  });
  return {ids.size(), met.load()};
}

} // namespace kiln::test

#endif

// kiln tests — the runtime's threads for compiled CPU code: kiln_cpu_parallel_for, thread counts, arenas.
#include "ParallelForChecks.h"
#include "Threads.h"
#include "kiln/error.h"
#include "kiln/abi/cpu_parallel.h"
#include "kiln/kiln.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using kiln::cpu::parallelFor;
using kiln::cpu::threadPool;

using kiln::test::countChunk;
using kiln::test::Coverage;
using kiln::test::meet;

// Chunks cover [0, n) exactly once and are at least `grain` long, for
// sizes around the grain and far above it, on 1, 2 and 3 threads.
TEST(ParallelFor, ChunksCoverTheRangeOnce) {
  for (int threads : {1, 2, 3})
    for (int64_t n : {1, 2, 7, 64, 1000, 100003})
      for (int64_t grain : {1, 3, 64, 5000}) {
        Coverage c(n);
        kiln::test::expectChunksCoverOnce(c, threads, n, grain);
      }
}

TEST(ParallelFor, NothingForAnEmptyRange) {
  Coverage c(1);
  kiln_cpu_parallel_for(countChunk, &c, 0, 1);
  kiln_cpu_parallel_for(countChunk, &c, -5, 1);
  EXPECT_TRUE(c.chunks.empty());
}

// A chunk may start a parallel loop of its own.
TEST(ParallelFor, NestedCalls) { kiln::test::expectNestedLoopsCoverOnce(); }

// The first exception of a chunk reaches the caller; the pool keeps working.
TEST(ParallelFor, ExceptionsReachTheCaller) {
  kiln::test::expectExceptionsReachTheCaller();
  auto pool = threadPool(2);
  try {
    pool->run([] { parallelFor(100, 1, [](int64_t, int64_t) { throw std::logic_error("boom"); }); });
    FAIL() << "no exception";
  } catch (const std::logic_error &e) {
    EXPECT_STREQ(e.what(), "boom");
  }
}

// A pool of N runs N chunks at once, also above the cores available (the
// process-wide limit is raised); a pool of 1 runs everything on the caller.
TEST(ThreadPool, ThreadCountIsHonoured) {
  auto [two, metTwo] = meet(2, 2);
  EXPECT_TRUE(metTwo);
  EXPECT_EQ(two, 2u);
  int many = kiln::cpu::availableCores() + 1;
  auto [seen, metMany] = meet(many, many);
  EXPECT_TRUE(metMany);
  EXPECT_EQ(seen, (size_t)many);

  std::set<std::thread::id> ids;
  std::mutex mutex;
  std::thread::id caller = std::this_thread::get_id();
  threadPool(1)->run([&] {
    EXPECT_EQ(kiln::cpu::maxThreads(), 1);
    parallelFor(100000, 1, [&](int64_t, int64_t) {
      std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
    });
  });
  EXPECT_EQ(ids, std::set<std::thread::id>{caller});
}

// No more threads than the pool's count ever work on its chunks.
TEST(ThreadPool, NeverMoreThreadsThanItsCount) {
  std::atomic<int> running{0}, most{0};
  threadPool(2)->run([&] {
    parallelFor(2000, 1, [&](int64_t, int64_t) {
      int now = ++running;
      int m = most.load();
      while (now > m && !most.compare_exchange_weak(m, now)) {}
      std::this_thread::sleep_for(std::chrono::microseconds(50));
      --running;
    });
  });
  EXPECT_LE(most.load(), 2);
  EXPECT_GE(most.load(), 1);
}

TEST(ThreadPool, SharedPerCount) {
  auto a = threadPool(2), b = threadPool(2), c = threadPool(1);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a.get(), c.get());
  EXPECT_EQ(a->threads(), 2);
  EXPECT_THROW(threadPool(0), kiln::Error);
  EXPECT_THROW(threadPool(KILN_MAX_NUM_THREADS + 1), kiln::Error);
}

TEST(ThreadPool, MaxThreadsInsideAndOutside) {
  threadPool(3)->run([] { EXPECT_EQ(kiln::cpu::maxThreads(), 3); });
  ::unsetenv("KILN_NUM_THREADS");
  EXPECT_EQ(kiln::cpu::maxThreads(), kiln::cpu::availableCores());
}

TEST(ThreadCount, Parse) {
  EXPECT_EQ(kiln::cpu::parseThreadCount("4", "--threads"), 4);
  EXPECT_EQ(kiln::cpu::parseThreadCount("1024", "--threads"), 1024);
  for (const char *bad : {"", "0", "-1", "+2", "abc", "2x", " 3", "1025", "99999999999999999999"}) {
    try {
      kiln::cpu::parseThreadCount(bad, "the thing");
      FAIL() << "accepted '" << bad << "'";
    } catch (const kiln::Error &e) {
      EXPECT_EQ(e.code(), KILN_STATUS_INVALID_ARGUMENT);
      EXPECT_EQ(std::string(e.what()),
                std::string("the thing expects a thread count from 1 to 1024, got '") + bad + "'");
    }
  }
}

TEST(ThreadCount, Environment) {
  ::setenv("KILN_NUM_THREADS", "3", 1);
  EXPECT_EQ(kiln::cpu::defaultThreads(), 3);
  EXPECT_EQ(kiln::cpu::maxThreads(), 3);
  ::setenv("KILN_NUM_THREADS", "three", 1);
  try {
    kiln::cpu::defaultThreads();
    FAIL() << "accepted KILN_NUM_THREADS=three";
  } catch (const kiln::Error &e) {
    EXPECT_NE(std::string(e.what()).find("KILN_NUM_THREADS"), std::string::npos) << e.what();
  }
  ::unsetenv("KILN_NUM_THREADS");
  EXPECT_EQ(kiln::cpu::defaultThreads(), kiln::cpu::availableCores());
  EXPECT_GE(kiln::cpu::availableCores(), 1);
}

// Through the C ABI: the load option, its default from the environment, and
// bad values of either.
TEST(ThreadCount, LoadOption) {
  kiln_model_options_t o;
  kiln_model_options_init(&o);
  EXPECT_EQ(o.num_threads, 0);
  kiln_model_t m = nullptr;
  o.num_threads = 3;
  ASSERT_EQ(kiln_model_load(KILN_FAKE_MODEL, &o, &m), nullptr);
  EXPECT_EQ(kiln_model_num_threads(m), 3);
  kiln_model_free(m);

  ::setenv("KILN_NUM_THREADS", "2", 1);
  o.num_threads = 0;
  ASSERT_EQ(kiln_model_load(KILN_FAKE_MODEL, &o, &m), nullptr);
  EXPECT_EQ(kiln_model_num_threads(m), 2);
  kiln_model_free(m);
  ASSERT_EQ(kiln_model_load(KILN_FAKE_MODEL, nullptr, &m), nullptr);
  EXPECT_EQ(kiln_model_num_threads(m), 2);
  kiln_model_free(m);

  ::setenv("KILN_NUM_THREADS", "0", 1);
  kiln_status_t st = kiln_model_load(KILN_FAKE_MODEL, &o, &m);
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(kiln_status_code(st), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(kiln_status_message(st)),
            "the environment variable KILN_NUM_THREADS expects a thread count from 1 to 1024, got '0'");
  kiln_status_free(st);
  ::unsetenv("KILN_NUM_THREADS");

  for (int bad : {-1, KILN_MAX_NUM_THREADS + 1}) {
    o.num_threads = bad;
    st = kiln_model_load(KILN_FAKE_MODEL, &o, &m);
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(kiln_status_code(st), KILN_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(kiln_status_message(st)).find("num_threads is " + std::to_string(bad)), std::string::npos)
        << kiln_status_message(st);
    kiln_status_free(st);
  }
}

} // namespace

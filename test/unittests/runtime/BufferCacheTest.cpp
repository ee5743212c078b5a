// kiln tests — kiln_cpu_alloc / kiln_cpu_free: the runtime's cache of compiled models' buffers.
#include "BufferCache.h"
#include "kiln/abi/cpu_memory.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using kiln::cpu::bufferCacheStats;
using kiln::cpu::kMinCachedBytes;
using kiln::cpu::trimBufferCache;

bool aligned(void *p, size_t a) { return reinterpret_cast<uintptr_t>(p) % a == 0; }

TEST(BufferCache, LargeBlocksAreReusedForTheSameSize) {
  trimBufferCache();
  const size_t n = 3 * kMinCachedBytes + 100;
  void *a = kiln_cpu_alloc(64, n);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(aligned(a, 64));
  std::memset(a, 1, n);
  size_t reusedBefore = bufferCacheStats().reused;
  kiln_cpu_free(a);
  EXPECT_EQ(bufferCacheStats().idleBlocks, 1u);
  void *b = kiln_cpu_alloc(64, n);
  EXPECT_EQ(b, a) << "the freed block of the same size comes back";
  EXPECT_EQ(bufferCacheStats().reused, reusedBefore + 1);
  EXPECT_EQ(bufferCacheStats().idleBlocks, 0u);
  // A live block is never handed out twice.
  void *c = kiln_cpu_alloc(64, n);
  EXPECT_NE(c, b);
  kiln_cpu_free(b);
  kiln_cpu_free(c);
  EXPECT_EQ(bufferCacheStats().idleBlocks, 2u);
  trimBufferCache();
  EXPECT_EQ(bufferCacheStats().idleBlocks, 0u);
  EXPECT_EQ(bufferCacheStats().idleBytes, 0u);
}

TEST(BufferCache, AlignmentIsHonoured) {
  trimBufferCache();
  for (size_t a : {size_t(1), size_t(16), size_t(64), size_t(128), size_t(4096), size_t(1) << 16}) {
    for (size_t n : {size_t(1), size_t(1000), kMinCachedBytes, 5 * kMinCachedBytes + 3}) {
      void *p = kiln_cpu_alloc(a, n);
      ASSERT_NE(p, nullptr) << a << " " << n;
      EXPECT_TRUE(aligned(p, a < 64 ? 64 : a)) << a << " " << n;
      std::memset(p, 0, n);
      kiln_cpu_free(p);
    }
  }
  // A cached block of the right size but too little alignment is not reused.
  void *p = kiln_cpu_alloc(64, 2 * kMinCachedBytes);
  kiln_cpu_free(p);
  void *q = kiln_cpu_alloc(size_t(1) << 20, 2 * kMinCachedBytes);
  EXPECT_TRUE(aligned(q, size_t(1) << 20));
  kiln_cpu_free(q);
  EXPECT_EQ(kiln_cpu_alloc(48, 100), nullptr) << "not a power of two";
  trimBufferCache();
}

TEST(BufferCache, FreesWhatLibcAllocated) {
  // Model code frees buffers the runtime's other parts allocated, and the
  // loader frees every output with kiln_cpu_free.
  kiln_cpu_free(std::malloc(10));
  kiln_cpu_free(std::aligned_alloc(64, 1 << 20));
  kiln_cpu_free(nullptr);
  void *small = kiln_cpu_alloc(64, 100);
  kiln_cpu_free(small);
  EXPECT_EQ(bufferCacheStats().idleBlocks, 0u) << "small blocks are left to libc";
}

TEST(BufferCache, ThreadsNeverShareALiveBlock) {
  trimBufferCache();
  const size_t n = 2 * kMinCachedBytes;
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        auto *p = static_cast<unsigned char *>(kiln_cpu_alloc(64, n));
        if (!p) {
          ++failures[t];
          continue;
        }
        std::memset(p, t + 1, n);
        std::this_thread::yield();
        for (size_t k = 0; k < n; k += 4096)
          if (p[k] != t + 1)
            ++failures[t];
        kiln_cpu_free(p);
      }
    });
  for (auto &th : threads)
    th.join();
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  EXPECT_EQ(bufferCacheStats().liveBlocks, 0u);
  EXPECT_LE(bufferCacheStats().idleBlocks, 4u);
  trimBufferCache();
}

} // namespace

namespace {

TEST(BufferCache, AFailedRunsLeftoversAreFreed) {
  trimBufferCache();
  const size_t big = 2 * kMinCachedBytes;
  size_t liveBefore = bufferCacheStats().liveBlocks;
  void *result = nullptr, *freedInRun = nullptr, *outside = kiln_cpu_alloc(64, big);
  {
    kiln::cpu::RunAllocations run;
    result = kiln_cpu_alloc(64, big);
    void *small = kiln_cpu_alloc(64, 100);  // libc's, recorded too
    freedInRun = kiln_cpu_alloc(64, big);
    void *left = kiln_cpu_alloc(64, big);
    ASSERT_TRUE(result && small && freedInRun && left);
    kiln_cpu_free(freedInRun);
    // Freed on another thread: still seen.
    std::thread([&] { kiln_cpu_free(small); }).join();
    EXPECT_EQ(run.live(), 2u) << "result and left";
    run.freeLeftovers({result});
    EXPECT_EQ(run.live(), 1u) << "only the kept result";
  }
  // `left` went back to the cache; the result and `outside` are the caller's.
  EXPECT_EQ(bufferCacheStats().liveBlocks, liveBefore + 2);
  kiln_cpu_free(result);
  kiln_cpu_free(outside);
  EXPECT_EQ(bufferCacheStats().liveBlocks, liveBefore);
  trimBufferCache();
}

TEST(BufferCache, RunScopesNestAndForgetOnExit) {
  void *a = nullptr, *b = nullptr;
  {
    kiln::cpu::RunAllocations outer;
    a = kiln_cpu_alloc(64, 256);
    {
      kiln::cpu::RunAllocations inner;
      b = kiln_cpu_alloc(64, 256);
      EXPECT_EQ(inner.live(), 1u);
    }
    EXPECT_EQ(outer.live(), 1u) << "the inner scope's buffer is not the outer's";
  }
  // Both scopes are gone: freeing their buffers now is an ordinary free.
  kiln_cpu_free(a);
  kiln_cpu_free(b);
}

TEST(BufferCache, BadSettingIsRefusedWithItsName) {
  ::setenv(kiln::cpu::kBufferCacheEnv, "12x", 1);
  try {
    kiln::cpu::checkBufferCacheSetting();
    ADD_FAILURE() << "no error";
  } catch (const std::exception &e) {
    EXPECT_NE(std::string(e.what()).find("KILN_CPU_BUFFER_CACHE_MB"), std::string::npos) << e.what();
  }
  ::setenv(kiln::cpu::kBufferCacheEnv, "256", 1);
  EXPECT_NO_THROW(kiln::cpu::checkBufferCacheSetting());
  ::unsetenv(kiln::cpu::kBufferCacheEnv);
  EXPECT_NO_THROW(kiln::cpu::checkBufferCacheSetting());
}

} // namespace

// kiln runtime — the cache of freed model buffers behind kiln_cpu_alloc / kiln_cpu_free.
#pragma once

#include <cstddef>
#include <unordered_set>

namespace kiln::cpu {

/// What the cache holds now (for tests and --timing style reports).
struct BufferCacheStats {
  size_t liveBlocks = 0;  ///< blocks handed out and not yet freed (cached sizes only)
  size_t idleBlocks = 0;  ///< freed blocks kept for reuse
  size_t idleBytes = 0;   ///< their bytes
  size_t reused = 0;      ///< allocations served from the cache since the start
};

BufferCacheStats bufferCacheStats();

/// The environment variable that bounds the idle blocks, in megabytes
/// (default 1024; 0 turns the cache off).
constexpr const char *kBufferCacheEnv = "KILN_CPU_BUFFER_CACHE_MB";

/// Throws Error (KILN_STATUS_INVALID_ARGUMENT, naming the variable) when
/// KILN_CPU_BUFFER_CACHE_MB is set to something else than a number of
/// megabytes; called when a CPU model loads.
void checkBufferCacheSetting();

/// Releases every idle block to libc (a model was unloaded).
void trimBufferCache();

/// The buffers kiln_cpu_alloc hands out on this thread while a RunAllocations
/// lives (frees from any thread are seen). A compiled model whose run fails
/// part-way (a runtime call that fails) returns at once, without freeing the
/// buffers it had allocated: the loader frees what is left of them.
class RunAllocations {
public:
  RunAllocations();
  /// Forgets the buffers still live (they belong to the run's results).
  ~RunAllocations();
  RunAllocations(const RunAllocations &) = delete;
  RunAllocations &operator=(const RunAllocations &) = delete;

  /// Frees every recorded buffer still live but those in `keep`.
  void freeLeftovers(const std::unordered_set<void *> &keep);
  /// How many recorded buffers are still live.
  size_t live() const;

  // For kiln_cpu_alloc / kiln_cpu_free.
  static void recordAlloc(void *p);
  static void recordFree(void *p);

private:
  RunAllocations *outer;
  std::unordered_set<void *> ptrs;
};

/// Blocks smaller than this go straight to libc: its heap reuses them
/// without page faults.
constexpr size_t kMinCachedBytes = 64 * 1024;

} // namespace kiln::cpu

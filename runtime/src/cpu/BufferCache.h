// kiln runtime — the cache of freed model buffers behind kiln_cpu_alloc / kiln_cpu_free.
#pragma once

#include <cstddef>

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

/// Blocks smaller than this go straight to libc: its heap reuses them
/// without page faults.
constexpr size_t kMinCachedBytes = 64 * 1024;

} // namespace kiln::cpu

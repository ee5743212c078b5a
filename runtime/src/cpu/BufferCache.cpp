// kiln runtime — kiln_cpu_alloc / kiln_cpu_free: compiled models' buffers, large freed blocks kept for reuse.
#include "BufferCache.h"

#include "kiln/abi/cpu_memory.h"

#include "kiln/error.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

/// A block the cache made: its rounded size and alignment.
struct Block {
  size_t bytes;
  size_t alignment;
};

/// KILN_CPU_BUFFER_CACHE_MB parsed: the megabytes, or nothing when unset;
/// `ok` false when set to something that is not a number of megabytes.
std::optional<unsigned long long> limitFromEnv(bool &ok) {
  ok = true;
  const char *env = std::getenv(kiln::cpu::kBufferCacheEnv);
  if (!env)
    return std::nullopt;
  std::string text(env);
  errno = 0;
  char *end = nullptr;
  unsigned long long mb = std::strtoull(env, &end, 10);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || *end || errno ||
      mb > (1ull << 30)) {
    ok = false;
    return std::nullopt;
  }
  return mb;
}

/// Idle blocks beyond this many bytes are released (the largest first):
/// KILN_CPU_BUFFER_CACHE_MB, default 1024; 0 turns the cache off. (A bad
/// value fails the model's load, checkBufferCacheSetting; here it is the
/// default.)
size_t idleLimit() {
  static const size_t limit = [] {
    bool ok;
    std::optional<unsigned long long> mb = limitFromEnv(ok);
    return size_t(mb ? *mb : 1024) << 20;
  }();
  return limit;
}

struct Cache {
  std::mutex mu;
  std::unordered_map<void *, Block> live;   // handed out, by pointer
  std::multimap<size_t, std::pair<void *, size_t>> idle;  // bytes -> (pointer, alignment)
  size_t idleBytes = 0;
  size_t reused = 0;
};

Cache &cache() {
  // Never destroyed: models may free buffers from static destructors.
  static Cache *c = new Cache;
  return *c;
}

constexpr size_t kPage = 4096;

} // namespace

namespace {

/// The run scopes: which one recorded a live buffer (any thread may free it).
struct RunScopes {
  std::mutex mu;
  std::unordered_map<void *, kiln::cpu::RunAllocations *> owner;
  std::atomic<int> active{0};
};

RunScopes &runScopes() {
  static RunScopes *r = new RunScopes;
  return *r;
}

thread_local kiln::cpu::RunAllocations *tRunScope = nullptr;

void *recorded(void *p) {
  if (p && tRunScope)
    kiln::cpu::RunAllocations::recordAlloc(p);
  return p;
}

} // namespace

namespace kiln::cpu {

RunAllocations::RunAllocations() : outer(tRunScope) {
  tRunScope = this;
  ++runScopes().active;
}

RunAllocations::~RunAllocations() {
  RunScopes &r = runScopes();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    for (void *p : ptrs)
      r.owner.erase(p);
  }
  --r.active;
  tRunScope = outer;
}

void RunAllocations::recordAlloc(void *p) {
  RunScopes &r = runScopes();
  std::lock_guard<std::mutex> lock(r.mu);
  r.owner[p] = tRunScope;
  tRunScope->ptrs.insert(p);
}

void RunAllocations::recordFree(void *p) {
  RunScopes &r = runScopes();
  if (r.active.load(std::memory_order_relaxed) == 0)
    return;
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.owner.find(p);
  if (it == r.owner.end())
    return;
  it->second->ptrs.erase(p);
  r.owner.erase(it);
}

void RunAllocations::freeLeftovers(const std::unordered_set<void *> &keep) {
  std::vector<void *> left;
  {
    RunScopes &r = runScopes();
    std::lock_guard<std::mutex> lock(r.mu);
    for (void *p : ptrs)
      if (!keep.count(p)) {
        left.push_back(p);
        r.owner.erase(p);
      }
    for (void *p : left)
      ptrs.erase(p);
  }
  for (void *p : left)
    kiln_cpu_free(p);
}

size_t RunAllocations::live() const {
  std::lock_guard<std::mutex> lock(runScopes().mu);
  return ptrs.size();
}

} // namespace kiln::cpu

namespace {

/// kiln_cpu_alloc without the run scope.
void *allocateBlock(size_t alignment, size_t size) {
  if (alignment & (alignment - 1))
    return nullptr;
  if (alignment < 64)
    alignment = 64;
  if (size < kiln::cpu::kMinCachedBytes || idleLimit() == 0) {
    size_t rounded = (size + alignment - 1) / alignment * alignment;
    return std::aligned_alloc(alignment, rounded ? rounded : alignment);
  }
  size_t bytes = (size + kPage - 1) / kPage * kPage;
  bytes = (bytes + alignment - 1) / alignment * alignment;
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto [lo, hi] = c.idle.equal_range(bytes);
    for (auto it = lo; it != hi; ++it) {
      void *p = it->second.first;
      if (reinterpret_cast<uintptr_t>(p) % alignment)
        continue;
      size_t blockAlignment = it->second.second;
      c.idle.erase(it);
      c.idleBytes -= bytes;
      c.live.emplace(p, Block{bytes, blockAlignment});
      ++c.reused;
      return p;
    }
  }
  void *p = std::aligned_alloc(alignment, bytes);
  if (!p)
    return nullptr;
  std::lock_guard<std::mutex> lock(c.mu);
  c.live.emplace(p, Block{bytes, alignment});
  return p;
}

} // namespace

extern "C" void *kiln_cpu_alloc(size_t alignment, size_t size) {
  if (alignment & (alignment - 1))
    return nullptr;
  void *p = allocateBlock(alignment, size);
  // Compiled code stores through what it gets without a check: a failed
  // allocation unwinds instead (through the generated frames, which have
  // unwind tables) to the model's entry call, which frees the run's
  // buffers and reports RESOURCE_EXHAUSTED through the C ABI.
  if (!p)
    throw kiln::Error(KILN_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory: cannot allocate a buffer of " + std::to_string(size) + " bytes");
  return tRunScope ? recorded(p) : p;
}

extern "C" void kiln_cpu_free(void *ptr) {
  if (!ptr)
    return;
  kiln::cpu::RunAllocations::recordFree(ptr);
  Cache &c = cache();
  std::unique_lock<std::mutex> lock(c.mu);
  auto it = c.live.find(ptr);
  if (it == c.live.end()) {
    // Small blocks, and memory from elsewhere (libc's allocators).
    lock.unlock();
    std::free(ptr);
    return;
  }
  Block b = it->second;
  c.live.erase(it);
  c.idle.emplace(b.bytes, std::make_pair(ptr, b.alignment));
  c.idleBytes += b.bytes;
  // Over the limit: release the largest idle blocks.
  std::vector<void *> release;
  while (c.idleBytes > idleLimit() && !c.idle.empty()) {
    auto last = std::prev(c.idle.end());
    c.idleBytes -= last->first;
    release.push_back(last->second.first);
    c.idle.erase(last);
  }
  lock.unlock();
  for (void *p : release)
    std::free(p);
}

namespace kiln::cpu {

BufferCacheStats bufferCacheStats() {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  return {c.live.size(), c.idle.size(), c.idleBytes, c.reused};
}

void checkBufferCacheSetting() {
  bool ok;
  limitFromEnv(ok);
  if (!ok)
    throw Error(KILN_STATUS_INVALID_ARGUMENT, std::string("the environment variable ") + kBufferCacheEnv +
                                                   " expects a number of megabytes (0 turns the buffer cache "
                                                   "off), got '" + std::getenv(kBufferCacheEnv) + "'");
}

void trimBufferCache() {
  Cache &c = cache();
  std::multimap<size_t, std::pair<void *, size_t>> idle;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    idle.swap(c.idle);
    c.idleBytes = 0;
  }
  for (auto &[bytes, block] : idle)
    std::free(block.first);
}

} // namespace kiln::cpu

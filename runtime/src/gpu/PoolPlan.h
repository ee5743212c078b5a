// kiln runtime — the memory plan of a captured GPU graph: the block each allocation of one call takes.
#ifndef KILN_GPU_POOLPLAN_H
#define KILN_GPU_POOLPLAN_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::gpu {

/// One event of a call's generated code, in order: an allocation of `bytes`,
/// or (freed >= 0) the free of the call's allocation number `freed`.
struct PoolEvent {
  size_t bytes = 0;
  int64_t freed = -1;
};

/// The blocks a graph of the call needs, and per allocation (in order) its
/// block and size.
struct PoolPlan {
  std::vector<size_t> blockBytes;
  std::vector<size_t> blockOf;
  std::vector<size_t> allocBytes;
  size_t totalBytes() const {
    size_t n = 0;
    for (size_t b : blockBytes) n += b;
    return n;
  }
};

/// Each allocation takes the smallest free block that holds it, else grows
/// the largest free block to its size, else gets a new block; a block is free
/// again after the free of the allocation that took it. A graph captured from
/// one stream runs its work in the order it was queued, so a block's next
/// user runs after its previous one's last reader, as with the caching
/// allocator, which hands a freed block only to later work on its stream.
inline PoolPlan planPool(const std::vector<PoolEvent> &events) {
  PoolPlan p;
  std::vector<bool> busy;
  for (const PoolEvent &e : events) {
    if (e.freed >= 0) {
      if ((size_t)e.freed < p.blockOf.size()) busy[p.blockOf[e.freed]] = false;
      continue;
    }
    size_t fit = SIZE_MAX, largest = SIZE_MAX;
    for (size_t b = 0; b < p.blockBytes.size(); ++b) {
      if (busy[b]) continue;
      if (p.blockBytes[b] >= e.bytes && (fit == SIZE_MAX || p.blockBytes[b] < p.blockBytes[fit])) fit = b;
      if (largest == SIZE_MAX || p.blockBytes[b] > p.blockBytes[largest]) largest = b;
    }
    size_t block = fit;
    if (block == SIZE_MAX && largest != SIZE_MAX) {
      block = largest;
      p.blockBytes[block] = e.bytes;
    }
    if (block == SIZE_MAX) {
      block = p.blockBytes.size();
      p.blockBytes.push_back(e.bytes);
      busy.push_back(false);
    }
    busy[block] = true;
    p.blockOf.push_back(block);
    p.allocBytes.push_back(e.bytes);
  }
  return p;
}

} // namespace kiln::gpu

#endif // KILN_GPU_POOLPLAN_H

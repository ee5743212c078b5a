// kiln tests — the memory plan of a captured GPU graph (runtime/src/gpu/PoolPlan.h).
#include "PoolPlan.h"

#include <gtest/gtest.h>

using kiln::gpu::PoolEvent;
using kiln::gpu::planPool;

namespace {

PoolEvent alloc(size_t n) { return {n, -1}; }
PoolEvent release(int64_t i) { return {0, i}; }

TEST(PoolPlan, WithoutFreesEveryAllocationHasItsBlock) {
  auto p = planPool({alloc(100), alloc(200), alloc(100)});
  EXPECT_EQ(p.blockBytes, (std::vector<size_t>{100, 200, 100}));
  EXPECT_EQ(p.blockOf, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(p.allocBytes, (std::vector<size_t>{100, 200, 100}));
  EXPECT_EQ(p.totalBytes(), 400u);
}

TEST(PoolPlan, FreedBlocksServeLaterAllocations) {
  // a chain: each buffer is freed once the next one is computed from it.
  auto p = planPool({alloc(100), alloc(100), release(0), alloc(100), release(1), alloc(80)});
  EXPECT_EQ(p.blockOf, (std::vector<size_t>{0, 1, 0, 1}));
  EXPECT_EQ(p.totalBytes(), 200u);
}

TEST(PoolPlan, SmallestFittingBlockFirst) {
  auto p = planPool({alloc(1000), alloc(100), release(0), release(1), alloc(90), alloc(900)});
  EXPECT_EQ(p.blockOf, (std::vector<size_t>{0, 1, 1, 0}));
  EXPECT_EQ(p.totalBytes(), 1100u);
}

TEST(PoolPlan, ALargerAllocationGrowsTheLargestFreeBlock) {
  auto p = planPool({alloc(100), alloc(50), release(0), release(1), alloc(300)});
  EXPECT_EQ(p.blockOf, (std::vector<size_t>{0, 1, 0}));
  EXPECT_EQ(p.blockBytes, (std::vector<size_t>{300, 50}));
}

TEST(PoolPlan, ABusyBlockIsNeverShared) {
  // allocation 1 outlives the call (an output): its block stays taken.
  auto p = planPool({alloc(64), alloc(64), release(0), alloc(64), alloc(64)});
  EXPECT_EQ(p.blockOf, (std::vector<size_t>{0, 1, 0, 2}));
}

} // namespace

#include "runtime/core/memory_allocator.h"

#include <cstdint>

#include "gtest/gtest.h"
#include "runtime/core/planned_memory.h"

namespace edgefleet {
namespace {

TEST(MemoryAllocatorTest, AlignsAndExhausts) {
  alignas(64) uint8_t arena[128];
  MemoryAllocator allocator(arena, sizeof(arena));
  void* a = allocator.Allocate(3, 1);
  ASSERT_EQ(a, arena);
  void* b = allocator.Allocate(8, 16);
  ASSERT_EQ(b, arena + 16);  // 3 bytes used, next 16-aligned address
  EXPECT_EQ(allocator.used(), 24u);
  EXPECT_EQ(allocator.Allocate(200, 1), nullptr);
  EXPECT_EQ(allocator.Allocate(SIZE_MAX, 1), nullptr);  // no wrap-around
  EXPECT_EQ(allocator.AllocateArray<int64_t>(SIZE_MAX / 4), nullptr);
  EXPECT_EQ(allocator.Allocate(8, 3), nullptr);  // not a power of two
  allocator.Reset();
  EXPECT_EQ(allocator.used(), 0u);
  EXPECT_EQ(allocator.peak(), 24u);
  EXPECT_EQ(allocator.Allocate(128, 1), arena);
}

TEST(PlannedMemoryTest, BoundsChecksEveryRange) {
  uint8_t a0[32], a1[16];
  Span<uint8_t> arenas[] = {{a0, sizeof(a0)}, {a1, sizeof(a1)}};
  PlannedMemory planned({arenas, 2});
  ASSERT_TRUE(planned.Address(0, 16, 16).ok());
  EXPECT_EQ(*planned.Address(1, 4, 12), a1 + 4);
  EXPECT_EQ(planned.Address(1, 4, 13).error(), Error::kInvalidProgram);
  EXPECT_EQ(planned.Address(2, 0, 0).error(), Error::kInvalidProgram);
  EXPECT_EQ(planned.Address(0, UINT64_MAX, 1).error(), Error::kInvalidProgram);
}

}  // namespace
}  // namespace edgefleet

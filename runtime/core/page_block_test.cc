#include "runtime/core/page_block.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <utility>

namespace edgefleet {
namespace {

size_t Page() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

bool AllZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

TEST(PageBlock, EmptyForZeroBytes) {
  PageBlock b;
  ASSERT_TRUE(b.Allocate(0));
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.resident_bytes(), 0u);
}

TEST(PageBlock, SmallBlockIsZeroedHeapMemory) {
  PageBlock b;
  const size_t bytes = Page() + 1;
  ASSERT_TRUE(b.Allocate(bytes));
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u);
  EXPECT_EQ(b.size(), bytes);
  EXPECT_EQ(b.resident_bytes(), bytes);
  EXPECT_TRUE(AllZero(b.data(), bytes));
  std::memset(b.data(), 7, bytes);  // reused heap memory is zeroed again
  ASSERT_TRUE(b.Allocate(bytes));
  EXPECT_TRUE(AllZero(b.data(), bytes));
}

TEST(PageBlock, UnspecifiedContentsAreWritableHeapMemory) {
  PageBlock b;
  const size_t bytes = Page() + 1;
  ASSERT_TRUE(b.Allocate(bytes, PageBlock::Contents::kUnspecified));
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % 64, 0u);
  EXPECT_EQ(b.resident_bytes(), bytes);
  std::memset(b.data(), 7, bytes);  // writable from end to end
  EXPECT_EQ(b.data()[bytes - 1], 7);
}

TEST(PageBlock, LargeBlockIsTwoMibAlignedAndCountsWholePagesOnly) {
  const size_t bytes = (size_t{5} << 20) + 123;  // 5 MiB and a bit
  PageBlock b;
  ASSERT_TRUE(b.Allocate(bytes));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % (size_t{2} << 20), 0u);
  EXPECT_EQ(b.resident_bytes(), (size_t{5} << 20) + Page());
  EXPECT_TRUE(AllZero(b.data(), b.size()));
  b.data()[0] = 1;  // writable from end to end
  b.data()[bytes - 1] = 2;
  EXPECT_EQ(b.data()[bytes - 1], 2);
}

TEST(PageBlock, MovesOwnershipAndReallocatesZeroed) {
  PageBlock a;
  ASSERT_TRUE(a.Allocate(100));
  a.data()[7] = 9;
  uint8_t* p = a.data();
  PageBlock b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.data()[7], 9);
  ASSERT_TRUE(b.Allocate(100));  // a fresh block: the old one's bytes are gone
  EXPECT_TRUE(AllZero(b.data(), 100));
}

TEST(PageBlock, RefusesAnImpossibleSize) {
  PageBlock b;
  EXPECT_FALSE(b.Allocate(~size_t{0} - 100));
  EXPECT_EQ(b.data(), nullptr);
}

}  // namespace
}  // namespace edgefleet

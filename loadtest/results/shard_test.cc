#include "loadtest/results/shard.h"

#include "gtest/gtest.h"

namespace edgefleet {
namespace loadtest {
namespace {

TEST(ShardTest, ParsesValidSpecs) {
  absl::StatusOr<ShardSpec> s = ShardSpec::Parse("2/5");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 2u);
  EXPECT_EQ(s->count, 5u);
  EXPECT_EQ(s->ToString(), "2/5");
  EXPECT_TRUE(ShardSpec::Parse("0/1")->IsWhole());
}

TEST(ShardTest, RejectsInvalidSpecs) {
  for (const char* bad : {"", "1", "5/5", "1/0", "-1/3", "a/3", "1/3x", "1//3"}) {
    EXPECT_FALSE(ShardSpec::Parse(bad).ok()) << bad;
  }
}

TEST(ShardTest, ShardsPartitionTheFleet) {
  constexpr uint32_t kShards = 4;
  for (uint64_t device = 0; device < 1000; ++device) {
    int owners = 0;
    for (uint32_t i = 0; i < kShards; ++i) {
      owners += ShardSpec{i, kShards}.Contains(device);
    }
    EXPECT_EQ(owners, 1) << device;
  }
  EXPECT_TRUE(ShardSpec{}.Contains(12345));
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

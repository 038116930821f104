#include "loadtest/results/result_set.h"

#include "gtest/gtest.h"
#include "loadtest/testing/synthetic_fleet.h"

namespace edgefleet {
namespace loadtest {
namespace {

SessionRecord Record(uint64_t device, uint32_t session, Arm arm) {
  SessionRecord r;
  r.device_id = device;
  r.session_index = session;
  r.arm = arm;
  r.device_class = "mid";
  return r;
}

SyntheticFleetOptions SmallFleet() {
  SyntheticFleetOptions o;
  o.devices = 120;
  o.sessions_per_device = 2;
  o.inferences_per_session = 5;
  o.seed = 77;
  return o;
}

TEST(ResultSetTest, CanonicalizeSortsByDeviceSessionArm) {
  ResultSet rs(ExperimentInfo{}, ShardSpec{});
  rs.Add(Record(2, 0, Arm::kB));
  rs.Add(Record(1, 1, Arm::kA));
  rs.Add(Record(2, 0, Arm::kA));
  rs.Add(Record(1, 0, Arm::kB));
  ASSERT_TRUE(rs.Canonicalize().ok());
  const auto& r = rs.records();
  EXPECT_TRUE(SameKey(r[0], Record(1, 0, Arm::kB)));
  EXPECT_TRUE(SameKey(r[1], Record(1, 1, Arm::kA)));
  EXPECT_TRUE(SameKey(r[2], Record(2, 0, Arm::kA)));
  EXPECT_TRUE(SameKey(r[3], Record(2, 0, Arm::kB)));
}

TEST(ResultSetTest, DuplicatesAndForeignDevicesAreErrors) {
  ResultSet dup(ExperimentInfo{}, ShardSpec{});
  dup.Add(Record(1, 0, Arm::kA));
  dup.Add(Record(1, 0, Arm::kA));
  EXPECT_FALSE(dup.Canonicalize().ok());
  ResultSet foreign(ExperimentInfo{}, ShardSpec{1, 2});
  foreign.Add(Record(4, 0, Arm::kA));  // 4 % 2 == 0: shard 0's device.
  EXPECT_FALSE(foreign.Canonicalize().ok());
}

TEST(ResultSetTest, MergedShardsEqualTheUnshardedRun) {
  SyntheticFleetOptions whole = SmallFleet();
  const ResultSet expected = GenerateSyntheticFleet(whole);
  std::vector<ResultSet> shards;
  for (uint32_t i : {2u, 0u, 1u}) {  // Any order.
    SyntheticFleetOptions part = whole;
    part.shard = ShardSpec{i, 3};
    shards.push_back(GenerateSyntheticFleet(part));
  }
  absl::StatusOr<ResultSet> merged = MergeShards(std::move(shards));
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_TRUE(merged->shard().IsWhole());
  EXPECT_EQ(merged->info(), expected.info());
  ASSERT_EQ(merged->records().size(), expected.records().size());
  for (size_t i = 0; i < expected.records().size(); ++i) {
    ASSERT_EQ(merged->records()[i], expected.records()[i]) << i;
  }
}

TEST(ResultSetTest, MergeRejectsIncompleteOrMixedShards) {
  SyntheticFleetOptions o = SmallFleet();
  const auto shard = [&](uint32_t i, uint32_t n, uint64_t seed) {
    SyntheticFleetOptions p = o;
    p.shard = ShardSpec{i, n};
    p.seed = seed;
    return GenerateSyntheticFleet(p);
  };
  EXPECT_FALSE(MergeShards({}).ok());
  EXPECT_FALSE(MergeShards({shard(0, 2, 77)}).ok());  // Missing 1/2.
  EXPECT_FALSE(MergeShards({shard(0, 2, 77), shard(0, 2, 77)}).ok());
  EXPECT_FALSE(MergeShards({shard(0, 2, 77), shard(1, 2, 78)}).ok());
  EXPECT_FALSE(MergeShards({shard(0, 2, 77), shard(1, 3, 77)}).ok());
  EXPECT_TRUE(MergeShards({shard(1, 2, 77), shard(0, 2, 77)}).ok());
}

TEST(ResultSetTest, DesignNamesRoundTrip) {
  Design d;
  ASSERT_TRUE(ParseDesign(DesignName(Design::kHashed), &d));
  EXPECT_EQ(d, Design::kHashed);
  EXPECT_FALSE(ParseDesign("random", &d));
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

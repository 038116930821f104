// Unit tests of FleetSpec validation and expansion (no server).

#include "loadtest/driver/fleet_plan.h"

#include <set>
#include <sstream>
#include <tuple>

#include "gtest/gtest.h"
#include "loadtest/driver/progress.h"
#include "loadtest/stats/random.h"

namespace edgefleet {
namespace loadtest {
namespace {

v1::FleetSpec TinySpec() {
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile("test/loadtest/testdata/tiny.textproto");
  EXPECT_TRUE(spec.ok()) << spec.status();
  return *spec;
}

TEST(FleetPlanTest, DefaultSpecIsValid) {
  absl::StatusOr<v1::FleetSpec> spec = ReadFleetSpecFile("deploy/fleet_specs/default.textproto");
  ASSERT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<FleetPlan> plan = ExpandFleet(*spec, ShardSpec{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->sessions.size(), 2 * spec->devices());
}

TEST(FleetPlanTest, ClassCountsFollowSharesAndSum) {
  v1::FleetSpec spec = TinySpec();
  EXPECT_EQ(ClassCounts(*ValidateFleetSpec(spec)), (std::vector<uint64_t>{8, 4}));
  spec.set_devices(7);
  const std::vector<uint64_t> counts = ClassCounts(*ValidateFleetSpec(spec));
  EXPECT_EQ(counts[0] + counts[1], 7u);
  EXPECT_EQ(counts[0], 5u);  // 4.67 -> 5 by the larger remainder
}

// Found by fuzz/config_fuzzer.cc (fuzz/regressions/config_fuzzer/fleet_*).
TEST(FleetPlanTest, ValidationRejectsNonFiniteAndUndeclaredValues) {
  for (const char* edit : {"inter_arrival_ms: nan", "assignment: 25", "arrival { kind: 3 }",
                           "arrival { rate_per_second: inf }", "devices: 1000000001",
                           "population { device_class: \"x\" share: 1e308 } "
                           "population { device_class: \"y\" share: 1e308 }"}) {
    v1::FleetSpec spec = TinySpec();
    absl::StatusOr<v1::FleetSpec> change = ParseFleetSpec(edit);
    ASSERT_TRUE(change.ok()) << edit;
    spec.MergeFrom(*change);
    EXPECT_EQ(ValidateFleetSpec(spec).status().code(), absl::StatusCode::kInvalidArgument) << edit;
  }
}

TEST(FleetPlanTest, ClassCountsOfHugeShares) {
  v1::FleetSpec spec = TinySpec();
  spec.clear_population();
  for (double share : {1e308, 5e307}) {
    v1::ClassShare* s = spec.add_population();
    s->set_device_class(spec.population_size() == 1 ? "c" : "d");
    s->set_share(share);
  }
  spec.set_devices(kMaxDevices);
  absl::StatusOr<v1::FleetSpec> valid = ValidateFleetSpec(spec);
  ASSERT_TRUE(valid.ok()) << valid.status();
  const std::vector<uint64_t> counts = ClassCounts(*valid);
  EXPECT_EQ(counts[0] + counts[1], kMaxDevices);
  EXPECT_EQ(counts[1], kMaxDevices / 3);
}

TEST(FleetPlanTest, AClassListedTwiceIsAnError) {
  v1::FleetSpec spec = TinySpec();
  *spec.add_population() = spec.population(0);
  const absl::Status status = ValidateFleetSpec(spec).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("device class '" + spec.population(0).device_class() +
                                  "' is listed twice"),
            std::string::npos)
      << status;
}

TEST(FleetPlanTest, ASpecPathThatIsNotAFileSaysSo) {
  const absl::Status status = ReadFleetSpecFile("deploy/fleet_specs").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.message(), "cannot read fleet spec deploy/fleet_specs: not a regular file");
}

TEST(FleetPlanTest, ParseErrorsNameLineAndColumn) {
  absl::StatusOr<v1::FleetSpec> spec = ParseFleetSpec("devices: 3\nnonsense: 1\n");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("fleet spec: 2:"), std::string::npos) << spec.status();
}

TEST(FleetPlanTest, PairedSessionsShareSeedAcrossArms) {
  absl::StatusOr<FleetPlan> plan = ExpandFleet(TinySpec(), ShardSpec{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->sessions.size(), 12u * 2 * 2);
  for (size_t i = 0; i < plan->sessions.size(); i += 2) {
    const PlannedSession& a = plan->sessions[i];
    const PlannedSession& b = plan->sessions[i + 1];
    EXPECT_EQ(a.arm, Arm::kA);
    EXPECT_EQ(b.arm, Arm::kB);
    EXPECT_EQ(a.spec.seed(), b.spec.seed());
    EXPECT_EQ(a.device_id, b.device_id);
    EXPECT_EQ(a.spec.execution_mode(), b.spec.execution_mode());
    EXPECT_EQ(a.spec.execution_mode() == v1::EXECUTION_MODE_REAL, a.device_id < 2);
  }
}

TEST(FleetPlanTest, ShardsPartitionThePlan) {
  absl::StatusOr<FleetPlan> whole = ExpandFleet(TinySpec(), ShardSpec{});
  ASSERT_TRUE(whole.ok());
  std::set<std::tuple<uint64_t, uint32_t, int, uint64_t>> all, from_shards;
  for (const PlannedSession& p : whole->sessions) {
    all.insert({p.device_id, p.session_index, static_cast<int>(p.arm), p.spec.seed()});
  }
  size_t total = 0;
  for (uint32_t i = 0; i < 3; ++i) {
    absl::StatusOr<FleetPlan> shard = ExpandFleet(TinySpec(), ShardSpec{i, 3});
    ASSERT_TRUE(shard.ok());
    EXPECT_EQ(shard->info, whole->info);
    total += shard->sessions.size();
    for (const PlannedSession& p : shard->sessions) {
      from_shards.insert({p.device_id, p.session_index, static_cast<int>(p.arm), p.spec.seed()});
    }
  }
  EXPECT_EQ(total, whole->sessions.size());
  EXPECT_EQ(all, from_shards);
}

TEST(FleetPlanTest, HashedDesignRunsEachDeviceOnOneArm) {
  v1::FleetSpec spec = TinySpec();
  spec.set_assignment(v1::ASSIGNMENT_HASHED);
  spec.set_devices(200);
  absl::StatusOr<FleetPlan> plan = ExpandFleet(spec, ShardSpec{});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->sessions.size(), 200u * 2);  // 2 sessions per device
  size_t on_b = 0;
  for (const PlannedSession& p : plan->sessions) on_b += p.arm == Arm::kB;
  EXPECT_GT(on_b, 120u);
  EXPECT_LT(on_b, 280u);
}

TEST(FleetPlanTest, PrePeriodRunsOnArmAWithSeedsOfItsOwn) {
  v1::FleetSpec spec = TinySpec();
  spec.set_assignment(v1::ASSIGNMENT_HASHED);
  spec.set_pre_period_sessions(2);
  absl::StatusOr<FleetPlan> plan = ExpandFleet(spec, ShardSpec{});
  ASSERT_TRUE(plan.ok()) << plan.status();
  // 12 devices: 2 pre-period sessions each, then their 2 experiment sessions.
  ASSERT_EQ(plan->sessions.size(), 12u * (2 + 2));
  std::set<uint64_t> seeds;
  for (const PlannedSession& p : plan->sessions) {
    const uint64_t device_seed = MixSeed(spec.seed(), p.device_id);
    EXPECT_EQ(p.spec.device_seed(), device_seed);  // one device, every session
    EXPECT_TRUE(seeds.insert(p.spec.seed()).second) << "seed reused";
    if (p.pre_period) {
      EXPECT_EQ(p.arm, Arm::kA);
      EXPECT_EQ(p.spec.arm(), spec.arm_a());
    } else {
      EXPECT_EQ(p.spec.seed(), MixSeed(device_seed, p.session_index));
    }
  }
  spec.set_pre_period_sessions(kMaxPrePeriodSessions + 1);
  const absl::Status too_many = ValidateFleetSpec(spec).status();
  EXPECT_NE(too_many.message().find("pre_period_sessions"), std::string::npos) << too_many;
}

TEST(FleetPlanTest, RejectsBadSpecs) {
  v1::FleetSpec spec = TinySpec();
  spec.clear_population();
  EXPECT_FALSE(ValidateFleetSpec(spec).ok());
  spec = TinySpec();
  spec.mutable_arrival()->set_kind(v1::ArrivalProcess::OPEN_LOOP);
  EXPECT_FALSE(ValidateFleetSpec(spec).ok());  // no rate
  EXPECT_FALSE(ParseFleetSpec("devices: -3 nonsense {").ok());
}

TEST(ProgressBarTest, DrawsOnAStreamAndIsQuietWithout) {
  std::ostringstream out;
  ProgressBar bar(&out, 4);
  for (size_t i = 1; i <= 4; ++i) bar.Update(i);
  bar.Finish();
  EXPECT_NE(out.str().find("\r[##############################] 4/4 sessions"), std::string::npos)
      << out.str();
  ProgressBar quiet(nullptr, 4);
  quiet.Update(4);  // no stream: nothing to do, no crash
  quiet.Finish();
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

#include "loadtest/results/aggregate.h"

#include "gtest/gtest.h"

namespace edgefleet {
namespace loadtest {
namespace {

SessionRecord Session(uint64_t device, Arm arm, const std::string& cls,
                      std::vector<int64_t> latencies) {
  SessionRecord r;
  r.device_id = device;
  r.arm = arm;
  r.device_class = cls;
  r.load_read_us = 100;
  r.load_parse_us = 20;
  r.load_init_us = 30;
  r.first_inference_us = 50;
  r.latencies_us = std::move(latencies);
  r.peak_memory_bytes = 1000;
  r.total_frames = 10;
  return r;
}

ResultSet Canonical(Design design, std::vector<SessionRecord> records) {
  ExperimentInfo info;
  info.design = design;
  ResultSet rs(info, ShardSpec{});
  for (auto& r : records) rs.Add(std::move(r));
  EXPECT_TRUE(rs.Canonicalize().ok());
  return rs;
}

TEST(AggregateTest, ScopesAreOverallThenClassesByName) {
  const FleetAggregate f = Aggregate(Canonical(
      Design::kPaired, {Session(0, Arm::kA, "zeta", {1}), Session(0, Arm::kB, "zeta", {2}),
                        Session(1, Arm::kA, "alpha", {3}), Session(1, Arm::kB, "alpha", {4})}));
  ASSERT_EQ(f.scopes.size(), 3u);
  EXPECT_EQ(f.scopes[0].name, "overall");
  EXPECT_EQ(f.scopes[1].name, "alpha");
  EXPECT_EQ(f.scopes[2].name, "zeta");
  EXPECT_EQ(f.scopes[0].arms[0].sessions, 2);
  EXPECT_EQ(f.scopes[1].arms[1].sessions, 1);
}

TEST(AggregateTest, SumsSquaredSessionsPerDevicePerArmAndScope) {
  auto session = [](uint64_t device, uint32_t index, Arm arm, const std::string& cls) {
    SessionRecord r = Session(device, arm, cls, {1});
    r.session_index = index;
    return r;
  };
  // Device 0 (class c, arm A): 3 sessions; device 1 (d, A): 1; device 2 (c, B): 2.
  const FleetAggregate f = Aggregate(Canonical(
      Design::kHashed,
      {session(0, 0, Arm::kA, "c"), session(0, 1, Arm::kA, "c"), session(0, 2, Arm::kA, "c"),
       session(1, 0, Arm::kA, "d"), session(2, 0, Arm::kB, "c"), session(2, 1, Arm::kB, "c")}));
  ASSERT_EQ(f.scopes.size(), 3u);
  EXPECT_EQ(f.scopes[0].arms[0].sum_sq_sessions_per_device, 9 + 1);
  EXPECT_EQ(f.scopes[0].arms[1].sum_sq_sessions_per_device, 4);
  EXPECT_EQ(f.scopes[1].arms[0].sum_sq_sessions_per_device, 9);  // c
  EXPECT_EQ(f.scopes[1].arms[1].sum_sq_sessions_per_device, 4);
  EXPECT_EQ(f.scopes[2].arms[0].sum_sq_sessions_per_device, 1);  // d
  EXPECT_EQ(f.scopes[2].arms[1].sum_sq_sessions_per_device, 0);
}

TEST(AggregateTest, PairedArmsShareUnitsHashedArmsDoNot) {
  std::vector<SessionRecord> paired = {
      Session(0, Arm::kA, "c", {10, 11}), Session(0, Arm::kB, "c", {12}),
      Session(5, Arm::kA, "c", {13}), Session(5, Arm::kB, "c", {14})};
  const FleetAggregate p = Aggregate(Canonical(Design::kPaired, paired));
  const ArmAggregate& pa = p.scopes[0].arms[0];
  const ArmAggregate& pb = p.scopes[0].arms[1];
  EXPECT_EQ(pa.units, 2u);
  EXPECT_EQ(pb.units, 2u);
  const int steady = static_cast<int>(Metric::kSteadyLatency);
  EXPECT_EQ(pa.samples[steady].units(), (std::vector<uint32_t>{0, 0, 1}));
  EXPECT_EQ(pb.samples[steady].units(), (std::vector<uint32_t>{0, 1}));
  // The unit summary of a session is its median latency (nearest rank).
  EXPECT_EQ(pa.unit_values[steady][0], (std::pair<uint32_t, double>{0, 10}));

  const FleetAggregate h = Aggregate(
      Canonical(Design::kHashed, {Session(0, Arm::kA, "c", {1}), Session(1, Arm::kB, "c", {2}),
                                  Session(2, Arm::kA, "c", {3})}));
  EXPECT_EQ(h.scopes[0].arms[0].units, 2u);
  EXPECT_EQ(h.scopes[0].arms[1].units, 1u);
  EXPECT_EQ(h.scopes[0].arms[1].samples[steady].units(), (std::vector<uint32_t>{0}));
}

TEST(AggregateTest, SamplesCarryTheDeviceUnitValuesTheSession) {
  auto session = [](uint64_t device, uint32_t index, Arm arm, int64_t latency) {
    SessionRecord r = Session(device, arm, "c", {latency, latency + 1});
    r.session_index = index;
    return r;
  };
  const int steady = static_cast<int>(Metric::kSteadyLatency);
  // Hashed: device 3 has two sessions on A, device 4 one on B, device 7
  // three on A.
  const FleetAggregate h = Aggregate(Canonical(
      Design::kHashed,
      {session(7, 2, Arm::kA, 70), session(3, 0, Arm::kA, 10), session(3, 1, Arm::kA, 20),
       session(4, 0, Arm::kB, 40), session(7, 0, Arm::kA, 50), session(7, 1, Arm::kA, 60)}));
  const ArmAggregate& a = h.scopes[1].arms[0];
  EXPECT_EQ(a.units, 5u);
  EXPECT_EQ(a.devices, 2u);
  EXPECT_EQ(a.samples[steady].values(),
            (std::vector<double>{10, 11, 20, 21, 50, 51, 60, 61, 70, 71}));
  EXPECT_EQ(a.samples[steady].units(), (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(a.unit_values[steady], (std::vector<std::pair<uint32_t, double>>{
                                       {0, 10}, {1, 20}, {2, 50}, {3, 60}, {4, 70}}));
  EXPECT_EQ(a.unit_device, (std::vector<uint32_t>{0, 0, 1, 1, 1}));
  // One value per device: device 3's sessions (10 + 20) / 2, device 7's
  // (50 + 60 + 70) / 3; every session's load time is 100 + 20 + 30.
  EXPECT_EQ(DeviceValues(a, Metric::kSteadyLatency),
            (std::vector<std::pair<uint32_t, double>>{{0, 15}, {1, 60}}));
  EXPECT_EQ(DeviceValues(a, Metric::kLoadTime),
            (std::vector<std::pair<uint32_t, double>>{{0, 150}, {1, 150}}));
  EXPECT_EQ(DeviceValues(h.scopes[1].arms[1], Metric::kSteadyLatency),
            (std::vector<std::pair<uint32_t, double>>{{0, 40}}));
  EXPECT_EQ(h.scopes[1].arms[1].units, 1u);
  EXPECT_EQ(h.scopes[1].arms[1].devices, 1u);

  // Paired: both arms share the numbering; a device's sessions one device.
  const FleetAggregate p =
      Aggregate(Canonical(Design::kPaired, {session(2, 0, Arm::kA, 1), session(2, 0, Arm::kB, 2),
                                            session(2, 1, Arm::kA, 3), session(2, 1, Arm::kB, 4),
                                            session(9, 0, Arm::kA, 5), session(9, 0, Arm::kB, 6)}));
  for (const ArmAggregate& arm : p.scopes[0].arms) {
    EXPECT_EQ(arm.units, 3u);
    EXPECT_EQ(arm.devices, 2u);
    EXPECT_EQ(arm.samples[steady].units(), (std::vector<uint32_t>{0, 0, 0, 0, 1, 1}));
  }
  // Device 2's sessions on A: (1 + 3) / 2; on B: (2 + 4) / 2.
  EXPECT_EQ(DeviceValues(p.scopes[0].arms[0], Metric::kSteadyLatency),
            (std::vector<std::pair<uint32_t, double>>{{0, 2}, {1, 5}}));
  EXPECT_EQ(DeviceValues(p.scopes[0].arms[1], Metric::kSteadyLatency),
            (std::vector<std::pair<uint32_t, double>>{{0, 3}, {1, 6}}));
}

TEST(AggregateTest, OutcomesDecideWhatCounts) {
  SessionRecord killed_loading = Session(1, Arm::kA, "c", {});
  killed_loading.outcome = Outcome::kOomKilled;
  killed_loading.first_inference_us = -1;
  SessionRecord error = Session(2, Arm::kA, "c", {});
  error.outcome = Outcome::kHarnessError;
  error.error_cause = "DEADLINE_EXCEEDED";
  error.retries = 3;
  SessionRecord failed = Session(4, Arm::kA, "c", {});
  failed.outcome = Outcome::kStackError;
  failed.error_cause = "OperatorMissing";
  failed.first_inference_us = -1;
  SessionRecord anr = Session(3, Arm::kA, "c", {7, 8, 9});
  anr.anr_count = 2;
  const FleetAggregate f = Aggregate(Canonical(
      Design::kHashed, {Session(0, Arm::kA, "c", {5}), killed_loading, error, anr, failed}));
  const ArmAggregate& a = f.scopes[0].arms[0];
  EXPECT_EQ(a.sessions, 5);
  EXPECT_EQ(a.ok, 2);
  EXPECT_EQ(a.oom_killed, 1);
  EXPECT_EQ(a.stack_errors, 1);
  EXPECT_EQ(a.harness_errors, 1);
  EXPECT_EQ(a.DeviceSessions(), 4);
  EXPECT_EQ(a.errors_by_cause.at("harness_error: DEADLINE_EXCEEDED"), 1);
  EXPECT_EQ(a.errors_by_cause.at("stack_error: OperatorMissing"), 1);
  EXPECT_EQ(a.retries, 3);
  EXPECT_EQ(a.sessions_with_anr, 1);
  EXPECT_EQ(a.anr_total, 2);
  EXPECT_EQ(a.loaded, 2);
  EXPECT_EQ(a.load_read_us, 200);
  EXPECT_EQ(a.samples[static_cast<int>(Metric::kLoadTime)].values(),
            (std::vector<double>{150, 150}));
  EXPECT_EQ(a.samples[static_cast<int>(Metric::kPeakMemory)].size(), 4u);
  EXPECT_EQ(a.samples[static_cast<int>(Metric::kSteadyLatency)].size(), 4u);
  EXPECT_EQ(a.total_frames, 40);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

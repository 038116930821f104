// FleetPlan: a validated FleetSpec (proto/edgefleet/v1/fleet_spec.proto)
// expanded into the sessions one shard of the fleet runs.
//
// Expansion is deterministic and independent of the shard: devices are
// numbered 0..devices-1 class by class (population order, largest-remainder
// counts), each device's seed is MixSeed(spec seed, device id), and session
// k of a device uses MixSeed(device seed, k) on both arms (paired) or on the
// arm AssignArm(seed, device id, share_b) gives it (hashed); every session
// of a device carries its device seed (SessionSpec.device_seed: the same
// emulated device, with its own speed draw, on both arms). A device's
// pre-period sessions (FleetSpec.pre_period_sessions) run on arm A with
// seeds MixSeed(MixSeed(device seed, kPrePeriodStream), k). A shard keeps
// the devices ShardSpec::Contains, so shards partition the unsharded plan.
// The spec digest in ExperimentInfo leaves out `arrival` (scheduling only,
// never the figures), so shards may run with different concurrency.
// Value types; thread-safe to read.

#ifndef EDGEFLEET_LOADTEST_DRIVER_FLEET_PLAN_H_
#define EDGEFLEET_LOADTEST_DRIVER_FLEET_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "edgefleet/v1/fleet_spec.pb.h"
#include "edgefleet/v1/session.pb.h"
#include "loadtest/results/result_set.h"
#include "loadtest/results/session_record.h"
#include "loadtest/results/shard.h"

namespace edgefleet {
namespace loadtest {

// One call the driver makes: a session of one device on one arm.
struct PlannedSession {
  uint64_t device_id = 0;
  uint32_t session_index = 0;
  Arm arm = Arm::kA;
  std::string device_class;
  // A pre-period session (arm A, before treatment): its result is the
  // device's covariate, not an experiment record.
  bool pre_period = false;
  v1::SessionSpec spec;  // what RunSession gets
};

struct FleetPlan {
  v1::FleetSpec spec;   // with defaults filled in
  ExperimentInfo info;  // equal in every shard
  ShardSpec shard;
  std::vector<PlannedSession> sessions;  // canonical order
};

// Largest `devices` of a fleet spec (far beyond what a driver can expand;
// keeps device counts exact in double arithmetic).
constexpr uint64_t kMaxDevices = 1000ull * 1000 * 1000;
// Largest FleetSpec.pre_period_sessions.
constexpr uint32_t kMaxPrePeriodSessions = 100;
// Seed stream of the pre-period sessions.
constexpr uint64_t kPrePeriodStream = 0x7072'6570'6572'696FULL;  // "preperio"

// Parses a FleetSpec textproto file / text.
absl::StatusOr<v1::FleetSpec> ReadFleetSpecFile(const std::string& path);
absl::StatusOr<v1::FleetSpec> ParseFleetSpec(const std::string& text);

// Fills defaults (0 means ...) and checks every field (numbers finite and
// in range, enums declared values); the first problem names the field.
absl::StatusOr<v1::FleetSpec> ValidateFleetSpec(v1::FleetSpec spec);

// Devices per class, in population order (largest remainder; sums to
// spec.devices()). REQUIRES: a validated spec.
std::vector<uint64_t> ClassCounts(const v1::FleetSpec& spec);

// Validates and expands `spec` for `shard`.
absl::StatusOr<FleetPlan> ExpandFleet(v1::FleetSpec spec, ShardSpec shard);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_DRIVER_FLEET_PLAN_H_

// Per-scope, per-arm samples of every compared metric, built from the
// records of a (merged) ResultSet. A scope is the whole fleet ("overall") or
// one device class.
//
// Units: a unit is one (device, session), the observation of the
// covariates. The bootstrap's resampling cluster is the device, the
// unit of randomization (hashed design) and of the per-device speed draw, so
// the sessions of one device are correlated: every observation in `samples`
// carries its device's number, and a replicate weighs all of a device's
// sessions together. In the paired design both arms share the scope's unit
// and device numbering, so unit u on A and on B is the same device session;
// in the hashed design each arm numbers its own. Units and devices are
// numbered in canonical record order (a device's records are consecutive),
// so the aggregate (and every statistic computed from it) is a pure function
// of the record set; with one session per device the two numberings agree.
// The rank tests and the sample counts take one value per device
// (DeviceValues): the mean of its sessions' values.
//
// What counts where:
//  - load time and first inference: sessions that completed a first
//    inference (SessionRecord::Loaded());
//  - steady latency: every steady-state latency, unit = its session; a
//    session's unit value is its median latency;
//  - peak memory: every device session (all outcomes but harness errors);
//  - ANR rate: device sessions with >= 1 ANR / device sessions;
//  - OOM rate: OOM-killed sessions / device sessions;
//  - failure rate: stack-error sessions / device sessions;
//  - covariates (device time factor, pre-period latency): per unit, from
//    its record.
// Harness errors count only in `sessions` and `errors_by_cause`.
//
// Value type, immutable after Aggregate() returns; safe to read from many
// threads.

#ifndef EDGEFLEET_LOADTEST_RESULTS_AGGREGATE_H_
#define EDGEFLEET_LOADTEST_RESULTS_AGGREGATE_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "loadtest/results/result_set.h"
#include "loadtest/stats/bootstrap.h"

namespace edgefleet {
namespace loadtest {

enum class Metric : uint8_t {
  kLoadTime = 0,
  kFirstInference = 1,
  kSteadyLatency = 2,
  kPeakMemory = 3,
};
inline constexpr int kMetricCount = 4;
inline constexpr std::array<Metric, kMetricCount> kAllMetrics = {
    Metric::kLoadTime, Metric::kFirstInference, Metric::kSteadyLatency, Metric::kPeakMemory};

// "load_time", "first_inference", "steady_latency", "peak_memory".
const char* MetricName(Metric metric);
// Unit of the aggregated values: "us" or "bytes".
const char* MetricUnit(Metric metric);

struct ArmAggregate {
  // Observations per metric, each with its device number (the bootstrap's
  // resampling cluster, < devices), sorted.
  std::array<ClusteredSample, kMetricCount> samples;
  // One summary per unit, ordered by unit: (unit, value). Steady latency:
  // the session's median.
  std::array<std::vector<std::pair<uint32_t, double>>, kMetricCount> unit_values;
  uint32_t units = 0;    // Size of this arm's unit (device session) space.
  uint32_t devices = 0;  // Size of this arm's device space.
  // Device number of each unit, indexed by unit (sized as the covariates).
  std::vector<uint32_t> unit_device;
  // Covariates of each unit, indexed by unit (SessionRecord's
  // device_time_factor and pre_period_us; 0 / -1 where unknown). Sized to
  // the largest unit seen plus one.
  std::vector<double> unit_device_time_factor;
  std::vector<int64_t> unit_pre_period_us;

  int64_t sessions = 0;  // All records, any outcome.
  // Sum over the arm's devices of (the device's records)^2: with `sessions`,
  // the clustering of sessions in devices (the sample-ratio check's design
  // effect, stats/srm.h).
  int64_t sum_sq_sessions_per_device = 0;
  int64_t ok = 0;
  int64_t oom_killed = 0;
  int64_t stack_errors = 0;
  int64_t harness_errors = 0;
  // "<outcome>: <cause>" -> sessions, for both kinds of error.
  std::map<std::string, int64_t> errors_by_cause;
  int64_t retries = 0;
  int64_t sessions_with_anr = 0;
  int64_t anr_total = 0;
  int64_t slow_frames = 0;
  int64_t frozen_frames = 0;
  int64_t total_frames = 0;
  // Sums over loaded sessions, for the load-time split chart.
  int64_t loaded = 0;
  int64_t load_read_us = 0;
  int64_t load_parse_us = 0;
  int64_t load_init_us = 0;

  // Sessions that are device outcomes (not harness errors).
  int64_t DeviceSessions() const { return ok + oom_killed + stack_errors; }
};

struct ScopeAggregate {
  std::string name;                  // "overall" or the device class.
  std::array<ArmAggregate, 2> arms;  // Indexed by Arm.
};

struct FleetAggregate {
  ExperimentInfo info;
  // scopes[0] is "overall"; then one per device class, sorted by name.
  std::vector<ScopeAggregate> scopes;
};

// REQUIRES: results canonicalized (ResultSet::Canonicalize or MergeShards).
FleetAggregate Aggregate(const ResultSet& results);

// One value per device of metric m, the mean of its units' values (steady
// latency: of its sessions' medians), ordered by device: (device, value).
// The observations of the rank tests and the count behind min_units: a
// device's sessions are not independent (one speed draw, one assignment).
std::vector<std::pair<uint32_t, double>> DeviceValues(const ArmAggregate& arm, Metric m);

inline constexpr char kOverallScope[] = "overall";

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_RESULTS_AGGREGATE_H_

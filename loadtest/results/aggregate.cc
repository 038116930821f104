#include "loadtest/results/aggregate.h"

#include <algorithm>
#include <cassert>

#include "loadtest/stats/quantile.h"

namespace edgefleet {
namespace loadtest {
namespace {

// Hands out unit and device numbers in record order: a new unit whenever
// the (device, session) key changes within a lane, a new device whenever
// the device changes. Paired designs use one lane for both arms; hashed
// designs one lane per arm.
class UnitNumbering {
 public:
  struct Numbers {
    uint32_t unit = 0;
    uint32_t device = 0;
  };
  Numbers For(int lane, const SessionRecord& r) {
    Lane& l = lanes_[lane];
    if (l.units == 0 || l.device_id != r.device_id) {
      ++l.devices;
      ++l.units;
    } else if (l.session_index != r.session_index) {
      ++l.units;
    }
    l.device_id = r.device_id;
    l.session_index = r.session_index;
    return {l.units - 1, l.devices - 1};
  }
  uint32_t Units(int lane) const { return lanes_[lane].units; }
  uint32_t Devices(int lane) const { return lanes_[lane].devices; }

 private:
  struct Lane {
    uint64_t device_id = 0;
    uint32_t session_index = 0;
    uint32_t units = 0;
    uint32_t devices = 0;
  };
  std::array<Lane, 2> lanes_;
};

// Counts one arm's records per device, records in canonical order (a
// device's records are consecutive), into sum_sq_sessions_per_device.
class DeviceRun {
 public:
  void Add(uint64_t device_id, ArmAggregate* arm) {
    if (sessions_ > 0 && device_id != device_id_) Flush(arm);
    device_id_ = device_id;
    ++sessions_;
  }
  void Flush(ArmAggregate* arm) {
    arm->sum_sq_sessions_per_device += sessions_ * sessions_;
    sessions_ = 0;
  }

 private:
  uint64_t device_id_ = 0;
  int64_t sessions_ = 0;
};

double MedianOf(std::vector<int64_t> values) {
  const size_t k = NearestRankIndex(values.size(), 0.5);
  std::nth_element(values.begin(), values.begin() + k, values.end());
  return static_cast<double>(values[k]);
}

void AddSample(Metric m, double value, UnitNumbering::Numbers n, ArmAggregate* arm) {
  const int i = static_cast<int>(m);
  arm->samples[i].Add(value, n.device);
  arm->unit_values[i].emplace_back(n.unit, value);
}

void AddRecord(const SessionRecord& r, UnitNumbering::Numbers n, ArmAggregate* arm) {
  const uint32_t unit = n.unit;
  ++arm->sessions;
  if (arm->unit_device_time_factor.size() <= unit) {
    arm->unit_device_time_factor.resize(unit + 1, 0.0);
    arm->unit_pre_period_us.resize(unit + 1, -1);
    arm->unit_device.resize(unit + 1, 0);
  }
  arm->unit_device[unit] = n.device;
  arm->unit_device_time_factor[unit] = r.device_time_factor;
  arm->unit_pre_period_us[unit] = r.pre_period_us;
  arm->retries += r.retries;
  if (r.outcome == Outcome::kStackError || r.outcome == Outcome::kHarnessError) {
    const std::string cause = r.error_cause.empty() ? "unknown" : r.error_cause.substr(0, 80);
    ++arm->errors_by_cause[std::string(OutcomeName(r.outcome)) + ": " + cause];
  }
  switch (r.outcome) {
    case Outcome::kOk:
      ++arm->ok;
      break;
    case Outcome::kOomKilled:
      ++arm->oom_killed;
      break;
    case Outcome::kStackError:
      ++arm->stack_errors;
      break;
    case Outcome::kHarnessError:
      ++arm->harness_errors;
      return;
  }
  arm->sessions_with_anr += r.anr_count > 0;
  arm->anr_total += r.anr_count;
  arm->slow_frames += r.slow_frames;
  arm->frozen_frames += r.frozen_frames;
  arm->total_frames += r.total_frames;
  AddSample(Metric::kPeakMemory, static_cast<double>(r.peak_memory_bytes), n, arm);
  if (r.Loaded()) {
    ++arm->loaded;
    arm->load_read_us += r.load_read_us;
    arm->load_parse_us += r.load_parse_us;
    arm->load_init_us += r.load_init_us;
    AddSample(Metric::kLoadTime, static_cast<double>(r.LoadTotalUs()), n, arm);
    AddSample(Metric::kFirstInference, static_cast<double>(r.first_inference_us), n, arm);
  }
  if (!r.latencies_us.empty()) {
    ClusteredSample& steady = arm->samples[static_cast<int>(Metric::kSteadyLatency)];
    for (int64_t v : r.latencies_us) steady.Add(static_cast<double>(v), n.device);
    arm->unit_values[static_cast<int>(Metric::kSteadyLatency)].emplace_back(
        unit, MedianOf(r.latencies_us));
  }
}

}  // namespace

const char* MetricName(Metric metric) {
  switch (metric) {
    case Metric::kLoadTime:
      return "load_time";
    case Metric::kFirstInference:
      return "first_inference";
    case Metric::kSteadyLatency:
      return "steady_latency";
    case Metric::kPeakMemory:
      return "peak_memory";
  }
  return "unknown";
}

const char* MetricUnit(Metric metric) { return metric == Metric::kPeakMemory ? "bytes" : "us"; }

FleetAggregate Aggregate(const ResultSet& results) {
  const std::vector<SessionRecord>& records = results.records();
  assert(std::is_sorted(records.begin(), records.end(), CanonicalLess));
  FleetAggregate out;
  out.info = results.info();
  std::map<std::string, size_t> class_scope;
  for (const SessionRecord& r : records) class_scope.emplace(r.device_class, 0);
  out.scopes.resize(1 + class_scope.size());
  out.scopes[0].name = kOverallScope;
  size_t next_scope = 1;
  for (auto& [name, index] : class_scope) {
    index = next_scope++;
    out.scopes[index].name = name;
  }

  const bool paired = out.info.design == Design::kPaired;
  std::vector<UnitNumbering> numbering(out.scopes.size());
  std::vector<std::array<DeviceRun, 2>> device_runs(out.scopes.size());
  const std::string* last_class = nullptr;
  size_t last_scope = 0;
  for (const SessionRecord& r : records) {
    if (last_class == nullptr || *last_class != r.device_class) {
      last_class = &r.device_class;
      last_scope = class_scope.at(r.device_class);
    }
    const int arm = static_cast<int>(r.arm);
    const int lane = paired ? 0 : arm;
    for (size_t scope : {size_t{0}, last_scope}) {
      AddRecord(r, numbering[scope].For(lane, r), &out.scopes[scope].arms[arm]);
      device_runs[scope][arm].Add(r.device_id, &out.scopes[scope].arms[arm]);
    }
  }
  for (size_t s = 0; s < out.scopes.size(); ++s) {
    for (int arm = 0; arm < 2; ++arm) {
      ArmAggregate& a = out.scopes[s].arms[arm];
      a.units = numbering[s].Units(paired ? 0 : arm);
      a.devices = numbering[s].Devices(paired ? 0 : arm);
      device_runs[s][arm].Flush(&a);
      for (ClusteredSample& sample : a.samples) sample.Sort();
    }
  }
  return out;
}

std::vector<std::pair<uint32_t, double>> DeviceValues(const ArmAggregate& arm, Metric m) {
  // Units are numbered in record order and a device's records are
  // consecutive, so a device's units are consecutive in unit_values.
  std::vector<std::pair<uint32_t, double>> out;
  double sum = 0;
  int count = 0;
  for (const auto& [unit, value] : arm.unit_values[static_cast<int>(m)]) {
    const uint32_t device = arm.unit_device[unit];
    if (count > 0 && device != out.back().first) {
      out.back().second = sum / count;
      sum = 0;
      count = 0;
    }
    if (count == 0) out.emplace_back(device, 0.0);
    sum += value;
    ++count;
  }
  if (count > 0) out.back().second = sum / count;
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet

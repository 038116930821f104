#include "loadtest/testing/synthetic_fleet.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "loadtest/results/assignment.h"
#include "loadtest/stats/random.h"

namespace edgefleet {
namespace loadtest {
namespace {

// Stream ids; each draw family has its own so adding one does not shift
// the others.
constexpr uint64_t kClassStream = 1;
constexpr uint64_t kDeviceStream = 2;
constexpr uint64_t kSessionStream = 3;
constexpr uint64_t kArmStream = 4;

double LogNormal(Xoshiro256& rng, double median, double sigma) {
  return median * std::exp(sigma * rng.NextNormal());
}

size_t ClassOf(const SyntheticFleetOptions& o, uint64_t device) {
  double total = 0;
  for (const SyntheticClass& c : o.classes) total += c.share;
  const double point = AssignmentPoint(MixSeed(o.seed, kClassStream), device) * total;
  double cum = 0;
  for (size_t i = 0; i < o.classes.size(); ++i) {
    cum += o.classes[i].share;
    if (point < cum) return i;
  }
  return o.classes.size() - 1;
}

SessionRecord MakeSession(const SyntheticFleetOptions& o, uint64_t device, uint32_t session,
                          Arm arm) {
  const SyntheticClass& cls = o.classes[ClassOf(o, device)];
  const ArmEffect none;
  const ArmEffect& effect =
      (arm == Arm::kB && (o.effect_class.empty() || o.effect_class == cls.name)) ? o.effect_b
                                                                                 : none;
  Xoshiro256 device_rng(MixSeed(MixSeed(o.seed, kDeviceStream), device));
  const double speed = LogNormal(device_rng, 1.0, 0.25);
  const double storage = LogNormal(device_rng, 1.0, 0.3);
  const uint64_t key = device * 0x10000ULL + session;
  Xoshiro256 session_rng(MixSeed(MixSeed(o.seed, kSessionStream), key));
  const double thermal = LogNormal(session_rng, 1.0, 0.1);
  Xoshiro256 rng(MixSeed(MixSeed(o.seed, kArmStream), key * 2 + (arm == Arm::kB)));

  SessionRecord r;
  r.device_id = device;
  r.session_index = session;
  r.arm = arm;
  r.device_class = cls.name;
  r.device_time_factor = speed;  // known before treatment, as the emulator's
  if (rng.NextDouble() < o.harness_error_rate) {
    r.outcome = Outcome::kHarnessError;
    r.error_cause = "UNAVAILABLE";
    r.retries = 3;
    return r;
  }
  if (rng.NextDouble() < effect.stack_error_rate) {
    r.outcome = Outcome::kStackError;
    r.error_cause = "OperatorMissing";
    return r;
  }
  const double load = cls.load_median_us * storage * effect.load;
  r.load_read_us = std::llround(LogNormal(rng, 0.5 * load, 0.1));
  r.load_parse_us = std::llround(LogNormal(rng, 0.2 * load * speed, 0.1));
  r.load_init_us = std::llround(LogNormal(rng, 0.3 * load * speed, 0.1));
  r.peak_memory_bytes =
      std::llround(LogNormal(rng, static_cast<double>(cls.memory_bytes) * effect.memory, 0.05));
  const bool oom = rng.NextDouble() < cls.oom_rate * effect.oom;
  const bool anr = rng.NextDouble() < cls.anr_rate * effect.anr;
  const double median = cls.latency_median_us * speed * thermal * effect.latency;
  if (oom && rng.NextDouble() < 0.5) {  // Killed while loading.
    r.outcome = Outcome::kOomKilled;
    return r;
  }
  r.first_inference_us = std::llround(LogNormal(rng, 2.5 * median, 0.15));
  const uint32_t n = oom ? o.inferences_per_session / 2 : o.inferences_per_session;
  r.latencies_us.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    double v = LogNormal(rng, median, 0.12);
    if (rng.NextDouble() < 0.02) v += -std::log(1.0 - rng.NextDouble()) * 3 * median;
    r.latencies_us.push_back(std::max<int64_t>(1, std::llround(v)));
  }
  r.outcome = oom ? Outcome::kOomKilled : Outcome::kOk;
  r.anr_count = anr ? 1 + static_cast<uint32_t>(rng.NextDouble() < 0.3) : 0;
  r.total_frames = 60 * n / 10 + 60;
  r.slow_frames = static_cast<uint32_t>(r.total_frames * 0.02 * speed);
  r.frozen_frames = anr ? 1 : 0;
  return r;
}

}  // namespace

std::vector<SyntheticClass> DefaultSyntheticClasses() {
  return {
      {"ai-glasses", 0.04, 60000, 900000, 24 << 20, 0.004, 0.006},
      {"high-end-android", 0.20, 7000, 120000, 90 << 20, 0.0005, 0.0005},
      {"iphone", 0.15, 6000, 100000, 90 << 20, 0.0003, 0.0005},
      {"low-end-android", 0.25, 45000, 600000, 70 << 20, 0.004, 0.004},
      {"microcontroller", 0.01, 400000, 300000, 1 << 20, 0.0, 0.002},
      {"mid-android", 0.30, 18000, 250000, 80 << 20, 0.0015, 0.001},
      {"vr-headset", 0.05, 12000, 200000, 120 << 20, 0.001, 0.001},
  };
}

ResultSet GenerateSyntheticFleet(const SyntheticFleetOptions& o) {
  ExperimentInfo info;
  info.name = "synthetic";
  info.seed = o.seed;
  info.design = o.design;
  info.arm_a = "synthetic-A";
  info.arm_b = "synthetic-B";
  info.share_b = o.design == Design::kPaired ? 0.5 : o.share_b;
  double total_share = 0;
  for (const SyntheticClass& c : o.classes) total_share += c.share;
  for (const SyntheticClass& c : o.classes) {
    info.class_shares[c.name] += c.share / total_share;
  }
  ResultSet results(info, o.shard);
  for (uint64_t d = o.shard.index; d < o.devices; d += o.shard.count) {
    for (uint32_t s = 0; s < o.sessions_per_device; ++s) {
      if (o.design == Design::kPaired) {
        results.Add(MakeSession(o, d, s, Arm::kA));
        results.Add(MakeSession(o, d, s, Arm::kB));
      } else {
        results.Add(MakeSession(o, d, s, AssignArm(o.seed, d, o.share_b)));
      }
    }
  }
  // Generated in canonical order and without duplicates by construction.
  const absl::Status status = results.Canonicalize();
  assert(status.ok());
  (void)status;
  return results;
}

}  // namespace loadtest
}  // namespace edgefleet

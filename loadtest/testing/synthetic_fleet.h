// A deterministic synthetic fleet: session records drawn from simple
// per-class distributions instead of the emulator. Used by the tests (known
// injected effects, A/A runs, shard merges), the statistics-path benchmark,
// and `edgefleet-loadtest synth` to try the reports without a server. The
// numbers are illustrative, not calibrated device figures.
//
// Model, per device d (class by population share, a persistent speed factor,
// recorded as the records' device_time_factor covariate) and session s: a session factor (thermal
// state) shared by both arms, then per-inference host noise drawn separately per arm, with
// occasional heavy-tailed preemptions. Paired designs therefore have the correlation a real paired
// run has, and an A/A run is not trivially identical. Every draw comes from streams keyed by (seed,
// d, s, arm), so any shard of the fleet generates exactly the records of the whole run that fall in
// it.
//
// Pure function; thread-safe.

#ifndef EDGEFLEET_LOADTEST_TESTING_SYNTHETIC_FLEET_H_
#define EDGEFLEET_LOADTEST_TESTING_SYNTHETIC_FLEET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "loadtest/results/result_set.h"

namespace edgefleet {
namespace loadtest {

struct SyntheticClass {
  std::string name;
  double share = 1;                  // Population share (normalized).
  double latency_median_us = 10000;  // Steady-state inference.
  double load_median_us = 200000;    // Total model load.
  int64_t memory_bytes = 50 << 20;   // Typical peak.
  double anr_rate = 0.001;           // Sessions with >= 1 ANR.
  double oom_rate = 0.001;           // Sessions killed for memory.
};

// Seven illustrative classes (low/mid/high-end Android, iPhone-class, VR
// headset, AI glasses, microcontroller).
std::vector<SyntheticClass> DefaultSyntheticClasses();

struct ArmEffect {
  double latency = 1;  // Multiplies first and steady inference latency.
  double load = 1;
  double memory = 1;
  double anr = 1;               // Multiplies the ANR rate...
  double oom = 1;               // ...and the OOM rate.
  double stack_error_rate = 0;  // Sessions whose stack fails at load.
};

struct SyntheticFleetOptions {
  std::vector<SyntheticClass> classes = DefaultSyntheticClasses();
  uint64_t devices = 1000;
  uint32_t sessions_per_device = 1;
  uint32_t inferences_per_session = 20;
  uint64_t seed = 1;
  Design design = Design::kPaired;
  double share_b = 0.5;           // Hashed design only.
  ArmEffect effect_b;             // Arm B relative to arm A, every class...
  std::string effect_class;       // ...or only this class, when set.
  double harness_error_rate = 0;  // Per session and arm.
  ShardSpec shard;
};

// Generates the shard's records, canonicalized.
ResultSet GenerateSyntheticFleet(const SyntheticFleetOptions& options);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_TESTING_SYNTHETIC_FLEET_H_

// One simulated device session on one arm: what the emulator reports for it,
// in device time. This is the unit the fleet driver produces and everything
// downstream (shard files, aggregation, reports) consumes.
//
// A session loads the arm's model, runs one first (cold) inference, then the
// steady-state inferences that follow the warm-up policy, while the emulated
// main thread dispatches input events and frames. Times are integer device
// microseconds and memory integer bytes, so shard files round-trip exactly.
//
// Plain value type; not synchronized.

#ifndef EDGEFLEET_LOADTEST_RESULTS_SESSION_RECORD_H_
#define EDGEFLEET_LOADTEST_RESULTS_SESSION_RECORD_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace edgefleet {
namespace loadtest {

enum class Arm : uint8_t { kA = 0, kB = 1 };

// "A" / "B". ParseArm returns false on anything else.
const char* ArmName(Arm arm);
bool ParseArm(std::string_view name, Arm* arm);

enum class Outcome : uint8_t {
  kOk = 0,            // The session ran to its end.
  kOomKilled = 1,     // Over the class's memory budget: killed, like the LMK.
  kStackError = 2,    // The arm's stack failed (e.g. an unsupported operator):
                      // a device outcome, compared between arms.
  kHarnessError = 3,  // The harness failed (e.g. a gRPC call still failing
                      // after retries): not a device outcome; counted by
                      // cause and left out of every metric and rate.
};

// "ok" / "oom_killed" / "stack_error" / "harness_error".
const char* OutcomeName(Outcome outcome);
bool ParseOutcome(std::string_view name, Outcome* outcome);

struct SessionRecord {
  // Identity: (device_id, session_index, arm) is unique within an
  // experiment. In the paired design the same (device_id, session_index)
  // runs on both arms with the same seed and inputs.
  uint64_t device_id = 0;
  uint32_t session_index = 0;
  Arm arm = Arm::kA;
  std::string device_class;

  Outcome outcome = Outcome::kOk;
  // kStackError / kHarnessError: a short cause ("DEADLINE_EXCEEDED",
  // "OperatorMissing"); reports count sessions per cause.
  std::string error_cause;
  uint32_t retries = 0;  // Calls retried within the session, any outcome.

  // Model load split: storage read, parse/verify, method init.
  int64_t load_read_us = 0;
  int64_t load_parse_us = 0;
  int64_t load_init_us = 0;
  // The first inference after load; -1 when the session never completed one
  // (then its load time is not counted either).
  int64_t first_inference_us = -1;
  // Steady-state inferences after warm-up, in issue order.
  std::vector<int64_t> latencies_us;
  int64_t peak_memory_bytes = 0;

  // Main-thread health: input events not dispatched within the ANR timeout,
  // and frames over 16 ms (slow) or 700 ms (frozen) out of total_frames.
  uint32_t anr_count = 0;
  uint32_t slow_frames = 0;
  uint32_t frozen_frames = 0;
  uint32_t total_frames = 0;

  // Covariates known before treatment (variance reduction, stats/cuped.h):
  // the device's compute-time factor as the emulator drew it (0: unknown),
  // and the median steady latency of the device's pre-period sessions on
  // arm A (-1: no pre-period).
  double device_time_factor = 0;
  int64_t pre_period_us = -1;

  int64_t LoadTotalUs() const { return load_read_us + load_parse_us + load_init_us; }
  // The load completed and was measured (see first_inference_us).
  bool Loaded() const { return first_inference_us >= 0; }
};

// Field-by-field equality (for round-trip and merge checks).
bool operator==(const SessionRecord& a, const SessionRecord& b);
inline bool operator!=(const SessionRecord& a, const SessionRecord& b) { return !(a == b); }

// The canonical order of records: (device_id, session_index, arm). Shard
// merge and aggregation rely on it.
bool CanonicalLess(const SessionRecord& a, const SessionRecord& b);
bool SameKey(const SessionRecord& a, const SessionRecord& b);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_RESULTS_SESSION_RECORD_H_

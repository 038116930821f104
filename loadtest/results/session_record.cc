#include "loadtest/results/session_record.h"

#include <tuple>

namespace edgefleet {
namespace loadtest {

const char* ArmName(Arm arm) { return arm == Arm::kA ? "A" : "B"; }

bool ParseArm(std::string_view name, Arm* arm) {
  if (name == "A") {
    *arm = Arm::kA;
  } else if (name == "B") {
    *arm = Arm::kB;
  } else {
    return false;
  }
  return true;
}

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk:
      return "ok";
    case Outcome::kOomKilled:
      return "oom_killed";
    case Outcome::kStackError:
      return "stack_error";
    case Outcome::kHarnessError:
      return "harness_error";
  }
  return "unknown";
}

bool ParseOutcome(std::string_view name, Outcome* outcome) {
  for (Outcome o :
       {Outcome::kOk, Outcome::kOomKilled, Outcome::kStackError, Outcome::kHarnessError}) {
    if (name == OutcomeName(o)) {
      *outcome = o;
      return true;
    }
  }
  return false;
}

bool operator==(const SessionRecord& a, const SessionRecord& b) {
  return SameKey(a, b) && a.device_class == b.device_class && a.outcome == b.outcome &&
         a.error_cause == b.error_cause && a.retries == b.retries &&
         a.load_read_us == b.load_read_us && a.load_parse_us == b.load_parse_us &&
         a.load_init_us == b.load_init_us && a.first_inference_us == b.first_inference_us &&
         a.latencies_us == b.latencies_us && a.peak_memory_bytes == b.peak_memory_bytes &&
         a.anr_count == b.anr_count && a.slow_frames == b.slow_frames &&
         a.frozen_frames == b.frozen_frames && a.total_frames == b.total_frames &&
         a.device_time_factor == b.device_time_factor && a.pre_period_us == b.pre_period_us;
}

bool CanonicalLess(const SessionRecord& a, const SessionRecord& b) {
  return std::make_tuple(a.device_id, a.session_index, a.arm) <
         std::make_tuple(b.device_id, b.session_index, b.arm);
}

bool SameKey(const SessionRecord& a, const SessionRecord& b) {
  return a.device_id == b.device_id && a.session_index == b.session_index && a.arm == b.arm;
}

}  // namespace loadtest
}  // namespace edgefleet

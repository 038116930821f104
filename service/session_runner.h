// SessionRunner: runs one scripted app session (session.proto) on the
// emulated device and produces its SessionResult.
//
// Timeline on the session's virtual clock (microseconds from app start):
//   load:  read (storage) -> parse -> init, then the memory check;
//   inferences: the i-th starts at load_end + i * inter_arrival (or when the
//          previous one ends, if later, or back to back when 0);
//   main thread: what the integration policy puts there, fed to the
//          ANR/frame model (main_thread_model.h).
// Each interval's device time comes from the calibrated host cost through
// DeviceTimeModel, the thermal state and seeded OS noise (time_model.h),
// rounded to whole microseconds, so the figures depend only on the
// calibration and the spec. In EXECUTION_MODE_REAL the load and every
// inference also run for real in an exclusive compute slot: that is where
// bytes read, memory and outputs come from, and a real failure makes the
// outcome ERROR. Peak memory over the class's app budget kills the session
// (SESSION_OUTCOME_OOM_KILLED) at the point it is reached. EXECUTION_MODE_
// SAMPLED reuses what the arm's first real run measured.
//
// Cancellation: Run() checks its `cancelled` callback (the RPC's deadline,
// client gone, server shutting down) before every inference, while waiting
// for a compute slot and at least every 20 ms of a wall-clock paced wait,
// and stops with SESSION_OUTCOME_CANCELLED, releasing its slot at once. The
// same happens when the session has run for the server's max_session_s
// (wall clock); a paced session that could not finish within it is
// rejected up front.
//
// Thread-safe: sessions may run concurrently.

#ifndef EDGEFLEET_SERVICE_SESSION_RUNNER_H_
#define EDGEFLEET_SERVICE_SESSION_RUNNER_H_

#include <functional>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/mutex.h"
#include "edgefleet/v1/session.pb.h"
#include "service/service_context.h"
#include "service/stack.h"

namespace edgefleet {
namespace service {

// Bounds on a session spec.
inline constexpr uint32_t kMaxInferencesPerSession = 100000;
inline constexpr double kMaxInterArrivalMs = 3600.0 * 1000.0;

class SessionRunner {
 public:
  explicit SessionRunner(const ServiceContext& context);

  // OK, INVALID_ARGUMENT (bad field) or NOT_FOUND (unknown arm or class).
  absl::Status Validate(const v1::SessionSpec& spec) const;

  // Runs `spec`. Errors are for bad specs (as Validate) and for a server
  // that cannot time anything (no calibration reference); a stack failure,
  // an OOM kill or a cancellation is a result with that outcome.
  // `cancelled` may be empty.
  absl::StatusOr<v1::SessionResult> Run(const v1::SessionSpec& spec, uint32_t index = 0,
                                        const std::function<bool()>& cancelled = {});

 private:
  // What a real load and first two inferences of an arm measured (the
  // output checksum is from the inputs of the seed that ran first).
  struct ArmFacts {
    LoadFacts load;
    uint64_t peak_memory_bytes = 0;
    double output_checksum = 0;
  };
  absl::StatusOr<ArmFacts> SampledFacts(const v1::Arm& arm, const v1::SessionSpec& spec,
                                        const std::function<bool()>& stop) EF_EXCLUDES(facts_mu_);

  ServiceContext context_;
  Mutex facts_mu_;
  std::map<std::string, ArmFacts> facts_ EF_GUARDED_BY(facts_mu_);  // by arm name
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_SESSION_RUNNER_H_

// ExperimentRunner: runs an experiment's sessions with bounded parallelism
// and hands each result to a callback as it completes.
//
// A plan expands deterministically (emulator.proto, ExperimentPlan): for
// each device class c and i < sessions_per_class the seed is
// Mix64(base_seed ^ HashName(c)) + i, and every arm runs with that seed
// (paired sessions). Worker threads run sessions; the callback is called on
// the caller's thread only, in completion order, so it may write to a gRPC
// stream. Cancellation (the callback returning false, or `cancelled`
// returning true) stops handing out new sessions and stops the running ones
// (SessionRunner::Run's cancellation) within about 20 ms.
//
// Thread-safe; the SessionRunner must outlive the call.

#ifndef EDGEFLEET_SERVICE_EXPERIMENT_RUNNER_H_
#define EDGEFLEET_SERVICE_EXPERIMENT_RUNNER_H_

#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "edgefleet/v1/emulator.pb.h"
#include "service/session_runner.h"

namespace edgefleet {
namespace service {

inline constexpr size_t kMaxSessionsPerExperiment = 1000000;
inline constexpr size_t kMaxExperimentIdLength = 128;

// The sessions of a request: its explicit list, or its plan expanded one
// session at a time (a plan of a million sessions costs no memory before
// they run). Refers to the request, which must outlive it. Immutable;
// thread-safe.
class ExperimentSessions {
 public:
  size_t size() const { return size_; }
  // REQUIRES: i < size().
  v1::SessionSpec At(size_t i) const;

 private:
  friend absl::StatusOr<ExperimentSessions> ExpandExperiment(
      const v1::RunExperimentRequest& request);
  ExperimentSessions(const v1::RunExperimentRequest* request, size_t size)
      : request_(request), size_(size) {}
  const v1::RunExperimentRequest* request_;
  size_t size_;
};

// The sessions of `request` (explicit list or plan). Errors:
// INVALID_ARGUMENT (both or neither given, too many sessions, empty plan).
absl::StatusOr<ExperimentSessions> ExpandExperiment(const v1::RunExperimentRequest& request);

class ExperimentRunner {
 public:
  explicit ExperimentRunner(SessionRunner* sessions) : sessions_(sessions) {}

  // Validates every spec first (the first bad one is the error), then runs
  // them on `parallelism` threads. `on_result` returns false to stop.
  absl::Status Run(const ExperimentSessions& specs, int parallelism,
                   const std::function<bool(const v1::SessionResult&)>& on_result,
                   const std::function<bool()>& cancelled);

 private:
  SessionRunner* sessions_;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_EXPERIMENT_RUNNER_H_

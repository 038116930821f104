// OperatorProfiles: the per-operator host costs of the arms' programs, for
// the Profile RPC, measured once per (stack, model, kernels) with
// MeasureOperatorProfile (host_profiler.h: our runtime traced by its
// TraceRecorder; the old stack by libtorch's RecordFunction hooks) and kept
// for the server's lifetime, so every later answer is the same.
//
// Thread-safe: one mutex; a measurement runs under it (concurrent first
// requests wait for one measurement instead of running several).

#ifndef EDGEFLEET_SERVICE_OPERATOR_PROFILES_H_
#define EDGEFLEET_SERVICE_OPERATOR_PROFILES_H_

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "absl/status/statusor.h"
#include "common/mutex.h"
#include "edgefleet/v1/arm.pb.h"
#include "service/host_profiler.h"
#include "service/model_repository.h"

namespace edgefleet {
namespace service {

class OperatorProfiles {
 public:
  // `repository` must outlive this.
  explicit OperatorProfiles(const ModelRepository* repository) : repository_(repository) {}

  // The arm's program measured (now, if this is the first request for it),
  // classified against `ridge_flops_per_byte` (the host profile's; <= 0:
  // the program's own). Errors: the repository's (NOT_FOUND) and the
  // profiler's.
  absl::StatusOr<std::shared_ptr<const OperatorProfile>> For(const v1::Arm& arm,
                                                             double ridge_flops_per_byte)
      EF_EXCLUDES(mu_);

 private:
  const ModelRepository* repository_;
  Mutex mu_;
  // (stack, model, kernels) -> measured.
  std::map<std::tuple<int, std::string, int>, std::shared_ptr<const OperatorProfile>> measured_
      EF_GUARDED_BY(mu_);
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_OPERATOR_PROFILES_H_

// Calibrator: measures host costs in exclusive compute slots and fills the
// HostCalibrationStore.
//
// MeasureCost(key) runs `samples` fresh loads of the model (timing the parse
// and init phases and the first inference after each load), then 4 x samples
// steady-state inferences, each while holding a compute slot, and keeps the
// medians. CostFor(key) returns the stored cost or measures it once (other
// callers of the same key wait). Calibrate() measures the reference model
// and every arm's (stack, model, kernels) and computes the class factors.
//
// Thread-safe. The repository, slots and store must outlive the calibrator.

#ifndef EDGEFLEET_SERVICE_CALIBRATOR_H_
#define EDGEFLEET_SERVICE_CALIBRATOR_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/mutex.h"
#include "edgefleet/v1/calibration.pb.h"
#include "service/arm_registry.h"
#include "service/compute_slots.h"
#include "service/device_class_registry.h"
#include "service/host_calibration.h"
#include "service/model_repository.h"

namespace edgefleet {
namespace service {

struct ReferenceWorkload {
  // The repository model measured on the edgefleet stack (default kernels).
  std::string model = "mobilenet_v2_035";
  // MACs of MobileNetV2 1.0 224 (1000 classes) over the model's MACs.
  double mac_ratio = 28.197;
};

class Calibrator {
 public:
  Calibrator(ModelRepository* repository, ComputeSlots* slots, HostCalibrationStore* store,
             ReferenceWorkload reference, int samples);

  absl::StatusOr<v1::HostCost> MeasureCost(const CostKey& key, int samples);

  // The stored cost of `key`, measured first if missing.
  absl::StatusOr<v1::HostCost> CostFor(const CostKey& key) EF_EXCLUDES(measure_mu_);

  // Measures the reference if the store has none.
  absl::Status EnsureReference();

  // Measures the reference and every arm's cost afresh, stores the result
  // (replacing the old) and returns it with the class factors filled in.
  absl::StatusOr<v1::HostCalibration> Calibrate(const ArmRegistry& arms,
                                                const DeviceClassRegistry& classes, int samples)
      EF_EXCLUDES(measure_mu_);

 private:
  ModelRepository* repository_;
  ComputeSlots* slots_;
  HostCalibrationStore* store_;
  const ReferenceWorkload reference_;
  const int samples_;
  Mutex measure_mu_;  // one measurement at a time
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_CALIBRATOR_H_

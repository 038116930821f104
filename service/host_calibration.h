// HostCalibrationStore: the host costs and reference measurement the time
// model runs on (edgefleet.v1.HostCalibration).
//
// Determinism rests here: emulated device times derive from these stored
// per-(stack, model, kernels) host costs, measured once in exclusive compute
// slots (calibrator.h), never from the live host time of the inference being
// emulated. A server started with --calibration=<file> serves figures that
// are a pure function of the file and the request; without a file it
// measures what it needs on first use and keeps it for its lifetime.
//
// Class slowdown = (class's published MobileNetV2 1.0 224 latency / the
// reference MAC ratio) / reference_host_us: the device time of the
// reference model on one fastest core over its host time.
//
// Thread-safe (mutex).

#ifndef EDGEFLEET_SERVICE_HOST_CALIBRATION_H_
#define EDGEFLEET_SERVICE_HOST_CALIBRATION_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/mutex.h"
#include "edgefleet/v1/calibration.pb.h"
#include "edgefleet/v1/device_class.pb.h"

namespace edgefleet {
namespace service {

struct CostKey {
  v1::Stack stack;
  std::string model;
  v1::Kernels kernels;
};

// OK if `calibration` can time sessions (a measured reference, complete
// positive costs, at most one per stack, model and kernels: the store uses
// the first and the fingerprint sorts them by key, so a second would be an
// ambiguity); INVALID_ARGUMENT naming `where` otherwise.
absl::Status CheckCalibration(const v1::HostCalibration& calibration, const std::string& where);

// 16 hex digits identifying what the time model reads from `calibration`
// (the reference and every host cost, in any order): two servers with the
// same fingerprint emulate the same figures for the same spec.
std::string CalibrationFingerprint(const v1::HostCalibration& calibration);

class HostCalibrationStore {
 public:
  explicit HostCalibrationStore(v1::HostCalibration initial = {});

  // Reads and checks a calibration file. Errors: NOT_FOUND, INVALID_ARGUMENT.
  static absl::StatusOr<v1::HostCalibration> ReadFile(const std::string& path);
  // Writes `calibration` (with a header saying what made it).
  static absl::Status WriteFile(const std::string& path, const v1::HostCalibration& calibration);

  std::optional<v1::HostCost> Find(const CostKey& key) const EF_EXCLUDES(mu_);
  void Put(const v1::HostCost& cost) EF_EXCLUDES(mu_);

  bool has_reference() const EF_EXCLUDES(mu_);
  void SetReference(const std::string& model, double mac_ratio, int64_t host_us) EF_EXCLUDES(mu_);

  // Device time / host time on one fastest core for `device_class`.
  // Errors: FAILED_PRECONDITION if the reference is not measured yet.
  absl::StatusOr<double> Slowdown(const v1::DeviceClass& device_class) const EF_EXCLUDES(mu_);

  // Replaces everything (after a full calibration).
  void Replace(const v1::HostCalibration& calibration) EF_EXCLUDES(mu_);
  v1::HostCalibration Snapshot() const EF_EXCLUDES(mu_);

 private:
  mutable Mutex mu_;
  v1::HostCalibration calibration_ EF_GUARDED_BY(mu_);
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_HOST_CALIBRATION_H_

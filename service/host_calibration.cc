#include "service/host_calibration.h"

#include "service/textproto_file.h"

namespace edgefleet {
namespace service {
namespace {

bool SameKey(const v1::HostCost& cost, const CostKey& key) {
  return cost.stack() == key.stack && cost.model() == key.model && cost.kernels() == key.kernels;
}

}  // namespace

HostCalibrationStore::HostCalibrationStore(v1::HostCalibration initial)
    : calibration_(std::move(initial)) {}

absl::StatusOr<v1::HostCalibration> HostCalibrationStore::ReadFile(const std::string& path) {
  v1::HostCalibration calibration;
  if (absl::Status s = ReadTextprotoFile(path, &calibration); !s.ok()) return s;
  if (calibration.reference_host_us() <= 0 || calibration.reference_mac_ratio() <= 0) {
    return absl::InvalidArgumentError(path + ": reference_host_us and reference_mac_ratio "
                                             "must be > 0");
  }
  for (const v1::HostCost& cost : calibration.costs()) {
    if (cost.stack() == v1::STACK_UNSPECIFIED || cost.model().empty() ||
        cost.inference_us() <= 0 || cost.first_inference_us() <= 0 || cost.parse_us() < 0 ||
        cost.init_us() < 0) {
      return absl::InvalidArgumentError(path + ": cost of model '" + cost.model() +
                                        "' is incomplete or not positive");
    }
  }
  return calibration;
}

absl::Status HostCalibrationStore::WriteFile(const std::string& path,
                                             const v1::HostCalibration& calibration) {
  return WriteTextprotoFile(
      path, calibration,
      "# edgefleet.v1.HostCalibration, written by edgefleet-server calibrate (or the\n"
      "# Calibrate RPC). Host costs are medians on one host core in an exclusive\n"
      "# compute slot; class_factors are informational (recomputed from the reference).\n");
}

std::optional<v1::HostCost> HostCalibrationStore::Find(const CostKey& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const v1::HostCost& cost : calibration_.costs()) {
    if (SameKey(cost, key)) return cost;
  }
  return std::nullopt;
}

void HostCalibrationStore::Put(const v1::HostCost& cost) {
  std::lock_guard<std::mutex> lock(mu_);
  const CostKey key{cost.stack(), cost.model(), cost.kernels()};
  for (v1::HostCost& existing : *calibration_.mutable_costs()) {
    if (SameKey(existing, key)) {
      existing = cost;
      return;
    }
  }
  *calibration_.add_costs() = cost;
}

bool HostCalibrationStore::has_reference() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calibration_.reference_host_us() > 0;
}

void HostCalibrationStore::SetReference(const std::string& model, double mac_ratio,
                                        int64_t host_us) {
  std::lock_guard<std::mutex> lock(mu_);
  calibration_.set_reference_model(model);
  calibration_.set_reference_mac_ratio(mac_ratio);
  calibration_.set_reference_host_us(host_us);
}

absl::StatusOr<double> HostCalibrationStore::Slowdown(const v1::DeviceClass& device_class) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (calibration_.reference_host_us() <= 0 || calibration_.reference_mac_ratio() <= 0) {
    return absl::FailedPreconditionError("the host is not calibrated (no reference measurement)");
  }
  const double device_reference_us =
      device_class.reference().mobilenet_v2_latency_ms() * 1000.0 /
      calibration_.reference_mac_ratio();
  return device_reference_us / static_cast<double>(calibration_.reference_host_us());
}

void HostCalibrationStore::Replace(const v1::HostCalibration& calibration) {
  std::lock_guard<std::mutex> lock(mu_);
  calibration_ = calibration;
}

v1::HostCalibration HostCalibrationStore::Snapshot() const {
  std::lock_guard<std::mutex> lock(mu_);
  return calibration_;
}

}  // namespace service
}  // namespace edgefleet

#include "service/host_calibration.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <tuple>
#include <vector>

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

absl::Status CheckCalibration(const v1::HostCalibration& calibration, const std::string& where) {
  // Host times above an hour, or a MAC ratio above a million, are not
  // measurements (and would overflow the emulated microseconds).
  constexpr int64_t kMaxUs = 3600LL * 1000 * 1000;
  if (calibration.reference_host_us() <= 0 || calibration.reference_host_us() > kMaxUs ||
      !(calibration.reference_mac_ratio() > 0 && calibration.reference_mac_ratio() <= 1e6)) {
    return absl::InvalidArgumentError(where +
                                      ": reference_host_us must be in (0, 1 h] and "
                                      "reference_mac_ratio in (0, 1e6]");
  }
  std::set<std::tuple<int, std::string, int>> keys;
  for (const v1::HostCost& cost : calibration.costs()) {
    if (!keys.insert({cost.stack(), cost.model(), cost.kernels()}).second) {
      return absl::InvalidArgumentError(where + ": model '" + cost.model().substr(0, 64) +
                                        "' has two costs for one stack and kernels");
    }
    if (cost.stack() == v1::STACK_UNSPECIFIED || cost.model().empty() || cost.inference_us() <= 0 ||
        cost.first_inference_us() <= 0 || cost.parse_us() < 0 || cost.init_us() < 0 ||
        cost.inference_us() > kMaxUs || cost.first_inference_us() > kMaxUs ||
        cost.parse_us() > kMaxUs || cost.init_us() > kMaxUs) {
      return absl::InvalidArgumentError(where + ": cost of model '" + cost.model().substr(0, 64) +
                                        "' is incomplete, not positive or over 1 h");
    }
  }
  return absl::OkStatus();
}

std::string CalibrationFingerprint(const v1::HostCalibration& calibration) {
  // What the time model reads, in a canonical order: the reference and the
  // costs sorted by key (class_factors and host names are derived or
  // informational).
  std::vector<const v1::HostCost*> costs;
  for (const v1::HostCost& cost : calibration.costs()) costs.push_back(&cost);
  std::sort(costs.begin(), costs.end(), [](const v1::HostCost* a, const v1::HostCost* b) {
    return std::make_tuple(a->stack(), a->model(), a->kernels()) <
           std::make_tuple(b->stack(), b->model(), b->kernels());
  });
  std::string text = calibration.reference_model() + "|" +
                     std::to_string(calibration.reference_mac_ratio()) + "|" +
                     std::to_string(calibration.reference_host_us());
  for (const v1::HostCost* c : costs) {
    text += "|" + std::to_string(c->stack()) + "," + c->model() + "," +
            std::to_string(c->kernels()) + "," + std::to_string(c->parse_us()) + "," +
            std::to_string(c->init_us()) + "," + std::to_string(c->first_inference_us()) + "," +
            std::to_string(c->inference_us());
  }
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a 64
  for (unsigned char ch : text) {
    hash ^= ch;
    hash *= 0x100000001b3ULL;
  }
  char hex[17];
  snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

absl::StatusOr<v1::HostCalibration> HostCalibrationStore::ReadFile(const std::string& path) {
  v1::HostCalibration calibration;
  if (absl::Status s = ReadTextprotoFile(path, &calibration); !s.ok()) return s;
  if (absl::Status s = CheckCalibration(calibration, path); !s.ok()) return s;
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
  MutexLock lock(&mu_);
  for (const v1::HostCost& cost : calibration_.costs()) {
    if (SameKey(cost, key)) return cost;
  }
  return std::nullopt;
}

void HostCalibrationStore::Put(const v1::HostCost& cost) {
  MutexLock lock(&mu_);
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
  MutexLock lock(&mu_);
  return calibration_.reference_host_us() > 0;
}

void HostCalibrationStore::SetReference(const std::string& model, double mac_ratio,
                                        int64_t host_us) {
  MutexLock lock(&mu_);
  calibration_.set_reference_model(model);
  calibration_.set_reference_mac_ratio(mac_ratio);
  calibration_.set_reference_host_us(host_us);
}

absl::StatusOr<double> HostCalibrationStore::Slowdown(const v1::DeviceClass& device_class) const {
  MutexLock lock(&mu_);
  if (calibration_.reference_host_us() <= 0 || calibration_.reference_mac_ratio() <= 0) {
    return absl::FailedPreconditionError("the host is not calibrated (no reference measurement)");
  }
  const double device_reference_us = device_class.reference().mobilenet_v2_latency_ms() * 1000.0 /
                                     calibration_.reference_mac_ratio();
  return device_reference_us / static_cast<double>(calibration_.reference_host_us());
}

void HostCalibrationStore::Replace(const v1::HostCalibration& calibration) {
  MutexLock lock(&mu_);
  calibration_ = calibration;
}

v1::HostCalibration HostCalibrationStore::Snapshot() const {
  MutexLock lock(&mu_);
  return calibration_;
}

}  // namespace service
}  // namespace edgefleet

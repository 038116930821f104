#include "service/device_class_registry.h"

#include <algorithm>
#include <cmath>

#include "service/textproto_file.h"

namespace edgefleet {
namespace service {
namespace {

absl::Status Bad(const std::string& field, const std::string& rule) {
  return absl::InvalidArgumentError(field + " " + rule);
}

bool Finite(double x) { return std::isfinite(x); }

}  // namespace

bool IsValidClassName(const std::string& name) {
  if (name.empty() || name.size() > 32) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

absl::Status ValidateDeviceClass(const v1::DeviceClass& c) {
  if (!IsValidClassName(c.name())) return Bad("name", "must match [a-z0-9_]{1,32}");
  // proto3 enums are open: a textproto may carry any number ("platform: 7").
  if (c.platform() == v1::PLATFORM_UNSPECIFIED || !v1::Platform_IsValid(c.platform())) {
    return Bad("platform", "must be set to a Platform value");
  }
  if (c.cpu().clusters().empty()) return Bad("cpu.clusters", "must list at least one cluster");
  for (int i = 0; i < c.cpu().clusters_size(); ++i) {
    const auto& cluster = c.cpu().clusters(i);
    const std::string field = "cpu.clusters[" + std::to_string(i) + "]";
    if (cluster.cores() < 1) return Bad(field + ".cores", "must be >= 1");
    if (!(cluster.relative_speed() > 0 && cluster.relative_speed() <= 1)) {
      return Bad(field + ".relative_speed", "must be in (0, 1]");
    }
  }
  if (!(c.cpu().parallel_fraction() >= 0 && c.cpu().parallel_fraction() < 1)) {
    return Bad("cpu.parallel_fraction", "must be in [0, 1)");
  }
  if (!(c.reference().mobilenet_v2_latency_ms() > 0 &&
        Finite(c.reference().mobilenet_v2_latency_ms()))) {
    return Bad("reference.mobilenet_v2_latency_ms", "must be > 0");
  }
  if (c.reference().source().empty()) return Bad("reference.source", "must name a source");
  for (int i = 0; i < c.calibration_points_size(); ++i) {
    const v1::CalibrationPoint& point = c.calibration_points(i);
    const std::string field = "calibration_points[" + std::to_string(i) + "]";
    if (point.model().empty() || point.model().size() > 64 ||
        point.model().find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                        "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
            std::string::npos ||
        point.model()[0] == '.') {
      return Bad(field + ".model", "must be a model name");
    }
    if (point.threads() < 1 || point.threads() > 1024) {
      return Bad(field + ".threads", "must be in [1, 1024]");
    }
    if (!(point.latency_ms() > 0 && Finite(point.latency_ms()))) {
      return Bad(field + ".latency_ms", "must be > 0");
    }
    if (point.source().empty()) return Bad(field + ".source", "must name a source");
  }
  if (c.memory().ram_bytes() == 0) return Bad("memory.ram_bytes", "must be > 0");
  if (c.memory().app_budget_bytes() == 0 ||
      c.memory().app_budget_bytes() > c.memory().ram_bytes()) {
    return Bad("memory.app_budget_bytes", "must be in (0, ram_bytes]");
  }
  if (c.storage().read_bandwidth_bytes_per_second() == 0) {
    return Bad("storage.read_bandwidth_bytes_per_second", "must be > 0");
  }
  const auto& t = c.thermal();
  if (!(t.sustained_fraction() > 0 && t.sustained_fraction() <= 1)) {
    return Bad("thermal.sustained_fraction", "must be in (0, 1]");
  }
  if (!(t.heat_time_constant_s() > 0 && Finite(t.heat_time_constant_s()))) {
    return Bad("thermal.heat_time_constant_s", "must be > 0");
  }
  if (!(t.cool_time_constant_s() > 0 && Finite(t.cool_time_constant_s()))) {
    return Bad("thermal.cool_time_constant_s", "must be > 0");
  }
  const auto& n = c.os_noise();
  if (!(n.preemptions_per_second() >= 0 && Finite(n.preemptions_per_second()))) {
    return Bad("os_noise.preemptions_per_second", "must be >= 0");
  }
  // Unused when there are no preemptions, but never NaN or infinite.
  if (!Finite(n.preemption_min_us()) || !Finite(n.preemption_pareto_alpha()) ||
      !Finite(n.preemption_max_us())) {
    return Bad("os_noise.preemption_*", "must be finite");
  }
  if (n.preemptions_per_second() > 0) {
    if (!(n.preemption_min_us() > 0)) return Bad("os_noise.preemption_min_us", "must be > 0");
    if (!(n.preemption_pareto_alpha() > 1)) {
      return Bad("os_noise.preemption_pareto_alpha", "must be > 1");
    }
    if (!(n.preemption_max_us() >= n.preemption_min_us())) {
      return Bad("os_noise.preemption_max_us", "must be >= preemption_min_us");
    }
  }
  if (!(n.jitter_sigma() >= 0 && n.jitter_sigma() < 1)) {
    return Bad("os_noise.jitter_sigma", "must be in [0, 1)");
  }
  if (!(c.device_variation().speed_sigma() >= 0 && c.device_variation().speed_sigma() <= 1)) {
    return Bad("device_variation.speed_sigma", "must be in [0, 1]");
  }
  if (!(c.display().refresh_hz() > 0 && c.display().refresh_hz() <= 1000)) {
    return Bad("display.refresh_hz", "must be in (0, 1000]");
  }
  const auto& r = c.responsiveness();
  if (r.anr_timeout_ms() == 0) return Bad("responsiveness.anr_timeout_ms", "must be > 0");
  if (r.input_event_interval_ms() == 0) {
    return Bad("responsiveness.input_event_interval_ms", "must be > 0");
  }
  if (!(r.frame_work_ms() >= 0 && Finite(r.frame_work_ms()))) {
    return Bad("responsiveness.frame_work_ms", "must be >= 0");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<DeviceClassRegistry>> DeviceClassRegistry::Create(
    const std::string& dirs) {
  std::vector<std::string> paths;
  size_t begin = 0;
  while (begin <= dirs.size()) {
    size_t end = dirs.find(',', begin);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(begin, end - begin);
    std::vector<std::string> found;
    if (absl::Status s = ListFiles(dir, ".textproto", &found); !s.ok()) return s;
    if (found.empty()) {
      return absl::InvalidArgumentError("no *.textproto device classes in '" + dir + "'");
    }
    paths.insert(paths.end(), found.begin(), found.end());
    begin = end + 1;
  }
  std::vector<v1::DeviceClass> classes;
  for (const std::string& path : paths) {
    v1::DeviceClass device_class;
    if (absl::Status s = ReadTextprotoFile(path, &device_class); !s.ok()) return s;
    if (absl::Status s = ValidateDeviceClass(device_class); !s.ok()) {
      return absl::InvalidArgumentError(path + ": " + std::string(s.message()));
    }
    classes.push_back(std::move(device_class));
  }
  return FromClasses(std::move(classes));
}

absl::StatusOr<std::unique_ptr<DeviceClassRegistry>> DeviceClassRegistry::FromClasses(
    std::vector<v1::DeviceClass> classes) {
  std::sort(classes.begin(), classes.end(),
            [](const auto& a, const auto& b) { return a.name() < b.name(); });
  for (size_t i = 0; i < classes.size(); ++i) {
    if (absl::Status s = ValidateDeviceClass(classes[i]); !s.ok()) {
      return absl::InvalidArgumentError("device class '" + classes[i].name() +
                                        "': " + std::string(s.message()));
    }
    if (i > 0 && classes[i].name() == classes[i - 1].name()) {
      return absl::InvalidArgumentError("device class '" + classes[i].name() +
                                        "' is defined twice");
    }
  }
  return std::unique_ptr<DeviceClassRegistry>(new DeviceClassRegistry(std::move(classes)));
}

DeviceClassRegistry::DeviceClassRegistry(std::vector<v1::DeviceClass> classes)
    : classes_(std::move(classes)) {
  for (size_t i = 0; i < classes_.size(); ++i) index_[classes_[i].name()] = i;
}

const v1::DeviceClass* DeviceClassRegistry::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &classes_[it->second];
}

}  // namespace service
}  // namespace edgefleet

// DeviceClassRegistry: the device classes the server emulates, read from a
// folder (or several) of textproto files (one edgefleet.v1.DeviceClass per
// *.textproto)
// and validated: every figure present, finite and in range, enums declared
// values, names unique and label-safe. A malformed file fails the whole load with a message naming
// the file and field, so a server never starts with a half-read fleet.
//
// Immutable after Create(); thread-safe.

#ifndef EDGEFLEET_SERVICE_DEVICE_CLASS_REGISTRY_H_
#define EDGEFLEET_SERVICE_DEVICE_CLASS_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "edgefleet/v1/device_class.pb.h"

namespace edgefleet {
namespace service {

// OK, or INVALID_ARGUMENT naming the first bad field ("cpu.clusters[0].cores
// must be >= 1").
absl::Status ValidateDeviceClass(const v1::DeviceClass& device_class);

// True for [a-z0-9_]{1,32}: safe as a metric label value and a file name.
bool IsValidClassName(const std::string& name);

class DeviceClassRegistry {
 public:
  // `dirs`: one folder, or several separated by commas. Errors: NOT_FOUND
  // (no folder), INVALID_ARGUMENT (a folder without classes, a parse or
  // validation error, a duplicate name).
  static absl::StatusOr<std::unique_ptr<DeviceClassRegistry>> Create(const std::string& dirs);
  // For tests: classes given directly (validated the same way).
  static absl::StatusOr<std::unique_ptr<DeviceClassRegistry>> FromClasses(
      std::vector<v1::DeviceClass> classes);

  // The class named `name`, or nullptr.
  const v1::DeviceClass* Find(const std::string& name) const;
  // All classes, sorted by name.
  const std::vector<v1::DeviceClass>& classes() const { return classes_; }

 private:
  explicit DeviceClassRegistry(std::vector<v1::DeviceClass> classes);

  std::vector<v1::DeviceClass> classes_;
  std::map<std::string, size_t> index_;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_DEVICE_CLASS_REGISTRY_H_

// ArmRegistry: the arms the server runs, from an edgefleet.v1.ArmSet
// textproto, or (without one) two default arms per repository model:
// "<model>.edgefleet" and, if the model has a .ptl, "<model>.pytorch-mobile",
// both on one thread with the BACKGROUND integration policy.
//
// Validation: names unique and label-safe, stack set, every enum a declared
// value, the model in the repository with a file for the arm's stack,
// threads <= 64. Whether the
// pytorch-mobile stack is built is not checked here: such an arm fails at
// run time with a clear error.
//
// Immutable after Create(); thread-safe.

#ifndef EDGEFLEET_SERVICE_ARM_REGISTRY_H_
#define EDGEFLEET_SERVICE_ARM_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "edgefleet/v1/arm.pb.h"
#include "service/model_repository.h"

namespace edgefleet {
namespace service {

// Stable lowercase names: "edgefleet", "pytorch-mobile".
const char* StackName(v1::Stack stack);
const char* IntegrationPolicyName(v1::IntegrationPolicy policy);

// The arm's injected effect (Arm.time_scale) on sessions of `device_class`:
// its time_scale where it applies, else 1.
double TimeScaleOn(const v1::Arm& arm, const std::string& device_class);

class ArmRegistry {
 public:
  // `arms_file` may be empty (default arms). Errors: NOT_FOUND (unreadable
  // file), INVALID_ARGUMENT (parse or validation error, naming the arm).
  static absl::StatusOr<std::unique_ptr<ArmRegistry>> Create(const std::string& arms_file,
                                                             const ModelRepository& repository);
  static absl::StatusOr<std::unique_ptr<ArmRegistry>> FromArmSet(const v1::ArmSet& arms,
                                                                 const ModelRepository& repository);

  // The arm named `name`, or nullptr.
  const v1::Arm* Find(const std::string& name) const;
  const std::vector<v1::Arm>& arms() const { return arms_; }

 private:
  explicit ArmRegistry(std::vector<v1::Arm> arms);

  std::vector<v1::Arm> arms_;
  std::map<std::string, size_t> index_;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_ARM_REGISTRY_H_

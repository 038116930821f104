#include "service/arm_registry.h"

#include <algorithm>

#include "service/textproto_file.h"

namespace edgefleet {
namespace service {
namespace {

bool IsValidArmName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

absl::Status ValidateArm(const v1::Arm& arm, const ModelRepository& repository) {
  const std::string prefix = "arm '" + arm.name() + "': ";
  if (!IsValidArmName(arm.name())) {
    return absl::InvalidArgumentError(prefix + "name must match [A-Za-z0-9_.-]{1,64}");
  }
  // proto3 enums are open: a textproto may carry any number ("stack: 7").
  if (arm.stack() == v1::STACK_UNSPECIFIED || !v1::Stack_IsValid(arm.stack())) {
    return absl::InvalidArgumentError(prefix +
                                      "stack must be STACK_EDGEFLEET or "
                                      "STACK_PYTORCH_MOBILE");
  }
  if (!v1::Kernels_IsValid(arm.kernels())) {
    return absl::InvalidArgumentError(prefix + "kernels " + std::to_string(arm.kernels()) +
                                      " is not a Kernels value");
  }
  if (!v1::IntegrationPolicy_IsValid(arm.integration_policy())) {
    return absl::InvalidArgumentError(prefix + "integration_policy " +
                                      std::to_string(arm.integration_policy()) +
                                      " is not an IntegrationPolicy value");
  }
  if (arm.threads() > 64) return absl::InvalidArgumentError(prefix + "threads must be <= 64");
  if (arm.time_scale() != 0 && !(arm.time_scale() >= 0.01 && arm.time_scale() <= 100)) {
    return absl::InvalidArgumentError(prefix + "time_scale must be 0 (means 1) or in [0.01, 100]");
  }
  if (arm.stack() == v1::STACK_PYTORCH_MOBILE && arm.kernels() != v1::KERNELS_DEFAULT) {
    return absl::InvalidArgumentError(prefix + "the pytorch-mobile stack has one kernel choice");
  }
  absl::StatusOr<ModelFile> file = repository.OpenModel(arm.model(), arm.stack(), arm.kernels());
  if (!file.ok()) {
    return absl::InvalidArgumentError(prefix + std::string(file.status().message()));
  }
  return absl::OkStatus();
}

}  // namespace

double TimeScaleOn(const v1::Arm& arm, const std::string& device_class) {
  return arm.time_scale() > 0 && (arm.time_scale_device_class().empty() ||
                                  arm.time_scale_device_class() == device_class)
             ? arm.time_scale()
             : 1.0;
}

const char* StackName(v1::Stack stack) {
  switch (stack) {
    case v1::STACK_EDGEFLEET:
      return "edgefleet";
    case v1::STACK_PYTORCH_MOBILE:
      return "pytorch-mobile";
    default:
      return "unspecified";
  }
}

const char* IntegrationPolicyName(v1::IntegrationPolicy policy) {
  switch (policy) {
    case v1::INTEGRATION_POLICY_BACKGROUND:
      return "background";
    case v1::INTEGRATION_POLICY_MAIN_THREAD_LOAD:
      return "main-thread-load";
    case v1::INTEGRATION_POLICY_MAIN_THREAD_ALL:
      return "main-thread-all";
    default:
      return "unspecified";
  }
}

absl::StatusOr<std::unique_ptr<ArmRegistry>> ArmRegistry::Create(
    const std::string& arms_file, const ModelRepository& repository) {
  v1::ArmSet set;
  if (!arms_file.empty()) {
    if (absl::Status s = ReadTextprotoFile(arms_file, &set); !s.ok()) return s;
  } else {
    for (const std::string& model : repository.ListModels()) {
      v1::Arm* arm = set.add_arms();
      arm->set_name(model + ".edgefleet");
      arm->set_stack(v1::STACK_EDGEFLEET);
      arm->set_model(model);
      if (repository.OpenModel(model, v1::STACK_EDGEFLEET, v1::KERNELS_XNNPACK).ok()) {
        v1::Arm* lowered = set.add_arms();
        lowered->set_name(model + ".edgefleet-xnnpack");
        lowered->set_stack(v1::STACK_EDGEFLEET);
        lowered->set_model(model);
        lowered->set_kernels(v1::KERNELS_XNNPACK);
      }
      if (repository.OpenModel(model, v1::STACK_PYTORCH_MOBILE).ok()) {
        v1::Arm* old_arm = set.add_arms();
        old_arm->set_name(model + ".pytorch-mobile");
        old_arm->set_stack(v1::STACK_PYTORCH_MOBILE);
        old_arm->set_model(model);
      }
    }
  }
  return FromArmSet(set, repository);
}

absl::StatusOr<std::unique_ptr<ArmRegistry>> ArmRegistry::FromArmSet(
    const v1::ArmSet& set, const ModelRepository& repository) {
  std::vector<v1::Arm> arms(set.arms().begin(), set.arms().end());
  std::map<std::string, int> seen;
  for (v1::Arm& arm : arms) {
    if (absl::Status s = ValidateArm(arm, repository); !s.ok()) return s;
    if (seen[arm.name()]++ > 0) {
      return absl::InvalidArgumentError("arm '" + arm.name() + "' is defined twice");
    }
    if (arm.threads() == 0) arm.set_threads(1);
    if (arm.integration_policy() == v1::INTEGRATION_POLICY_UNSPECIFIED) {
      arm.set_integration_policy(v1::INTEGRATION_POLICY_BACKGROUND);
    }
  }
  return std::unique_ptr<ArmRegistry>(new ArmRegistry(std::move(arms)));
}

ArmRegistry::ArmRegistry(std::vector<v1::Arm> arms) : arms_(std::move(arms)) {
  for (size_t i = 0; i < arms_.size(); ++i) index_[arms_[i].name()] = i;
}

const v1::Arm* ArmRegistry::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &arms_[it->second];
}

}  // namespace service
}  // namespace edgefleet

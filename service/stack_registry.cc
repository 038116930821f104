// GetStack and ArmRunsOn (stack.h): the process-wide stack instances.

#include "service/edgefleet_stack.h"
#include "service/pytorch_mobile_stack.h"
#include "service/stack.h"

namespace edgefleet {
namespace service {

Stack* GetStack(v1::Stack id) {
  // Both are made on the first call, before any model loads: the old stack
  // installs XNNPACK's process-wide allocator, which the first
  // xnn_initialize fixes (torch_memory_tally.h; the XNNPACK delegate installs none).
  static EdgefleetStack* edgefleet = new EdgefleetStack();
  static PytorchMobileStack* pytorch_mobile = new PytorchMobileStack();
  switch (id) {
    case v1::STACK_EDGEFLEET:
      return edgefleet;
    case v1::STACK_PYTORCH_MOBILE:
      return pytorch_mobile;
    default:
      return nullptr;
  }
}

absl::Status ArmRunsOn(const v1::Arm& arm, const v1::DeviceClass& device) {
  const Stack* stack = GetStack(arm.stack());
  absl::Status why =
      stack == nullptr ? absl::FailedPreconditionError("it names no stack") : stack->Available();
  if (why.ok()) why = stack->RunsOn(device.platform());
  if (why.ok()) return why;
  return absl::FailedPreconditionError("arm '" + arm.name() + "' cannot run on device class '" +
                                       device.name() + "': " + std::string(why.message()));
}

}  // namespace service
}  // namespace edgefleet

// PytorchMobileStack and its profiler in builds without libtorch: every use
// fails clearly.

#include "service/pytorch_mobile_profiler.h"
#include "service/pytorch_mobile_stack.h"

namespace edgefleet {
namespace service {
namespace {

absl::Status NotBuilt() {
  return absl::FailedPreconditionError(
      "the pytorch-mobile stack is not built in this server: libtorch with the lite "
      "interpreter (torch/csrc/jit/mobile/import.h) was not found at configure time; "
      "run deploy/install-deps.sh (libtorch-dev) and reconfigure");
}

}  // namespace

PytorchMobileStack::PytorchMobileStack() = default;

absl::Status PytorchMobileStack::Available() const { return NotBuilt(); }

absl::StatusOr<std::unique_ptr<LoadedModel>> PytorchMobileStack::Load(const std::string&,
                                                                      const StackOptions&) {
  return NotBuilt();
}

absl::StatusOr<OperatorProfile> MeasurePytorchMobileOperators(const std::string&,
                                                              const std::string&,
                                                              const ProfileOptions&) {
  return NotBuilt();
}

}  // namespace service
}  // namespace edgefleet

// PytorchMobileStack: the old stack, PyTorch Mobile's lite interpreter
// (libtorch's torch::jit::_load_for_mobile), loading .ptl files.
//
// Built when libtorch with the lite interpreter headers is found
// (EF_HAVE_LIBTORCH); otherwise Available() is FAILED_PRECONDITION and
// every load fails with that message, so pytorch-mobile arms fail at run
// time with a clear error (pytorch_mobile_unavailable.cc).
//
// Load = _load_for_mobile through a counting read adapter (bytes read are
// what the interpreter read from the archive); the lite interpreter has no
// separate init phase, so its whole load is the parse phase. That includes
// XNNPACK prepacking: a .ptl written by optimize_for_mobile holds
// prepacked::*_prepack contexts whose deserialisation packs the weights.
// Memory is what libtorch's allocator and XNNPACK's allocator hold for the
// model (torch_memory_tally.h); Available() fails if XNNPACK's could not be
// tallied.
// libtorch runs with one intra-op and one inter-op thread (one host core
// per compute slot) and, where it has QNNPACK, quantized operators on
// QNNPACK (PyTorch Mobile's engine; Debian's libtorch defaults to oneDNN). Thread-safe; see
// stack.h.

#ifndef EDGEFLEET_SERVICE_PYTORCH_MOBILE_STACK_H_
#define EDGEFLEET_SERVICE_PYTORCH_MOBILE_STACK_H_

#include "service/stack.h"

namespace edgefleet {
namespace service {

class PytorchMobileStack final : public Stack {
 public:
  PytorchMobileStack();
  v1::Stack id() const override { return v1::STACK_PYTORCH_MOBILE; }
  absl::Status Available() const override;
  // Not on bare metal: libtorch needs an OS (files, threads, a heap).
  absl::Status RunsOn(v1::Platform platform) const override {
    if (platform != v1::PLATFORM_BARE_METAL) return absl::OkStatus();
    return absl::FailedPreconditionError(
        "the pytorch-mobile stack needs an OS (libtorch), and the class is bare metal");
  }
  absl::StatusOr<std::unique_ptr<LoadedModel>> Load(const std::string& path,
                                                    const StackOptions& options) override;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_PYTORCH_MOBILE_STACK_H_

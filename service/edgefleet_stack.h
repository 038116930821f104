// EdgefleetStack: our runtime (runtime/module) as an emulator stack.
//
// Load = Module::Load with the mmap loader (parse phase) + LoadMethod
// ("forward", init phase). Bytes read are the loader's count of mapped
// pages. Memory is what the runtime allocated on the heap for the method:
// planned arenas, the method allocator's use and the kernel scratch peak;
// mapped file pages (constants) are not counted, as on a device they are
// clean, file-backed and reclaimable. Thread-safe; see stack.h.

#ifndef EDGEFLEET_SERVICE_EDGEFLEET_STACK_H_
#define EDGEFLEET_SERVICE_EDGEFLEET_STACK_H_

#include "service/stack.h"

namespace edgefleet {
namespace service {

class EdgefleetStack final : public Stack {
 public:
  EdgefleetStack();
  v1::Stack id() const override { return v1::STACK_EDGEFLEET; }
  absl::Status Available() const override;
  // Every platform: the runtime needs no OS (bare metal included).
  absl::Status RunsOn(v1::Platform) const override { return absl::OkStatus(); }
  absl::StatusOr<std::unique_ptr<LoadedModel>> Load(const std::string& path,
                                                    const StackOptions& options) override;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_EDGEFLEET_STACK_H_

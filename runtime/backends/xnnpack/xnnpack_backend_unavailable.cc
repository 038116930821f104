// RegisterXnnpackBackend() for builds without the system XNNPACK: the backend
// is known but unavailable, so lowered programs fail with a clear message.

#include "runtime/backends/backend_registry.h"
#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace {

class UnavailableXnnpackBackend final : public BackendInterface {
 public:
  bool IsAvailable() const override { return false; }
  Result<DelegateHandle*> Init(const BackendInitContext&, FreeableBuffer*,
                               Span<const CompileSpec>) const override {
    EF_FAIL(Error::kNotSupported, "backend XnnpackBackend is not available in this build");
  }
  Error Execute(const BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override {
    EF_FAIL(Error::kNotSupported, "backend XnnpackBackend is not available in this build");
  }
  void Destroy(DelegateHandle*) const override {}
};

}  // namespace

Error RegisterXnnpackBackend() {
  static const UnavailableXnnpackBackend backend;
  if (FindBackend(kXnnpackBackendId) == &backend) return Error::kOk;
  return RegisterBackend(kXnnpackBackendId, &backend);
}

Error PrepareXnnpackBackend(int) { return Error::kOk; }

}  // namespace edgefleet

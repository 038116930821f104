#include "runtime/backends/xnnpack/xnn_memory.h"

#include <xnnpack.h>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace xnnpack {
namespace {

std::mutex g_compile_mutex;

}  // namespace

XnnpackMemoryScope::XnnpackMemoryScope() : lock_(g_compile_mutex), status_(Error::kOk) {
  // Keeps the allocator of the process's first initialization (ours is
  // XNNPACK's default when nothing else initialized it).
  if (xnn_initialize(nullptr) != xnn_status_success) {
    SetErrorDetail("xnnpack: XNNPACK does not initialize on this CPU");
    status_ = Error::kNotSupported;
  }
}

XnnpackMemoryScope::~XnnpackMemoryScope() = default;

}  // namespace xnnpack
}  // namespace edgefleet

#include "runtime/backends/xnnpack/xnn_memory.h"

#include <malloc.h>
#include <xnnpack.h>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace xnnpack {
namespace {

std::mutex g_compile_mutex;

size_t HeapBytes() {
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

}  // namespace

XnnpackMemoryScope::XnnpackMemoryScope()
    : lock_(g_compile_mutex), status_(Error::kOk), start_(HeapBytes()) {
  // Keeps the allocator of the process's first initialization (ours is
  // XNNPACK's default when nothing else initialized it).
  if (xnn_initialize(nullptr) != xnn_status_success) {
    SetErrorDetail("xnnpack: XNNPACK does not initialize on this CPU");
    status_ = Error::kNotSupported;
  }
}

XnnpackMemoryScope::~XnnpackMemoryScope() = default;

size_t XnnpackMemoryScope::bytes() const {
  const size_t now = HeapBytes();
  return now > start_ ? now - start_ : 0;
}

}  // namespace xnnpack
}  // namespace edgefleet

#include "runtime/backends/xnnpack/xnn_memory.h"

#include <malloc.h>
#include <xnnpack.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace xnnpack {
namespace {

std::atomic<long long> g_live_bytes{0};
std::mutex g_compile_mutex;

void Track(void* p, long long sign) {
  if (p != nullptr) g_live_bytes += sign * static_cast<long long>(malloc_usable_size(p));
}

void* Allocate(void*, size_t size) {
  void* p = std::malloc(size);
  Track(p, 1);
  return p;
}

void* Reallocate(void*, void* pointer, size_t size) {
  Track(pointer, -1);
  void* p = std::realloc(pointer, size);
  Track(p != nullptr ? p : pointer, 1);
  return p;
}

void Deallocate(void*, void* pointer) {
  Track(pointer, -1);
  std::free(pointer);
}

void* AlignedAllocate(void*, size_t alignment, size_t size) {
  void* p = nullptr;
  if (posix_memalign(&p, alignment < sizeof(void*) ? sizeof(void*) : alignment, size) != 0) {
    return nullptr;
  }
  Track(p, 1);
  return p;
}

void AlignedDeallocate(void*, void* pointer) {
  Track(pointer, -1);
  std::free(pointer);
}

const xnn_allocator kCountingAllocator = {nullptr, Allocate, Reallocate, Deallocate,
                                          AlignedAllocate, AlignedDeallocate};

}  // namespace

XnnpackMemoryScope::XnnpackMemoryScope()
    : lock_(g_compile_mutex), status_(Error::kOk), start_(g_live_bytes.load()) {
  // Re-installed each time: another library may have initialized XNNPACK
  // with its own allocator since our last compile.
  if (xnn_initialize(&kCountingAllocator) != xnn_status_success) {
    SetErrorDetail("xnnpack: XNNPACK does not initialize on this CPU");
    status_ = Error::kNotSupported;
  }
}

XnnpackMemoryScope::~XnnpackMemoryScope() = default;

size_t XnnpackMemoryScope::bytes() const {
  const long long grown = g_live_bytes.load() - start_;
  return grown > 0 ? static_cast<size_t>(grown) : 0;
}

}  // namespace xnnpack
}  // namespace edgefleet

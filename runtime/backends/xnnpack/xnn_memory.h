// Counts the bytes the system XNNPACK allocates (packed weights, workspaces,
// operator state), so the delegate's memory shows in edgefleet-run and the
// emulator's figures.
//
// XNNPACK takes one process-wide allocator (xnn_initialize). Ours allocates
// with malloc / posix_memalign and frees with free, exactly as XNNPACK's
// default allocator does, so blocks may cross between the two when another
// library in the process (libtorch links the same libXNNPACK) re-initializes
// XNNPACK with its own allocator. The live count is an atomic; callers take
// per-delegate figures as deltas inside XnnpackMemoryScope.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_MEMORY_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_MEMORY_H_

#include <cstddef>
#include <mutex>

#include "runtime/core/error.h"

namespace edgefleet {
namespace xnnpack {

// Serializes XNNPACK compilation and measures what it allocates: while a
// scope lives, no other scope runs, and bytes() is the growth of XNNPACK's
// live heap since the scope began.
class XnnpackMemoryScope {
 public:
  XnnpackMemoryScope();
  ~XnnpackMemoryScope();
  XnnpackMemoryScope(const XnnpackMemoryScope&) = delete;
  XnnpackMemoryScope& operator=(const XnnpackMemoryScope&) = delete;

  // kOk, or kNotSupported when XNNPACK does not initialize on this CPU.
  Error status() const { return status_; }
  // Bytes allocated and not freed since construction (0 if negative).
  size_t bytes() const;

 private:
  std::unique_lock<std::mutex> lock_;
  Error status_;
  long long start_;
};

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_MEMORY_H_

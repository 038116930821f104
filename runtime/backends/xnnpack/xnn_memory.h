// XnnpackMemoryScope: initializes the system XNNPACK and serializes the
// delegate's compilation.
//
// XNNPACK takes one process-wide allocator, fixed by the first
// xnn_initialize call in the process; later calls keep it. In the emulator
// the old stack installs its own tallying allocator first (libtorch links the
// same libXNNPACK; service/torch_memory_tally.h), so the delegate installs
// none: it initializes XNNPACK with whatever allocator is in place. (A heap
// measurement around compilation was tried and dropped: it varied from run to
// run with other threads' allocations; the delegate counts its memory from
// its graph instead, delegate.h.)

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_MEMORY_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_MEMORY_H_

#include <mutex>

#include "runtime/core/error.h"

namespace edgefleet {
namespace xnnpack {

// While a scope lives, no other scope runs.
class XnnpackMemoryScope {
 public:
  XnnpackMemoryScope();
  ~XnnpackMemoryScope();
  XnnpackMemoryScope(const XnnpackMemoryScope&) = delete;
  XnnpackMemoryScope& operator=(const XnnpackMemoryScope&) = delete;

  // kOk, or kNotSupported when XNNPACK does not initialize on this CPU.
  Error status() const { return status_; }

 private:
  std::unique_lock<std::mutex> lock_;
  Error status_;
};

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_MEMORY_H_

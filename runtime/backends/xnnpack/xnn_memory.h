// Measures the bytes the system XNNPACK allocates for a delegate (packed
// weights, workspaces, operator state), so the delegate's memory shows in
// edgefleet-run and the emulator's figures.
//
// XNNPACK takes one process-wide allocator, fixed by the first
// xnn_initialize call in the process; later calls keep it. In the emulator
// the old stack installs its own tallying allocator first (libtorch links the
// same libXNNPACK; service/torch_memory_tally.h), so the delegate must not
// install one: it initializes XNNPACK with whatever allocator is in place and
// measures the growth of the process heap (mallinfo2: every arena, plus
// mmapped blocks) while it compiles, under a lock that serializes delegate
// compilation. Allocations other threads make meanwhile are counted too, so
// the figure is an upper bound on a busy process; compilation is rare.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_MEMORY_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_MEMORY_H_

#include <cstddef>
#include <mutex>

#include "runtime/core/error.h"

namespace edgefleet {
namespace xnnpack {

// Serializes XNNPACK compilation and measures what it allocates: while a
// scope lives, no other scope runs, and bytes() is the growth of the process
// heap since the scope began.
class XnnpackMemoryScope {
 public:
  XnnpackMemoryScope();
  ~XnnpackMemoryScope();
  XnnpackMemoryScope(const XnnpackMemoryScope&) = delete;
  XnnpackMemoryScope& operator=(const XnnpackMemoryScope&) = delete;

  // kOk, or kNotSupported when XNNPACK does not initialize on this CPU.
  Error status() const { return status_; }
  // Heap bytes allocated and not freed since construction (0 if negative).
  size_t bytes() const;

 private:
  std::unique_lock<std::mutex> lock_;
  Error status_;
  size_t start_;
};

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNN_MEMORY_H_

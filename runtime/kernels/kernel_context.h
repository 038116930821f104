// KernelContext: what a kernel may use while it runs, and how it fails.
//
// A kernel reports failure by calling Fail() (with an error detail recorded
// through SetErrorDetail) and returning; it never aborts on bad input. Scratch
// memory comes from AllocateTemp(), which is reset after every instruction.
// One context per instruction call; not thread-safe.

#ifndef EDGEFLEET_RUNTIME_KERNELS_KERNEL_CONTEXT_H_
#define EDGEFLEET_RUNTIME_KERNELS_KERNEL_CONTEXT_H_

#include <cstddef>

#include "runtime/core/error.h"
#include "runtime/core/memory_allocator.h"

namespace edgefleet {

class KernelContext {
 public:
  // `temp` may be null (AllocateTemp then fails). `num_threads` >= 1 is the
  // parallelism kernels may use.
  KernelContext(MemoryAllocator* temp, int num_threads) : temp_(temp), num_threads_(num_threads) {}

  // Marks the call failed; the first failure is kept.
  void Fail(Error error) {
    if (failure_ == Error::kOk) failure_ = error;
  }
  Error failure() const { return failure_; }
  bool failed() const { return failure_ != Error::kOk; }

  // Scratch memory valid until the instruction returns, or nullptr.
  void* AllocateTemp(size_t size, size_t alignment = alignof(std::max_align_t)) {
    return temp_ != nullptr ? temp_->Allocate(size, alignment) : nullptr;
  }

  int num_threads() const { return num_threads_; }

 private:
  MemoryAllocator* temp_;
  int num_threads_;
  Error failure_ = Error::kOk;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_KERNEL_CONTEXT_H_

// Registers the optimized kernels (optimized_kernels.h) and starts the
// thread pool they use.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_REGISTER_OPTIMIZED_KERNELS_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_REGISTER_OPTIMIZED_KERNELS_H_

#include "runtime/core/error.h"

namespace edgefleet {

// Adds every optimized kernel to the kernel registry (each falls back to the
// portable kernel of its operator for calls it does not handle, so the
// portable kernels must be registered too for Method::Load to find an
// alternative when Supports() refuses) and starts the kernels' thread pool
// with `max_threads` threads (default: the host's core count, capped at
// ThreadPool::kMaxThreads); methods use up to MethodOptions::num_threads of
// them. Idempotent: later calls return the first call's result.
// Thread-safe.
Error RegisterOptimizedKernels(int max_threads = 0);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_REGISTER_OPTIMIZED_KERNELS_H_

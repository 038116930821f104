// The XNNPACK delegate as a backend ("XnnpackBackend", the id the real
// exporter's XnnpackPartitioner writes). Registered by an explicit call.
// In builds without the system XNNPACK the backend is still registered but
// unavailable, so programs lowered to it fail with "backend XnnpackBackend
// is not available in this build" rather than "not registered".

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNNPACK_BACKEND_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNNPACK_BACKEND_H_

#include "runtime/core/error.h"

namespace edgefleet {

inline constexpr const char kXnnpackBackendId[] = "XnnpackBackend";

// Registers the backend; idempotent (a second call returns kOk). Thread-safe.
Error RegisterXnnpackBackend();

// Optional: does ahead of time the process-wide work that the first load of
// a lowered program would otherwise do inside its (timed) load, as the real
// runtime does before any program loads: initializes XNNPACK (its backend
// does when it registers) and starts a pool of `num_threads` threads for the
// next method of that size (its thread pool is a process-wide singleton;
// method_threadpool.h). Call it after any other XNNPACK user in the process
// has installed its allocator (xnn_memory.h). A CPU XNNPACK cannot run on is
// not an error here: loads say so. Errors: kOutOfResources when the threads
// cannot start. In builds without XNNPACK: kOk, nothing to do. Thread-safe.
Error PrepareXnnpackBackend(int num_threads);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNNPACK_BACKEND_H_

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

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_XNNPACK_BACKEND_H_

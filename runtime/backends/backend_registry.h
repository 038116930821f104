// The backend registry: a bounded table from backend id ("XnnpackBackend")
// to its implementation. Registration is explicit and mutex-serialized;
// lookups may run concurrently. Registered backends must live for the rest
// of the process.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_BACKEND_REGISTRY_H_
#define EDGEFLEET_RUNTIME_BACKENDS_BACKEND_REGISTRY_H_

#include "runtime/backends/backend.h"
#include "runtime/core/error.h"

namespace edgefleet {

inline constexpr int kMaxRegisteredBackends = 16;

// Errors: kRegistrationAlreadyRegistered for a duplicate id,
// kRegistrationExceedingMaxKernels when the table is full.
Error RegisterBackend(const char* id, const BackendInterface* backend);

// The backend registered under `id`, or nullptr.
const BackendInterface* FindBackend(const char* id);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_BACKEND_REGISTRY_H_

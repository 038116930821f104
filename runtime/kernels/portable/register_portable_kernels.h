// Registration of the portable (reference) kernels.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_REGISTER_PORTABLE_KERNELS_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_REGISTER_PORTABLE_KERNELS_H_

#include "runtime/core/error.h"

namespace edgefleet {

// Adds every portable kernel (and the prim ops) to the kernel registry.
// Idempotent and thread-safe: later calls return kOk without re-registering.
Error RegisterPortableKernels();

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_REGISTER_PORTABLE_KERNELS_H_

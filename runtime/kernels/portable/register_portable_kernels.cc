#include "runtime/kernels/portable/register_portable_kernels.h"

#include <mutex>

#include "runtime/kernels/kernel_registry.h"

namespace edgefleet {

Error RegisterPortableKernels() {
  static std::once_flag once;
  static Error result = Error::kOk;
  std::call_once(once, [] {
    // TODO(kernels helper): the kernel table goes here.
    result = Error::kOk;
  });
  return result;
}

}  // namespace edgefleet

// The operator kernel registry: a bounded table from operator name to kernel.
//
// Kernels are registered by explicit calls (RegisterPortableKernels() and
// friends), never by static initializers. Method::Init resolves each
// KernelCall once: among the kernels registered under the operator's name
// ("aten::add.out"), it picks an optimized kernel whose declared dtypes hold
// the call's first tensor dtype (dtype_set.h) and whose Supports() accepts
// the call's arguments, else a portable one that accepts them.
//
// Thread safety: registration is serialized by a mutex and must finish before
// methods that need the kernels are initialized; lookups may run
// concurrently with each other and with registration of other kernels.

#ifndef EDGEFLEET_RUNTIME_KERNELS_KERNEL_REGISTRY_H_
#define EDGEFLEET_RUNTIME_KERNELS_KERNEL_REGISTRY_H_

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernels/dtype_set.h"
#include "runtime/kernels/kernel_context.h"

namespace edgefleet {

// A kernel receives every schema argument in schema order plus the trailing
// return slot, exactly as the program's KernelCall lists them.
using OpFunction = void (*)(KernelContext& context, Span<EValue*> args);

// Whether a kernel handles a particular call (dtypes, dim orders, arg kinds).
// Runs at method init on the arguments' initial values.
using SupportsFunction = bool (*)(Span<EValue* const> args);

enum class KernelVariant : uint8_t { kPortable, kOptimized };

const char* KernelVariantName(KernelVariant variant);

struct Kernel {
  const char* name;  // "aten::add.out": operator name, '.', overload
  OpFunction fn;
  SupportsFunction supports;  // null: supports every call
  KernelVariant variant;
  // The dtypes of the first tensor argument the kernel accepts (see
  // dtype_set.h). The portable and optimized tables declare it per kernel;
  // the default serves kernels that tests register.
  DtypeSet dtypes = kAllDtypes;
};

// Most kernels the table holds.
inline constexpr int kMaxRegisteredKernels = 1024;

// Adds `kernels` to the global table. Errors:
// kRegistrationAlreadyRegistered if a kernel with the same name and variant
// is present (nothing from `kernels` is added then), and
// kRegistrationExceedingMaxKernels if the table would overflow.
Error RegisterKernels(Span<const Kernel> kernels);

// How ResolveKernel chooses among variants.
enum class KernelPreference : uint8_t { kOptimizedFirst, kPortableOnly };

// The kernel for `name` that supports `args`, or nullptr if none.
const Kernel* ResolveKernel(const char* name, Span<EValue* const> args,
                            KernelPreference preference);

// True if any kernel is registered under `name`.
bool HasKernel(const char* name);

// Number of kernels registered.
int NumRegisteredKernels();

// The i-th registered kernel. REQUIRES: 0 <= i < NumRegisteredKernels().
const Kernel& RegisteredKernel(int i);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_KERNEL_REGISTRY_H_

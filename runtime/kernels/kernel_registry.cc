#include "runtime/kernels/kernel_registry.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace {

Kernel g_kernels[kMaxRegisteredKernels];
std::atomic<int> g_num_kernels{0};
std::mutex g_register_mutex;

bool Registered(const char* name, KernelVariant variant, int count) {
  for (int i = 0; i < count; ++i) {
    if (g_kernels[i].variant == variant && strcmp(g_kernels[i].name, name) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

const char* KernelVariantName(KernelVariant variant) {
  return variant == KernelVariant::kOptimized ? "optimized" : "portable";
}

Error RegisterKernels(Span<const Kernel> kernels) {
  std::lock_guard<std::mutex> lock(g_register_mutex);
  const int count = g_num_kernels.load(std::memory_order_relaxed);
  EF_CHECK_OR_RETURN(kernels.size() <= static_cast<size_t>(kMaxRegisteredKernels - count),
                     Error::kRegistrationExceedingMaxKernels,
                     "registering %zu kernels would exceed the table of %d", kernels.size(),
                     kMaxRegisteredKernels);
  for (size_t i = 0; i < kernels.size(); ++i) {
    bool duplicate = Registered(kernels[i].name, kernels[i].variant, count);
    for (size_t j = 0; j < i && !duplicate; ++j) {
      duplicate =
          kernels[j].variant == kernels[i].variant && strcmp(kernels[j].name, kernels[i].name) == 0;
    }
    EF_CHECK_OR_RETURN(!duplicate, Error::kRegistrationAlreadyRegistered,
                       "%s kernel %s is already registered", KernelVariantName(kernels[i].variant),
                       kernels[i].name);
  }
  for (size_t i = 0; i < kernels.size(); ++i) g_kernels[count + i] = kernels[i];
  g_num_kernels.store(count + static_cast<int>(kernels.size()), std::memory_order_release);
  return Error::kOk;
}

const Kernel* ResolveKernel(const char* name, Span<EValue* const> args,
                            KernelPreference preference) {
  const int count = g_num_kernels.load(std::memory_order_acquire);
  const Kernel* portable = nullptr;
  ScalarType dtype = ScalarType::kFloat;
  const bool has_tensor = FirstTensorDtype(args, &dtype);
  for (int i = 0; i < count; ++i) {
    const Kernel& k = g_kernels[i];
    if (strcmp(k.name, name) != 0) continue;
    if (has_tensor && !k.dtypes.Contains(dtype)) continue;
    if (k.supports != nullptr && !k.supports(args)) continue;
    if (k.variant == KernelVariant::kPortable) {
      if (portable == nullptr) portable = &k;
    } else if (preference == KernelPreference::kOptimizedFirst) {
      return &k;
    }
  }
  return portable;
}

bool HasKernel(const char* name) {
  const int count = g_num_kernels.load(std::memory_order_acquire);
  for (int i = 0; i < count; ++i) {
    if (strcmp(g_kernels[i].name, name) == 0) return true;
  }
  return false;
}

int NumRegisteredKernels() { return g_num_kernels.load(std::memory_order_acquire); }

const Kernel& RegisteredKernel(int i) { return g_kernels[i]; }

}  // namespace edgefleet

#include "runtime/kernels/optimized/cpu_features.h"

#include <atomic>

namespace edgefleet {
namespace optimized {
namespace {

Isa DetectIsa() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma")) {
    return Isa::kAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return Isa::kAvx2;
  }
#endif
  return Isa::kGeneric;
}

std::atomic<int> g_cap{static_cast<int>(Isa::kAvx512)};

}  // namespace

Isa HostIsa() {
  static const Isa detected = DetectIsa();
  const int cap = g_cap.load(std::memory_order_relaxed);
  return static_cast<int>(detected) < cap ? detected : static_cast<Isa>(cap);
}

void ForceIsa(Isa isa) { g_cap.store(static_cast<int>(isa), std::memory_order_relaxed); }

int IsaLanes(Isa isa) { return isa == Isa::kAvx512 ? 16 : isa == Isa::kAvx2 ? 8 : 4; }

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
    default:
      return "generic";
  }
}

}  // namespace optimized
}  // namespace edgefleet

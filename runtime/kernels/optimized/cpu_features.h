// Which vector instruction sets the host CPU offers, detected once at run
// time. Optimized kernels are compiled for several instruction sets (see
// vec.h) and pick the best one the host runs; the build itself targets the
// baseline of the platform, so one binary runs everywhere.
//
// Thread-safe: detection runs once, on first use.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CPU_FEATURES_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CPU_FEATURES_H_

namespace edgefleet {
namespace optimized {

// Instruction-set levels, each a superset of the one before.
enum class Isa {
  kGeneric,  // the platform baseline (SSE2 on x86-64, NEON on AArch64)
  kAvx2,     // x86-64 AVX2 + FMA3
  kAvx512,   // x86-64 AVX-512F (+ AVX2 + FMA3)
};

// The best level the host supports, capped by ForceIsa().
Isa HostIsa();

// Caps HostIsa() at `isa` (tests and benchmarks compare the code paths).
// Not for concurrent use with running kernels.
void ForceIsa(Isa isa);

const char* IsaName(Isa isa);

// The float lanes of the vectors RunVectorized's body for `isa` computes
// with (vec.h: 16, 8, 4).
int IsaLanes(Isa isa);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_CPU_FEATURES_H_

// <immintrin.h> for the .cc files of the x86 SIMD kernels, with GCC 12's
// maybe-uninitialized reports silenced for the rest of the including file:
// GCC flags the intentionally undefined registers of _mm512_undefined_*()
// inside the intrinsics headers. Include it from .cc files only (the pragma
// applies to everything after it).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_AVX512_INTRINSICS_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_AVX512_INTRINSICS_H_

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_AVX512_INTRINSICS_H_

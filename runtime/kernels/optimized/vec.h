// Portable SIMD for the optimized kernels: fixed-width float vectors (GCC
// vector extensions) and RunVectorized, which runs one kernel body compiled
// for the best instruction set the host has.
//
// A kernel body is a class template over the vector width W (floats per
// vector) with a static, always-inlined Run(...). RunVectorized<Body>(args)
// calls Body<16>::Run in an AVX-512 function, Body<8>::Run in an AVX2+FMA
// function or Body<4>::Run in a baseline function, as HostIsa() says; since
// Run is inlined into those functions, each copy is compiled for its
// instruction set. Bodies must be always_inline for that reason.
//
// The library is compiled with -ffp-contract=off: a * b + c rounds twice,
// exactly as the portable kernels compute, so elementwise bodies give
// bit-identical results (code including this header elsewhere should do
// the same). Header-only; everything is pure.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_VEC_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_VEC_H_

#include <cstdint>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "runtime/kernels/optimized/cpu_features.h"

namespace edgefleet {
namespace optimized {

template <int W>
struct VecType {
  typedef float type __attribute__((vector_size(W * sizeof(float))));
  typedef int32_t mask __attribute__((vector_size(W * sizeof(int32_t))));
  typedef double wide __attribute__((vector_size(W * sizeof(double))));
  typedef int64_t wide_int __attribute__((vector_size(W * sizeof(int64_t))));
  typedef int8_t i8 __attribute__((vector_size(W)));
  typedef uint8_t u8 __attribute__((vector_size(W)));
};
template <int W>
using Vf = typename VecType<W>::type;
template <int W>
using Vm = typename VecType<W>::mask;
// W doubles (e.g. to accumulate W floats in double).
template <int W>
using Vd = typename VecType<W>::wide;
template <int W>
using Vl = typename VecType<W>::wide_int;
// W bytes, for int8 / uint8 quantized data.
template <int W, typename Q>
using Vq =
    std::conditional_t<std::is_same_v<Q, int8_t>, typename VecType<W>::i8, typename VecType<W>::u8>;

template <int W>
[[gnu::always_inline]] inline Vf<W> Load(const float* p) {
  Vf<W> v;
  __builtin_memcpy(&v, p, sizeof(v));
  return v;
}

template <int W>
[[gnu::always_inline]] inline void Store(float* p, Vf<W> v) {
  __builtin_memcpy(p, &v, sizeof(v));
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// The fused multiply-adds of MulAdd's AVX-512 and AVX2 bodies. Not
// always_inline: a kernel body is inlined into its instruction set's
// RunVectorized function first, and these into it after (an always_inline
// function with a target attribute cannot go into the body itself, which
// has none).
inline __attribute__((target("avx512f"))) Vf<16> MulAdd16(Vf<16> a, Vf<16> b, Vf<16> c) {
  return reinterpret_cast<Vf<16>>(_mm512_fmadd_ps(
      reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b), reinterpret_cast<__m512>(c)));
}
inline __attribute__((target("avx2,fma"))) Vf<8> MulAdd8(Vf<8> a, Vf<8> b, Vf<8> c) {
  return reinterpret_cast<Vf<8>>(_mm256_fmadd_ps(
      reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(c)));
}
// Splat's broadcasts in the same bodies. GCC 12 builds a vector of one
// repeated value lane by lane (a masked broadcast per lane) inside a
// function with a target attribute; the broadcast instruction is one, and
// a multiply-add takes it as its memory operand.
inline __attribute__((target("avx512f"))) Vf<16> Splat16(float x) {
  return reinterpret_cast<Vf<16>>(_mm512_maskz_broadcastss_ps(__mmask16(0xffff), _mm_set_ss(x)));
}
inline __attribute__((target("avx2"))) Vf<8> Splat8(float x) {
  return reinterpret_cast<Vf<8>>(_mm256_broadcastss_ps(_mm_set_ss(x)));
}
#endif

// Every lane x (-0.0 too).
template <int W>
[[gnu::always_inline]] inline Vf<W> Splat(float x) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  // A constant stays a constant vector (loaded once outside a loop).
  if (!__builtin_constant_p(x)) {
    if constexpr (W == 16) return Splat16(x);
    if constexpr (W == 8) return Splat8(x);
  }
#endif
  return x - Vf<W>{};  // exact: a bare broadcast where GCC builds it well
}

// a * b + c rounded once (a fused multiply-add), the same bits in every
// lane and at every width: an FMA instruction in the AVX-512 and AVX2
// bodies (GCC), fmaf per lane otherwise (one instruction where the target
// has FMA, the C library's exact fmaf where it has not). For polynomial
// kernels (vec_math.h), not for arithmetic the portable kernels do
// unfused.
template <int W>
[[gnu::always_inline]] inline Vf<W> MulAdd(Vf<W> a, Vf<W> b, Vf<W> c) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  if constexpr (W == 16) {
    return MulAdd16(a, b, c);
  } else if constexpr (W == 8) {
    return MulAdd8(a, b, c);
  }
#endif
  Vf<W> r;
  for (int i = 0; i < W; ++i) r[i] = __builtin_fmaf(a[i], b[i], c[i]);
  return r;
}

// Lane l takes v[index[l]] (0 <= index[l] < W): one permute instruction
// with GCC; lane by lane with Clang (which has no variable shuffle), whose
// builds are the sanitizer and fuzzing ones.
template <int W>
[[gnu::always_inline]] inline Vf<W> Permute(Vf<W> v, Vm<W> index) {
#if defined(__clang__)
  Vf<W> r;
  for (int l = 0; l < W; ++l) r[l] = v[index[l]];
  return r;
#else
  return __builtin_shuffle(v, index);
#endif
}

// Lanes where `mask` is set take a, the others b.
template <int W>
[[gnu::always_inline]] inline Vf<W> Select(Vm<W> mask, Vf<W> a, Vf<W> b) {
  return mask ? a : b;
}

// Writes the 4 x 4 block whose rows start at r0..r3 transposed: row t of
// the result (element t of every input row) goes to out + t * ostride.
[[gnu::always_inline]] inline void Transpose4x4(const float* r0, const float* r1, const float* r2,
                                                const float* r3, float* out, int64_t ostride) {
  using V = Vf<4>;
  const V a = Load<4>(r0), b = Load<4>(r1), c = Load<4>(r2), d = Load<4>(r3);
  const V ab_lo = __builtin_shufflevector(a, b, 0, 4, 1, 5);
  const V ab_hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
  const V cd_lo = __builtin_shufflevector(c, d, 0, 4, 1, 5);
  const V cd_hi = __builtin_shufflevector(c, d, 2, 6, 3, 7);
  Store<4>(out, __builtin_shufflevector(ab_lo, cd_lo, 0, 1, 4, 5));
  Store<4>(out + ostride, __builtin_shufflevector(ab_lo, cd_lo, 2, 3, 6, 7));
  Store<4>(out + 2 * ostride, __builtin_shufflevector(ab_hi, cd_hi, 0, 1, 4, 5));
  Store<4>(out + 3 * ostride, __builtin_shufflevector(ab_hi, cd_hi, 2, 3, 6, 7));
}

// Writes element t of r0, r1 and r2 to out[3t], out[3t + 1] and out[3t + 2]
// for t < 4 (three planes interleaved, e.g. RGB to channels-last).
[[gnu::always_inline]] inline void Interleave3x4(const float* r0, const float* r1, const float* r2,
                                                 float* out) {
  using V = Vf<4>;
  const V x = Load<4>(r0), y = Load<4>(r1), z = Load<4>(r2);
  const V xy_lo = __builtin_shufflevector(x, y, 0, 4, 1, 5);          // x0 y0 x1 y1
  const V xy_hi = __builtin_shufflevector(x, y, 2, 6, 3, 7);          // x2 y2 x3 y3
  const V yz = __builtin_shufflevector(xy_lo, z, 3, 5, 3, 5);         // y1 z1 . .
  Store<4>(out, __builtin_shufflevector(xy_lo, z, 0, 1, 4, 2));       // x0 y0 z0 x1
  Store<4>(out + 4, __builtin_shufflevector(yz, xy_hi, 0, 1, 4, 5));  // y1 z1 x2 y2
  Store<4>(out + 8, __builtin_shufflevector(z, xy_hi, 2, 6, 7, 3));   // z2 x3 y3 z3
}

// Runs Body<W>::Run(args...) for the host's instruction set.
template <template <int> class Body, typename... Args>
void RunVectorized(Args... args);

#if defined(__x86_64__)
template <template <int> class Body, typename... Args>
__attribute__((target("avx512f,avx2,fma"))) void RunAvx512(Args... args) {
  Body<16>::Run(args...);
}
template <template <int> class Body, typename... Args>
__attribute__((target("avx2,fma"))) void RunAvx2(Args... args) {
  Body<8>::Run(args...);
}
#endif
template <template <int> class Body, typename... Args>
void RunGeneric(Args... args) {
  Body<4>::Run(args...);
}

template <template <int> class Body, typename... Args>
void RunVectorized(Args... args) {
#if defined(__x86_64__)
  switch (HostIsa()) {
    case Isa::kAvx512:
      RunAvx512<Body>(args...);
      return;
    case Isa::kAvx2:
      RunAvx2<Body>(args...);
      return;
    default:
      break;
  }
#endif
  RunGeneric<Body>(args...);
}

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_VEC_H_

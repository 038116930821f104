// Vectorized exp, sigmoid, tanh and erf for the optimized kernels (vec.h
// widths).
//
// Exp is Cephes' expf: range reduction by ln 2 and a degree-6 polynomial,
// within 2 ulp of std::exp over [-87, 87] (inputs are clamped there, so
// results stay finite and normal). Sigmoid is 1 / (1 + exp(-x)) as the
// portable kernel computes it, evaluated from exp(-|x|) (below). Tanh uses its Taylor series below
// |x| = 0.55 and 1 - 2 / (exp(2|x|) + 1) above; both within a few ulp. Erf is the rational minimax
// approximation on [-4, 4] used by Eigen and XLA (odd degree-13 over even degree-8; +-1 beyond),
// within a few ulp of erff. NaN stays NaN. Not bit-identical to libm: kernels using these document
// a tolerance.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_VEC_MATH_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_VEC_MATH_H_

#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {

// Cephes' polynomial p: exp(r) = 1 + r + r^2 p(r) for |r| <= ln 2 / 2, in
// fused multiply-adds (MulAdd: the same bits at every width).
template <int W>
[[gnu::always_inline]] inline Vf<W> ExpPolynomial(Vf<W> r) {
  Vf<W> p = Splat<W>(1.9875691500e-4f);
  p = MulAdd<W>(p, r, Splat<W>(1.3981999507e-3f));
  p = MulAdd<W>(p, r, Splat<W>(8.3334519073e-3f));
  p = MulAdd<W>(p, r, Splat<W>(4.1665795894e-2f));
  p = MulAdd<W>(p, r, Splat<W>(1.6666665459e-1f));
  return MulAdd<W>(p, r, Splat<W>(5.0000001201e-1f));
}

// exp(x - n ln 2) for an integer-valued n = round(x / ln 2): Cephes'
// two-part ln 2 (the first part's product with n exact) and ExpPolynomial.
template <int W>
[[gnu::always_inline]] inline Vf<W> ExpOfRemainder(Vf<W> x, Vf<W> n) {
  using V = Vf<W>;
  const V r = MulAdd<W>(n, Splat<W>(2.12194440e-4f), MulAdd<W>(n, Splat<W>(-0.693359375f), x));
  return MulAdd<W>(ExpPolynomial<W>(r), r * r, r) + Splat<W>(1.0f);
}

template <int W>
[[gnu::always_inline]] inline Vf<W> Exp(Vf<W> x) {
  using V = Vf<W>;
  using M = Vm<W>;
  const V hi = Splat<W>(87.0f), lo = Splat<W>(-87.0f);
  x = Select<W>(x > hi, hi, x);
  x = Select<W>(x < lo, lo, x);
  // n = round(x / ln 2), by the 1.5 * 2^23 trick (|x / ln 2| < 2^22).
  const V magic = Splat<W>(12582912.0f);
  V n = (x * Splat<W>(1.44269504088896341f) + magic) - magic;
  n = Select<W>(n == n, n, V{});  // NaN: any finite scale keeps it NaN
  const V p = ExpOfRemainder<W>(x, n);
  // 2^n from the exponent bits.
  const M bits = (__builtin_convertvector(n, M) + 127) << 23;
  V scale;
  __builtin_memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

// Sigmoid from e = exp(-|x|), which never overflows: 1 / (1 + e) for
// x > 0, e / (1 + e) otherwise (both one division). exp(-|x|) is Exp's
// reduction and polynomial with its range work folded in: 2^n is taken
// from the low bits of the rounding sum (the magic constant carries the
// exponent bias) and multiplied in by the polynomial's last multiply-add,
// and |x| past 87.34, where 2^n would leave the normal floats, gives e = 0
// (sigmoid 0 or 1; the true value is below 1.2e-38). About a third fewer
// operations than 1 / (1 + Exp(-x)), within 2.1 ulp of the exact sigmoid;
// NaN stays NaN. (XNNPACK's degree-5 polynomial would save three more
// operations but puts results 3.2 ulp from the exact sigmoid and 4 from
// the portable kernel's.)
template <int W>
[[gnu::always_inline]] inline Vf<W> Sigmoid(Vf<W> x) {
  using V = Vf<W>;
  using M = Vm<W>;
  M bits;
  __builtin_memcpy(&bits, &x, sizeof(bits));
  bits |= static_cast<int32_t>(0x80000000u);
  V z;  // -|x|
  __builtin_memcpy(&z, &bits, sizeof(z));
  // n = round(z / ln 2) + 127 in the low mantissa bits: 1.5 * 2^23 + 127.
  const V magic = Splat<W>(12583039.0f);
  V n = MulAdd<W>(z, Splat<W>(1.44269504088896341f), magic);
  __builtin_memcpy(&bits, &n, sizeof(bits));
  bits <<= 23;
  V scale;  // 2^(n - 127)
  __builtin_memcpy(&scale, &bits, sizeof(scale));
  n = n - magic;
  // exp(r) - 1 = r + r^2 p(r) (ExpOfRemainder without its final + 1).
  const V r = MulAdd<W>(n, Splat<W>(2.12194440e-4f), MulAdd<W>(n, Splat<W>(-0.693359375f), z));
  const V t = MulAdd<W>(ExpPolynomial<W>(r), r * r, r);
  const V e = Select<W>(z < Splat<W>(-87.3365402f), V{}, MulAdd<W>(t, scale, scale));
  const V one = Splat<W>(1.0f);
  return Select<W>(x > V{}, one, e) / (one + e);
}

template <int W>
[[gnu::always_inline]] inline Vf<W> Tanh(Vf<W> x) {
  using V = Vf<W>;
  const V one = Splat<W>(1.0f);
  const V ax = Select<W>(x < V{}, -x, x);
  // Large |x|: 1 - 2 / (exp(2|x|) + 1), sign restored.
  const V big = one - Splat<W>(2.0f) / (Exp<W>(ax + ax) + one);
  const V big_signed = Select<W>(x < V{}, -big, big);
  // Small |x|: odd Taylor series through x^19.
  const V x2 = x * x;
  V p = Splat<W>(-2.3912911424355248e-4f);
  p = p * x2 + Splat<W>(5.90027440945586e-4f);
  p = p * x2 + Splat<W>(-1.4558343870513183e-3f);
  p = p * x2 + Splat<W>(3.592128036572481e-3f);
  p = p * x2 + Splat<W>(-8.863235529902197e-3f);
  p = p * x2 + Splat<W>(2.1869488536155203e-2f);
  p = p * x2 + Splat<W>(-5.396825396825397e-2f);
  p = p * x2 + Splat<W>(1.3333333333333333e-1f);
  p = p * x2 + Splat<W>(-3.333333333333333e-1f);
  const V small = x + x * (x2 * p);
  // NaN compares false: it takes the series branch and stays NaN.
  return Select<W>(ax >= Splat<W>(0.55f), big_signed, small);
}

template <int W>
[[gnu::always_inline]] inline Vf<W> Erf(Vf<W> x) {
  using V = Vf<W>;
  const V hi = Splat<W>(4.0f), lo = Splat<W>(-4.0f);
  x = Select<W>(x > hi, hi, x);
  x = Select<W>(x < lo, lo, x);
  const V x2 = x * x;
  V p = Splat<W>(-2.72614225801306e-10f);
  p = p * x2 + Splat<W>(2.77068142495902e-08f);
  p = p * x2 + Splat<W>(-2.10102402082508e-06f);
  p = p * x2 + Splat<W>(-5.69250639462346e-05f);
  p = p * x2 + Splat<W>(-7.34990630326855e-04f);
  p = p * x2 + Splat<W>(-2.95459980854025e-03f);
  p = p * x2 + Splat<W>(-1.60960333262415e-02f);
  p = p * x;
  V q = Splat<W>(-1.45660718464996e-05f);
  q = q * x2 + Splat<W>(-2.13374055278905e-04f);
  q = q * x2 + Splat<W>(-1.68282697438203e-03f);
  q = q * x2 + Splat<W>(-7.37332916720468e-03f);
  q = q * x2 + Splat<W>(-1.42647390514189e-02f);
  return p / q;
}

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_VEC_MATH_H_

// The exact dot product of two int8 vectors less their zero points, for the
// delegate's own int8 fully-connected kernel (node_kernels.cc): sum over
// c < k of (x[c] - x_zero) * (w[c] - w_zero), in 64 bits. Integer sums are
// exact in any order, so the vector path (AVX2: 16 products per step,
// widened to 16 bits and pair-summed into 32-bit lanes, flushed to 64 bits
// before they could overflow) gives the scalar loop's result.
//
// Stateless; thread-safe.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_DOT_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_DOT_H_

#include <cstddef>
#include <cstdint>

namespace edgefleet {
namespace xnnpack {

// REQUIRES: x_zero and w_zero in [-128, 127] (int8 zero points).
int64_t Int8Dot(const int8_t* x, const int8_t* w, size_t k, int32_t x_zero, int32_t w_zero);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_DOT_H_

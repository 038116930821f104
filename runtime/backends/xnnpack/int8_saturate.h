// SaturateInt8: a rounded float result clamped to int8 within a node's
// output range, the last step of our int8 node kernels.
//
// Stateless; thread-safe.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_SATURATE_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_SATURATE_H_

#include <cstdint>

namespace edgefleet {
namespace xnnpack {

// Clamps to [lo, hi] within int8; NaN becomes lo. The bounds themselves come
// from a node's output range and may be infinite or NaN (a payload's
// output_min / output_max): they are first clamped to int8 (NaN: the full
// range). A cast of NaN or of an out-of-range float to an integer is
// undefined behaviour.
inline int8_t SaturateInt8(float v, float lo, float hi) {
  lo = lo >= -128.0f ? (lo <= 127.0f ? lo : 127.0f) : -128.0f;
  hi = hi <= 127.0f ? (hi >= -128.0f ? hi : -128.0f) : 127.0f;
  if (!(v >= lo)) return static_cast<int8_t>(lo);
  if (!(v <= hi)) return static_cast<int8_t>(hi);
  return static_cast<int8_t>(v);
}

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_SATURATE_H_

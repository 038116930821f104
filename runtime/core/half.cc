#include "runtime/core/half.h"

#include <cmath>
#include <cstring>

namespace edgefleet {

uint16_t FloatToHalfBits(float value) {
  uint32_t x;
  memcpy(&x, &value, sizeof(x));
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffff;
  if (x > 0x7f800000) return sign | 0x7e00;   // NaN
  if (x >= 0x477ff000) return sign | 0x7c00;  // rounds to infinity
  if (x < 0x38800000) {                       // below 2^-14: subnormal half
    const float magnitude = std::fabs(value);
    return sign | static_cast<uint16_t>(std::nearbyint(magnitude * 0x1p24f));
  }
  const uint32_t exponent = (x >> 23) - 127 + 15;
  const uint32_t mantissa = x & 0x7fffff;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return sign | static_cast<uint16_t>(half);
}

uint16_t FloatToBFloat16Bits(float value) {
  uint32_t x;
  memcpy(&x, &value, sizeof(x));
  if ((x & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((x >> 16) | 0x40);  // NaN
  x += 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

float HalfBitsToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1f;
  const uint32_t mantissa = bits & 0x3ff;
  uint32_t x;
  if (exponent == 0x1f) {  // infinity or NaN
    x = sign | 0x7f800000 | (mantissa << 13);
  } else if (exponent != 0) {
    x = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  } else {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -magnitude : magnitude;
  }
  float value;
  memcpy(&value, &x, sizeof(value));
  return value;
}

float BFloat16BitsToFloat(uint16_t bits) {
  const uint32_t x = static_cast<uint32_t>(bits) << 16;
  float value;
  memcpy(&value, &x, sizeof(value));
  return value;
}

}  // namespace edgefleet

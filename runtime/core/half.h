// The 16-bit floating element types tensors carry: IEEE binary16 (float16,
// ScalarType::kHalf) and bfloat16 (ScalarType::kBFloat16). Each is a
// trivially copyable wrapper of its bit pattern that converts to and from
// float (round to nearest even, NaN stays NaN), as c10::Half and
// c10::BFloat16 do; arithmetic happens in float. Pure value types,
// thread-safe.

#ifndef EDGEFLEET_RUNTIME_CORE_HALF_H_
#define EDGEFLEET_RUNTIME_CORE_HALF_H_

#include <cstdint>

namespace edgefleet {

// IEEE binary16 / bfloat16 bits of `value`, rounded to nearest even.
uint16_t FloatToHalfBits(float value);
uint16_t FloatToBFloat16Bits(float value);

// The float a binary16 / bfloat16 bit pattern denotes (exact).
float HalfBitsToFloat(uint16_t bits);
float BFloat16BitsToFloat(uint16_t bits);

struct Half {
  uint16_t bits;

  Half() = default;
  explicit Half(float value) : bits(FloatToHalfBits(value)) {}
  explicit operator float() const { return HalfBitsToFloat(bits); }
};

struct BFloat16 {
  uint16_t bits;

  BFloat16() = default;
  explicit BFloat16(float value) : bits(FloatToBFloat16Bits(value)) {}
  explicit operator float() const { return BFloat16BitsToFloat(bits); }
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_HALF_H_

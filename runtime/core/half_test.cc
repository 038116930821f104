#include "runtime/core/half.h"

#include <cmath>

#include "gtest/gtest.h"

namespace edgefleet {
namespace {

TEST(HalfTest, FloatToBits) {
  EXPECT_EQ(FloatToHalfBits(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalfBits(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalfBits(0.333333333f), 0x3555);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalfBits(1e6f), 0x7c00);
  EXPECT_EQ(FloatToHalfBits(0x1p-24f), 0x0001);         // smallest subnormal
  EXPECT_EQ(FloatToHalfBits(0x1p-14f), 0x0400);         // smallest normal
  EXPECT_EQ(FloatToHalfBits(1.0f + 0x1p-11f), 0x3c00);  // tie rounds to even
  EXPECT_EQ(FloatToBFloat16Bits(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBFloat16Bits(-0.5f), 0xbf00);
  EXPECT_EQ(FloatToBFloat16Bits(1.0f + 0x1p-8f), 0x3f80);  // tie rounds to even
}

TEST(HalfTest, BitsToFloat) {
  EXPECT_EQ(HalfBitsToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfBitsToFloat(0xc000), -2.0f);
  EXPECT_EQ(HalfBitsToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfBitsToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(HalfBitsToFloat(0x8001), -0x1p-24f);
  EXPECT_EQ(HalfBitsToFloat(0x03ff), 1023 * 0x1p-24f);  // largest subnormal
  EXPECT_EQ(HalfBitsToFloat(0xfc00), -INFINITY);
  EXPECT_TRUE(std::isnan(HalfBitsToFloat(0x7e00)));
  EXPECT_TRUE(std::signbit(HalfBitsToFloat(0x8000)));
  EXPECT_EQ(BFloat16BitsToFloat(0x3f80), 1.0f);
  EXPECT_EQ(BFloat16BitsToFloat(0xbf00), -0.5f);
  EXPECT_TRUE(std::isnan(BFloat16BitsToFloat(0x7fc0)));
}

// Every finite half and bfloat16 value survives float and back.
TEST(HalfTest, EveryValueRoundTrips) {
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    const float h = HalfBitsToFloat(bits);
    if (!std::isnan(h)) {
      EXPECT_EQ(FloatToHalfBits(h), bits) << b;
      EXPECT_EQ(static_cast<float>(Half(h)), h) << b;
    }
    const float bf = BFloat16BitsToFloat(bits);
    if (!std::isnan(bf)) {
      EXPECT_EQ(FloatToBFloat16Bits(bf), bits) << b;
    }
  }
}

}  // namespace
}  // namespace edgefleet

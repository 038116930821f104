// Int8PointwiseRows against the formula of int8_pointwise_nhwc.h written
// out per element (the integer sum, float(acc) * scale, round half to even,
// clamp, zero point): every element equal, for depths that are and are not
// multiples of 4 (the last group of a row must not read past it), channel
// counts from 1 to past one panel, row counts that leave a partial tile,
// ties of the rounding and clamped outputs.

#include "runtime/kernels/optimized/int8_pointwise_nhwc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace edgefleet {
namespace optimized {
namespace {

struct Case {
  int64_t pixels, depth, units;
  int32_t x_zero, y_zero, out_min, out_max;
};

int8_t Reference(const int8_t* x, const int8_t* w, int64_t depth, int32_t bias, int32_t x_zero,
                 float scale, const Case& c) {
  int64_t acc = bias;
  for (int64_t k = 0; k < depth; ++k) acc += int64_t{x[k] - x_zero} * w[k];
  const float v = std::nearbyint(static_cast<float>(static_cast<int32_t>(acc)) * scale);
  const float lo = static_cast<float>(c.out_min - c.y_zero);
  const float hi = static_cast<float>(c.out_max - c.y_zero);
  return static_cast<int8_t>(static_cast<int32_t>(std::fmin(std::fmax(v, lo), hi)) + c.y_zero);
}

TEST(Int8PointwiseNhwc, EqualsTheFormulaPerElement) {
  if (!Int8PointwiseAvailable()) GTEST_SKIP() << "no AVX-512 VNNI on this host";
  const Case cases[] = {
      {1, 1, 1, 0, 0, -128, 127},         {7, 3, 5, -3, 2, -128, 127},
      {13, 16, 96, 5, -7, -128, 127},     {64, 27, 32, -128, 0, -20, 100},
      {50, 96, 24, 127, -128, -128, 127}, {6, 160, 70, 1, 3, 0, 127},
      {11, 4, 130, -1, 1, -128, -128},
  };
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(-128, 127);
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message()
                 << "pixels " << c.pixels << " depth " << c.depth << " units " << c.units);
    // The rows end exactly at the buffer's end: no slack to read into.
    std::vector<int8_t> x(static_cast<size_t>(c.pixels * c.depth));
    std::vector<int8_t> w(static_cast<size_t>(c.units * c.depth));
    for (int8_t& v : x) v = static_cast<int8_t>(byte(rng));
    for (int8_t& v : w) v = static_cast<int8_t>(byte(rng));
    const int64_t padded = Int8PointwiseUnitsPadded(c.units);
    std::vector<int32_t> bias(static_cast<size_t>(c.units)), correction(padded, 0);
    std::vector<float> scale(padded, 0.0f);
    for (int64_t u = 0; u < c.units; ++u) {
      bias[u] = std::uniform_int_distribution<int32_t>(-5000, 5000)(rng);
      // Scales 2^-e hit rounding ties (acc * 2^-e ending in .5) often.
      scale[u] = u % 2 == 0 ? std::ldexp(1.0f, -static_cast<int>(u % 9) - 1)
                            : std::uniform_real_distribution<float>(1e-4f, 0.05f)(rng);
      int64_t sum = 0;
      for (int64_t k = 0; k < c.depth; ++k) sum += w[u * c.depth + k];
      correction[u] = static_cast<int32_t>(bias[u] - (128 + int64_t{c.x_zero}) * sum);
    }
    std::vector<int8_t> packed(Int8PointwisePackedBytes(c.units, c.depth));
    PackInt8Pointwise(w.data(), c.units, c.depth, packed.data());
    const Int8PointwiseParams params{correction.data(), scale.data(), c.y_zero, c.out_min,
                                     c.out_max};
    std::vector<int8_t> y(static_cast<size_t>(c.pixels * c.units), 99);
    // Two row ranges, as two threads would take them.
    const int64_t split = c.pixels / 2;
    Int8PointwiseRows(x.data(), c.depth, packed.data(), c.units, params, y.data(), 0, split);
    Int8PointwiseRows(x.data(), c.depth, packed.data(), c.units, params, y.data(), split, c.pixels);
    int ties = 0;
    for (int64_t p = 0; p < c.pixels; ++p) {
      for (int64_t u = 0; u < c.units; ++u) {
        const int8_t want = Reference(x.data() + p * c.depth, w.data() + u * c.depth, c.depth,
                                      bias[u], c.x_zero, scale[u], c);
        ASSERT_EQ(y[p * c.units + u], want) << "pixel " << p << " channel " << u;
        int64_t acc = bias[u];
        for (int64_t k = 0; k < c.depth; ++k) {
          acc += int64_t{x[p * c.depth + k] - c.x_zero} * w[u * c.depth + k];
        }
        const float v = static_cast<float>(acc) * scale[u];
        ties += v - std::floor(v) == 0.5f;
      }
    }
    if (c.pixels * c.units >= 500) {
      EXPECT_GT(ties, 0) << "no rounding tie was exercised";
    }
  }
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet

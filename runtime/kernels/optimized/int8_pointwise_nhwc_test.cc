// Int8PointwiseRows against the formula of int8_pointwise_nhwc.h written
// out per element (the integer sum, float(acc) * scale, round half to even,
// clamp, zero point): every element equal, for depths that are and are not
// multiples of 4 (the last group of a row must not read past it), channel
// counts from 1 to past one panel, row counts that leave a partial tile,
// ties of the rounding and clamped outputs. GatherInt8Patches against the
// definition of a patch, at the borders, with strides and dilations.

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

TEST(Int8PointwiseNhwc, PatchesAreTheWindowsOfTheInput) {
  if (!Int8PointwiseAvailable()) GTEST_SKIP() << "no AVX-512 VNNI on this host";
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(-128, 127);
  // {kernel, stride, dilation, pad}: 1x1, the first layer of MobileNetV2,
  // dilated, a window larger than a padded row.
  const int64_t shapes[][4] = {{1, 1, 1, 0}, {3, 2, 1, 1}, {3, 1, 2, 2}, {5, 3, 1, 2}};
  for (const auto& s : shapes) {
    ConvGeometry g{};
    g.batch = 2;
    g.in_h = 7;
    g.in_w = 6;
    g.in_c = 3;
    g.k_h = g.k_w = s[0];
    g.stride[0] = g.stride[1] = s[1];
    g.dilation[0] = g.dilation[1] = s[2];
    g.pad[0] = g.pad[1] = s[3];
    g.out_h = (g.in_h + 2 * s[3] - s[2] * (s[0] - 1) - 1) / s[1] + 1;
    g.out_w = (g.in_w + 2 * s[3] - s[2] * (s[0] - 1) - 1) / s[1] + 1;
    g.groups = 1;
    const int8_t pad_value = -7;
    const int64_t depth = g.k_h * g.k_w * g.in_c;
    const int64_t row_bytes = (depth + 3) / 4 * 4 + 4;  // and one spare group
    const int64_t pixels = g.batch * g.out_pixels();
    std::vector<int8_t> x(static_cast<size_t>(g.batch * g.in_h * g.in_w * g.in_c));
    for (int8_t& v : x) v = static_cast<int8_t>(byte(rng));
    std::vector<int8_t> patches(static_cast<size_t>(pixels * row_bytes), 55);
    // In two ranges, the second starting inside an image row.
    const int64_t split = pixels / 2 + 1;
    GatherInt8Patches(g, pad_value, x.data(), 0, split, row_bytes, patches.data());
    GatherInt8Patches(g, pad_value, x.data(), split, pixels, row_bytes,
                      patches.data() + split * row_bytes);
    for (int64_t p = 0; p < pixels; ++p) {
      const int64_t image = p / g.out_pixels();
      const int64_t oh = p / g.out_w % g.out_h, ow = p % g.out_w;
      const int8_t* row = patches.data() + p * row_bytes;
      int64_t k = 0;
      for (int64_t kh = 0; kh < g.k_h; ++kh) {
        for (int64_t kw = 0; kw < g.k_w; ++kw) {
          const int64_t ih = oh * g.stride[0] - g.pad[0] + kh * g.dilation[0];
          const int64_t iw = ow * g.stride[1] - g.pad[1] + kw * g.dilation[1];
          for (int64_t c = 0; c < g.in_c; ++c, ++k) {
            const bool inside = ih >= 0 && ih < g.in_h && iw >= 0 && iw < g.in_w;
            const int8_t want =
                inside ? x[((image * g.in_h + ih) * g.in_w + iw) * g.in_c + c] : pad_value;
            ASSERT_EQ(row[k], want) << "kernel " << s[0] << " pixel " << p << " byte " << k;
          }
        }
      }
      for (; k < row_bytes; ++k) ASSERT_EQ(row[k], 0) << "pixel " << p << " tail byte " << k;
    }
  }
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet

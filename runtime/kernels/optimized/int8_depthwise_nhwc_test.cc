// Int8DepthwiseRows against the formula of int8_depthwise_nhwc.h written out
// per element (integer sum over the window, padding at the input zero point,
// float(acc) * scale, round half to even, clamp, zero point): every element
// equal, for channel counts below, at and past one block, windows of 1, 9
// and 25 taps (not multiples of 4), strides, dilation, padding, two images,
// and output pixels split into ranges as threads take them.

#include "runtime/kernels/optimized/int8_depthwise_nhwc.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "runtime/kernels/optimized/int8_pointwise_nhwc.h"

namespace edgefleet {
namespace optimized {
namespace {

struct Case {
  int64_t channels, kernel, stride, dilation, pad;
  int32_t x_zero, y_zero, out_min, out_max;
};

TEST(Int8DepthwiseNhwc, EqualsTheFormulaPerElement) {
  if (!Int8PointwiseAvailable()) GTEST_SKIP() << "no AVX-512 VNNI on this host";
  const Case cases[] = {
      {1, 1, 1, 1, 0, 0, 0, -128, 127},   {32, 3, 1, 1, 1, 5, -3, -128, 127},
      {70, 3, 2, 1, 1, -128, 7, 0, 127},  {64, 5, 1, 1, 2, 127, 0, -128, 127},
      {144, 3, 1, 2, 2, -9, 4, -100, 50}, {17, 5, 2, 1, 2, 3, -128, -128, -100},
  };
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> byte(-128, 127);
  for (const Case& k : cases) {
    SCOPED_TRACE(testing::Message() << "channels " << k.channels << " kernel " << k.kernel
                                    << " stride " << k.stride << " dilation " << k.dilation);
    ConvGeometry g{};
    g.batch = 2;
    g.in_h = 9;
    g.in_w = 8;
    g.in_c = g.out_c = g.groups = k.channels;
    g.k_h = g.k_w = k.kernel;
    g.stride[0] = g.stride[1] = k.stride;
    g.dilation[0] = g.dilation[1] = k.dilation;
    g.pad[0] = g.pad[1] = k.pad;
    g.out_h = (g.in_h + 2 * k.pad - k.dilation * (k.kernel - 1) - 1) / k.stride + 1;
    g.out_w = (g.in_w + 2 * k.pad - k.dilation * (k.kernel - 1) - 1) / k.stride + 1;
    const int64_t taps = g.taps(), c = k.channels;
    std::vector<int8_t> x(static_cast<size_t>(g.batch * g.in_h * g.in_w * c));
    std::vector<int8_t> w(static_cast<size_t>(taps * c));
    for (int8_t& v : x) v = static_cast<int8_t>(byte(rng));
    for (int8_t& v : w) v = static_cast<int8_t>(byte(rng));
    std::vector<int32_t> bias(c), correction(c);
    std::vector<float> scale(c);
    for (int64_t ch = 0; ch < c; ++ch) {
      bias[ch] = std::uniform_int_distribution<int32_t>(-3000, 3000)(rng);
      scale[ch] = ch % 2 == 0 ? std::ldexp(1.0f, -static_cast<int>(ch % 7) - 1)
                              : std::uniform_real_distribution<float>(1e-3f, 0.05f)(rng);
      int64_t sum = 0;
      for (int64_t t = 0; t < taps; ++t) sum += w[t * c + ch];
      correction[ch] = static_cast<int32_t>(bias[ch] - (128 + int64_t{k.x_zero}) * sum);
    }
    std::vector<uint8_t> storage(Int8DepthwisePackedBytes(c, taps) + 64);
    auto* packed = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) /
                                              64 * 64);  // 64-byte aligned
    PackInt8Depthwise(w.data(), correction.data(), scale.data(), c, taps, packed);
    std::vector<int8_t> pad_row(static_cast<size_t>((c + 63) / 64 * 64),
                                static_cast<int8_t>(k.x_zero));
    const int64_t pixels = g.batch * g.out_pixels();
    std::vector<int8_t> y(static_cast<size_t>(pixels * c), 99);
    const int64_t split = pixels / 3 + 1;  // starts inside an output row
    Int8DepthwiseRows(g, x.data(), pad_row.data(), packed, k.y_zero, k.out_min, k.out_max, y.data(),
                      0, split);
    Int8DepthwiseRows(g, x.data(), pad_row.data(), packed, k.y_zero, k.out_min, k.out_max, y.data(),
                      split, pixels);
    for (int64_t p = 0; p < pixels; ++p) {
      const int64_t image = p / g.out_pixels(), oh = p / g.out_w % g.out_h, ow = p % g.out_w;
      for (int64_t ch = 0; ch < c; ++ch) {
        int64_t acc = bias[ch];
        for (int64_t kh = 0; kh < g.k_h; ++kh) {
          for (int64_t kw = 0; kw < g.k_w; ++kw) {
            const int64_t ih = oh * k.stride - k.pad + kh * k.dilation;
            const int64_t iw = ow * k.stride - k.pad + kw * k.dilation;
            if (ih < 0 || ih >= g.in_h || iw < 0 || iw >= g.in_w) continue;  // (zx - zx) * w
            const int8_t xv = x[((image * g.in_h + ih) * g.in_w + iw) * c + ch];
            acc += int64_t{xv - k.x_zero} * w[(kh * g.k_w + kw) * c + ch];
          }
        }
        const float v = std::nearbyint(static_cast<float>(acc) * scale[ch]);
        const float lo = static_cast<float>(k.out_min - k.y_zero);
        const float hi = static_cast<float>(k.out_max - k.y_zero);
        const auto want =
            static_cast<int8_t>(static_cast<int32_t>(std::fmin(std::fmax(v, lo), hi)) + k.y_zero);
        ASSERT_EQ(y[p * c + ch], want) << "pixel " << p << " channel " << ch;
      }
    }
  }
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet

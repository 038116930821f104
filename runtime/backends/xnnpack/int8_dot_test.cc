#include "runtime/backends/xnnpack/int8_dot.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "runtime/kernels/optimized/cpu_features.h"

namespace edgefleet {
namespace xnnpack {
namespace {

int64_t Reference(const std::vector<int8_t>& x, const std::vector<int8_t>& w, int32_t xz,
                  int32_t wz) {
  int64_t acc = 0;
  for (size_t c = 0; c < x.size(); ++c) acc += int64_t{x[c] - xz} * (w[c] - wz);
  return acc;
}

// Every length around the vector width, the extreme zero points and values,
// and a depth past the 32-bit lanes' flush interval (16 * 4096 products of
// up to 255 * 255): the vector path and the portable one give the exact sum.
TEST(Int8Dot, ExactAtEveryLengthOnBothPaths) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(-128, 127);
  for (optimized::Isa isa : {optimized::Isa::kGeneric, optimized::Isa::kAvx512}) {
    optimized::ForceIsa(isa);
    for (size_t k : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{33},
                     size_t{1280}, size_t{70001}}) {
      for (auto [xz, wz] : {std::pair{0, 0}, std::pair{-128, 127}, std::pair{127, -128}}) {
        std::vector<int8_t> x(k), w(k);
        for (size_t c = 0; c < k; ++c) {
          x[c] = static_cast<int8_t>(byte(rng));
          w[c] = static_cast<int8_t>(byte(rng));
        }
        EXPECT_EQ(Int8Dot(x.data(), w.data(), k, xz, wz), Reference(x, w, xz, wz))
            << "k " << k << " zero points " << xz << ", " << wz;
      }
      // All products at the extreme: (-128 - 127) * (127 - -128) = -65025.
      std::vector<int8_t> x(k, -128), w(k, 127);
      EXPECT_EQ(Int8Dot(x.data(), w.data(), k, 127, -128), -65025 * static_cast<int64_t>(k));
    }
  }
  optimized::ForceIsa(optimized::Isa::kAvx512);
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet

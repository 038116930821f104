// RunInt8TableNode: a Clamp that requantizes, for every one of the 256
// input values, against the formula of int8_table_nodes.h written out with
// the input as it would be dequantized by hand (NaN bounds: no bound).

#include "runtime/backends/xnnpack/int8_table_nodes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace edgefleet {
namespace xnnpack {
namespace {

TEST(Int8TableNode, EveryInputValueAsTheFormulaSays) {
  Graph g;
  g.values.resize(2);
  for (uint32_t id = 0; id < 2; ++id) {
    g.values[id].id = id;
    g.values[id].type = DataType::kQint8;
    g.values[id].quant = QuantKind::kPerTensor;
    g.values[id].dims = {2, 128};
  }
  g.values[0].scale = 0.02f;
  g.values[0].zero_point = 5;
  g.values[1].scale = 0.03f;
  g.values[1].zero_point = -128;
  Node clamp;
  clamp.type = NodeType::kClamp;
  clamp.inputs = {0};
  clamp.outputs = {1};
  ASSERT_FALSE(Int8TableSupports(g, Node{}));
  for (const auto& [lo, hi] :
       {std::pair<float, float>{0.0f, 6.0f}, {-0.5f, 0.7f}, {-INFINITY, INFINITY}, {NAN, 1.0f}}) {
    clamp.output_min = lo;
    clamp.output_max = hi;
    ASSERT_TRUE(Int8TableSupports(g, clamp));
    std::vector<int8_t> x(256), y(256);
    for (int i = 0; i < 256; ++i) x[i] = static_cast<int8_t>(i - 128);
    const std::vector<Dims> dims = {{2, 128}, {2, 128}};
    RunInt8TableNode(g, clamp, dims, x.data(), y.data());
    for (int i = 0; i < 256; ++i) {
      double real = (x[i] - 5) * 0.02;  // the input's real value
      if (!std::isnan(lo)) real = std::max<double>(real, lo);
      real = std::min<double>(real, hi);
      const double q = std::nearbyint(static_cast<float>(real) / 0.03f) - 128;
      const auto want = static_cast<int8_t>(std::min(127.0, std::max(-128.0, q)));
      ASSERT_EQ(y[i], want) << "input " << int{x[i]} << " range [" << lo << ", " << hi << "]";
    }
  }
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet

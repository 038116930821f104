#include "runtime/backends/xnnpack/int8_table_nodes.h"

#include <cmath>
#include <cstdint>

namespace edgefleet {
namespace xnnpack {
bool Int8TableSupports(const Graph& g, const Node& n) {
  return n.type == NodeType::kClamp && n.inputs.size() == 1 && n.outputs.size() == 1 &&
         n.inputs[0] != kInvalidId && g.values[n.inputs[0]].is_per_tensor_qint8() &&
         g.values[n.outputs[0]].is_per_tensor_qint8();
}

void RunInt8TableNode(const Graph& g, const Node& n, const std::vector<Dims>& dims, const void* in,
                      void* out) {
  const Value& x = g.values[n.inputs[0]];
  const Value& y = g.values[n.outputs[0]];
  int8_t table[256];
  for (int q = -128; q <= 127; ++q) {
    const float real = static_cast<float>(q - x.zero_point) * x.scale;
    // NaN bounds leave the value as it is (fmax / fmin ignore NaN).
    const float clamped = std::fmin(std::fmax(real, n.output_min), n.output_max);
    const float v = std::nearbyint(clamped / y.scale) + static_cast<float>(y.zero_point);
    table[q + 128] = static_cast<int8_t>(std::fmin(std::fmax(v, -128.0f), 127.0f));
  }
  size_t numel = 1;
  for (size_t d : dims[n.inputs[0]]) numel *= d;
  const auto* xq = static_cast<const int8_t*>(in);
  auto* yq = static_cast<int8_t*>(out);
  for (size_t i = 0; i < numel; ++i) yq[i] = table[xq[i] + 128];
}

}  // namespace xnnpack
}  // namespace edgefleet

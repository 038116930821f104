#include "runtime/backends/xnnpack/unit_pooling_nodes.h"

#include <algorithm>

namespace edgefleet {
namespace xnnpack {

bool UnitPoolingSupports(const Graph& g, const Node& n) {
  if (n.type != NodeType::kAvgPooling2d && n.type != NodeType::kMaxPooling2d) return false;
  const WindowParams& w = n.window;
  return w.kernel_h == 1 && w.kernel_w == 1 && w.pad_top == 0 && w.pad_right == 0 &&
         w.pad_bottom == 0 && w.pad_left == 0 && w.stride_h > 0 && w.stride_w > 0 && AllFp32(g, n);
}

void RunUnitPooling(const Node& n, const Dims& xd, const Dims& yd, const float* x, float* y) {
  const size_t channels = xd[3];
  const float lo = n.output_min, hi = n.output_max;
  for (size_t b = 0; b < yd[0]; ++b) {
    for (size_t oh = 0; oh < yd[1]; ++oh) {
      const float* row = x + (b * xd[1] + oh * n.window.stride_h) * xd[2] * channels;
      for (size_t ow = 0; ow < yd[2]; ++ow) {
        const float* src = row + ow * n.window.stride_w * channels;
        // std::max(NaN, lo) and std::min(NaN, hi) return the NaN.
        for (size_t c = 0; c < channels; ++c) *y++ = std::min(std::max(src[c], lo), hi);
      }
    }
  }
}

}  // namespace xnnpack
}  // namespace edgefleet

#include "runtime/kernels/optimized/phased_plane.h"

#include <algorithm>
#include <cstring>

#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace {

// even[u] = row[2u], odd[u] = row[2u + 1] for u < n: four of each per
// step from two 4-float vectors (the baseline instruction set).
void SplitEvenOdd(const float* row, int64_t n, float* even, float* odd) {
  using V = Vf<4>;
  int64_t u = 0;
  for (; u + 4 <= n; u += 4) {
    const V a = Load<4>(row + 2 * u), b = Load<4>(row + 2 * u + 4);
    Store<4>(even + u, __builtin_shufflevector(a, b, 0, 2, 4, 6));
    Store<4>(odd + u, __builtin_shufflevector(a, b, 1, 3, 5, 7));
  }
  for (; u < n; ++u) {
    even[u] = row[2 * u];
    odd[u] = row[2 * u + 1];
  }
}

}  // namespace

float* PhasedPlane::InitScratch() const {
  std::fill(data + floats(), data + floats() + kPlaneTailPad, 0.0f);
  return data + floats() + kPlaneTailPad;
}

void PhasedPlane::TapOffsets(const ConvGeometry& g, int64_t* offsets) const {
  for (int64_t t = 0; t < g.taps(); ++t) {
    const int64_t col = t % g.k_w * g.dilation[1];
    offsets[t] = (col % phases * rows + t / g.k_w * g.dilation[0]) * row_len + col / phases;
  }
}

void BuildPhasedPlane(const ConvGeometry& g, const float* x, float fill, const PhasedPlane& p,
                      float* row) {
  const int64_t sw = p.phases, pw = g.pad[1], ph = g.pad[0];
  const int64_t padded_w = p.row_len * sw;
  for (int64_t r = 0; r < p.rows; ++r) {
    const int64_t ih = r - ph;
    if (ih < 0 || ih >= g.in_h) {
      for (int64_t t = 0; t < sw; ++t) {
        std::fill(p.row(t, r), p.row(t, r) + p.row_len, fill);
      }
      continue;
    }
    float* d = sw == 1 ? p.row(0, r) : row;
    std::fill(d, d + pw, fill);
    std::memcpy(d + pw, x + ih * g.in_w, sizeof(float) * g.in_w);
    std::fill(d + pw + g.in_w, d + padded_w, fill);
    if (sw == 2) {
      SplitEvenOdd(row, p.row_len, p.row(0, r), p.row(1, r));
    } else if (sw > 2) {
      for (int64_t t = 0; t < sw; ++t) {
        float* out = p.row(t, r);
        for (int64_t u = 0; u < p.row_len; ++u) out[u] = row[u * sw + t];
      }
    }
  }
}

}  // namespace optimized
}  // namespace edgefleet

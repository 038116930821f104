// A padded input plane split by column phase for a strided window: the
// layout the direct depthwise and pooling kernels read with unit-stride
// vector loads. P(phase, r, u) = padded[r][u * stride_w + phase], where
// `padded` is the plane with pad rows/columns of a fill value; window tap
// (kh, kw) of output (oh, ow) is P((kw*dw) % sw, oh*sh + kh*dh, ow + (kw*dw)
// / sw), contiguous in ow.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_PHASED_PLANE_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_PHASED_PLANE_H_

#include <cstdint>

#include "runtime/kernels/optimized/conv_operands.h"

namespace edgefleet {
namespace optimized {

// Floats after a plane that the last vector of a row may read (and
// discard): the widest vector.
inline constexpr int64_t kPlaneTailPad = 16;

struct PhasedPlane {
  float* data;  // floats() + kPlaneTailPad + row scratch (scratch_floats())
  int64_t rows, row_len, phases;

  // The shape for g's input plane, padding and stride (data unset).
  static PhasedPlane For(const ConvGeometry& g) {
    const int64_t padded_w = g.in_w + 2 * g.pad[1];
    return {nullptr, g.in_h + 2 * g.pad[0], (padded_w + g.stride[1] - 1) / g.stride[1],
            g.stride[1]};
  }
  int64_t floats() const { return rows * row_len * phases; }
  int64_t scratch_floats() const { return floats() + kPlaneTailPad + row_len * phases; }
  float* row(int64_t phase, int64_t r) const { return data + (phase * rows + r) * row_len; }
  // Zeroes the tail pad; returns the row scratch for BuildPhasedPlane.
  float* InitScratch() const;
  // Tap offsets: P(phase, kh*dh, (kw*dw) / sw) - data for every tap,
  // kh-major. REQUIRES: `offsets` holds g.taps() entries.
  void TapOffsets(const ConvGeometry& g, int64_t* offsets) const;
};

// Fills `p` from plane `x` (g.in_h x g.in_w, contiguous), padding with
// `fill`. `row` is scratch (InitScratch()).
void BuildPhasedPlane(const ConvGeometry& g, const float* x, float fill, const PhasedPlane& p,
                      float* row);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_PHASED_PLANE_H_

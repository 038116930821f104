// ATen's source-coordinate scale for the 2-D resampling kernels
// (upsample.cc, upsample_aa.cc). Pure and thread-safe.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_UPSAMPLE_UTIL_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_UPSAMPLE_UTIL_H_

#include <cstdint>

namespace edgefleet {
namespace portable {

// ATen's compute_scales_value / area_pixel_compute_scale: input pixels per
// output pixel; `scale` is a given scale factor or <= 0 (none).
template <typename T>
T SourceScale(int64_t in_size, int64_t out_size, bool align_corners, double scale) {
  if (align_corners) {
    return out_size > 1 ? static_cast<T>(in_size - 1) / (out_size - 1) : T(0);
  }
  return scale > 0 ? static_cast<T>(1.0 / scale) : static_cast<T>(in_size) / out_size;
}

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_UPSAMPLE_UTIL_H_

// aten::grid_sampler_2d.out: samples an N x C x H x W input (any dim order)
// at the normalized (x, y) locations of an N x Hg x Wg x 2 grid, giving
// N x C x Hg x Wg. Interpolation 0 bilinear, 1 nearest, 2 bicubic; padding
// 0 zeros, 1 border, 2 reflection; align_corners either way; float32 and
// float64 (input and grid of one dtype). Coordinates, reflection and the
// cubic coefficients (A = -0.75) follow ATen's GridSampler.h, so results
// match torch to rounding.

#include <cmath>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/pool_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace portable {
namespace {

enum Interpolation : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

// [-1, 1] -> pixel coordinates.
template <typename T>
T Unnormalize(T coord, int64_t size, bool align_corners) {
  return align_corners ? (coord + 1) / 2 * (size - 1) : ((coord + 1) * size - 1) / 2;
}

template <typename T>
T Clip(T coord, int64_t size) {
  const T hi = static_cast<T>(size - 1);
  return coord < 0 ? T(0) : (coord > hi ? hi : coord);
}

// Reflects `in` into [twice_low / 2, twice_high / 2].
template <typename T>
T Reflect(T in, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return T(0);
  const T min = static_cast<T>(twice_low) / 2;
  const T span = static_cast<T>(twice_high - twice_low) / 2;
  in = std::fabs(in - min);
  const T extra = std::fmod(in, span);
  const int64_t flips = static_cast<int64_t>(std::floor(in / span));
  return flips % 2 == 0 ? extra + min : span - extra + min;
}

// Applies the padding mode to a pixel coordinate (ATen's compute_coordinates).
template <typename T>
T PadCoordinate(T coord, int64_t size, int64_t padding, bool align_corners) {
  if (padding == kBorder) return Clip(coord, size);
  if (padding == kReflection) {
    coord = align_corners ? Reflect(coord, 0, 2 * (size - 1)) : Reflect(coord, -1, 2 * size - 1);
    return Clip(coord, size);
  }
  return coord;
}

// A pixel coordinate as an index; NaN and coordinates far outside any plane
// map to an index that stays out of bounds after +-2 (no undefined casts).
template <typename T>
int64_t ToIndex(T coord) {
  constexpr int64_t kOutside = -(int64_t{1} << 40);
  return coord > T(-1e12) && coord < T(1e12) ? static_cast<int64_t>(coord) : kOutside;
}

// One input plane with its sizes and strides.
template <typename T>
struct Plane {
  const T* data;
  int64_t h, w, sh, sw;

  // The element at (y, x), or 0 outside the plane.
  T At(int64_t y, int64_t x) const {
    return y >= 0 && y < h && x >= 0 && x < w ? data[y * sh + x * sw] : T(0);
  }
};

template <typename T>
T CubicInterp(T x0, T x1, T x2, T x3, T t) {
  const T a = T(-0.75);
  auto near = [a](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [a](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  return x0 * far(t + 1) + x1 * near(t) + x2 * near(1 - t) + x3 * far(2 - t);
}

template <typename T>
T Sample(const Plane<T>& p, T gx, T gy, int64_t mode, int64_t padding, bool align_corners) {
  if (mode == kBicubic) {
    const T ix = Unnormalize(gx, p.w, align_corners);
    const T iy = Unnormalize(gy, p.h, align_corners);
    const T fx = std::floor(ix);
    const T fy = std::floor(iy);
    const T tx = ix - fx;
    const T ty = iy - fy;
    // A tap: the padding mode applied to the integer coordinate.
    auto tap = [&](T y, T x) {
      const T px = PadCoordinate(x, p.w, padding, align_corners);
      const T py = PadCoordinate(y, p.h, padding, align_corners);
      return p.At(ToIndex(py), ToIndex(px));
    };
    T rows[4];
    for (int i = 0; i < 4; ++i) {
      const T y = fy - 1 + i;
      rows[i] = CubicInterp(tap(y, fx - 1), tap(y, fx), tap(y, fx + 1), tap(y, fx + 2), tx);
    }
    return CubicInterp(rows[0], rows[1], rows[2], rows[3], ty);
  }
  const T ix = PadCoordinate(Unnormalize(gx, p.w, align_corners), p.w, padding, align_corners);
  const T iy = PadCoordinate(Unnormalize(gy, p.h, align_corners), p.h, padding, align_corners);
  if (mode == kNearest) {
    // std::nearbyint: round half to even, as ATen.
    return p.At(ToIndex(std::nearbyint(iy)), ToIndex(std::nearbyint(ix)));
  }
  const T x0 = std::floor(ix);
  const T y0 = std::floor(iy);
  const T x1 = x0 + 1;
  const T y1 = y0 + 1;
  const int64_t xi = ToIndex(x0);
  const int64_t yi = ToIndex(y0);
  return p.At(yi, xi) * ((x1 - ix) * (y1 - iy)) + p.At(yi, xi + 1) * ((ix - x0) * (y1 - iy)) +
         p.At(yi + 1, xi) * ((x1 - ix) * (iy - y0)) +
         p.At(yi + 1, xi + 1) * ((ix - x0) * (iy - y0));
}

}  // namespace

void GridSampler2dOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::grid_sampler_2d.out", raw, 7);
  Tensor* in = args.GetTensor(0);
  Tensor* grid = args.GetTensor(1);
  const int64_t mode = args.GetInt(2);
  const int64_t padding = args.GetInt(3);
  const bool align_corners = args.GetBool(4);
  Tensor* out = args.GetTensor(5);
  if (!args.ok()) return;
  if (in->dim() != 4 || grid->dim() != 4 || grid->size(3) != 2 || grid->size(0) != in->size(0)) {
    args.Fail(Error::kInvalidArgument,
              "input must be N x C x H x W and grid "
              "N x H_out x W_out x 2 (ranks %d and %d)",
              in->dim(), grid->dim());
    return;
  }
  if (mode < kBilinear || mode > kBicubic) {
    args.Fail(Error::kInvalidArgument,
              "interpolation_mode %lld is not 0 "
              "(bilinear), 1 (nearest) or 2 (bicubic)",
              static_cast<long long>(mode));
    return;
  }
  if (padding < kZeros || padding > kReflection) {
    args.Fail(Error::kInvalidArgument,
              "padding_mode %lld is not 0 (zeros), "
              "1 (border) or 2 (reflection)",
              static_cast<long long>(padding));
    return;
  }
  if (in->dtype() != grid->dtype() || in->dtype() != out->dtype()) {
    args.Fail(Error::kInvalidArgument,
              "input %s, grid %s and out %s dtypes "
              "differ",
              ScalarTypeName(in->dtype()), ScalarTypeName(grid->dtype()),
              ScalarTypeName(out->dtype()));
    return;
  }
  if (in->size(2) <= 0 || in->size(3) <= 0) {
    args.Fail(Error::kInvalidArgument,
              "input spatial sizes %dx%d must be "
              "positive",
              in->size(2), in->size(3));
    return;
  }
  const int32_t sizes[4] = {in->size(0), in->size(1), grid->size(1), grid->size(2)};
  if (!args.ResizeOut(*out, sizes, "out")) return;
  const bool ok = SwitchFloating(in->dtype(), [&](auto tag) {
    using T = decltype(tag);
    const Planes p = PlanesOf(*in);
    const Planes q = PlanesOf(*out);
    const T* x = in->data_as<const T>();
    const T* g = grid->data_as<const T>();
    T* y = out->data_as<T>();
    const int64_t gn = grid->stride(0), gh = grid->stride(1);
    const int64_t gw = grid->stride(2), gc = grid->stride(3);
    for (int64_t n = 0; n < q.n; ++n) {
      for (int64_t c = 0; c < q.c; ++c) {
        const Plane<T> plane{x + n * p.sn + c * p.sc, p.h, p.w, p.sh, p.sw};
        T* yp = y + n * q.sn + c * q.sc;
        for (int64_t oh = 0; oh < q.h; ++oh) {
          for (int64_t ow = 0; ow < q.w; ++ow) {
            const T* at = g + n * gn + oh * gh + ow * gw;
            yp[oh * q.sh + ow * q.sw] = Sample(plane, at[0], at[gc], mode, padding, align_corners);
          }
        }
      }
    }
  });
  if (!ok) {
    args.Fail(Error::kNotSupported,
              "dtype %s is not supported (float32 and "
              "float64 only)",
              ScalarTypeName(in->dtype()));
  }
}

}  // namespace portable
}  // namespace edgefleet

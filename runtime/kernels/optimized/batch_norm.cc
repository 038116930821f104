// aten::_native_batch_norm_legit_no_training.out for float32: per channel
// y = x * scale + shift, with scale and shift computed in double exactly as
// the portable kernel does, so results are bit-identical. NCHW-like inputs
// (default dim order, rank >= 2: every channel a contiguous run per batch)
// and channels-last ones (channels innermost: one scale/shift vector).

#include <algorithm>
#include <cmath>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

// Channels-last: floats per call of the affine body (a block of pixels).
constexpr int64_t kAffineBlockFloats = 512;

// y[i] = x[i] * scale[i * ss] + shift[i * ss] for i < n (ss 0 or 1).
template <int W>
struct AffineBody {
  [[gnu::always_inline]] static inline void Run(const float* x, float* y, int64_t n,
                                                const float* scale, const float* shift,
                                                int64_t ss) {
    using V = Vf<W>;
    int64_t i = 0;
    if (ss == 0) {
      const V a = Splat<W>(scale[0]), b = Splat<W>(shift[0]);
      for (; i + W <= n; i += W) Store<W>(y + i, Load<W>(x + i) * a + b);
    } else {
      for (; i + W <= n; i += W) {
        Store<W>(y + i, Load<W>(x + i) * Load<W>(scale + i) + Load<W>(shift + i));
      }
    }
    for (; i < n; ++i) y[i] = x[i] * scale[i * ss] + shift[i * ss];
  }
};

// A per-channel parameter: a float32 vector of `channels`, or absent.
bool ParamOk(Span<EValue* const> args, size_t i, int64_t channels, bool optional) {
  if (optional && PeekNone(args, i)) return true;
  const Tensor* t = PeekFloatTensor(args, i);
  return t != nullptr && t->dim() == 1 && t->size(0) == channels;
}

double Param(Span<EValue* const> args, size_t i, int64_t c, double fallback) {
  const Tensor* t = PeekTensor(args, i);
  return t == nullptr ? fallback : t->data_as<const float>()[c];
}

// save_mean / save_invstd: sized [0] in inference (as the portable kernel).
bool EmptyOut(Tensor& t) {
  if (t.numel() == 0 && t.dim() != 1) return true;
  const int32_t empty[1] = {0};
  return t.dim() == 1 && FitOut(t, empty, {});
}

bool TryBatchNorm(KernelContext& ctx, Span<EValue*> args) {
  if (!BatchNormSupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  Tensor& out = *PeekTensor(args, 7);
  const int64_t channels = in.size(1);
  const Tensor* inputs[1] = {&in};
  if (!ParamOk(args, 1, channels, true) || !ParamOk(args, 2, channels, true) ||
      !ParamOk(args, 3, channels, false) || !ParamOk(args, 4, channels, false) ||
      !FitOut(out, in.sizes(), inputs) || !EmptyOut(*PeekTensor(args, 8)) ||
      !EmptyOut(*PeekTensor(args, 9))) {
    return false;
  }
  double eps = 0;
  if (!args[5]->is_scalar()) {
    return false;
  } else if (args[6]->is_double()) {
    eps = args[6]->to_double();
  } else if (args[6]->is_int()) {
    eps = static_cast<double>(args[6]->to_int());
  } else {
    return false;
  }
  const int64_t numel = in.numel();
  if (numel == 0) return true;
  auto* params = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * 2 * channels, 64));
  if (params == nullptr) return false;
  float* scale = params;
  float* shift = params + channels;
  for (int64_t c = 0; c < channels; ++c) {
    const double invstd = 1.0 / std::sqrt(Param(args, 4, c, 1.0) + eps);
    const double scale_d = Param(args, 1, c, 1.0) * invstd;
    scale[c] = static_cast<float>(scale_d);
    shift[c] = static_cast<float>(Param(args, 2, c, 0.0) - Param(args, 3, c, 0.0) * scale_d);
  }
  const float* x = in.data_as<const float>();
  float* y = out.data_as<float>();
  const int threads = numel < kMinParallelElements ? 1 : ctx.num_threads();
  if (IsChannelsLast(in)) {
    // Blocks of pixels over the parameters repeated as often, so that a
    // call runs whole vectors rather than one short row per pixel.
    const int64_t pixels = numel / channels;
    const int64_t block = std::min(pixels, std::max<int64_t>(1, kAffineBlockFloats / channels));
    auto* repeated =
        static_cast<float*>(ctx.AllocateTemp(sizeof(float) * 2 * block * channels, 64));
    if (repeated == nullptr) return false;
    for (int64_t p = 0; p < block; ++p) {
      std::copy(scale, scale + channels, repeated + p * channels);
      std::copy(shift, shift + channels, repeated + (block + p) * channels);
    }
    ParallelFor((pixels + block - 1) / block, threads, [&](int64_t b) {
      const int64_t p0 = b * block, n = std::min(block, pixels - p0) * channels;
      RunVectorized<AffineBody>(x + p0 * channels, y + p0 * channels, n,
                                static_cast<const float*>(repeated),
                                static_cast<const float*>(repeated + block * channels), int64_t{1});
    });
  } else {
    const int64_t run = numel / (in.size(0) * channels);  // inner dims
    ParallelFor(numel / run, threads, [&](int64_t i) {
      const int64_t c = i % channels;
      RunVectorized<AffineBody>(x + i * run, y + i * run, run, static_cast<const float*>(scale + c),
                                static_cast<const float*>(shift + c), int64_t{0});
    });
  }
  return true;
}

}  // namespace

bool BatchNormSupports(Span<EValue* const> args) {
  if (args.size() != 11) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  const Tensor* out = PeekFloatTensor(args, 7);
  return in != nullptr && out != nullptr && in->dim() >= 2 && SameDimOrder(*in, *out) &&
         (in->IsDefaultDimOrder() || IsChannelsLast(*in)) && PeekTensor(args, 8) != nullptr &&
         PeekTensor(args, 9) != nullptr;
}

void BatchNormOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryBatchNorm(ctx, args)) {
    portable::NativeBatchNormNoTrainingOut(ctx, args);
  }
}

}  // namespace optimized
}  // namespace edgefleet

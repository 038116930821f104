// aten::max_pool2d_with_indices.out for float32 NCHW (or CHW) tensors in
// the default dim order: each plane is padded with -inf and split by
// column phase (phased_plane.h) so a window tap is one unit-stride vector
// load for W outputs. The comparison (v > best or v is NaN, first max
// kept) and the indices (h * W + w in the input plane) are the portable
// kernel's, so results are bit-identical. A channels-last input goes to
// max_pool_nhwc.h; an NCHW input with a channels-last out is pooled into a
// default-order copy and transposed.

#include <algorithm>
#include <cmath>

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/conv_layout_bridge.h"
#include "runtime/kernels/optimized/conv_operands.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/max_pool_nhwc.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/phased_plane.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"
#include "runtime/kernels/portable/pool_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr int64_t kMaxTaps = 64;
constexpr int64_t kMinParallelOutputs = 16 * 1024;

// One plane without NaN (the caller checks): with NaN out of the way,
// "v > best, or v is NaN" is just v > best. Indices are tracked as floats
// (exact below 2^24, which the caller checks) so that every select is a
// float select.
template <int W>
struct MaxPoolBody {
  [[gnu::always_inline]] static inline void Run(const ConvGeometry* g, const PhasedPlane* p,
                                                const int64_t* tap_offset, float* y,
                                                int64_t* indices) {
    using V = Vf<W>;
    V iota;
    for (int l = 0; l < W; ++l) iota[l] = static_cast<float>(l);
    const int64_t sh = g->stride[0], sw = g->stride[1];
    const V col_step = iota * static_cast<float>(sw);
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      const float* base = p->data + oh * sh * p->row_len;
      const int64_t h0 = oh * sh - g->pad[0];
      const int64_t first_h = FirstValid(h0, g->dilation[0]);
      for (int64_t ow = 0; ow < g->out_w; ow += W) {
        const int lanes = static_cast<int>(std::min<int64_t>(W, g->out_w - ow));
        const V col0 = col_step + static_cast<float>(ow * sw - g->pad[1]);
        // Start index: the first in-window position, as the portable
        // kernel (only windows over the left padding need the clamping).
        V best_index = col0 + static_cast<float>(first_h * g->in_w);
        if (ow * sw < g->pad[1]) {
          float start[W];
          for (int l = 0; l < W; ++l) {
            const int64_t w0 = (ow + l) * sw - g->pad[1];
            start[l] = static_cast<float>(first_h * g->in_w + FirstValid(w0, g->dilation[1]));
          }
          best_index = Load<W>(start);
        }
        V best = Splat<W>(-__builtin_inff());
        for (int64_t kh = 0; kh < g->k_h; ++kh) {
          const float row_index = static_cast<float>((h0 + kh * g->dilation[0]) * g->in_w);
          for (int64_t kw = 0; kw < g->k_w; ++kw) {
            const V v = Load<W>(base + tap_offset[kh * g->k_w + kw] + ow);
            const Vm<W> greater = v > best;
            best = Select<W>(greater, v, best);
            best_index = Select<W>(
                greater, col0 + (row_index + static_cast<float>(kw * g->dilation[1])), best_index);
          }
        }
        const Vl<W> index =
            __builtin_convertvector(__builtin_convertvector(best_index, Vm<W>), Vl<W>);
        float* yo = y + oh * g->out_w + ow;
        int64_t* io = indices + oh * g->out_w + ow;
        if (lanes == W) {
          Store<W>(yo, best);
          __builtin_memcpy(io, &index, sizeof(index));
        } else {
          float values[W];
          int64_t positions[W];
          Store<W>(values, best);
          __builtin_memcpy(positions, &index, sizeof(index));
          std::copy(values, values + lanes, yo);
          std::copy(positions, positions + lanes, io);
        }
      }
    }
  }
};

// *found = whether x[0..n) holds a NaN (or an infinity: x - x is NaN for
// both, and such planes just take the scalar path).
template <int W>
struct NanScan {
  [[gnu::always_inline]] static inline void Run(const float* x, int64_t n, bool* found) {
    Vf<W> acc = {};
    float tail = 0.0f;
    int64_t i = 0;
    for (; i + W <= n; i += W) {
      const Vf<W> v = Load<W>(x + i);
      acc += v - v;
    }
    for (; i < n; ++i) tail += x[i] - x[i];
    bool nan = tail != tail;
    for (int l = 0; l < W; ++l) nan |= acc[l] != acc[l];
    *found = nan;
  }
};

// One plane the portable kernel's way (planes with NaN or infinities).
void MaxPoolPlaneScalar(const ConvGeometry& g, const float* x, float* y, int64_t* indices) {
  for (int64_t oh = 0; oh < g.out_h; ++oh) {
    int64_t h0 = oh * g.stride[0] - g.pad[0];
    const int64_t h1 = std::min(h0 + (g.k_h - 1) * g.dilation[0] + 1, g.in_h);
    h0 = FirstValid(h0, g.dilation[0]);
    for (int64_t ow = 0; ow < g.out_w; ++ow) {
      int64_t w0 = ow * g.stride[1] - g.pad[1];
      const int64_t w1 = std::min(w0 + (g.k_w - 1) * g.dilation[1] + 1, g.in_w);
      w0 = FirstValid(w0, g.dilation[1]);
      int64_t best_index = h0 * g.in_w + w0;
      float best = -__builtin_inff();
      for (int64_t ih = h0; ih < h1; ih += g.dilation[0]) {
        for (int64_t iw = w0; iw < w1; iw += g.dilation[1]) {
          const float v = x[ih * g.in_w + iw];
          if (v > best || std::isnan(v)) {
            best = v;
            best_index = ih * g.in_w + iw;
          }
        }
      }
      y[oh * g.out_w + ow] = best;
      indices[oh * g.out_w + ow] = best_index;
    }
  }
}

// The window of the max pool `args` over `in` (rank 3 or 4: batch 1 for
// rank 3), or false for argument forms the kernels leave to the portable
// one (it reports errors).
bool MaxPoolWindowOf(Span<EValue*> args, const Tensor& in, ConvGeometry* g) {
  Span<const int64_t> lists[4];
  bool ceil_mode = false;
  for (int i = 0; i < 4; ++i) {
    if (!PeekIntList(args, 1 + i, &lists[i])) return false;
  }
  if (!PeekBool(args, 5, &ceil_mode)) return false;
  // kernel, stride (empty: = kernel), padding, dilation as [h, w].
  int64_t v[4][2];
  for (int i = 0; i < 4; ++i) {
    Span<const int64_t> l = lists[i];
    if (l.empty() && i == 1) {
      v[1][0] = v[0][0];
      v[1][1] = v[0][1];
      continue;
    }
    if (l.size() != 1 && l.size() != 2) return false;
    v[i][0] = l[0];
    v[i][1] = l[l.size() - 1];
  }
  const bool rank4 = in.dim() == 4;
  g->batch = rank4 ? in.size(0) : 1;
  g->in_c = g->out_c = g->groups = in.size(rank4 ? 1 : 0);
  g->in_h = in.size(in.dim() - 2);
  g->in_w = in.size(in.dim() - 1);
  g->k_h = v[0][0];
  g->k_w = v[0][1];
  for (int i = 0; i < 2; ++i) {
    g->stride[i] = v[1][i];
    g->pad[i] = v[2][i];
    g->dilation[i] = v[3][i];
  }
  g->out_h =
      portable::PoolOutSize(g->in_h, g->k_h, g->pad[0], g->stride[0], g->dilation[0], ceil_mode);
  g->out_w =
      portable::PoolOutSize(g->in_w, g->k_w, g->pad[1], g->stride[1], g->dilation[1], ceil_mode);
  return g->out_h >= 1 && g->out_w >= 1;
}

// Sizes `out` to the pool's output (false when it cannot be, or when it
// overlaps in).
bool FitMaxPoolOutput(const Tensor& in, const ConvGeometry& g, Tensor& out) {
  int32_t sizes[4] = {in.size(0), in.size(1), 0, 0};
  sizes[in.dim() - 2] = static_cast<int32_t>(g.out_h);
  sizes[in.dim() - 1] = static_cast<int32_t>(g.out_w);
  const Tensor* inputs[1] = {&in};
  return !Overlaps(out, in) && FitOut(out, {sizes, static_cast<size_t>(in.dim())}, inputs);
}

// The same for out and indices, which must not overlap either.
bool FitMaxPoolOutputs(const Tensor& in, const ConvGeometry& g, Tensor& out, Tensor& indices) {
  return !Overlaps(out, indices) && FitMaxPoolOutput(in, g, out) &&
         FitMaxPoolOutput(in, g, indices);
}

bool TryMaxPool(KernelContext& ctx, Span<EValue*> args) {
  if (!MaxPool2dSupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  Tensor& out = *PeekTensor(args, 6);
  Tensor& indices = *PeekTensor(args, 7);
  ConvGeometry g{};
  if (!MaxPoolWindowOf(args, in, &g) || g.taps() > kMaxTaps ||
      (g.in_h + 2 * g.pad[0]) * (g.in_w + 2 * g.pad[1]) > (1 << 24) ||
      !FitMaxPoolOutputs(in, g, out, indices)) {
    return false;
  }
  if (out.numel() == 0) return true;
  // Rows and columns far enough for the last window (ceil_mode may reach
  // past the padding).
  PhasedPlane plane = PhasedPlane::For(g);
  plane.rows = std::max(plane.rows, (g.out_h - 1) * g.stride[0] + (g.k_h - 1) * g.dilation[0] + 1);
  plane.row_len = std::max(
      plane.row_len, ((g.out_w - 1) * g.stride[1] + (g.k_w - 1) * g.dilation[1]) / g.stride[1] + 1);
  int64_t tap_offset[kMaxTaps];
  plane.TapOffsets(g, tap_offset);
  const int64_t planes = g.batch * g.in_c;
  const int threads = !ParallelismAvailable() || planes * g.out_pixels() < kMinParallelOutputs
                          ? 1
                          : static_cast<int>(std::min<int64_t>(
                                std::clamp(ctx.num_threads(), 1, ThreadPool::kMaxThreads), planes));
  const int64_t task_floats = plane.scratch_floats();
  auto* scratch = static_cast<float*>(ctx.AllocateTemp(sizeof(float) * task_floats * threads, 64));
  if (scratch == nullptr) return false;
  const int64_t chunk = (planes + threads - 1) / threads;
  const float* x = in.data_as<const float>();
  float* y = out.data_as<float>();
  int64_t* idx = indices.data_as<int64_t>();
  ParallelFor((planes + chunk - 1) / chunk, threads, [&](int64_t task) {
    PhasedPlane p = plane;
    p.data = scratch + task * task_floats;
    float* row = p.InitScratch();
    const int64_t end = std::min(planes, (task + 1) * chunk);
    for (int64_t i = task * chunk; i < end; ++i) {
      const float* plane_x = x + i * g.in_h * g.in_w;
      bool special = false;
      RunVectorized<NanScan>(plane_x, g.in_h * g.in_w, &special);
      if (special) {
        MaxPoolPlaneScalar(g, plane_x, y + i * g.out_pixels(), idx + i * g.out_pixels());
        continue;
      }
      BuildPhasedPlane(g, plane_x, -__builtin_inff(), p, row);
      RunVectorized<MaxPoolBody>(&g, static_cast<const PhasedPlane*>(&p),
                                 static_cast<const int64_t*>(tap_offset), y + i * g.out_pixels(),
                                 idx + i * g.out_pixels());
    }
  });
  return true;
}

}  // namespace

bool MaxPool2dSupports(Span<EValue* const> args) {
  if (args.size() != 9) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  const Tensor* out = PeekFloatTensor(args, 6);
  const Tensor* indices = PeekTensor(args, 7);
  return in != nullptr && out != nullptr && indices != nullptr &&
         indices->dtype() == ScalarType::kLong && (in->dim() == 3 || in->dim() == 4) &&
         in->IsDefaultDimOrder() && out->IsDefaultDimOrder() && indices->IsDefaultDimOrder();
}

namespace {

// A channels-last out over an NCHW input (a region's edge,
// channels_last_regions.h): the pool into a default-order copy in temp,
// then transposed into out.
bool TryMaxPoolChannelsLastOut(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 9) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  const Tensor* out = PeekFloatTensor(args, 6);
  if (in == nullptr || out == nullptr || in->dim() != 4 || !in->IsDefaultDimOrder() ||
      !IsChannelsLast(*out)) {
    return false;
  }
  void* data = ctx.AllocateTemp(out->nbytes() + 1, 64);
  if (data == nullptr) return false;
  int32_t sizes[4];
  uint8_t order[4] = {0, 1, 2, 3};
  int32_t strides[4];
  for (int d = 0; d < 4; ++d) sizes[d] = out->size(d);
  Tensor nchw(ScalarType::kFloat, 4, sizes, order, strides, data, ShapeDynamism::kStatic);
  EValue value = EValue::FromTensor(&nchw);
  EValue* call[9];
  for (int i = 0; i < 9; ++i) call[i] = args[i];
  call[6] = &value;
  if (!TryMaxPool(ctx, Span<EValue*>(call, 9))) return false;
  ToChannelsLast(*out, static_cast<const float*>(data), out->data_as<float>(), ctx.num_threads());
  return true;
}

// A channels-last input (a region's tensor): max_pool_nhwc.h, writing out
// in its own dim order, and the indices (args[7]) unless `values_only`;
// windows of at most kMaxTaps taps (a larger one goes to the portable
// kernel, which checks its arguments first).
bool TryMaxPoolChannelsLastIn(KernelContext& ctx, Span<EValue*> args, bool values_only) {
  if (args.size() != (values_only ? 8 : 9)) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  Tensor* out = PeekFloatTensor(args, 6);
  Tensor* indices = values_only ? nullptr : PeekTensor(args, 7);
  ConvGeometry g{};
  if (in == nullptr || out == nullptr || in->dim() != 4 || !IsChannelsLast(*in) ||
      out->dim() != 4 || !MaxPoolWindowOf(args, *in, &g) || g.taps() > kMaxTaps ||
      g.in_h * g.in_w > (1 << 24)) {
    return false;
  }
  if (values_only) return FitMaxPoolOutput(*in, g, *out) && MaxPoolNhwc(ctx, g, *in, *out, nullptr);
  return indices != nullptr && indices->dim() == 4 && indices->dtype() == ScalarType::kLong &&
         FitMaxPoolOutputs(*in, g, *out, *indices) && MaxPoolNhwc(ctx, g, *in, *out, indices);
}

}  // namespace

void MaxPool2dWithIndicesOut(KernelContext& ctx, Span<EValue*> args) {
  if (TryMaxPoolChannelsLastIn(ctx, args, false)) return;
  if (TryMaxPoolChannelsLastOut(ctx, args)) return;
  if (!TryMaxPool(ctx, args)) portable::MaxPool2dWithIndicesOut(ctx, args);
}

void MaxPool2dValuesOut(KernelContext& ctx, Span<EValue*> args) {
  if (TryMaxPoolChannelsLastIn(ctx, args, true)) return;
  // Elsewhere the with-indices kernel, the indices in temp memory as large
  // as out may grow.
  Tensor* out = args.size() == 8 ? PeekTensor(args, 6) : nullptr;
  if (out == nullptr || out->dim() > 4) {
    SetErrorDetail(
        "edgefleet::max_pool2d_values.out: expected (in, kernel, stride, padding, "
        "dilation, ceil_mode, out, ret) with a tensor out of rank <= 4");
    ctx.Fail(Error::kInvalidArgument);
    return;
  }
  const int64_t capacity = std::max<int64_t>(out->numel_bound(), out->numel());
  void* data = ctx.AllocateTemp(sizeof(int64_t) * std::max<int64_t>(capacity, 1), 64);
  if (data == nullptr) {
    SetErrorDetail("edgefleet::max_pool2d_values.out: no temp memory for %lld indices",
                   static_cast<long long>(capacity));
    ctx.Fail(Error::kMemoryAllocationFailed);
    return;
  }
  int32_t sizes[4];
  uint8_t order[4] = {0, 1, 2, 3};
  int32_t strides[4];
  for (int d = 0; d < out->dim(); ++d) sizes[d] = out->size(d);
  Tensor indices(ScalarType::kLong, out->dim(), sizes, order, strides, data,
                 ShapeDynamism::kDynamicBound);
  indices.set_numel_bound(capacity);
  EValue value = EValue::FromTensor(&indices);
  EValue* call[9];
  for (int i = 0; i < 7; ++i) call[i] = args[i];
  call[7] = &value;
  call[8] = args[7];
  MaxPool2dWithIndicesOut(ctx, Span<EValue*>(call, 9));
}

}  // namespace optimized
}  // namespace edgefleet

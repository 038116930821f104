#include "runtime/backends/xnnpack/int8_dense_nodes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/backends/xnnpack/dense_nodes.h"
#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/int8_depthwise_nhwc.h"
#include "runtime/kernels/optimized/int8_pointwise_nhwc.h"
#include "runtime/kernels/optimized/thread_pool.h"

namespace edgefleet {
namespace xnnpack {
namespace {

using optimized::Int8PointwisePackedBytes;
using optimized::Int8PointwiseUnitsPadded;

constexpr size_t kAlign = 64;
// Fewest multiply-adds a thread takes when a node splits over the threads.
constexpr int64_t kMinRangeMacs = int64_t{1} << 18;
// Scratch for the patches of a convolution with a window, per block of
// output pixels.
constexpr size_t kMaxPatchBytes = size_t{1} << 20;

size_t RoundUp(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// The packed filter of a convolution: per output channel (padded to whole
// panels) the correction and the requantization scale, then the weight
// panels (optimized::PackInt8Pointwise). A depthwise convolution's is
// optimized::PackInt8Depthwise's blob (total only).
struct Layout {
  size_t units, depth, units_padded;
  size_t correction, scale, weights, total;  // byte offsets, total size
};

bool IsDepthwise(const Node& n) { return n.type == NodeType::kDepthwiseConv2d; }

// Output channels and the weights per channel: a convolution's OHWI filter
// has (kh, kw, in channel) per unit, a depthwise [1, kh, kw, C] filter a
// tap per channel.
size_t Units(const Value& w, const Node& n) { return IsDepthwise(n) ? w.dims[3] : w.dims[0]; }
size_t Depth(const Value& w, const Node& n) {
  return IsDepthwise(n) ? w.dims[1] * w.dims[2] : w.dims[1] * w.dims[2] * w.dims[3];
}
int8_t Weight(const int8_t* wq, const Value& w, const Node& n, size_t c, size_t k) {
  return IsDepthwise(n) ? wq[k * w.dims[3] + c] : wq[c * Depth(w, n) + k];
}

Layout LayoutOf(const Graph& g, const Node& n) {
  const Value& w = g.values[n.inputs[1]];
  Layout l{};
  l.units = Units(w, n);
  l.depth = Depth(w, n);
  if (IsDepthwise(n)) {  // corrections and scales inside the kernel's blob
    l.total = optimized::Int8DepthwisePackedBytes(static_cast<int64_t>(l.units),
                                                  static_cast<int64_t>(l.depth));
    return l;
  }
  l.units_padded = static_cast<size_t>(Int8PointwiseUnitsPadded(static_cast<int64_t>(l.units)));
  l.correction = 0;
  l.scale = l.correction + RoundUp(l.units_padded * sizeof(int32_t));
  l.weights = l.scale + RoundUp(l.units_padded * sizeof(float));
  l.total = l.weights + RoundUp(Int8PointwisePackedBytes(static_cast<int64_t>(l.units),
                                                         static_cast<int64_t>(l.depth)));
  return l;
}

// XNNPACK's requantization scale of output channel c, in float as it
// computes it.
float RequantizationScale(const Value& x, const Value& w, const Value& y, size_t c) {
  const float w_scale = w.quant == QuantKind::kPerChannel ? w.channel_scales[c] : w.scale;
  return x.scale * w_scale / y.scale;
}

// A bound of the node's output range in the output's quantization, as
// XNNPACK quantizes it (NaN and infinities end at the int8 limits).
int32_t QuantizedBound(float v, const Value& y) {
  float q = v / y.scale + static_cast<float>(y.zero_point);
  q = std::fmin(std::fmax(q, -128.0f), 127.0f);
  return static_cast<int32_t>(std::lrintf(q));
}

}  // namespace

bool Int8DenseKernelPreferred(const Graph& g, const Node& n) {
  if (!optimized::Int8PointwiseAvailable()) return false;
  const bool conv = n.type == NodeType::kConv2d && n.window.groups == 1;
  if ((!conv && !IsDepthwise(n)) || n.flags != 0 || n.inputs.size() != 3 || n.outputs.size() != 1 ||
      n.inputs[0] == kInvalidId || n.inputs[1] == kInvalidId) {
    return false;
  }
  const Value& x = g.values[n.inputs[0]];
  const Value& w = g.values[n.inputs[1]];
  const Value& y = g.values[n.outputs[0]];
  if (!x.is_per_tensor_qint8() || !y.is_per_tensor_qint8() || !w.is_constant() ||
      w.dims.size() != 4 || w.dims[1] != n.window.kernel_h || w.dims[2] != n.window.kernel_w ||
      w.dims[0] == 0 || w.dims[3] == 0 || w.dims[3] > kMaxInt8DenseDepth ||
      w.dims[1] * w.dims[2] > kMaxInt8DenseDepth / w.dims[3]) {
    return false;
  }
  // Depthwise: one channel per group (no depth multiplier), a window of at
  // most the kernel's taps.
  if (IsDepthwise(n) &&
      (w.dims[0] != 1 || n.window.group_output_channels != 1 ||
       w.dims[1] * w.dims[2] > static_cast<size_t>(optimized::kInt8DepthwiseMaxTaps))) {
    return false;
  }
  const size_t units = Units(w, n);
  const uint32_t channel_dim = IsDepthwise(n) ? 3 : 0;
  const bool per_channel = w.type == DataType::kQcint8 && w.quant == QuantKind::kPerChannel &&
                           w.channel_dim == channel_dim && w.channel_scales.size() == units;
  const bool per_tensor =
      w.type == DataType::kQint8 && w.quant == QuantKind::kPerTensor && w.zero_point == 0;
  if (!per_channel && !per_tensor) return false;
  if (n.inputs[2] != kInvalidId) {
    const Value& b = g.values[n.inputs[2]];
    if (!b.is_constant() || (b.type != DataType::kQint32 && b.type != DataType::kQcint32) ||
        b.numel() != units) {
      return false;
    }
  }
  for (size_t c = 0; c < units; ++c) {
    const float s = RequantizationScale(x, w, y, c);
    if (!(s > 0.0f && s < 256.0f)) return false;
  }
  return true;
}

size_t PackedInt8FilterBytes(const Graph& g, const Node& n) { return LayoutOf(g, n).total; }

void PackInt8DenseFilter(const Graph& g, const Node& n, void* dst) {
  const Layout l = LayoutOf(g, n);
  const Value& x = g.values[n.inputs[0]];
  const Value& w = g.values[n.inputs[1]];
  const Value& y = g.values[n.outputs[0]];
  const auto* wq = static_cast<const int8_t*>(w.data);
  const auto* bias =
      n.inputs[2] == kInvalidId ? nullptr : static_cast<const int32_t*>(g.values[n.inputs[2]].data);
  std::vector<int32_t> correction(l.units);
  std::vector<float> scale(l.units);
  for (size_t c = 0; c < l.units; ++c) {
    int64_t sum = 0;
    for (size_t k = 0; k < l.depth; ++k) sum += Weight(wq, w, n, c, k);
    // The kernels sum (x + 128) * w; XNNPACK's sum is bias + (x - zx) * w,
    // both wrapping in 32 bits.
    const int64_t folded = (bias != nullptr ? bias[c] : 0) - (128 + int64_t{x.zero_point}) * sum;
    correction[c] = static_cast<int32_t>(static_cast<uint32_t>(folded));
    scale[c] = RequantizationScale(x, w, y, c);
  }
  auto* base = static_cast<uint8_t*>(dst);
  if (IsDepthwise(n)) {
    optimized::PackInt8Depthwise(wq, correction.data(), scale.data(), static_cast<int64_t>(l.units),
                                 static_cast<int64_t>(l.depth), base);
    return;
  }
  std::memset(base, 0, l.weights);
  std::memcpy(base + l.correction, correction.data(), l.units * sizeof(int32_t));
  std::memcpy(base + l.scale, scale.data(), l.units * sizeof(float));
  optimized::PackInt8Pointwise(wq, static_cast<int64_t>(l.units), static_cast<int64_t>(l.depth),
                               reinterpret_cast<int8_t*>(base + l.weights));
}

Error RunInt8DenseNode(KernelContext& ctx, const Graph& g, const Node& n,
                       const std::vector<Dims>& dims, const void* const* in, void* const* out,
                       const void* packed) {
  const Layout l = LayoutOf(g, n);
  const Value& x_value = g.values[n.inputs[0]];
  const Value& y = g.values[n.outputs[0]];
  const Dims& yd = dims[n.outputs[0]];
  const int64_t depth = static_cast<int64_t>(l.depth);
  const int64_t units = static_cast<int64_t>(l.units);
  const int64_t pixels =
      static_cast<int64_t>(yd[0]) * static_cast<int64_t>(yd[1]) * static_cast<int64_t>(yd[2]);
  const auto* base = static_cast<const uint8_t*>(packed);
  optimized::Int8PointwiseParams q;
  q.correction = reinterpret_cast<const int32_t*>(base + l.correction);
  q.scale = reinterpret_cast<const float*>(base + l.scale);
  q.out_zero_point = y.zero_point;
  q.out_min = QuantizedBound(n.output_min, y);
  q.out_max = std::max(q.out_min, QuantizedBound(n.output_max, y));
  const auto* w = reinterpret_cast<const int8_t*>(base + l.weights);
  const auto* x = static_cast<const int8_t*>(in[0]);
  auto* out_q = static_cast<int8_t*>(out[0]);
  const int64_t grain = std::max<int64_t>(1, kMinRangeMacs / std::max<int64_t>(1, units * depth));
  if (IsDepthwise(n)) {
    // Taps outside the input read a row of the input zero point.
    const size_t pad_bytes = RoundUp(static_cast<size_t>(units));
    auto* pad_row = static_cast<int8_t*>(ctx.AllocateTemp(pad_bytes, kAlign));
    EF_CHECK_OR_RETURN(pad_row != nullptr, Error::kMemoryAllocationFailed,
                       "xnnpack: %s: kernel scratch memory exhausted", NodeTypeName(n.type));
    std::memset(pad_row, x_value.zero_point, pad_bytes);
    const optimized::ConvGeometry geometry = ConvGeometryOf(n, dims);
    optimized::ParallelForRanges(pixels, grain, ctx.num_threads(), [&](int64_t p0, int64_t p1) {
      optimized::Int8DepthwiseRows(geometry, x, pad_row, base, q.out_zero_point, q.out_min,
                                   q.out_max, out_q, p0, p1);
    });
    return Error::kOk;
  }
  if (IsPointwiseConv(n)) {  // the pixels' rows are the GEMM's rows
    optimized::ParallelForRanges(pixels, grain, ctx.num_threads(), [&](int64_t p0, int64_t p1) {
      optimized::Int8PointwiseRows(x, depth, w, units, q, out_q, p0, p1);
    });
    return Error::kOk;
  }
  // A window: each block of output pixels gathers its patches, padding
  // read as the input zero point, in rows rounded up to whole 4-byte groups
  // (zeros, against the filter's zero padding), then runs as pointwise rows.
  const optimized::ConvGeometry geometry = ConvGeometryOf(n, dims);
  const auto pad_value = static_cast<int8_t>(x_value.zero_point);
  const int64_t row_bytes = (depth + 3) / 4 * 4;
  const int64_t block = std::max<int64_t>(
      1, std::min<int64_t>(pixels, static_cast<int64_t>(kMaxPatchBytes) / row_bytes));
  auto* patches =
      static_cast<int8_t*>(ctx.AllocateTemp(static_cast<size_t>(block * row_bytes), kAlign));
  EF_CHECK_OR_RETURN(patches != nullptr || pixels == 0, Error::kMemoryAllocationFailed,
                     "xnnpack: %s: kernel scratch memory exhausted", NodeTypeName(n.type));
  for (int64_t b0 = 0; b0 < pixels; b0 += block) {
    const int64_t rows = std::min(block, pixels - b0);
    optimized::ParallelForRanges(rows, grain, ctx.num_threads(), [&](int64_t p0, int64_t p1) {
      optimized::GatherInt8Patches(geometry, pad_value, x, b0 + p0, b0 + p1, row_bytes,
                                   patches + p0 * row_bytes);
      optimized::Int8PointwiseRows(patches, row_bytes, w, units, q, out_q + b0 * units, p0, p1);
    });
  }
  return Error::kOk;
}

}  // namespace xnnpack
}  // namespace edgefleet

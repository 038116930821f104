#include "runtime/backends/xnnpack/int8_dense_nodes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/backends/xnnpack/dense_nodes.h"
#include "runtime/core/error_detail.h"
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

// The packed filter: per output channel (padded to whole panels) the
// correction and the requantization scale, then the weight panels
// (optimized::PackInt8Pointwise).
struct Layout {
  size_t units, depth, units_padded;
  size_t correction, scale, weights, total;  // byte offsets, total size
};

Layout LayoutOf(const Graph& g, const Node& n) {
  const Value& w = g.values[n.inputs[1]];
  Layout l{};
  l.units = w.dims[0];
  l.depth = w.dims[1] * w.dims[2] * w.dims[3];  // OHWI: (kh, kw, in channel) per unit
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

bool IsPerTensorInt8(const Value& v) {
  return v.type == DataType::kQint8 && v.quant == QuantKind::kPerTensor && v.zero_point >= -128 &&
         v.zero_point <= 127 && std::isfinite(v.scale) && v.scale > 0;
}

}  // namespace

bool Int8DenseKernelPreferred(const Graph& g, const Node& n) {
  if (!optimized::Int8PointwiseAvailable()) return false;
  if (n.type != NodeType::kConv2d || n.window.groups != 1 || n.flags != 0 || n.inputs.size() != 3 ||
      n.outputs.size() != 1 || n.inputs[0] == kInvalidId || n.inputs[1] == kInvalidId) {
    return false;
  }
  const Value& x = g.values[n.inputs[0]];
  const Value& w = g.values[n.inputs[1]];
  const Value& y = g.values[n.outputs[0]];
  if (!IsPerTensorInt8(x) || !IsPerTensorInt8(y) || !w.is_constant() || w.dims.size() != 4 ||
      w.dims[1] != n.window.kernel_h || w.dims[2] != n.window.kernel_w || w.dims[0] == 0 ||
      w.dims[3] == 0 || w.dims[3] > kMaxInt8DenseDepth ||
      w.dims[1] * w.dims[2] > kMaxInt8DenseDepth / w.dims[3]) {
    return false;
  }
  const bool per_channel = w.type == DataType::kQcint8 && w.quant == QuantKind::kPerChannel &&
                           w.channel_dim == 0 && w.channel_scales.size() == w.dims[0];
  const bool per_tensor =
      w.type == DataType::kQint8 && w.quant == QuantKind::kPerTensor && w.zero_point == 0;
  if (!per_channel && !per_tensor) return false;
  if (n.inputs[2] != kInvalidId) {
    const Value& b = g.values[n.inputs[2]];
    if (!b.is_constant() || (b.type != DataType::kQint32 && b.type != DataType::kQcint32) ||
        b.numel() != w.dims[0]) {
      return false;
    }
  }
  for (size_t c = 0; c < w.dims[0]; ++c) {
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
  auto* base = static_cast<uint8_t*>(dst);
  auto* correction = reinterpret_cast<int32_t*>(base + l.correction);
  auto* scale = reinterpret_cast<float*>(base + l.scale);
  std::memset(base, 0, l.weights);
  for (size_t c = 0; c < l.units; ++c) {
    int64_t sum = 0;
    for (size_t k = 0; k < l.depth; ++k) sum += wq[c * l.depth + k];
    // The kernel sums (x + 128) * w; XNNPACK's sum is bias + (x - zx) * w,
    // both wrapping in 32 bits.
    const int64_t folded = (bias != nullptr ? bias[c] : 0) - (128 + int64_t{x.zero_point}) * sum;
    correction[c] = static_cast<int32_t>(static_cast<uint32_t>(folded));
    scale[c] = RequantizationScale(x, w, y, c);
  }
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

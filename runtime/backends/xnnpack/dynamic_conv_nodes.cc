#include "runtime/backends/xnnpack/dynamic_conv_nodes.h"

#include <algorithm>
#include <cstdint>

#include "runtime/backends/xnnpack/dense_nodes.h"
#include "runtime/backends/xnnpack/node_kernels.h"

namespace edgefleet {
namespace xnnpack {
namespace {

// Index of filter element (output channel oc, tap ky, kx, group input
// channel ci) in the node's filter layout: [OC, KH, KW, IC / groups], or
// depthwise [1, KH, KW, OC] (one input channel per output channel).
size_t FilterIndex(const Node& n, size_t oc, size_t ky, size_t kx, size_t ci, size_t out_c) {
  const WindowParams& p = n.window;
  if (n.type == NodeType::kDepthwiseConv2d) return (ky * p.kernel_w + kx) * out_c + oc;
  return ((oc * p.kernel_h + ky) * p.kernel_w + kx) * p.group_input_channels + ci;
}

// Output channels per group and input channels each reads.
size_t GroupOutputChannels(const Node& n, size_t out_c) {
  return n.type == NodeType::kDepthwiseConv2d ? out_c / n.window.groups
                                              : n.window.group_output_channels;
}
size_t GroupInputChannels(const Node& n) {
  return n.type == NodeType::kDepthwiseConv2d ? 1 : n.window.group_input_channels;
}

}  // namespace

void QuantizePointwiseInputsPerPixel(Graph& g) {
  for (const Node& convert : g.nodes) {
    if (convert.type != NodeType::kConvert) continue;
    Value& q = g.values[convert.outputs[0]];
    if (q.type != DataType::kQdint8 || q.quant != QuantKind::kPerToken || q.dims.size() != 4 ||
        q.is_external()) {
      continue;
    }
    bool all_pointwise = true, any = false;
    for (const Node& n : g.nodes) {
      for (uint32_t id : n.inputs) {
        if (id != q.id) continue;
        any = true;
        all_pointwise = all_pointwise && IsPointwiseConv(n) && n.inputs[0] == q.id;
      }
    }
    if (any && all_pointwise) q.num_nonbatch_dims = 1;
  }
}

bool DynamicConvolutionSupports(const Graph& g, const Node& n) {
  if (n.type != NodeType::kConv2d && n.type != NodeType::kDepthwiseConv2d &&
      n.type != NodeType::kConvTranspose2d) {
    return false;
  }
  const Value& x = g.values[n.inputs[0]];
  const Value& w = g.values[n.inputs[1]];
  const Value& y = g.values[n.outputs[0]];
  const uint32_t channel_dim = n.type == NodeType::kDepthwiseConv2d ? 3 : 0;
  const bool bias_ok = n.inputs[2] == kInvalidId || g.values[n.inputs[2]].type == DataType::kFp32;
  return x.type == DataType::kQdint8 && x.quant == QuantKind::kPerToken &&
         (x.num_nonbatch_dims >= 3 || (x.num_nonbatch_dims == 1 && IsPointwiseConv(n))) &&
         w.type == DataType::kQcint8 && w.quant == QuantKind::kPerChannel && w.is_constant() &&
         w.channel_dim == channel_dim && w.dims.size() == 4 &&
         w.channel_scales.size() == w.dims[channel_dim] && bias_ok && y.type == DataType::kFp32;
}

bool RunDynamicConvolution(KernelContext& ctx, const Graph& g, const Node& n,
                           const std::vector<Dims>& dims, const void* x, const void* w,
                           const void* b, float* y) {
  const Value& xv = g.values[n.inputs[0]];
  const Value& wv = g.values[n.inputs[1]];
  const WindowParams& p = n.window;
  const Dims& xd = dims[n.inputs[0]];
  const Dims& yd = dims[n.outputs[0]];
  const size_t ih = xd[1], iw = xd[2], ic = xd[3];
  const size_t oh = yd[1], ow = yd[2], oc = yd[3];
  const size_t image = ih * iw * ic;
  const size_t x_numel = xd[0] * image;
  // Rows hold whole images (num_nonbatch_dims >= 3): row of image i.
  const size_t nonbatch = std::min(static_cast<size_t>(xv.num_nonbatch_dims), xd.size());
  size_t row_elems = 1;
  for (size_t d = xd.size() - nonbatch; d < xd.size(); ++d) row_elems *= xd[d];
  const auto* q = static_cast<const int8_t*>(x);
  const auto* params = reinterpret_cast<const RowQuant*>(q + ((x_numel + 7) & ~size_t{7}));
  const auto* wq = static_cast<const int8_t*>(w);
  const auto* bias = static_cast<const float*>(b);
  const size_t goc = GroupOutputChannels(n, oc), gic = GroupInputChannels(n);
  const size_t plane = oh * ow * oc;
  int64_t* acc = static_cast<int64_t*>(
      ctx.AllocateTemp(std::max<size_t>(plane, 1) * sizeof(int64_t), alignof(int64_t)));
  if (acc == nullptr) return false;
  for (size_t bi = 0; bi < xd[0]; ++bi) {
    // Whole images per row, or (pointwise) one pixel: output pixel i reads
    // input pixel i, of row bi * ih * iw + i.
    const bool per_pixel = row_elems < image;
    const RowQuant rq = params[per_pixel || row_elems == 0 ? 0 : bi * image / row_elems];
    const RowQuant* pixel_rows = params + bi * ih * iw;
    const int8_t* xb = q + bi * image;
    std::fill(acc, acc + plane, int64_t{0});
    // Every (input pixel, tap) pair that meets an output pixel: forward
    // convolutions gather, transposed ones scatter; the same sums.
    const bool transposed = n.type == NodeType::kConvTranspose2d;
    const size_t outer_h = transposed ? ih : oh, outer_w = transposed ? iw : ow;
    for (size_t a = 0; a < outer_h; ++a) {
      for (size_t bx = 0; bx < outer_w; ++bx) {
        for (size_t ky = 0; ky < p.kernel_h; ++ky) {
          for (size_t kx = 0; kx < p.kernel_w; ++kx) {
            int64_t iy, ix, oy, ox;
            if (transposed) {
              iy = static_cast<int64_t>(a);
              ix = static_cast<int64_t>(bx);
              oy = static_cast<int64_t>(a * p.stride_h + ky * p.dilation_h) - p.pad_top;
              ox = static_cast<int64_t>(bx * p.stride_w + kx * p.dilation_w) - p.pad_left;
            } else {
              oy = static_cast<int64_t>(a);
              ox = static_cast<int64_t>(bx);
              iy = static_cast<int64_t>(a * p.stride_h + ky * p.dilation_h) - p.pad_top;
              ix = static_cast<int64_t>(bx * p.stride_w + kx * p.dilation_w) - p.pad_left;
            }
            if (iy < 0 || ix < 0 || oy < 0 || ox < 0 || iy >= static_cast<int64_t>(ih) ||
                ix >= static_cast<int64_t>(iw) || oy >= static_cast<int64_t>(oh) ||
                ox >= static_cast<int64_t>(ow)) {
              continue;
            }
            const size_t pixel = static_cast<size_t>(iy) * iw + static_cast<size_t>(ix);
            const int32_t zero_point = per_pixel ? pixel_rows[pixel].zero_point : rq.zero_point;
            const int8_t* xp = xb + pixel * ic;
            int64_t* ap = acc + (static_cast<size_t>(oy) * ow + static_cast<size_t>(ox)) * oc;
            for (size_t c = 0; c < oc; ++c) {
              const int8_t* xg = xp + (c / goc) * gic;
              int64_t sum = 0;
              for (size_t ci = 0; ci < gic; ++ci) {
                sum += int64_t{xg[ci] - zero_point} * wq[FilterIndex(n, c, ky, kx, ci, oc)];
              }
              ap[c] += sum;
            }
          }
        }
      }
    }
    float* yb = y + bi * plane;
    for (size_t i = 0; i < plane; ++i) {
      const size_t c = i % oc;
      const float scale = per_pixel ? pixel_rows[i / oc].scale : rq.scale;
      const float v = static_cast<float>(acc[i]) * scale * wv.channel_scales[c] +
                      (bias != nullptr ? bias[c] : 0.0f);
      yb[i] = std::min(std::max(v, n.output_min), n.output_max);
    }
  }
  return true;
}

}  // namespace xnnpack
}  // namespace edgefleet

#include "runtime/backends/xnnpack/node_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/backends/xnnpack/data_movement_nodes.h"
#include "runtime/backends/xnnpack/dynamic_conv_nodes.h"
#include "runtime/backends/xnnpack/float_binary_nodes.h"
#include "runtime/backends/xnnpack/global_pooling_nodes.h"
#include "runtime/backends/xnnpack/int8_dot.h"
#include "runtime/backends/xnnpack/int8_saturate.h"
#include "runtime/backends/xnnpack/int8_table_nodes.h"
#include "runtime/backends/xnnpack/unit_pooling_nodes.h"
#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/activation.h"
#include "runtime/kernels/optimized/gemm.h"

namespace edgefleet {
namespace xnnpack {
namespace {

const Value& In(const Graph& g, const Node& n, size_t i) { return g.values[n.inputs[i]]; }
const Value& Out(const Graph& g, const Node& n, size_t i) { return g.values[n.outputs[i]]; }

bool IsStaticInt8(const Value& v) {
  return v.type == DataType::kQint8 && v.quant == QuantKind::kPerTensor;
}

// Constant int8 weights, per channel along `channel_dim` or per tensor.
bool Int8Weights(const Value& w, uint32_t channel_dim) {
  return w.is_constant() && ((w.type == DataType::kQcint8 && w.quant == QuantKind::kPerChannel &&
                              w.channel_dim == channel_dim) ||
                             (w.type == DataType::kQint8 && w.quant == QuantKind::kPerTensor));
}

// No bias, or a constant int32 one.
bool Int32BiasOk(const Graph& g, const Node& n) {
  if (n.inputs[2] == kInvalidId) return true;
  const Value& b = In(g, n, 2);
  return (b.type == DataType::kQint32 || b.type == DataType::kQcint32) && b.is_constant();
}

// Rows of a per-token quantized value: all but its last num_nonbatch_dims dims.
size_t TokenRows(const Value& v, const Dims& d) {
  const size_t nonbatch = static_cast<size_t>(v.num_nonbatch_dims);
  return Product(d, 0, d.size() - std::min(nonbatch, d.size()));
}

// c[b] = a[b] (m x k) * b[b] (k x n), row-major, on the optimized GEMM (false: no scratch).
bool BatchMatMul(KernelContext& ctx, const Node& n, const std::vector<Dims>& dims, const float* a,
                 const float* b, float* c) {
  const Dims& va = dims[n.inputs[0]];
  const Dims& vb = dims[n.inputs[1]];
  const size_t r = va.size();
  const int64_t m = static_cast<int64_t>(va[r - 2]), k = static_cast<int64_t>(va[r - 1]),
                cols = static_cast<int64_t>(vb[r - 1]);
  const size_t batch = Product(va, 0, r - 2);
  for (size_t i = 0; i < batch; ++i) {
    const optimized::StridedOperand av(a + i * m * k, k, 1);
    const optimized::StridedOperand bv(b + i * k * cols, 1, cols);
    if (!optimized::Gemm(ctx, m, cols, k, av, bv, c + i * m * cols, cols, false)) return false;
  }
  return true;
}

// softmax(q k^T * scale + mask) v per batch; scores from ctx (false when exhausted).
bool Attention(KernelContext& ctx, const Node& n, const std::vector<Dims>& dims,
               const void* const* in, float* out) {
  const Dims& q = dims[n.inputs[0]];
  const Dims& k = dims[n.inputs[1]];
  const Dims& v = dims[n.inputs[2]];
  const size_t r = q.size();
  const size_t L = q[r - 2], D = q[r - 1], S = k[r - 2], Dv = v[r - 1];
  const size_t batch = Product(q, 0, r - 2);
  const float scale = *static_cast<const float*>(in[3]);
  const float* mask = static_cast<const float*>(in[4]);
  auto* scores = static_cast<float*>(ctx.AllocateTemp(std::max<size_t>(S, 1) * sizeof(float)));
  if (scores == nullptr) return false;
  for (size_t b = 0; b < batch; ++b) {
    const float* qb = static_cast<const float*>(in[0]) + b * L * D;
    const float* kb = static_cast<const float*>(in[1]) + b * S * D;
    const float* vb = static_cast<const float*>(in[2]) + b * S * Dv;
    float* ob = out + b * L * Dv;
    for (size_t i = 0; i < L; ++i) {
      float max = -INFINITY;
      for (size_t j = 0; j < S; ++j) {
        float dot = 0;
        for (size_t d = 0; d < D; ++d) dot += qb[i * D + d] * kb[j * D + d];
        scores[j] = dot * scale + mask[i * S + j];
        max = std::max(max, scores[j]);
      }
      float sum = 0;
      for (size_t j = 0; j < S; ++j) {
        scores[j] = std::exp(scores[j] - max);
        sum += scores[j];
      }
      float* o = ob + i * Dv;
      std::fill(o, o + Dv, 0.0f);
      for (size_t j = 0; j < S; ++j) {
        const float w = scores[j] / sum;
        for (size_t d = 0; d < Dv; ++d) o[d] += w * vb[j * Dv + d];
      }
    }
  }
  return true;
}

// y = x where x >= 0, else slope * x, with the slope broadcast to x (NumPy
// rules: one slope for the whole tensor, one per channel, or any other
// shape that broadcasts; InferOutputDims checked that it does).
void PRelu(const Dims& xd, const Dims& sd, const float* x, const float* slope, float* y) {
  const size_t rank = xd.size();
  const size_t total = Product(xd, 0, rank);
  if (rank == 0 || total == 0) {
    if (total == 1) y[0] = x[0] >= 0.0f ? x[0] : x[0] * slope[0];
    return;
  }
  size_t slope_stride[kMaxDims] = {};  // per dim of x; 0 where the slope broadcasts
  size_t stride = 1;
  for (size_t i = sd.size(); i-- > 0;) {
    slope_stride[rank - sd.size() + i] = sd[i] == 1 ? 0 : stride;
    stride *= sd[i];
  }
  const size_t inner = xd[rank - 1];
  const size_t inner_stride = slope_stride[rank - 1];
  size_t index[kMaxDims] = {};
  for (size_t o = 0; o < total; o += inner) {
    const float* s = slope;
    for (size_t i = 0; i + 1 < rank; ++i) s += index[i] * slope_stride[i];
    for (size_t j = 0; j < inner; ++j) {
      const float v = x[o + j];
      y[o + j] = v >= 0.0f ? v : v * s[j * inner_stride];
    }
    for (size_t i = rank - 1; i-- > 0;) {
      if (++index[i] < xd[i]) break;
      index[i] = 0;
    }
  }
}

template <typename F>
void Map(const float* x, float* y, size_t count, float lo, float hi, F f) {
  for (size_t i = 0; i < count; ++i) y[i] = std::min(std::max(f(x[i]), lo), hi);
}

// y = f(x) on the optimized kernels' vectorized code, clamped to the node's output range.
void Activate(optimized::Activation f, const float* x, float* y, size_t count, float lo, float hi,
              int num_threads) {
  optimized::ActivationArray(f, x, y, static_cast<int64_t>(count), num_threads);
  if (lo > -INFINITY || hi < INFINITY) Map(y, y, count, lo, hi, [](float v) { return v; });
}

Error Unary(const Node& n, const float* x, float* y, size_t count, int num_threads) {
  const float lo = n.output_min, hi = n.output_max;
  switch (n.type) {
    case NodeType::kTanh:
      Activate(optimized::Activation::kTanh, x, y, count, lo, hi, num_threads);
      break;
    case NodeType::kExp:
      Map(x, y, count, lo, hi, [](float v) { return std::exp(v); });
      break;
    case NodeType::kLog:
      Map(x, y, count, lo, hi, [](float v) { return std::log(v); });
      break;
    case NodeType::kSin:
      Map(x, y, count, lo, hi, [](float v) { return std::sin(v); });
      break;
    case NodeType::kCos:
      Map(x, y, count, lo, hi, [](float v) { return std::cos(v); });
      break;
    case NodeType::kCopy:
    case NodeType::kClamp:  // float32: those XNNPACK refuses (min >= max)
      if (lo > -INFINITY || hi < INFINITY) {
        Map(x, y, count, lo, hi, [](float v) { return v; });
      } else {
        std::memmove(y, x, count * sizeof(float));
      }
      break;
    case NodeType::kReciprocalSquareRoot:
      Map(x, y, count, lo, hi, [](float v) { return 1.0f / std::sqrt(v); });
      break;
    case NodeType::kGelu:
      Activate(optimized::Activation::kGelu, x, y, count, lo, hi, num_threads);
      break;
    default:
      EF_FAIL(Error::kNotSupported, "xnnpack: node %s is not supported", NodeTypeName(n.type));
  }
  return Error::kOk;
}

// fp32 -> qdint8: per row, asymmetric int8 covering [min(0, lo), max(0, hi)],
// in the real runtime's XNNPACK arithmetic (xnn_f32_qd8_asymmetric_
// quantization_params, then its f32 -> qs8 conversion): the multiplier
// s = 255 / (max - min) in float, the zero point from whichever end rounds
// with the smaller error, q = round-half-even(x * s) + zero point, and the
// dequantization scale 1 / s. (x / ((max - min) / 255) differs from x * s in
// the last bit now and then, and a tie then rounds the other way: one
// quantization step, which a deep model such as Swin-T carries to its
// output.)
void QuantizeRows(const Value& out, const Dims& d, const float* x, int8_t* q) {
  const size_t numel = Product(d, 0, d.size());
  const size_t rows = TokenRows(out, d);
  const size_t cols = rows == 0 ? 0 : numel / rows;
  auto* params = reinterpret_cast<RowQuant*>(q + ((numel + 7) & ~size_t{7}));
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float lo = 0.0f, hi = 0.0f;
    for (size_t c = 0; c < cols; ++c) {
      lo = std::min(lo, xr[c]);
      hi = std::max(hi, xr[c]);
    }
    const float s = hi == lo ? 1.0f : 255.0f / (hi - lo);
    const float lo_s = lo * s, hi_s = hi * s;
    const float zp_real =
        (-128.0f + lo_s) + (127.0f + hi_s) > 0.0f ? -128.0f - lo_s : 127.0f - hi_s;
    const int32_t zp = SaturateInt8(std::nearbyint(zp_real), -128.0f, 127.0f);
    for (size_t c = 0; c < cols; ++c) {
      const float v = std::nearbyint(xr[c] * s) + static_cast<float>(zp);
      q[r * cols + c] = SaturateInt8(v, -128.0f, 127.0f);
    }
    params[r] = {1.0f / s, zp};
  }
}

// qdint8 rows x per-channel int8 weights -> fp32.
void DynamicFullyConnected(const Graph& g, const Node& n, const std::vector<Dims>& dims,
                           const void* const* in, float* y) {
  const Value& x = In(g, n, 0);
  const Dims& xd = dims[n.inputs[0]];
  const size_t x_numel = Product(xd, 0, xd.size());
  const Value& w = In(g, n, 1);
  const bool transposed = (n.flags & 1) != 0;
  const size_t k = xd.back();
  const size_t units = transposed ? w.dims[1] : w.dims[0];
  const size_t rows = k == 0 ? 0 : x_numel / k;
  const auto* q = static_cast<const int8_t*>(in[0]);
  const auto* params = reinterpret_cast<const RowQuant*>(q + ((x_numel + 7) & ~size_t{7}));
  const auto* wq = static_cast<const int8_t*>(in[1]);
  const auto* bias = static_cast<const float*>(in[2]);
  const size_t token_cols = std::max<size_t>(x_numel / std::max<size_t>(TokenRows(x, xd), 1), 1);
  for (size_t r = 0; r < rows; ++r) {
    const RowQuant p = params[(r * k) / token_cols];
    const int8_t* xr = q + r * k;
    for (size_t u = 0; u < units; ++u) {
      int64_t acc = 0;  // 64 bits: k is bounded only by the value size limit
      int64_t wsum = 0;
      for (size_t c = 0; c < k; ++c) {
        const int32_t wv = transposed ? wq[c * units + u] : wq[u * k + c];
        acc += int64_t{xr[c]} * wv;
        wsum += wv;
      }
      const float value = static_cast<float>(acc - p.zero_point * wsum) * p.scale *
                              w.channel_scales[w.channel_scales.size() == 1 ? 0 : u] +
                          (bias ? bias[u] : 0.0f);
      y[r * units + u] = std::min(std::max(value, n.output_min), n.output_max);
    }
  }
}

// qint8 x int8 weights (per channel or per tensor) + int32 bias -> qint8,
// requantized per output channel (round half to even, as XNNPACK's fp32
// requantization), clamped to the node's output range.
void QuantizedFullyConnected(const Graph& g, const Node& n, const std::vector<Dims>& dims,
                             const void* const* in, int8_t* y) {
  const Value& x = In(g, n, 0);
  const Value& w = In(g, n, 1);
  const Value& out = Out(g, n, 0);
  const Dims& xd = dims[n.inputs[0]];
  const bool transposed = (n.flags & 1) != 0;
  const size_t k = xd.back();
  const size_t units = transposed ? w.dims[1] : w.dims[0];
  const size_t rows = k == 0 ? 0 : Product(xd, 0, xd.size()) / k;
  const auto* xq = static_cast<const int8_t*>(in[0]);
  const auto* wq = static_cast<const int8_t*>(in[1]);
  const auto* bias = static_cast<const int32_t*>(in[2]);
  const float lo = std::max(-128.0f, std::nearbyint(n.output_min / out.scale) + out.zero_point);
  const float hi = std::min(127.0f, std::nearbyint(n.output_max / out.scale) + out.zero_point);
  for (size_t u = 0; u < units; ++u) {
    const float w_scale = w.quant == QuantKind::kPerChannel ? w.channel_scales[u] : w.scale;
    const int32_t w_zero = w.quant == QuantKind::kPerTensor ? w.zero_point : 0;
    const float multiplier = x.scale * w_scale / out.scale;
    for (size_t r = 0; r < rows; ++r) {
      const int8_t* xr = xq + r * k;
      int64_t acc = bias ? bias[u] : 0;  // 64 bits: k is bounded only by the value size limit
      if (transposed) {
        for (size_t c = 0; c < k; ++c) {
          acc += int64_t{xr[c] - x.zero_point} * (wq[c * units + u] - w_zero);
        }
      } else {
        acc += Int8Dot(xr, wq + u * k, k, x.zero_point, w_zero);
      }
      const float v = std::nearbyint(static_cast<float>(acc) * multiplier) + out.zero_point;
      y[r * units + u] = SaturateInt8(v, lo, hi);
    }
  }
}

// qint8 transposed convolution of NHWC [n, h, w, groups * gic] with int8
// weights [groups * goc, kh, kw, gic] (per output channel or per tensor) and
// an int32 bias -> qint8 [n, oh, ow, groups * goc], as XNNPACK's
// deconvolution: input pixel (iy, ix) and tap (ky, kx) add to output pixel
// (iy * stride + ky * dilation - pad_top, ...); each output channel is
// requantized with its scale (round half to even) and clamped to the node's
// output range. The 2022 XNNPACK has no per-channel int8 deconvolution.
// Accumulators from ctx's scratch; false when it is exhausted.
bool QuantizedConvTranspose(KernelContext& ctx, const Graph& g, const Node& n,
                            const std::vector<Dims>& dims, const void* const* in, int8_t* y) {
  const Value& x = In(g, n, 0);
  const Value& w = In(g, n, 1);
  const Value& out = Out(g, n, 0);
  const WindowParams& p = n.window;
  const Dims& xd = dims[n.inputs[0]];
  const Dims& yd = dims[n.outputs[0]];
  const size_t ih = xd[1], iw = xd[2], ic = xd[3];
  const size_t oh = yd[1], ow = yd[2], oc = yd[3];
  const size_t gic = p.group_input_channels, goc = p.group_output_channels;
  const auto* xq = static_cast<const int8_t*>(in[0]);
  const auto* wq = static_cast<const int8_t*>(in[1]);
  const auto* bias = static_cast<const int32_t*>(in[2]);
  const int32_t w_zero = w.quant == QuantKind::kPerTensor ? w.zero_point : 0;
  const float lo = std::max(-128.0f, std::nearbyint(n.output_min / out.scale) + out.zero_point);
  const float hi = std::min(127.0f, std::nearbyint(n.output_max / out.scale) + out.zero_point);
  const size_t plane = oh * ow * oc;
  auto* acc = static_cast<int64_t*>(ctx.AllocateTemp(std::max<size_t>(plane, 1) * sizeof(int64_t)));
  if (acc == nullptr) return false;
  for (size_t b = 0; b < xd[0]; ++b) {
    for (size_t i = 0; i < plane; ++i) acc[i] = bias ? bias[i % oc] : 0;
    for (size_t iy = 0; iy < ih; ++iy) {
      for (size_t ix = 0; ix < iw; ++ix) {
        const int8_t* xp = xq + ((b * ih + iy) * iw + ix) * ic;
        for (size_t ky = 0; ky < p.kernel_h; ++ky) {
          const int64_t oy = static_cast<int64_t>(iy * p.stride_h + ky * p.dilation_h) - p.pad_top;
          if (oy < 0 || oy >= static_cast<int64_t>(oh)) continue;
          for (size_t kx = 0; kx < p.kernel_w; ++kx) {
            const int64_t ox =
                static_cast<int64_t>(ix * p.stride_w + kx * p.dilation_w) - p.pad_left;
            if (ox < 0 || ox >= static_cast<int64_t>(ow)) continue;
            int64_t* ap = acc + (static_cast<size_t>(oy) * ow + static_cast<size_t>(ox)) * oc;
            for (size_t c = 0; c < oc; ++c) {
              const size_t group = c / goc;
              const int8_t* wp = wq + ((c * p.kernel_h + ky) * p.kernel_w + kx) * gic;
              ap[c] += Int8Dot(xp + group * gic, wp, gic, x.zero_point, w_zero);
            }
          }
        }
      }
    }
    int8_t* yb = y + b * plane;
    for (size_t i = 0; i < plane; ++i) {
      const size_t c = i % oc;
      const float w_scale = w.quant == QuantKind::kPerChannel ? w.channel_scales[c] : w.scale;
      const float v = std::nearbyint(static_cast<float>(acc[i]) * (x.scale * w_scale / out.scale)) +
                      out.zero_point;
      yb[i] = SaturateInt8(v, lo, hi);
    }
  }
  return true;
}

}  // namespace

size_t OwnBufferBytes(const Value& v, const Dims& dims) {
  const size_t numel = Product(dims, 0, dims.size());
  if (v.type == DataType::kQdint8) {
    return ((numel + 7) & ~size_t{7}) + TokenRows(v, dims) * sizeof(RowQuant);
  }
  return numel * DataTypeSize(v.type);
}

bool OwnKernelPreferred(const Graph& g, const Node& n, bool optimized) {
  if (optimized && (IsChannelScale(g, n) || IsSameShapeAdd(g, n))) return true;
  return n.type == NodeType::kGlobalAvgPooling2d && OwnKernelSupports(g, n) &&
         (optimized || Out(g, n, 0).type != DataType::kFp32);
}

bool OwnKernelSupports(const Graph& g, const Node& n) {
  if (IsDataMovement(n.type)) return DataMovementSupports(g, n);
  switch (n.type) {
    case NodeType::kBatchMatrixMultiply:
    case NodeType::kScaledDotProductAttention:
    case NodeType::kMultiply:
    case NodeType::kAdd:
    case NodeType::kTanh:
    case NodeType::kExp:
    case NodeType::kLog:
    case NodeType::kSin:
    case NodeType::kCos:
    case NodeType::kCopy:
    case NodeType::kReciprocalSquareRoot:
    case NodeType::kGelu:
    case NodeType::kPReLU:
      return AllFp32(g, n);
    case NodeType::kGlobalAvgPooling2d:
      return GlobalAveragePoolingSupports(g, n);
    case NodeType::kAvgPooling2d:
    case NodeType::kMaxPooling2d:
      return UnitPoolingSupports(g, n);
    case NodeType::kConvert:
      return In(g, n, 0).type == DataType::kFp32 && Out(g, n, 0).type == DataType::kQdint8 &&
             Out(g, n, 0).quant == QuantKind::kPerToken;
    case NodeType::kConvTranspose2d:
      return (IsStaticInt8(In(g, n, 0)) && IsStaticInt8(Out(g, n, 0)) &&
              Int8Weights(In(g, n, 1), 0) && Int32BiasOk(g, n)) ||
             DynamicConvolutionSupports(g, n);
    case NodeType::kConv2d:
    case NodeType::kDepthwiseConv2d:
      return DynamicConvolutionSupports(g, n);
    case NodeType::kFullyConnected: {
      const Value& x = In(g, n, 0);
      const Value& w = In(g, n, 1);
      const Value& y = Out(g, n, 0);
      const size_t units = (n.flags & 1) ? w.dims[1] : w.dims[0];
      const uint32_t channel_dim = (n.flags & 1) ? 1u : 0u;
      if (x.type == DataType::kQint8 && y.type == DataType::kQint8) {  // static int8
        return Int8Weights(w, channel_dim) && Int32BiasOk(g, n) && units > 0 &&
               x.quant == QuantKind::kPerTensor && y.quant == QuantKind::kPerTensor;
      }
      return x.type == DataType::kQdint8 && x.quant == QuantKind::kPerToken &&
             w.type == DataType::kQcint8 && Int8Weights(w, channel_dim) &&
             (n.inputs[2] == kInvalidId || In(g, n, 2).type == DataType::kFp32) &&
             Out(g, n, 0).type == DataType::kFp32;
    }
    case NodeType::kClamp:
      return AllFp32(g, n) || Int8TableSupports(g, n);
    default:
      return false;
  }
}

Error RunOwnNode(KernelContext& ctx, const Graph& g, const Node& n, const std::vector<Dims>& dims,
                 const void* const* in, void* const* out) {
  const int num_threads = ctx.num_threads();
  if (IsDataMovement(n.type)) return RunDataMovementNode(g, n, dims, in, out, num_threads);
  const Value& y = Out(g, n, 0);
  const Dims& yd = dims[n.outputs[0]];
  switch (n.type) {
    case NodeType::kBatchMatrixMultiply:
      EF_CHECK_OR_RETURN(BatchMatMul(ctx, n, dims, static_cast<const float*>(in[0]),
                                     static_cast<const float*>(in[1]), static_cast<float*>(out[0])),
                         Error::kMemoryAllocationFailed,
                         "xnnpack: XNNBatchMatrixMultiply: kernel scratch memory exhausted");
      return Error::kOk;
    case NodeType::kScaledDotProductAttention:
      EF_CHECK_OR_RETURN(Attention(ctx, n, dims, in, static_cast<float*>(out[0])),
                         Error::kMemoryAllocationFailed,
                         "xnnpack: XNNScaledDotProductAttention: kernel scratch memory exhausted");
      return Error::kOk;
    case NodeType::kPReLU: {
      auto* y_data = static_cast<float*>(out[0]);
      PRelu(dims[n.inputs[0]], dims[n.inputs[1]], static_cast<const float*>(in[0]),
            static_cast<const float*>(in[1]), y_data);
      if (n.output_min > -INFINITY || n.output_max < INFINITY) {
        Map(y_data, y_data, Product(yd, 0, yd.size()), n.output_min, n.output_max,
            [](float v) { return v; });
      }
      return Error::kOk;
    }
    case NodeType::kConvert:
      QuantizeRows(y, yd, static_cast<const float*>(in[0]), static_cast<int8_t*>(out[0]));
      return Error::kOk;
    case NodeType::kClamp:
      if (y.type == DataType::kFp32) break;  // Unary, below
      RunInt8TableNode(g, n, dims, in[0], out[0]);
      return Error::kOk;
    case NodeType::kGlobalAvgPooling2d:
      RunGlobalAveragePooling(ctx, g, n, dims, in[0], out[0]);
      return Error::kOk;
    case NodeType::kAvgPooling2d:
    case NodeType::kMaxPooling2d:
      RunUnitPooling(n, dims[n.inputs[0]], yd, static_cast<const float*>(in[0]),
                     static_cast<float*>(out[0]));
      return Error::kOk;
    case NodeType::kMultiply:
      RunMultiply(ctx, n, dims, static_cast<const float*>(in[0]), static_cast<const float*>(in[1]),
                  static_cast<float*>(out[0]));
      return Error::kOk;
    case NodeType::kAdd:
      RunAdd(ctx, n, dims, static_cast<const float*>(in[0]), static_cast<const float*>(in[1]),
             static_cast<float*>(out[0]));
      return Error::kOk;
    case NodeType::kConvTranspose2d:
    case NodeType::kConv2d:
    case NodeType::kDepthwiseConv2d:
      EF_CHECK_OR_RETURN(
          y.type == DataType::kFp32
              ? RunDynamicConvolution(ctx, g, n, dims, in[0], in[1], in[2],
                                      static_cast<float*>(out[0]))
              : QuantizedConvTranspose(ctx, g, n, dims, in, static_cast<int8_t*>(out[0])),
          Error::kMemoryAllocationFailed, "xnnpack: scratch memory exhausted");
      return Error::kOk;
    case NodeType::kFullyConnected:
      if (y.type == DataType::kQint8) {
        QuantizedFullyConnected(g, n, dims, in, static_cast<int8_t*>(out[0]));
      } else {
        DynamicFullyConnected(g, n, dims, in, static_cast<float*>(out[0]));
      }
      return Error::kOk;
    default:
      break;
  }
  return Unary(n, static_cast<const float*>(in[0]), static_cast<float*>(out[0]),
               Product(yd, 0, yd.size()), num_threads);
}

}  // namespace xnnpack
}  // namespace edgefleet

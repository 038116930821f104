#include "runtime/kernels/optimized/quantized_conv.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/avx512_intrinsics.h"
#include "runtime/kernels/optimized/int8_gemm.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/quantized_conv_chain.h"
#include "runtime/kernels/optimized/quantized_conv_packed.h"
#include "runtime/kernels/optimized/quantized_depthwise.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace optimized {
namespace {

using internal::ChainWeightBytes;
using internal::kAlign;
using internal::kMaxDepthwiseTaps;
using internal::Packed;
using internal::RoundUp;
using internal::RunConvChain;
using internal::RunDepthwise;
using internal::RunLinearChain;

constexpr uint32_t kMagic = 0x31564351;  // "QCV1"
constexpr int32_t kMaxSize = 1 << 20;
// Fewest multiply-adds a thread takes when a GEMM is split by rows.
constexpr int64_t kMinRowRangeMacs = int64_t{1} << 18;

bool SpecOk(const QuantizedConvSpec& s) {
  const bool sizes_ok = s.out_channels > 0 && s.in_channels > 0 && s.out_channels <= kMaxSize &&
                        s.in_channels <= kMaxSize && s.kernel_h > 0 && s.kernel_w > 0 &&
                        s.kernel_h <= 64 && s.kernel_w <= 64 && s.groups > 0 &&
                        s.in_channels % s.groups == 0 && s.out_channels % s.groups == 0;
  const bool conv_ok = s.stride_h > 0 && s.stride_w > 0 && s.pad_h >= 0 && s.pad_w >= 0 &&
                       s.pad_h <= 4096 && s.pad_w <= 4096 && s.stride_h <= 4096 &&
                       s.stride_w <= 4096 && s.dilation_h > 0 && s.dilation_w > 0 &&
                       s.dilation_h <= 4096 && s.dilation_w <= 4096;
  const bool linear_ok = s.kernel_h == 1 && s.kernel_w == 1 && s.groups == 1;
  const bool kind_ok = s.kind == QuantizedOpKind::kConv2d
                           ? conv_ok
                           : (s.kind == QuantizedOpKind::kLinear && linear_ok);
  const bool quant_ok = s.in_zero_point >= -128 && s.in_zero_point <= 127 && s.out_min >= -128 &&
                        s.out_min <= s.out_max && s.out_max <= 127 && s.out_zero_point >= -128 &&
                        s.out_zero_point <= 127 && s.out_scale > 0 &&
                        s.out_scale < std::numeric_limits<double>::infinity() && s.in_scale > 0 &&
                        s.in_scale < std::numeric_limits<float>::infinity();
  return sizes_ok && kind_ok && quant_ok;
}

bool IsDepthwise(const QuantizedConvSpec& s) {
  return s.kind == QuantizedOpKind::kConv2d && s.groups > 1 && s.groups == s.in_channels &&
         s.groups == s.out_channels &&
         static_cast<int64_t>(s.kernel_h) * s.kernel_w <= kMaxDepthwiseTaps;
}

// Fills the layout fields of `p` from `spec` and the arithmetic (`chain`:
// the float chain's); returns the blob size.
size_t Layout(const QuantizedConvSpec& spec, bool chain, Packed* p) {
  p->spec = spec;
  p->chain = chain ? 1 : 0;
  p->depthwise = !chain && IsDepthwise(spec) ? 1 : 0;
  p->depth = static_cast<int64_t>(spec.in_channels / spec.groups) * spec.kernel_h * spec.kernel_w;
  p->depth_padded = QGemmDepthPadded(p->depth);
  p->rows_padded = QGemmRowsPadded(spec.out_channels / spec.groups);
  const size_t channels = static_cast<size_t>(spec.out_channels);
  size_t offset = RoundUp(sizeof(Packed));
  p->correction_offset = offset;
  offset += RoundUp(channels * sizeof(int32_t));
  p->scale_offset = offset;
  offset += RoundUp(channels * sizeof(float));
  p->bias_offset = offset;
  offset += RoundUp(channels * sizeof(float));
  p->weight_offset = offset;
  if (chain) {
    offset += RoundUp(ChainWeightBytes(spec));
  } else if (p->depthwise) {
    offset += RoundUp(channels * spec.kernel_h * spec.kernel_w * sizeof(float));
  } else {
    offset += RoundUp(static_cast<size_t>(spec.groups) * p->rows_padded * p->depth_padded);
  }
  p->panel_offset = 0;
  if (spec.kind == QuantizedOpKind::kLinear && !chain) {
    p->panel_offset = offset;
    offset += RoundUp(QGemmPackedBBytes(p->depth, spec.out_channels));
  }
  p->total_bytes = offset;
  return offset;
}

const char* const kName = "edgefleet::quantized_convolution";

void FailInvalid(KernelContext& ctx, const char* what) {
  SetErrorDetail("%s: %s", kName, what);
  ctx.Fail(Error::kInvalidArgument);
}

// ---- GEMM paths. ----

// col[k][p] for group g's depth rows (im2col), padding read as zx.
void Im2Col(const QuantizedConvSpec& s, const int8_t* x, int64_t h, int64_t w, int64_t oh,
            int64_t ow, int8_t* col) {
  const int64_t cin = s.in_channels / s.groups;
  const int8_t pad = static_cast<int8_t>(s.in_zero_point);
  const int64_t p = oh * ow;
  int64_t k = 0;
  for (int64_t ci = 0; ci < cin; ++ci) {
    const int8_t* plane = x + ci * h * w;
    for (int64_t kh = 0; kh < s.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < s.kernel_w; ++kw, ++k) {
        int8_t* dst_k = col + k * p;
        for (int64_t r = 0; r < oh; ++r) {
          int8_t* dst = dst_k + r * ow;
          const int64_t ih = r * s.stride_h - s.pad_h + kh * s.dilation_h;
          if (ih < 0 || ih >= h) {
            std::memset(dst, pad, ow);
            continue;
          }
          const int8_t* src = plane + ih * w;
          const int64_t off = kw * s.dilation_w - s.pad_w;
          // Columns reading inside the row: [c_lo, c_hi).
          const int64_t sw = s.stride_w;
          const int64_t c_lo = std::min<int64_t>(off >= 0 ? 0 : (-off + sw - 1) / sw, ow);
          const int64_t c_hi = std::max<int64_t>(
              std::min<int64_t>(off > w - 1 ? 0 : (w - 1 - off) / sw + 1, ow), c_lo);
          std::memset(dst, pad, c_lo);
          if (sw == 1) {
            std::memcpy(dst + c_lo, src + c_lo + off, c_hi - c_lo);
          } else {
            const int8_t* in = src + off;
            for (int64_t c = c_lo; c < c_hi; ++c) dst[c] = in[c * sw];
          }
          std::memset(dst + c_hi, pad, ow - c_hi);
        }
      }
    }
  }
}

// C (rows x n) for one group: pack the panels of B and multiply, panel by
// panel over the threads. False if scratch is missing.
bool GemmGroup(KernelContext& ctx, const Packed& pk, int64_t group, const int8_t* b,
               int64_t k_stride, int64_t j_stride, int64_t n, int8_t* out, int64_t row_stride,
               int64_t col_stride) {
  const QuantizedConvSpec& s = pk.spec;
  const int64_t rows = s.out_channels / s.groups;
  uint8_t* packed = static_cast<uint8_t*>(ctx.AllocateTemp(QGemmPackedBBytes(pk.depth, n), kAlign));
  if (packed == nullptr) return false;
  QGemmEpilogue e;
  e.correction = pk.correction() + group * rows;
  e.scale = pk.scale() + group * rows;
  e.bias = pk.bias() + group * rows;
  e.inv_out_scale = pk.inv_out_scale;
  e.out_zero_point = s.out_zero_point;
  e.out_min = s.out_min;
  e.out_max = s.out_max;
  e.out = out;
  e.row_stride = row_stride;
  e.col_stride = col_stride;
  const int8_t* a = pk.weight() + group * pk.rows_padded * pk.depth_padded;
  const int64_t panels = (n + kQGemmNr - 1) / kQGemmNr;
  const int threads = rows * n * pk.depth >= (1 << 20) ? ctx.num_threads() : 1;
  if (threads > 1 && panels < threads) {
    // Fewer column panels than threads (a classifier's M = 1): B packed
    // once, threads take ranges of whole row tiles. Each element's sum and
    // requantization are the same either way.
    QGemmPackB(b, pk.depth, n, k_stride, j_stride, packed, 0, panels);
    const int64_t tiles = (rows + kQGemmMr - 1) / kQGemmMr;
    const int64_t tile_macs = kQGemmMr * n * pk.depth;
    ParallelForRanges(tiles, std::max<int64_t>(1, kMinRowRangeMacs / tile_macs), threads,
                      [&](int64_t t0, int64_t t1) {
                        const int64_t r0 = t0 * kQGemmMr;
                        QGemmEpilogue part = e;
                        part.correction += r0;
                        part.scale += r0;
                        part.bias += r0;
                        part.out += r0 * row_stride;
                        QGemm(a + r0 * pk.depth_padded, std::min(rows, t1 * kQGemmMr) - r0,
                              pk.depth_padded, packed, n, 0, panels, part);
                      });
    return true;
  }
  ParallelFor(panels, threads, [&](int64_t p) {
    QGemmPackB(b, pk.depth, n, k_stride, j_stride, packed, p, p + 1);
    QGemm(a, rows, pk.depth_padded, packed, n, p, p + 1, e);
  });
  return true;
}

bool RunConvGemm(KernelContext& ctx, const Packed& pk, const int8_t* x, int8_t* y, int64_t batch,
                 int64_t h, int64_t w, int64_t oh, int64_t ow) {
  const QuantizedConvSpec& s = pk.spec;
  const int64_t cin = s.in_channels / s.groups, cout = s.out_channels / s.groups;
  const int64_t p = oh * ow;
  const bool direct = s.kernel_h == 1 && s.kernel_w == 1 && s.stride_h == 1 && s.stride_w == 1 &&
                      s.pad_h == 0 && s.pad_w == 0;
  int8_t* col = nullptr;
  if (!direct) {
    col = static_cast<int8_t*>(ctx.AllocateTemp(static_cast<size_t>(pk.depth * p), kAlign));
    if (col == nullptr) return false;
  }
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t g = 0; g < s.groups; ++g) {
      const int8_t* xg = x + (n * s.in_channels + g * cin) * h * w;
      int8_t* yg = y + (n * s.out_channels + g * cout) * p;
      const int8_t* b = xg;
      if (!direct) {
        Im2Col(s, xg, h, w, oh, ow, col);
        b = col;
      }
      if (!GemmGroup(ctx, pk, g, b, direct ? h * w : p, 1, p, yg, p, 1)) return false;
    }
  }
  return true;
}

const Packed* PeekPacked(const EValue* v) {
  if (v == nullptr || !v->is_tensor()) return nullptr;
  const Tensor& t = v->to_tensor();
  if (t.dtype() != ScalarType::kByte || t.dim() != 1 || t.nbytes() < sizeof(Packed) ||
      reinterpret_cast<uintptr_t>(t.data()) % kAlign != 0) {
    return nullptr;
  }
  const Packed* p = t.data_as<const Packed>();
  if (p->magic != kMagic || p->total_bytes > t.nbytes() || !SpecOk(p->spec) ||
      (p->chain != 0 && p->chain != 1)) {
    return nullptr;
  }
  Packed check;
  if (Layout(p->spec, p->chain != 0, &check) != p->total_bytes ||
      check.weight_offset != p->weight_offset || check.panel_offset != p->panel_offset) {
    return nullptr;
  }
  return p;
}

#if defined(__x86_64__)
// One row of a linear layer, lanes over output features: x (+128, 4 bytes
// broadcast) times the weight panels. `row`: depth_padded bytes scratch.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma"))) void LinearRowVnni512(
    const Packed& pk, const int8_t* x, uint8_t* row, int8_t* out) {
  const QuantizedConvSpec& s = pk.spec;
  const int64_t k = s.in_channels, dp = pk.depth_padded, n = s.out_channels;
  for (int64_t i = 0; i < dp; ++i) row[i] = i < k ? static_cast<uint8_t>(x[i] ^ 0x80) : 0;
  const int8_t* panels = reinterpret_cast<const int8_t*>(pk.Bytes() + pk.panel_offset);
  const __m512 inv = _mm512_set1_ps(pk.inv_out_scale);
  const __m512 lo = _mm512_set1_ps(static_cast<float>(s.out_min - s.out_zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(s.out_max - s.out_zero_point));
  const __m512i zp = _mm512_set1_epi32(s.out_zero_point);
  for (int64_t n0 = 0; n0 < n; n0 += kQGemmNr) {
    const int8_t* panel = panels + n0 * dp;
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t k4 = 0; k4 < dp / 4; ++k4) {
      int32_t xv;
      std::memcpy(&xv, row + 4 * k4, 4);
      const __m512i b = _mm512_set1_epi32(xv);
      const int8_t* wk = panel + k4 * kQGemmNr * 4;
      a0 = _mm512_dpbusd_epi32(a0, b, _mm512_loadu_si512(wk));
      a1 = _mm512_dpbusd_epi32(a1, b, _mm512_loadu_si512(wk + 64));
      a2 = _mm512_dpbusd_epi32(a2, b, _mm512_loadu_si512(wk + 128));
      a3 = _mm512_dpbusd_epi32(a3, b, _mm512_loadu_si512(wk + 192));
    }
    const __m512i acc[4] = {a0, a1, a2, a3};
    for (int v = 0; v < 4; ++v) {
      const int64_t j = n0 + 16 * v;
      if (j >= n) break;
      const int64_t cnt = std::min<int64_t>(16, n - j);
      const __mmask16 m = static_cast<__mmask16>(cnt == 16 ? 0xFFFF : (1u << cnt) - 1);
      __m512 f = _mm512_cvtepi32_ps(
          _mm512_add_epi32(acc[v], _mm512_maskz_loadu_epi32(m, pk.correction() + j)));
      f = _mm512_mul_ps(f, _mm512_maskz_loadu_ps(m, pk.scale() + j));
      f = _mm512_add_ps(f, _mm512_maskz_loadu_ps(m, pk.bias() + j));
      f = _mm512_mul_ps(f, inv);
      f = _mm512_min_ps(_mm512_max_ps(f, lo), hi);
      const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(f), zp);
      _mm_mask_storeu_epi8(out + j, m, _mm512_cvtepi32_epi8(q));
    }
  }
}
#endif

// The input's data, or a scratch copy of it when out shares its memory (the
// memory planner may give the output the bytes of an input whose last
// reader was the dequantize this kernel absorbed). Null: no scratch.
const int8_t* InputData(KernelContext& ctx, const Tensor& x, const Tensor& out) {
  if (!Overlaps(x, out)) return x.data_as<const int8_t>();
  void* copy = ctx.AllocateTemp(x.nbytes(), kAlign);
  if (copy != nullptr) std::memcpy(copy, x.data(), x.nbytes());
  return static_cast<const int8_t*>(copy);
}

}  // namespace

size_t QuantizedConvPackedBytes(const QuantizedConvSpec& spec, const int8_t* weight,
                                const float* weight_scale, const float* bias) {
  if (!SpecOk(spec)) return 0;
  Packed p;
  return Layout(spec, !internal::IntegerArithmeticIsExact(spec, weight, weight_scale, bias), &p);
}

bool PackQuantizedConv(const QuantizedConvSpec& spec, const int8_t* weight,
                       const float* weight_scale, const float* bias, void* blob) {
  if (!SpecOk(spec) || reinterpret_cast<uintptr_t>(blob) % kAlign != 0) return false;
  Packed header{};
  const bool chain = !internal::IntegerArithmeticIsExact(spec, weight, weight_scale, bias);
  const size_t total = Layout(spec, chain, &header);
  header.magic = kMagic;
  header.inv_out_scale = static_cast<float>(1.0 / spec.out_scale);
  uint8_t* bytes = static_cast<uint8_t*>(blob);
  std::memset(bytes, 0, total);
  std::memcpy(bytes, &header, sizeof(header));
  int32_t* correction = reinterpret_cast<int32_t*>(bytes + header.correction_offset);
  float* scale = reinterpret_cast<float*>(bytes + header.scale_offset);
  float* b = reinterpret_cast<float*>(bytes + header.bias_offset);
  const int64_t depth = header.depth;
  const int64_t rows = spec.out_channels / spec.groups;
  if (chain) {
    internal::PackChainWeights(spec, weight, weight_scale,
                               reinterpret_cast<float*>(bytes + header.weight_offset));
  }
  for (int64_t c = 0; c < spec.out_channels; ++c) {
    scale[c] = spec.in_scale * weight_scale[c];
    b[c] = bias != nullptr ? bias[c] : 0.0f;
    const int8_t* wc = weight + c * depth;
    if (chain) continue;
    if (header.depthwise) {
      float* fw = reinterpret_cast<float*>(bytes + header.weight_offset) + c * depth;
      for (int64_t k = 0; k < depth; ++k) fw[k] = static_cast<float>(wc[k]);
      correction[c] = 0;
    } else {
      const int64_t g = c / rows, r = c % rows;
      int8_t* dst = reinterpret_cast<int8_t*>(bytes + header.weight_offset) +
                    (g * header.rows_padded + r) * header.depth_padded;
      int64_t sum = 0;
      for (int64_t k = 0; k < depth; ++k) {
        dst[k] = wc[k];
        sum += wc[k];
      }
      correction[c] = static_cast<int32_t>(-(128 + spec.in_zero_point) * sum);
      if (header.panel_offset != 0) {
        // panel[n / Nr][k / 4][n % Nr][k % 4] = W[n][k].
        int8_t* panels = reinterpret_cast<int8_t*>(bytes + header.panel_offset);
        int8_t* panel = panels + (c / kQGemmNr) * kQGemmNr * header.depth_padded;
        for (int64_t k = 0; k < depth; ++k) {
          panel[(k / 4) * kQGemmNr * 4 + (c % kQGemmNr) * 4 + k % 4] = wc[k];
        }
      }
    }
  }
  return true;
}

void QuantizedConvolutionOut(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4) return FailInvalid(ctx, "expected (input, packed, out, out)");
  const Packed* pk = PeekPacked(args[1]);
  if (pk == nullptr) return FailInvalid(ctx, "packed weights are missing or corrupt");
  Tensor* x = PeekTensor(args, 0);
  Tensor* out = PeekTensor(args, 2);
  if (x == nullptr || out == nullptr || x->dtype() != ScalarType::kChar ||
      out->dtype() != ScalarType::kChar || !x->IsDefaultDimOrder() || !out->IsDefaultDimOrder()) {
    return FailInvalid(ctx, "input and out must be int8 tensors in the default dim order");
  }
  const QuantizedConvSpec& s = pk->spec;
  const Tensor* inputs[1] = {x};
  if (s.kind == QuantizedOpKind::kLinear) {
    if (x->dim() != 2 || x->size(1) != s.in_channels) {
      return FailInvalid(ctx, "linear input must be [M, in_features]");
    }
    const int32_t sizes[2] = {x->size(0), s.out_channels};
    if (!FitOut(*out, sizes, inputs)) return FailInvalid(ctx, "out has the wrong shape");
    const int64_t m = x->size(0);
    if (m == 0) return;
    const int8_t* xd = InputData(ctx, *x, *out);
    if (xd != nullptr && pk->chain) {
      if (!RunLinearChain(ctx, *pk, xd, out->data_as<int8_t>(), m)) {
        SetErrorDetail("%s: out of scratch memory", kName);
        ctx.Fail(Error::kMemoryAllocationFailed);
      }
      return;
    }
#if defined(__x86_64__)
    if (xd != nullptr && HostInt8Dot() == Int8Dot::kAvx512Vnni) {
      uint8_t* row = static_cast<uint8_t*>(ctx.AllocateTemp(pk->depth_padded, kAlign));
      if (row != nullptr) {
        for (int64_t i = 0; i < m; ++i) {
          LinearRowVnni512(*pk, xd + i * s.in_channels, row,
                           out->data_as<int8_t>() + i * s.out_channels);
        }
        return;
      }
    }
#endif
    if (xd == nullptr || !GemmGroup(ctx, *pk, 0, xd, 1, s.in_channels, m, out->data_as<int8_t>(), 1,
                                    s.out_channels)) {
      SetErrorDetail("%s: out of scratch memory", kName);
      ctx.Fail(Error::kMemoryAllocationFailed);
    }
    return;
  }
  if (x->dim() != 4 || x->size(1) != s.in_channels) {
    return FailInvalid(ctx, "input must be [N, in_channels, H, W]");
  }
  const int64_t h = x->size(2), w = x->size(3);
  const int64_t eff_h = static_cast<int64_t>(s.dilation_h) * (s.kernel_h - 1) + 1;
  const int64_t eff_w = static_cast<int64_t>(s.dilation_w) * (s.kernel_w - 1) + 1;
  const int64_t oh = (h + 2 * s.pad_h - eff_h) / s.stride_h + 1;
  const int64_t ow = (w + 2 * s.pad_w - eff_w) / s.stride_w + 1;
  if (h + 2 * s.pad_h < eff_h || w + 2 * s.pad_w < eff_w || oh > kMaxSize || ow > kMaxSize) {
    return FailInvalid(ctx, "input is smaller than the kernel");
  }
  const int32_t sizes[4] = {x->size(0), s.out_channels, static_cast<int32_t>(oh),
                            static_cast<int32_t>(ow)};
  if (!FitOut(*out, sizes, inputs)) return FailInvalid(ctx, "out has the wrong shape");
  const int64_t batch = x->size(0);
  if (out->numel() == 0) return;
  const int8_t* xd = InputData(ctx, *x, *out);
  const bool ok =
      xd != nullptr &&
      (pk->chain       ? RunConvChain(ctx, *pk, xd, out->data_as<int8_t>(), batch, h, w, oh, ow)
       : pk->depthwise ? RunDepthwise(ctx, *pk, xd, out->data_as<int8_t>(), batch, h, w, oh, ow)
                       : RunConvGemm(ctx, *pk, xd, out->data_as<int8_t>(), batch, h, w, oh, ow));
  if (!ok) {
    SetErrorDetail("%s: out of scratch memory", kName);
    ctx.Fail(Error::kMemoryAllocationFailed);
  }
}

const Kernel kQuantizedConvolutionKernel = {kName, QuantizedConvolutionOut, nullptr,
                                            KernelVariant::kOptimized};

}  // namespace optimized
}  // namespace edgefleet

// quantized_decomposed ops of the real runtime's quantized library used by
// token-level (LLM-style) programs:
//   choose_qparams_per_token_asymmetric.out  one int8 (s, zp) per row of the
//                             last dim, as torch's decomposition (XNNPACK's
//                             rule) in the input's type: s = max(
//                             (max(hi, 0) - min(lo, 0)) / 255, float32 eps),
//                             zp = round_half_even(clamp(-128 - min(lo, 0) /
//                             s or 127 - max(hi, 0) / s, whichever side has
//                             the smaller error)), s as float64 and zp as
//                             int64 outputs shaped [..., 1];
//   quantize_per_token.out    q = clamp(round_half_even(x * (1 / s) + zp),
//                             qmin, qmax), one (s, zp) per row of the last
//                             dim, in float32 as torch's decomposition;
//   dequantize_per_token.out  x = (q - zp) * s per row;
//   embedding_byte.out / .dtype_out  rows of an int8/uint8 table
//                             dequantized with per-row or per-group scales
//                             (and optional zero points): out =
//                             (w[index] - zp) * s, shaped indices + [D];
//   embedding_4bit / embedding_2bit (.out, .dtype_out)  the same over a
//                             uint8 table packing 2 (4) values per byte,
//                             [V, D / 2] ([V, D / 4]): 4-bit value 2j is
//                             the high nibble of byte j, 2j + 1 the low one,
//                             minus 8; 2-bit value 4j + k is bits 2k..2k+1
//                             of byte j, minus 2 (executorch's packing).
// Floating outputs are float32 or float64.

#include <cmath>
#include <limits>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

// Element `i` (logical row-major order) of `t` as double.
double ValueAt(const Tensor& t, int64_t i) {
  return GetLoader<double>(t.dtype())(t.data_as<const char>() +
                                      LogicalOffset(t, i, t.dim()) *
                                          static_cast<int64_t>(ElementSize(t.dtype())));
}

// Stores `v` as element `i` (logical row-major order) of `t`.
template <typename V>
void StoreAt(Tensor& t, int64_t i, V v) {
  GetStorer<V>(t.dtype())(v, t.data_as<char>() + LogicalOffset(t, i, t.dim()) *
                                                     static_cast<int64_t>(ElementSize(t.dtype())));
}

// torch's _choose_qparams_per_token_asymmetric_impl for row r in T.
template <typename T>
void ChooseTokenQparams(const Tensor& in, int64_t r, int64_t width, Tensor& scale_out,
                        Tensor& zero_point_out) {
  // torch.amin / amax along the row (NaN propagates).
  T lo = static_cast<T>(ValueAt(in, r * width)), hi = lo;
  for (int64_t c = 1; c < width; ++c) {
    const T x = static_cast<T>(ValueAt(in, r * width + c));
    if (IsNan(x) || IsNan(lo)) {
      lo = hi = x + lo;  // NaN
    } else {
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
  }
  // torch.min / torch.max with 0 (NaN propagates through both).
  const T min_neg = IsNan(lo) || lo < T(0) ? lo : T(0);
  const T max_pos = IsNan(hi) || hi > T(0) ? hi : T(0);
  const T eps = static_cast<T>(std::numeric_limits<float>::epsilon());
  T scale = (max_pos - min_neg) / static_cast<T>(255.0);
  if (scale < eps) scale = eps;  // clamp(min=eps); NaN stays NaN
  const T descaled_min = min_neg / scale;
  const T descaled_max = max_pos / scale;
  const T from_min_error = T(-128) + descaled_min;
  const T from_max_error = T(127) + descaled_max;
  T zp = from_min_error + from_max_error > T(0) ? T(-128) - descaled_min : T(127) - descaled_max;
  if (zp < T(-128)) zp = T(-128);
  if (zp > T(127)) zp = T(127);
  StoreAt<double>(scale_out, r, static_cast<double>(scale));
  StoreAt<int64_t>(zero_point_out, r, Convert<int64_t>(std::nearbyint(zp)));
}

// Checks the per-token parameters: one per row of `in`'s last dim.
bool CheckPerToken(KernelArgs& args, const Tensor& in, const Tensor& scales,
                   const Tensor& zero_points, int64_t* rows, int64_t* width) {
  *width = in.dim() == 0 ? 1 : in.size(in.dim() - 1);
  *rows = *width == 0 ? 0 : in.numel() / *width;
  if (!IsBasicType(scales.dtype()) || !IsBasicType(zero_points.dtype()) ||
      scales.numel() != *rows || zero_points.numel() != *rows) {
    args.Fail(Error::kInvalidArgument,
              "scales and zero_points need one value per token (%lld), got "
              "%lld and %lld",
              static_cast<long long>(*rows), static_cast<long long>(scales.numel()),
              static_cast<long long>(zero_points.numel()));
    return false;
  }
  return true;
}

}  // namespace

void ChooseQparamsPerTokenAsymmetricOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::choose_qparams_per_token_asymmetric.out", raw, 5);
  Tensor* in = args.GetTensor(0);
  const int64_t dtype = args.GetInt(1);
  Tensor* scale_out = args.GetTensor(2);
  Tensor* zero_point_out = args.GetTensor(3);
  if (!args.ok()) return;
  if (!IsBasicFloating(in->dtype()) || !IsBasicFloating(scale_out->dtype()) ||
      zero_point_out->dtype() != ScalarType::kLong) {
    args.Fail(Error::kInvalidArgument,
              "needs a float32/float64 input, a float32/float64 scale_out and "
              "an int64 zero_point_out");
    return;
  }
  if (dtype < 0 || dtype > 127 || !IsValidScalarType(static_cast<int>(dtype))) {
    args.Fail(Error::kInvalidArgument, "invalid dtype %lld", static_cast<long long>(dtype));
    return;
  }
  const int64_t width = in->dim() == 0 ? 1 : in->size(in->dim() - 1);
  if (width == 0) {
    args.Fail(Error::kInvalidArgument, "tokens are empty (last dim 0): no min/max to take");
    return;
  }
  const int64_t rows = in->numel() / width;
  // The input's shape with the last dim 1 ([1] for a 0-d input).
  int32_t sizes[kMaxTensorRank];
  const int rank = in->dim() == 0 ? 1 : in->dim();
  for (int d = 0; d < rank; ++d) {
    sizes[d] = d + 1 < rank ? in->size(d) : 1;
  }
  if (!args.ResizeOut(*scale_out, Span<const int32_t>(sizes, rank), "scale_out") ||
      !args.ResizeOut(*zero_point_out, Span<const int32_t>(sizes, rank), "zero_point_out")) {
    return;
  }
  SwitchFloating(in->dtype(), [&](auto tag) {
    for (int64_t r = 0; r < rows; ++r) {
      ChooseTokenQparams<decltype(tag)>(*in, r, width, *scale_out, *zero_point_out);
    }
  });
}

void QuantizePerTokenOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::quantize_per_token.out", raw, 8);
  Tensor* in = args.GetTensor(0);
  Tensor* scales = args.GetTensor(1);
  Tensor* zero_points = args.GetTensor(2);
  const int64_t qmin = args.GetInt(3);
  const int64_t qmax = args.GetInt(4);
  const int64_t dtype = args.GetInt(5);
  Tensor* out = args.GetTensor(6);
  if (!args.ok()) return;
  if (!IsBasicFloating(in->dtype()) || static_cast<int64_t>(out->dtype()) != dtype ||
      !IsIntegralType(out->dtype(), false) || qmin > qmax) {
    args.Fail(Error::kInvalidArgument,
              "needs a floating input, an integer out of dtype %lld and "
              "quant_min <= quant_max",
              static_cast<long long>(dtype));
    return;
  }
  int64_t rows = 0, width = 0;
  if (!CheckPerToken(args, *in, *scales, *zero_points, &rows, &width) ||
      !args.ResizeOut(*out, in->sizes(), "out")) {
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float inv = 1.0f / static_cast<float>(ValueAt(*scales, r));
    const float zp = static_cast<float>(ValueAt(*zero_points, r));
    for (int64_t c = 0; c < width; ++c) {
      const int64_t flat = r * width + c;
      const float x = static_cast<float>(ValueAt(*in, flat));
      float q = std::nearbyint(x * inv + zp);
      q = q < static_cast<float>(qmin) ? static_cast<float>(qmin) : q;
      q = q > static_cast<float>(qmax) ? static_cast<float>(qmax) : q;
      StoreAt<int64_t>(*out, flat, static_cast<int64_t>(q));
    }
  }
}

void DequantizePerTokenOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "quantized_decomposed::dequantize_per_token.out", raw, 9);
  Tensor* in = args.GetTensor(0);
  Tensor* scales = args.GetTensor(1);
  Tensor* zero_points = args.GetTensor(2);
  args.GetInt(3);  // quant_min, quant_max: the input's declared range
  args.GetInt(4);
  const int64_t dtype = args.GetInt(5);
  const int64_t output_dtype = args.GetInt(6);
  Tensor* out = args.GetTensor(7);
  if (!args.ok()) return;
  if (static_cast<int64_t>(in->dtype()) != dtype || !IsIntegralType(in->dtype(), false) ||
      static_cast<int64_t>(out->dtype()) != output_dtype || !IsBasicFloating(out->dtype())) {
    args.Fail(Error::kInvalidArgument,
              "needs an integer input of dtype %lld and a float32/float64 out "
              "of dtype %lld",
              static_cast<long long>(dtype), static_cast<long long>(output_dtype));
    return;
  }
  int64_t rows = 0, width = 0;
  if (!CheckPerToken(args, *in, *scales, *zero_points, &rows, &width) ||
      !args.ResizeOut(*out, in->sizes(), "out")) {
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float s = static_cast<float>(ValueAt(*scales, r));
    const int64_t zp = static_cast<int64_t>(ValueAt(*zero_points, r));
    for (int64_t c = 0; c < width; ++c) {
      const int64_t flat = r * width + c;
      const int64_t q = static_cast<int64_t>(ValueAt(*in, flat));
      StoreAt<double>(*out, flat, static_cast<double>(static_cast<float>(q - zp) * s));
    }
  }
}

namespace {

// The quantized value of column `c` of a table row starting at `row`
// (stride `stride` bytes between packed columns) holding `bits`-bit values.
int64_t PackedValue(const char* row, int64_t stride, int64_t c, int bits, LoadFn<int64_t> load) {
  if (bits == 8) return load(row + c * stride);
  const int per_byte = 8 / bits;
  const uint8_t byte = static_cast<uint8_t>(row[(c / per_byte) * stride]);
  if (bits == 4) return ((c % 2 == 0) ? byte >> 4 : byte & 0xF) - 8;
  return ((byte >> (2 * (c % 4))) & 3) - 2;
}

// `bits` (8, 4 or 2) per quantized value; 8-bit tables are int8 or uint8,
// packed ones uint8.
void EmbeddingPacked(KernelArgs& args, int bits, const Tensor& weight, const Tensor& scales,
                     const Tensor* zero_points, const Tensor& indices, Tensor& out) {
  const bool table_dtype_ok =
      weight.dtype() == ScalarType::kByte || (bits == 8 && weight.dtype() == ScalarType::kChar);
  if (!table_dtype_ok || weight.dim() != 2 || !IsBasicFloating(out.dtype()) ||
      !IsBasicType(scales.dtype()) ||
      (indices.dtype() != ScalarType::kLong && indices.dtype() != ScalarType::kInt) ||
      indices.dim() + 1 > kMaxTensorRank) {
    args.Fail(Error::kInvalidArgument,
              "needs a %s [V, D * %d / 8] weight, int32/int64 indices and a "
              "float32/float64 out",
              bits == 8 ? "int8/uint8" : "uint8", bits);
    return;
  }
  const int64_t vocab = weight.size(0);
  const int64_t width = weight.size(1) * (8 / bits);
  const int64_t groups = scales.dim() == 2 ? scales.size(1) : 1;
  const bool valid_scales = (scales.dim() == 1 || scales.dim() == 2) && scales.size(0) == vocab &&
                            groups > 0 && width % groups == 0;
  const bool valid_zps = zero_points == nullptr || (IsBasicType(zero_points->dtype()) &&
                                                    zero_points->numel() == scales.numel());
  if (!valid_scales || !valid_zps) {
    args.Fail(Error::kInvalidArgument,
              "scales must be [V] or [V, G] with G dividing D (%lld) and zero "
              "points shaped as the scales",
              static_cast<long long>(width));
    return;
  }
  int32_t sizes[kMaxTensorRank];
  for (int d = 0; d < indices.dim(); ++d) sizes[d] = indices.size(d);
  sizes[indices.dim()] = static_cast<int32_t>(width);
  if (!args.ResizeOut(out, {sizes, static_cast<size_t>(indices.dim() + 1)}, "out")) {
    return;
  }
  const int64_t group_size = width / groups;
  const int64_t n = indices.numel();
  const LoadFn<int64_t> load_w = GetLoader<int64_t>(weight.dtype());
  const int64_t elem_w = static_cast<int64_t>(ElementSize(weight.dtype()));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = static_cast<int64_t>(ValueAt(indices, i));
    if (row < 0 || row >= vocab) {
      args.Fail(Error::kInvalidArgument, "index %lld out of range for %lld rows",
                static_cast<long long>(row), static_cast<long long>(vocab));
      return;
    }
    for (int64_t c = 0; c < width; ++c) {
      const int64_t p = row * groups + c / group_size;
      const float s = static_cast<float>(ValueAt(scales, p));
      const int64_t zp =
          zero_points != nullptr ? static_cast<int64_t>(ValueAt(*zero_points, p)) : 0;
      const int64_t q = PackedValue(weight.data_as<const char>() + row * weight.stride(0) * elem_w,
                                    weight.stride(1) * elem_w, c, bits, load_w);
      StoreAt<double>(out, i * width + c, static_cast<double>(static_cast<float>(q - zp) * s));
    }
  }
}

// weight, weight_scales, weight_zero_points?, quant_min, quant_max,
// indices, out, ret.
void EmbeddingOutOp(KernelContext& ctx, Span<EValue*> raw, const char* name, int bits) {
  KernelArgs args(ctx, name, raw, 8);
  Tensor* weight = args.GetTensor(0);
  Tensor* scales = args.GetTensor(1);
  Tensor* zero_points = args.GetOptionalTensor(2);
  args.GetInt(3);  // weight_quant_min, weight_quant_max: the table's range
  args.GetInt(4);
  Tensor* indices = args.GetTensor(5);
  Tensor* out = args.GetTensor(6);
  if (!args.ok()) return;
  EmbeddingPacked(args, bits, *weight, *scales, zero_points, *indices, *out);
}

// As EmbeddingOutOp with a ScalarType? dtype (out's) before out.
void EmbeddingDtypeOutOp(KernelContext& ctx, Span<EValue*> raw, const char* name, int bits) {
  KernelArgs args(ctx, name, raw, 9);
  Tensor* weight = args.GetTensor(0);
  Tensor* scales = args.GetTensor(1);
  Tensor* zero_points = args.GetOptionalTensor(2);
  args.GetInt(3);
  args.GetInt(4);
  Tensor* indices = args.GetTensor(5);
  int64_t dtype = 0;
  const bool has_dtype = args.GetOptionalInt(6, &dtype);
  Tensor* out = args.GetTensor(7);
  if (!args.ok()) return;
  if (has_dtype && dtype != static_cast<int64_t>(out->dtype())) {
    args.Fail(Error::kInvalidArgument, "dtype %lld does not match out (%s)",
              static_cast<long long>(dtype), ScalarTypeName(out->dtype()));
    return;
  }
  EmbeddingPacked(args, bits, *weight, *scales, zero_points, *indices, *out);
}

}  // namespace

void EmbeddingByteOut(KernelContext& ctx, Span<EValue*> args) {
  EmbeddingOutOp(ctx, args, "quantized_decomposed::embedding_byte.out", 8);
}
void EmbeddingByteDtypeOut(KernelContext& ctx, Span<EValue*> args) {
  EmbeddingDtypeOutOp(ctx, args, "quantized_decomposed::embedding_byte.dtype_out", 8);
}
void Embedding4bitOut(KernelContext& ctx, Span<EValue*> args) {
  EmbeddingOutOp(ctx, args, "quantized_decomposed::embedding_4bit.out", 4);
}
void Embedding4bitDtypeOut(KernelContext& ctx, Span<EValue*> args) {
  EmbeddingDtypeOutOp(ctx, args, "quantized_decomposed::embedding_4bit.dtype_out", 4);
}
void Embedding2bitOut(KernelContext& ctx, Span<EValue*> args) {
  EmbeddingOutOp(ctx, args, "quantized_decomposed::embedding_2bit.out", 2);
}
void Embedding2bitDtypeOut(KernelContext& ctx, Span<EValue*> args) {
  EmbeddingDtypeOutOp(ctx, args, "quantized_decomposed::embedding_2bit.dtype_out", 2);
}

}  // namespace portable
}  // namespace edgefleet

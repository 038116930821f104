// quantized_decomposed::quantize_per_tensor.out, dequantize_per_tensor.out
// and dequantize_per_channel.out for float32 <-> int8 / uint8 tensors in
// the default dim order: the portable kernels' formulas (torch's
// _decomposed.py) vectorized, bit-identical:
//   quantize:   q = clamp(round_half_even(x * inv_scale) + zp, qmin, qmax)
//   dequantize: x = (float(q) - zp) * scale
// Rounding uses the 1.5 * 2^23 trick, exact below 2^22 in magnitude; larger
// values (and infinities) clamp to the same bound either way, NaN stores as
// the type's lowest value as the portable conversion does.

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr int64_t kParallelChunk = 64 * 1024;

struct QuantParams {
  float scale, zero_point, lo, hi;  // lo/hi: the quant range
};

template <typename Q>
float Lowest() {
  return static_cast<float>(std::numeric_limits<Q>::lowest());
}

// The scalar tail: the portable formula itself.
template <typename Q>
Q QuantizeOne(float x, const QuantParams& p) {
  float q = std::nearbyint(x * p.scale) + p.zero_point;
  q = q < p.lo ? p.lo : (q > p.hi ? p.hi : q);
  return static_cast<Q>(static_cast<int32_t>(q == q ? q : Lowest<Q>()));
}

template <typename Q>
struct QuantizeBody {
  template <int W>
  struct Body {
    [[gnu::always_inline]] static inline void Run(const float* x, Q* y, int64_t n, QuantParams p) {
      using V = Vf<W>;
      const V scale = Splat<W>(p.scale), zp = Splat<W>(p.zero_point), lo = Splat<W>(p.lo),
              hi = Splat<W>(p.hi), magic = Splat<W>(12582912.0f), lowest = Splat<W>(Lowest<Q>());
      int64_t i = 0;
      for (; i + W <= n; i += W) {
        V q = Load<W>(x + i) * scale;
        q = (q + magic) - magic;
        q = q + zp;
        q = Select<W>(q < lo, lo, q);
        q = Select<W>(q > hi, hi, q);
        q = Select<W>(q == q, q, lowest);
        const Vq<W, Q> bytes = __builtin_convertvector(__builtin_convertvector(q, Vm<W>), Vq<W, Q>);
        __builtin_memcpy(y + i, &bytes, sizeof(bytes));
      }
      for (; i < n; ++i) y[i] = QuantizeOne<Q>(x[i], p);
    }
  };
};

// y[i] = (float(q[i]) - zp) * scale.
template <typename Q>
struct DequantizeBody {
  template <int W>
  struct Body {
    [[gnu::always_inline]] static inline void Run(const Q* q, float* y, int64_t n, float scale,
                                                  float zero_point) {
      using V = Vf<W>;
      const V s = Splat<W>(scale), zp = Splat<W>(zero_point);
      int64_t i = 0;
      for (; i + W <= n; i += W) {
        Vq<W, Q> bytes;
        __builtin_memcpy(&bytes, q + i, sizeof(bytes));
        const V v = __builtin_convertvector(__builtin_convertvector(bytes, Vm<W>), V);
        Store<W>(y + i, (v - zp) * s);
      }
      for (; i < n; ++i) y[i] = (static_cast<float>(q[i]) - zero_point) * scale;
    }
  };
};

// dtype argument, quant range and the quantized tensor's dtype agree (as
// the portable kernel checks), for int8 / uint8.
bool QuantTypeOk(const Tensor& quantized, int64_t dtype, int64_t qmin, int64_t qmax) {
  const ScalarType t = quantized.dtype();
  if (dtype != static_cast<int64_t>(t)) return false;
  if (t == ScalarType::kChar) return qmin >= -128 && qmin <= qmax && qmax <= 127;
  if (t == ScalarType::kByte) return qmin >= 0 && qmin <= qmax && qmax <= 255;
  return false;
}

bool PeekNumber(Span<EValue* const> args, size_t i, double* value) {
  if (i >= args.size() || args[i] == nullptr) return false;
  if (args[i]->is_double()) {
    *value = args[i]->to_double();
  } else if (args[i]->is_int()) {
    *value = static_cast<double>(args[i]->to_int());
  } else {
    return false;
  }
  return true;
}

template <typename F>
void Chunked(KernelContext& ctx, int64_t n, F&& f) {
  const int64_t chunks = (n + kParallelChunk - 1) / kParallelChunk;
  ParallelFor(chunks, chunks > 1 ? ctx.num_threads() : 1, [&](int64_t t) {
    const int64_t i = t * kParallelChunk;
    f(i, std::min(kParallelChunk, n - i));
  });
}

bool TryQuantize(KernelContext& ctx, Span<EValue*> args) {
  if (!QuantizePerTensorSupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  Tensor& out = *PeekTensor(args, 6);
  double scale = 0;
  int64_t zp = 0, qmin = 0, qmax = 0, dtype = 0;
  const Tensor* inputs[1] = {&in};
  if (!PeekNumber(args, 1, &scale) || !PeekInt(args, 2, &zp) || !PeekInt(args, 3, &qmin) ||
      !PeekInt(args, 4, &qmax) || !PeekInt(args, 5, &dtype) ||
      !QuantTypeOk(out, dtype, qmin, qmax) || !FitOut(out, in.sizes(), inputs)) {
    return false;
  }
  const QuantParams p{static_cast<float>(1.0 / scale), static_cast<float>(zp),
                      static_cast<float>(qmin), static_cast<float>(qmax)};
  const float* x = in.data_as<const float>();
  Chunked(ctx, in.numel(), [&](int64_t i, int64_t n) {
    if (out.dtype() == ScalarType::kChar) {
      RunVectorized<QuantizeBody<int8_t>::template Body>(x + i, out.data_as<int8_t>() + i, n, p);
    } else {
      RunVectorized<QuantizeBody<uint8_t>::template Body>(x + i, out.data_as<uint8_t>() + i, n, p);
    }
  });
  return true;
}

// Dequantizes n elements of `in` from element `offset`.
void DequantizeRun(const Tensor& in, int64_t offset, int64_t n, float* y, float scale,
                   float zero_point) {
  if (in.dtype() == ScalarType::kChar) {
    RunVectorized<DequantizeBody<int8_t>::template Body>(in.data_as<const int8_t>() + offset, y, n,
                                                         scale, zero_point);
  } else {
    RunVectorized<DequantizeBody<uint8_t>::template Body>(in.data_as<const uint8_t>() + offset, y,
                                                          n, scale, zero_point);
  }
}

bool TryDequantize(KernelContext& ctx, Span<EValue*> args) {
  if (!DequantizePerTensorSupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  Tensor& out = *PeekTensor(args, 7);
  double scale = 0;
  int64_t zp = 0, qmin = 0, qmax = 0, dtype = 0, out_dtype = 0;
  const Tensor* inputs[1] = {&in};
  if (!PeekNumber(args, 1, &scale) || !PeekInt(args, 2, &zp) || !PeekInt(args, 3, &qmin) ||
      !PeekInt(args, 4, &qmax) || !PeekInt(args, 5, &dtype) ||
      !QuantTypeOk(in, dtype, qmin, qmax) ||
      !(PeekNone(args, 6) ||
        (PeekInt(args, 6, &out_dtype) && out_dtype == static_cast<int64_t>(ScalarType::kFloat))) ||
      !FitOut(out, in.sizes(), inputs)) {
    return false;
  }
  float* y = out.data_as<float>();
  Chunked(ctx, in.numel(), [&](int64_t i, int64_t n) {
    DequantizeRun(in, i, n, y + i, static_cast<float>(scale), static_cast<float>(zp));
  });
  return true;
}

bool TryDequantizePerChannel(KernelContext& ctx, Span<EValue*> args) {
  if (!DequantizePerChannelSupports(args)) return false;
  const Tensor& in = *PeekTensor(args, 0);
  const Tensor& scales = *PeekTensor(args, 1);
  const Tensor* zero_points = PeekTensor(args, 2);
  Tensor& out = *PeekTensor(args, 8);
  int64_t axis = 0, qmin = 0, qmax = 0, dtype = 0, out_dtype = 0;
  const Tensor* inputs[1] = {&in};
  if (!PeekInt(args, 3, &axis) || !PeekInt(args, 4, &qmin) || !PeekInt(args, 5, &qmax) ||
      !PeekInt(args, 6, &dtype) || !QuantTypeOk(in, dtype, qmin, qmax) ||
      !(PeekNone(args, 7) ||
        (PeekInt(args, 7, &out_dtype) && out_dtype == static_cast<int64_t>(ScalarType::kFloat))) ||
      in.dim() == 0 || axis < -in.dim() || axis >= in.dim()) {
    return false;
  }
  const int d = static_cast<int>(axis < 0 ? axis + in.dim() : axis);
  const int64_t channels = in.size(d);
  if (scales.dim() != 1 || scales.size(0) != channels ||
      (zero_points != nullptr && (zero_points->dim() != 1 || zero_points->size(0) != channels ||
                                  zero_points->dtype() != ScalarType::kLong)) ||
      !FitOut(out, in.sizes(), inputs)) {
    return false;
  }
  int64_t inner = 1;
  for (int i = d + 1; i < in.dim(); ++i) inner *= in.size(i);
  const int64_t outer = channels == 0 || inner == 0 ? 0 : in.numel() / (channels * inner);
  const float* s = scales.data_as<const float>();
  const int64_t* zps = zero_points != nullptr ? zero_points->data_as<const int64_t>() : nullptr;
  float* y = out.data_as<float>();
  ParallelFor(outer * channels, in.numel() > kParallelChunk ? ctx.num_threads() : 1,
              [&](int64_t i) {
                const int64_t c = i % channels;
                DequantizeRun(in, i * inner, inner, y + i * inner, s[c],
                              zps != nullptr ? static_cast<float>(zps[c]) : 0.0f);
              });
  return true;
}

}  // namespace

bool QuantizePerTensorSupports(Span<EValue* const> args) {
  if (args.size() != 8) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  const Tensor* out = PeekTensor(args, 6);
  return in != nullptr && out != nullptr && in->IsDefaultDimOrder() && out->IsDefaultDimOrder() &&
         (out->dtype() == ScalarType::kChar || out->dtype() == ScalarType::kByte);
}

bool DequantizePerTensorSupports(Span<EValue* const> args) {
  if (args.size() != 9) return false;
  const Tensor* in = PeekTensor(args, 0);
  const Tensor* out = PeekFloatTensor(args, 7);
  return in != nullptr && out != nullptr && in->IsDefaultDimOrder() && out->IsDefaultDimOrder() &&
         (in->dtype() == ScalarType::kChar || in->dtype() == ScalarType::kByte);
}

bool DequantizePerChannelSupports(Span<EValue* const> args) {
  if (args.size() != 10) return false;
  const Tensor* in = PeekTensor(args, 0);
  const Tensor* out = PeekFloatTensor(args, 8);
  return in != nullptr && out != nullptr && PeekFloatTensor(args, 1) != nullptr &&
         (PeekNone(args, 2) || PeekTensor(args, 2) != nullptr) && in->IsDefaultDimOrder() &&
         out->IsDefaultDimOrder() &&
         (in->dtype() == ScalarType::kChar || in->dtype() == ScalarType::kByte);
}

void QuantizePerTensorOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryQuantize(ctx, args)) portable::QuantizePerTensorOut(ctx, args);
}

void DequantizePerTensorOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryDequantize(ctx, args)) portable::DequantizePerTensorOut(ctx, args);
}

void DequantizePerChannelOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryDequantizePerChannel(ctx, args)) {
    portable::DequantizePerChannelOut(ctx, args);
  }
}

}  // namespace optimized
}  // namespace edgefleet

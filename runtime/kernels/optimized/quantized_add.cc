#include "runtime/kernels/optimized/quantized_add.h"

#include <cmath>
#include <cstring>

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/avx512_intrinsics.h"
#include "runtime/kernels/optimized/cpu_features.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/thread_pool.h"

namespace edgefleet {
namespace optimized {
namespace {

const char* const kName = "edgefleet::quantized_add";
constexpr int64_t kParallelChunk = 64 * 1024;

// One operand: int8 codes with (scale, zero point), or floats.
struct Operand {
  const int8_t* q = nullptr;
  const float* f = nullptr;
  float scale = 1, zero_point = 0;
};

struct OutParams {
  float inv, zero_point, lo, hi;
};

inline float Value(const Operand& o, int64_t i) {
  return o.q != nullptr ? (static_cast<float>(o.q[i]) - o.zero_point) * o.scale : o.f[i];
}

inline int8_t QuantizeOne(float x, const OutParams& p) {
  float q = std::nearbyint(x * p.inv) + p.zero_point;
  q = q < p.lo ? p.lo : (q > p.hi ? p.hi : q);
  return static_cast<int8_t>(static_cast<int32_t>(q == q ? q : -128.0f));
}

void AddScalar(const Operand& a, const Operand& b, const OutParams& p, int8_t* y, int64_t begin,
               int64_t end) {
  for (int64_t i = begin; i < end; ++i) y[i] = QuantizeOne(Value(a, i) + Value(b, i), p);
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma"))) inline __m512 Load16(const Operand& o,
                                                                                   int64_t i) {
  if (o.q != nullptr) {
    const __m512 v = _mm512_cvtepi32_ps(
        _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(o.q + i))));
    return _mm512_mul_ps(_mm512_sub_ps(v, _mm512_set1_ps(o.zero_point)), _mm512_set1_ps(o.scale));
  }
  return _mm512_loadu_ps(o.f + i);
}

// NaN (only from float operands) stores as -128 like the portable
// conversion; the vector path leaves such chunks to the scalar loop.
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma"))) void AddAvx512(
    const Operand& a, const Operand& b, const OutParams& p, int8_t* y, int64_t begin, int64_t end) {
  const __m512 inv = _mm512_set1_ps(p.inv), zp = _mm512_set1_ps(p.zero_point),
               lo = _mm512_set1_ps(p.lo), hi = _mm512_set1_ps(p.hi);
  int64_t i = begin;
  for (; i + 16 <= end; i += 16) {
    const __m512 s = _mm512_add_ps(Load16(a, i), Load16(b, i));
    const __m512 x = _mm512_mul_ps(s, inv);
    if (_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q) != 0) {
      AddScalar(a, b, p, y, i, i + 16);
      continue;
    }
    // round half to even (MXCSR default), then + zp and clamp, as floats.
    __m512 q = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    q = _mm512_add_ps(q, zp);
    q = _mm512_min_ps(_mm512_max_ps(q, lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i),
                     _mm512_cvtepi32_epi8(_mm512_cvtps_epi32(q)));
  }
  AddScalar(a, b, p, y, i, end);
}
#endif

void FailInvalid(KernelContext& ctx, const char* what) {
  SetErrorDetail("%s: %s", kName, what);
  ctx.Fail(Error::kInvalidArgument);
}

bool Number(const EValue* v, double* out) {
  if (v == nullptr) return false;
  if (v->is_double()) {
    *out = v->to_double();
  } else if (v->is_int()) {
    *out = static_cast<double>(v->to_int());
  } else {
    return false;
  }
  return std::isfinite(*out);
}

// Operand from args[i] (tensor), args[i + 1] (scale), args[i + 2] (zero point).
bool GetOperand(Span<EValue*> args, size_t i, const Tensor& out, Operand* o, const Tensor** t) {
  const Tensor* tensor = PeekTensor(args, i);
  if (tensor == nullptr || !tensor->IsDefaultDimOrder() || tensor->dim() != out.dim() ||
      !SameSizes(*tensor, out.sizes())) {
    return false;
  }
  *t = tensor;
  if (tensor->dtype() == ScalarType::kFloat) {
    o->f = tensor->data_as<const float>();
    return true;
  }
  double scale = 0, zp = 0;
  if (tensor->dtype() != ScalarType::kChar || !Number(args[i + 1], &scale) || !(scale > 0) ||
      !Number(args[i + 2], &zp)) {
    return false;
  }
  o->q = tensor->data_as<const int8_t>();
  o->scale = static_cast<float>(scale);
  o->zero_point = static_cast<float>(zp);
  return true;
}

}  // namespace

void QuantizedAddOut(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 12) return FailInvalid(ctx, "expected 12 arguments");
  Tensor* out = PeekTensor(args, 10);
  if (out == nullptr || out->dtype() != ScalarType::kChar || !out->IsDefaultDimOrder()) {
    return FailInvalid(ctx, "out must be an int8 tensor in the default dim order");
  }
  Operand a, b;
  const Tensor* ta = nullptr;
  const Tensor* tb = nullptr;
  if (!GetOperand(args, 0, *out, &a, &ta) || !GetOperand(args, 3, *out, &b, &tb)) {
    return FailInvalid(ctx,
                       "operands must be int8 (with scale and zero point) or float32 "
                       "tensors of out's shape");
  }
  double out_scale = 0, out_zp = 0, qmin = 0, qmax = 0;
  if (!Number(args[6], &out_scale) || !(out_scale > 0) || !Number(args[7], &out_zp) ||
      !Number(args[8], &qmin) || !Number(args[9], &qmax) || qmin < -128 || qmax > 127 ||
      qmin > qmax) {
    return FailInvalid(ctx, "bad output quantization parameters");
  }
  const OutParams p{static_cast<float>(1.0 / out_scale), static_cast<float>(out_zp),
                    static_cast<float>(qmin), static_cast<float>(qmax)};
  // An operand sharing out's memory is read from a copy (unless it is the
  // same int8 elements, which each step reads before writing).
  for (auto [t, o] : {std::pair<const Tensor*, Operand*>{ta, &a}, {tb, &b}}) {
    if (!Overlaps(*t, *out) || (o->q != nullptr && t->data() == out->data())) continue;
    void* copy = ctx.AllocateTemp(t->nbytes(), 64);
    if (copy == nullptr) {
      SetErrorDetail("%s: out of scratch memory", kName);
      return ctx.Fail(Error::kMemoryAllocationFailed);
    }
    std::memcpy(copy, t->data(), t->nbytes());
    if (o->q != nullptr) {
      o->q = static_cast<const int8_t*>(copy);
    } else {
      o->f = static_cast<const float*>(copy);
    }
  }
  int8_t* y = out->data_as<int8_t>();
  const int64_t n = out->numel();
  const int64_t chunks = (n + kParallelChunk - 1) / kParallelChunk;
  const bool avx512 = HostIsa() == Isa::kAvx512;
  ParallelFor(chunks, chunks > 1 ? ctx.num_threads() : 1, [&](int64_t c) {
    const int64_t begin = c * kParallelChunk, end = std::min(n, begin + kParallelChunk);
#if defined(__x86_64__)
    if (avx512) return AddAvx512(a, b, p, y, begin, end);
#endif
    (void)avx512;
    AddScalar(a, b, p, y, begin, end);
  });
}

const Kernel kQuantizedAddKernel = {kName, QuantizedAddOut, nullptr, KernelVariant::kOptimized};

}  // namespace optimized
}  // namespace edgefleet

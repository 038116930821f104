// Pointwise activations over float32 tensors whose input and out share a
// dim order (so element i of memory is element i of both): relu, hardtanh,
// clamp, hardswish and hardsigmoid are bit-identical to the portable
// kernels (same comparisons and roundings); sigmoid, tanh and gelu use
// vec_math.h (within a few ulp of libm; gelu's erf within 7 ulp).

#include "runtime/kernels/optimized/activation.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/optimized/vec.h"
#include "runtime/kernels/optimized/vec_math.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

enum class Act {
  kRelu,
  kClamp,
  kHardswish,
  kHardsigmoid,
  kSigmoid,
  kTanh,
  kGelu,      // 0.5 * x * (1 + erf(x / sqrt(2)))
  kGeluTanh,  // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
};

// The transcendental activations: vec_math.h, not bit-identical to libm.
constexpr bool IsTranscendental(Act act) {
  return act == Act::kSigmoid || act == Act::kTanh || act == Act::kGelu || act == Act::kGeluTanh;
}

template <Act kAct, int W>
[[gnu::always_inline]] inline Vf<W> Transcendental(Vf<W> x) {
  if constexpr (kAct == Act::kSigmoid) {
    return Sigmoid<W>(x);
  } else if constexpr (kAct == Act::kTanh) {
    return Tanh<W>(x);
  } else if constexpr (kAct == Act::kGelu) {
    return Splat<W>(0.5f) * x *
           (Splat<W>(1.0f) + Erf<W>(x * Splat<W>(static_cast<float>(M_SQRT1_2))));
  } else {
    const Vf<W> beta = Splat<W>(static_cast<float>(M_SQRT2 * M_2_SQRTPI * 0.5));
    const Vf<W> inner = beta * (x + Splat<W>(0.044715f) * x * x * x);
    return Splat<W>(0.5f) * x * (Splat<W>(1.0f) + Tanh<W>(inner));
  }
}

constexpr int64_t kParallelChunk = kMinRangeElements;

// Clamp bounds; a missing bound is +-infinity, which compares as absent.
struct Bounds {
  float lo, hi;
};

// x < lo -> lo, then > hi -> hi; NaN compares false and stays.
template <typename T, typename B>
[[gnu::always_inline]] inline T ClampTo(T x, B lo, B hi) {
  if constexpr (std::is_same_v<T, float>) {
    x = x < lo ? lo : x;
    return x > hi ? hi : x;
  } else {
    constexpr int W = sizeof(T) / sizeof(float);
    x = Select<W>(x < lo, lo, x);
    return Select<W>(x > hi, hi, x);
  }
}

template <Act kAct, typename T, typename S>
[[gnu::always_inline]] inline T Activate(T x, S lo, S hi, S zero, S three, S six) {
  switch (kAct) {
    case Act::kRelu:
      if constexpr (std::is_same_v<T, float>) {
        return x < 0.0f ? 0.0f : x;
      } else {
        return Select<sizeof(T) / 4>(x < zero, zero, x);
      }
    case Act::kClamp:
      return ClampTo(x, lo, hi);
    case Act::kHardswish:
      return x * ClampTo(x + three, zero, six) / six;
    case Act::kHardsigmoid:
      return ClampTo(x + three, zero, six) / six;
    default:
      return x;
  }
}

template <Act kAct>
struct Unary {
  template <int W>
  struct Body {
    [[gnu::always_inline]] static inline void Run(const float* x, float* y, int64_t n, Bounds b) {
      using V = Vf<W>;
      int64_t i = 0;
      if constexpr (IsTranscendental(kAct)) {
        for (; i + W <= n; i += W) {
          Store<W>(y + i, Transcendental<kAct, W>(Load<W>(x + i)));
        }
        if (i < n) {  // the tail through one padded vector
          float buffer[W] = {};
          std::copy(x + i, x + n, buffer);
          Store<W>(buffer, Transcendental<kAct, W>(Load<W>(buffer)));
          std::copy(buffer, buffer + (n - i), y + i);
        }
      } else {
        const V lo = Splat<W>(b.lo), hi = Splat<W>(b.hi), zero = V{}, three = Splat<W>(3.0f),
                six = Splat<W>(6.0f);
        for (; i + W <= n; i += W) {
          Store<W>(y + i, Activate<kAct>(Load<W>(x + i), lo, hi, zero, three, six));
        }
        for (; i < n; ++i) {
          y[i] = Activate<kAct>(x[i], b.lo, b.hi, 0.0f, 3.0f, 6.0f);
        }
      }
    }
  };
};

template <Act kAct>
void Run(int num_threads, const float* x, float* y, int64_t n, Bounds b) {
  const int64_t chunks = (n + kParallelChunk - 1) / kParallelChunk;
  ParallelFor(chunks, chunks > 1 ? num_threads : 1, [&](int64_t t) {
    const int64_t i = t * kParallelChunk;
    RunVectorized<Unary<kAct>::template Body>(x + i, y + i, std::min(kParallelChunk, n - i), b);
  });
}

// self, [bounds...], out, ret with `num_bounds` scalar bound arguments (they
// may be None when `optional`). False for the portable kernel.
bool TryUnary(KernelContext& ctx, Span<EValue*> args, Act act, int num_bounds, bool optional) {
  const size_t out_index = 1 + num_bounds;
  if (args.size() != out_index + 2) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  Tensor* out = PeekFloatTensor(args, out_index);
  if (in == nullptr || out == nullptr || !SameDimOrder(*in, *out)) return false;
  Bounds bounds{-__builtin_inff(), __builtin_inff()};
  bool any = num_bounds == 0;
  for (int i = 0; i < num_bounds; ++i) {
    Scalar s;
    if (PeekScalar(args, 1 + i, &s)) {
      (i == 0 ? bounds.lo : bounds.hi) = portable::ScalarTo<float>(s);
      any = true;
    } else if (!optional || !PeekNone(args, 1 + i)) {
      return false;
    }
  }
  const Tensor* inputs[1] = {in};
  if (!any || !FitOut(*out, in->sizes(), inputs)) return false;
  const float* x = in->data_as<const float>();
  float* y = out->data_as<float>();
  const int64_t n = in->numel();
  switch (act) {
    case Act::kRelu:
      Run<Act::kRelu>(ctx.num_threads(), x, y, n, bounds);
      break;
    case Act::kClamp:
      Run<Act::kClamp>(ctx.num_threads(), x, y, n, bounds);
      break;
    case Act::kHardswish:
      Run<Act::kHardswish>(ctx.num_threads(), x, y, n, bounds);
      break;
    case Act::kHardsigmoid:
      Run<Act::kHardsigmoid>(ctx.num_threads(), x, y, n, bounds);
      break;
    case Act::kSigmoid:
      Run<Act::kSigmoid>(ctx.num_threads(), x, y, n, bounds);
      break;
    case Act::kTanh:
      Run<Act::kTanh>(ctx.num_threads(), x, y, n, bounds);
      break;
    case Act::kGelu:
      Run<Act::kGelu>(ctx.num_threads(), x, y, n, bounds);
      break;
    case Act::kGeluTanh:
      Run<Act::kGeluTanh>(ctx.num_threads(), x, y, n, bounds);
      break;
  }
  return true;
}

// gelu.out: self, approximate ('none' / 'tanh' / None), out, ret.
bool TryGelu(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4) return false;
  Act act = Act::kGelu;
  if (args[1] != nullptr && args[1]->tag() == Tag::kString) {
    const Span<const char> mode = args[1]->to_string();
    const auto is = [&](const char* text) {
      return mode.size() == std::strlen(text) && std::memcmp(mode.data(), text, mode.size()) == 0;
    };
    if (is("tanh")) {
      act = Act::kGeluTanh;
    } else if (!is("none")) {
      return false;
    }
  } else if (!PeekNone(args, 1)) {
    return false;
  }
  const Tensor* in = PeekFloatTensor(args, 0);
  Tensor* out = PeekFloatTensor(args, 2);
  const Tensor* inputs[1] = {in};
  if (in == nullptr || out == nullptr || !SameDimOrder(*in, *out) ||
      !FitOut(*out, in->sizes(), inputs)) {
    return false;
  }
  ActivationArray(act == Act::kGelu ? Activation::kGelu : Activation::kGeluTanh,
                  in->data_as<const float>(), out->data_as<float>(), in->numel(),
                  ctx.num_threads());
  return true;
}

}  // namespace

void ActivationArray(Activation f, const float* x, float* y, int64_t n, int num_threads) {
  const Bounds none{0, 0};
  switch (f) {
    case Activation::kSigmoid:
      Run<Act::kSigmoid>(num_threads, x, y, n, none);
      break;
    case Activation::kTanh:
      Run<Act::kTanh>(num_threads, x, y, n, none);
      break;
    case Activation::kGelu:
      Run<Act::kGelu>(num_threads, x, y, n, none);
      break;
    case Activation::kGeluTanh:
      Run<Act::kGeluTanh>(num_threads, x, y, n, none);
      break;
  }
}

bool UnarySupports(Span<EValue* const> args) {
  if (args.size() < 3) return false;
  const Tensor* in = PeekFloatTensor(args, 0);
  const Tensor* out = PeekFloatTensor(args, args.size() - 2);
  return in != nullptr && out != nullptr && SameDimOrder(*in, *out);
}

void ReluOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryUnary(ctx, args, Act::kRelu, 0, false)) portable::ReluOut(ctx, args);
}
void HardtanhOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryUnary(ctx, args, Act::kClamp, 2, false)) {
    portable::HardtanhOut(ctx, args);
  }
}
void ClampOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryUnary(ctx, args, Act::kClamp, 2, true)) portable::ClampOut(ctx, args);
}
void HardswishOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryUnary(ctx, args, Act::kHardswish, 0, false)) {
    portable::HardswishOut(ctx, args);
  }
}
void HardsigmoidOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryUnary(ctx, args, Act::kHardsigmoid, 0, false)) {
    portable::HardsigmoidOut(ctx, args);
  }
}
void SigmoidOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryUnary(ctx, args, Act::kSigmoid, 0, false)) {
    portable::SigmoidOut(ctx, args);
  }
}
void TanhOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryUnary(ctx, args, Act::kTanh, 0, false)) portable::TanhOut(ctx, args);
}
void GeluOut(KernelContext& ctx, Span<EValue*> args) {
  if (!TryGelu(ctx, args)) portable::GeluOut(ctx, args);
}

}  // namespace optimized
}  // namespace edgefleet

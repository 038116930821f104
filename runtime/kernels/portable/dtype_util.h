// Element-type helpers for the portable kernels: a dtype switch that turns a
// runtime ScalarType into a C++ type, value conversion with defined behaviour
// for every input, and PyTorch's type-promotion rules.
//
// Kernels are written once as templates over the element type and
// instantiated through the Switch* helpers below; they never copy a kernel
// body per dtype. float16 and bfloat16 are storage types only: a kernel
// computes them in float32 (ComputeType), as PyTorch's CPU kernels do, and
// the loaders and storers convert on the way in and out (rounding to nearest
// even on the way out). All functions are pure and thread-safe.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_DTYPE_UTIL_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_DTYPE_UTIL_H_

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "runtime/core/evalue.h"
#include "runtime/core/half.h"
#include "runtime/core/scalar_type.h"

namespace edgefleet {
namespace portable {

// True for the 16-bit floating storage types.
template <typename T>
inline constexpr bool kIsReducedFloat = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// The ScalarType of C++ element type T (a basic type below, Half or
// BFloat16).
template <typename T>
constexpr ScalarType ScalarTypeOf() {
  if constexpr (std::is_same_v<T, Half>) return ScalarType::kHalf;
  if constexpr (std::is_same_v<T, BFloat16>) return ScalarType::kBFloat16;
  if constexpr (std::is_same_v<T, uint8_t>) return ScalarType::kByte;
  if constexpr (std::is_same_v<T, int8_t>) return ScalarType::kChar;
  if constexpr (std::is_same_v<T, int16_t>) return ScalarType::kShort;
  if constexpr (std::is_same_v<T, int32_t>) return ScalarType::kInt;
  if constexpr (std::is_same_v<T, int64_t>) return ScalarType::kLong;
  if constexpr (std::is_same_v<T, float>) return ScalarType::kFloat;
  if constexpr (std::is_same_v<T, double>) return ScalarType::kDouble;
  return ScalarType::kBool;
}

// Calls f(T{}) with the C++ type of `t` and returns true, or returns false if
// `t` is not in the family. Floating: float, double. Real: Floating plus the
// five integer types. All: Real plus bool.
template <typename F>
bool SwitchFloating(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::kFloat:
      f(float{});
      return true;
    case ScalarType::kDouble:
      f(double{});
      return true;
    default:
      return false;
  }
}

template <typename F>
bool SwitchReal(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::kByte:
      f(uint8_t{});
      return true;
    case ScalarType::kChar:
      f(int8_t{});
      return true;
    case ScalarType::kShort:
      f(int16_t{});
      return true;
    case ScalarType::kInt:
      f(int32_t{});
      return true;
    case ScalarType::kLong:
      f(int64_t{});
      return true;
    default:
      return SwitchFloating(t, f);
  }
}

template <typename F>
bool SwitchAll(ScalarType t, F&& f) {
  if (t == ScalarType::kBool) {
    f(bool{});
    return true;
  }
  return SwitchReal(t, f);
}

// SwitchFloating, SwitchReal and SwitchAll plus the storage types Half and
// BFloat16, for kernels over storage type S that compute in OpMath<S>.
template <typename F>
bool SwitchReducedFloating(ScalarType t, F&& f) {
  if (t == ScalarType::kHalf) {
    f(Half{});
    return true;
  }
  if (t == ScalarType::kBFloat16) {
    f(BFloat16{});
    return true;
  }
  return false;
}

template <typename F>
bool SwitchFloatingElement(ScalarType t, F&& f) {
  return SwitchReducedFloating(t, f) || SwitchFloating(t, f);
}

template <typename F>
bool SwitchRealElement(ScalarType t, F&& f) {
  return SwitchReducedFloating(t, f) || SwitchReal(t, f);
}

template <typename F>
bool SwitchElement(ScalarType t, F&& f) {
  return SwitchReducedFloating(t, f) || SwitchAll(t, f);
}

// The type elements of storage type S are computed in: float for Half and
// BFloat16, S itself otherwise.
template <typename S>
using OpMath = std::conditional_t<kIsReducedFloat<S>, float, S>;

// True for the dtypes SwitchAll handles.
inline bool IsBasicType(ScalarType t) {
  return SwitchAll(t, [](auto) {});
}

// True for float16 and bfloat16.
inline bool IsReducedFloating(ScalarType t) {
  return t == ScalarType::kHalf || t == ScalarType::kBFloat16;
}

// True for the dtypes SwitchElement handles: basic types, float16 and
// bfloat16.
inline bool IsElementType(ScalarType t) { return IsBasicType(t) || IsReducedFloating(t); }

// The dtype a kernel computes elements of dtype `t` in: float32 for float16
// and bfloat16 (PyTorch's "opmath" type on CPU), `t` itself otherwise.
inline ScalarType ComputeType(ScalarType t) {
  return IsReducedFloating(t) ? ScalarType::kFloat : t;
}

// True for the dtypes SwitchFloating handles (float32, float64).
inline bool IsBasicFloating(ScalarType t) {
  return SwitchFloating(t, [](auto) {});
}

// Converts `v` to To. Floating values outside To's range (and NaN) become
// To's lowest value, as x86 conversion does, instead of undefined behaviour.
// Half and BFloat16 convert through float, as c10 does (so double -> half
// rounds twice, as in PyTorch).
template <typename To, typename From>
inline To Convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsReducedFloat<From>) {
    return Convert<To>(static_cast<float>(v));
  } else if constexpr (kIsReducedFloat<To>) {
    return To(Convert<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // Through int64 (2^63 is an exact double, so the check is exact), then
    // narrowing wraps: -1.0 -> uint8 is 255, as in PyTorch on x86.
    const double d = static_cast<double>(v);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
      return std::numeric_limits<To>::lowest();
    }
    return static_cast<To>(static_cast<int64_t>(d));
  } else {
    return static_cast<To>(v);
  }
}

// std::isnan for floating types; false for the others.
template <typename T>
inline bool IsNan(T x) {
  if constexpr (kIsReducedFloat<T>) {
    return IsNan(static_cast<float>(x));
  } else if constexpr (std::is_floating_point_v<T>) {
    return x != x;
  } else {
    return false;
  }
}

template <typename T>
inline T ScalarTo(const Scalar& s) {
  if (s.kind == Scalar::Kind::kDouble) return Convert<T>(s.d);
  return Convert<T>(s.i);
}

// Reads one element of dtype `From` at `p` (any alignment) as To.
// A bool byte other than 0 or 1 reads as true.
template <typename To, typename From>
inline To LoadAs(const void* p) {
  if constexpr (std::is_same_v<From, bool>) {
    return Convert<To>(*static_cast<const uint8_t*>(p) != 0);
  } else {
    From v;
    std::memcpy(&v, p, sizeof(From));
    return Convert<To>(v);
  }
}

template <typename To>
using LoadFn = To (*)(const void*);
template <typename From>
using StoreFn = void (*)(From, void*);

template <typename From, typename To>
inline void StoreAs(From v, void* p) {
  const To t = Convert<To>(v);
  std::memcpy(p, &t, sizeof(To));
}

// Loader from `t` to To, or nullptr if `t` is not an element type.
template <typename To>
LoadFn<To> GetLoader(ScalarType t) {
  LoadFn<To> fn = nullptr;
  SwitchElement(t, [&](auto tag) { fn = &LoadAs<To, decltype(tag)>; });
  return fn;
}

// Storer from From into dtype `t`, or nullptr if `t` is not an element
// type.
template <typename From>
StoreFn<From> GetStorer(ScalarType t) {
  StoreFn<From> fn = nullptr;
  SwitchElement(t, [&](auto tag) { fn = &StoreAs<From, decltype(tag)>; });
  return fn;
}

// Run-wise forms of the above, one indirect call per run instead of one per
// element: n elements `stride` elements apart (0: one element repeated).
template <typename To>
using LoadRunFn = void (*)(const char* src, int64_t stride, int64_t n, To* dst);
template <typename From>
using StoreRunFn = void (*)(const From* src, int64_t n, char* dst, int64_t stride);

template <typename To, typename From>
void LoadRunAs(const char* src, int64_t stride, int64_t n, To* dst) {
  const int64_t step = stride * static_cast<int64_t>(sizeof(From));
  for (int64_t i = 0; i < n; ++i) dst[i] = LoadAs<To, From>(src + i * step);
}

template <typename From, typename To>
void StoreRunAs(const From* src, int64_t n, char* dst, int64_t stride) {
  const int64_t step = stride * static_cast<int64_t>(sizeof(To));
  for (int64_t i = 0; i < n; ++i) StoreAs<From, To>(src[i], dst + i * step);
}

// Run loader from `t` to To, or nullptr if `t` is not an element type.
template <typename To>
LoadRunFn<To> GetRunLoader(ScalarType t) {
  LoadRunFn<To> fn = nullptr;
  SwitchElement(t, [&](auto tag) { fn = &LoadRunAs<To, decltype(tag)>; });
  return fn;
}

// Run storer from From into dtype `t`, or nullptr if `t` is not an element
// type.
template <typename From>
StoreRunFn<From> GetRunStorer(ScalarType t) {
  StoreRunFn<From> fn = nullptr;
  SwitchElement(t, [&](auto tag) { fn = &StoreRunAs<From, decltype(tag)>; });
  return fn;
}

// torch.promote_types for the element types. REQUIRES: both are element
// types.
ScalarType PromoteTypes(ScalarType a, ScalarType b);

// torch.can_cast: false for floating -> integral/bool and for
// non-bool -> bool.
bool CanCast(ScalarType from, ScalarType to);

// One operand of a PyTorch result-type computation.
struct TypeOperand {
  ScalarType dtype;
  int dim;         // ignored for scalars
  bool is_scalar;  // a Python number (wrapped scalar)
};

// torch.result_type over `operands`: dimensioned tensors outrank 0-dim
// tensors, which outrank scalars, unless a lower class has a higher category
// (bool < integral < floating). A double scalar counts as float32.
ScalarType ResultType(const TypeOperand* operands, int count);

// The ScalarType a Scalar argument has as a wrapped number operand.
ScalarType ScalarDtype(const Scalar& s);

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_DTYPE_UTIL_H_

// Elementwise loops: apply a functor over one or two (broadcast) inputs in a
// compute type CT and store into an output view, converting dtypes on the
// way. Inputs may be tensors of any element dtype or dim order, or 0-dim
// scalar operands. A contiguous same-dtype fast path covers the common case.
//
// Also: wrapping integer arithmetic, so kernels are free of signed-overflow
// undefined behaviour (PyTorch wraps too).

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_ELEMENTWISE_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_ELEMENTWISE_H_

#include <cstdint>
#include <type_traits>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"
#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {

// An elementwise operand: a tensor, or a Scalar argument seen as a 0-dim
// tensor of dtype int64/double/bool (a "wrapped number" for promotion).
// Not copyable: the view points into the object itself for scalars.
class Operand {
 public:
  explicit Operand(const Tensor& t) : view_(StridedView::Of(t)) {}
  explicit Operand(const Scalar& s);
  Operand(const Operand&) = delete;
  Operand& operator=(const Operand&) = delete;

  const StridedView& view() const { return view_; }
  TypeOperand type() const { return {view_.dtype, view_.dim, is_scalar_}; }

 private:
  StridedView view_;
  bool is_scalar_ = false;
  union {
    int64_t i;
    double d;
    bool b;
  } storage_ = {0};
};

// Integer arithmetic that wraps on overflow (through uint64); plain
// arithmetic for floating types.
template <typename T>
inline T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else {
    return a + b;
  }
}
template <typename T>
inline T WrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  } else {
    return a - b;
  }
}
template <typename T>
inline T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    return a * b;
  }
}
template <typename T>
inline T WrapNeg(T a) {
  if constexpr (std::is_integral_v<T>) {
    return WrapSub<T>(T(0), a);
  } else {
    return -a;  // -(+0.0) is -0.0 (0 - x would give +0.0), as in PyTorch
  }
}

// Elements converted per run by the mixed-dtype loops (on the stack).
inline constexpr int64_t kRunBlock = 64;

// out[i] = op(a[i], b[i]) for CT values, over out's shape; a and b
// broadcast to it. REQUIRES: element dtypes; a, b broadcastable to out.
template <typename CT, typename Op>
void BinaryLoop(const StridedView& a, const StridedView& b, const StridedView& out, Op op) {
  const StridedView* const views[3] = {&a, &b, &out};
  StridedLoop<3> loop = BroadcastLoop<3>(out.dim, out.sizes, views);
  loop.Coalesce();
  constexpr ScalarType kType = ScalarTypeOf<CT>();
  if (!std::is_same_v<CT, bool> && a.dtype == kType && b.dtype == kType && out.dtype == kType) {
    const CT* pa = reinterpret_cast<const CT*>(a.data);
    const CT* pb = reinterpret_cast<const CT*>(b.data);
    CT* po = reinterpret_cast<CT*>(out.data);
    if (loop.dim == 1 && loop.strides[0][0] == 1 && loop.strides[1][0] == 1 &&
        loop.strides[2][0] == 1) {
      for (int64_t i = 0; i < loop.sizes[0]; ++i) po[i] = op(pa[i], pb[i]);
      return;
    }
    ForEachOffset(loop, [&](const int64_t* o) { po[o[2]] = op(pa[o[0]], pb[o[1]]); });
    return;
  }
  // Mixed dtypes: runs of the innermost dim converted to CT and back.
  const LoadRunFn<CT> load_a = GetRunLoader<CT>(a.dtype);
  const LoadRunFn<CT> load_b = GetRunLoader<CT>(b.dtype);
  const StoreRunFn<CT> store = GetRunStorer<CT>(out.dtype);
  const int64_t ea = static_cast<int64_t>(ElementSize(a.dtype));
  const int64_t eb = static_cast<int64_t>(ElementSize(b.dtype));
  const int64_t eo = static_cast<int64_t>(ElementSize(out.dtype));
  const int last = loop.dim - 1;
  const int64_t sa = loop.dim > 0 ? loop.strides[0][last] : 0;
  const int64_t sb = loop.dim > 0 ? loop.strides[1][last] : 0;
  const int64_t so = loop.dim > 0 ? loop.strides[2][last] : 0;
  CT xa[kRunBlock], xb[kRunBlock], y[kRunBlock];
  ForEachRun(loop, kRunBlock, [&](const int64_t* o, int64_t n) {
    load_a(a.data + o[0] * ea, sa, n, xa);
    load_b(b.data + o[1] * eb, sb, n, xb);
    for (int64_t i = 0; i < n; ++i) y[i] = op(xa[i], xb[i]);
    store(y, n, out.data + o[2] * eo, so);
  });
}

// out[i] = op(in[i]) for CT values. REQUIRES: element dtypes, same shape.
template <typename CT, typename Op>
void UnaryLoop(const StridedView& in, const StridedView& out, Op op) {
  const StridedView* const views[2] = {&in, &out};
  StridedLoop<2> loop = BroadcastLoop<2>(out.dim, out.sizes, views);
  loop.Coalesce();
  constexpr ScalarType kType = ScalarTypeOf<CT>();
  if (!std::is_same_v<CT, bool> && in.dtype == kType && out.dtype == kType) {
    const CT* pi = reinterpret_cast<const CT*>(in.data);
    CT* po = reinterpret_cast<CT*>(out.data);
    if (loop.dim == 1 && loop.strides[0][0] == 1 && loop.strides[1][0] == 1) {
      for (int64_t i = 0; i < loop.sizes[0]; ++i) po[i] = op(pi[i]);
      return;
    }
    ForEachOffset(loop, [&](const int64_t* o) { po[o[1]] = op(pi[o[0]]); });
    return;
  }
  const LoadRunFn<CT> load = GetRunLoader<CT>(in.dtype);
  const StoreRunFn<CT> store = GetRunStorer<CT>(out.dtype);
  const int64_t ei = static_cast<int64_t>(ElementSize(in.dtype));
  const int64_t eo = static_cast<int64_t>(ElementSize(out.dtype));
  const int last = loop.dim - 1;
  const int64_t si = loop.dim > 0 ? loop.strides[0][last] : 0;
  const int64_t so = loop.dim > 0 ? loop.strides[1][last] : 0;
  CT x[kRunBlock], y[kRunBlock];
  ForEachRun(loop, kRunBlock, [&](const int64_t* o, int64_t n) {
    load(in.data + o[0] * ei, si, n, x);
    for (int64_t i = 0; i < n; ++i) y[i] = op(x[i]);
    store(y, n, out.data + o[1] * eo, so);
  });
}

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_ELEMENTWISE_H_

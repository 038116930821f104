#include "runtime/kernels/portable/copy_util.h"

#include <cstring>

#include "runtime/kernels/portable/dtype_util.h"

namespace edgefleet {
namespace portable {
namespace {

// Fixed-size element moved as raw bytes.
template <size_t kSize>
struct Element {
  unsigned char bytes[kSize];
};

StridedLoop<1> LoopOf(const StridedView& v) {
  StridedLoop<1> loop;
  loop.dim = v.dim;
  for (int d = 0; d < v.dim; ++d) {
    loop.sizes[d] = v.sizes[d];
    loop.strides[0][d] = v.strides[d];
  }
  return loop;
}

StridedLoop<2> PairLoop(const StridedView& src, const StridedView& dst) {
  StridedLoop<2> loop;
  loop.dim = dst.dim;
  for (int d = 0; d < dst.dim; ++d) {
    loop.sizes[d] = dst.sizes[d];
    loop.strides[0][d] = src.strides[d];
    loop.strides[1][d] = dst.strides[d];
  }
  loop.Coalesce();
  return loop;
}

template <typename E>
void CopySameType(const StridedView& src, const StridedView& dst) {
  const StridedLoop<2> loop = PairLoop(src, dst);
  const E* in = reinterpret_cast<const E*>(src.data);
  E* out = reinterpret_cast<E*>(dst.data);
  if (loop.dim == 1 && loop.strides[0][0] == 1 && loop.strides[1][0] == 1) {
    std::memmove(out, in, static_cast<size_t>(loop.sizes[0]) * sizeof(E));
    return;
  }
  ForEachOffset(loop, [&](const int64_t* o) { out[o[1]] = in[o[0]]; });
}

template <typename To, typename From>
void CopyConverting(const StridedView& src, const StridedView& dst) {
  const StridedLoop<2> loop = PairLoop(src, dst);
  const char* in = src.data;
  char* out = dst.data;
  ForEachOffset(loop, [&](const int64_t* o) {
    StoreAs<To, To>(LoadAs<To, From>(in + o[0] * sizeof(From)), out + o[1] * sizeof(To));
  });
}

// Walks a view's offsets one element at a time, in row-major order.
class Cursor {
 public:
  explicit Cursor(const StridedView& v) : loop_(LoopOf(v)) {}
  int64_t offset() const { return offset_; }
  void Next() {
    for (int d = loop_.dim - 1; d >= 0; --d) {
      offset_ += loop_.strides[0][d];
      if (++index_[d] < loop_.sizes[d]) return;
      offset_ -= loop_.strides[0][d] * index_[d];
      index_[d] = 0;
    }
  }

 private:
  StridedLoop<1> loop_;
  int64_t index_[kMaxTensorRank] = {};
  int64_t offset_ = 0;
};

// True if the (coalesced) loop walks memory contiguously from offset 0.
bool IsFlat(const StridedLoop<1>& loop) {
  return loop.dim == 0 || (loop.dim == 1 && loop.strides[0][0] == 1);
}

template <typename E>
void CopyReshapedTyped(const StridedView& src, const StridedView& dst) {
  StridedLoop<1> in_loop = LoopOf(src);
  in_loop.Coalesce();
  StridedLoop<1> out_loop = LoopOf(dst);
  out_loop.Coalesce();
  const E* in = reinterpret_cast<const E*>(src.data);
  E* out = reinterpret_cast<E*>(dst.data);
  if (IsFlat(in_loop) && IsFlat(out_loop)) {
    std::memmove(out, in, static_cast<size_t>(src.numel()) * sizeof(E));
    return;
  }
  Cursor cursor(dst);
  ForEachOffset(in_loop, [&](const int64_t* o) {
    out[cursor.offset()] = in[o[0]];
    cursor.Next();
  });
}

// Calls f(Element<size>{}) for the element size of `dtype`.
template <typename F>
bool SwitchElementSize(ScalarType dtype, F&& f) {
  switch (ElementSize(dtype)) {
    case 1:
      f(Element<1>{});
      return true;
    case 2:
      f(Element<2>{});
      return true;
    case 4:
      f(Element<4>{});
      return true;
    case 8:
      f(Element<8>{});
      return true;
    default:
      return false;
  }
}

}  // namespace

bool CopyView(const StridedView& src, const StridedView& dst) {
  if (src.dtype == dst.dtype) {
    return SwitchElementSize(src.dtype, [&](auto e) { CopySameType<decltype(e)>(src, dst); });
  }
  if (!IsElementType(src.dtype) || !IsElementType(dst.dtype)) return false;
  SwitchElement(dst.dtype, [&](auto to) {
    SwitchElement(src.dtype,
                  [&](auto from) { CopyConverting<decltype(to), decltype(from)>(src, dst); });
  });
  return true;
}

bool FillView(const StridedView& dst, const Scalar& value) {
  return SwitchElement(dst.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T v = ScalarTo<T>(value);
    T* out = reinterpret_cast<T*>(dst.data);
    ForEachOffset(LoopOf(dst), [&](const int64_t* o) { out[o[0]] = v; });
  });
}

void CopyReshaped(const StridedView& src, const StridedView& dst) {
  SwitchElementSize(src.dtype, [&](auto e) { CopyReshapedTyped<decltype(e)>(src, dst); });
}

}  // namespace portable
}  // namespace edgefleet

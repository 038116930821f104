// Span<T>: a non-owning (pointer, length) view, as in C++20 std::span.
// Copying a Span copies the view, never the elements.

#ifndef EDGEFLEET_RUNTIME_CORE_SPAN_H_
#define EDGEFLEET_RUNTIME_CORE_SPAN_H_

#include <cstddef>

namespace edgefleet {

template <typename T>
class Span {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <size_t N>
  constexpr Span(T (&array)[N]) : data_(array), size_(N) {}  // NOLINT
  // Span<T> converts to Span<const T>.
  template <typename U>
  constexpr Span(const Span<U>& other)  // NOLINT
      : data_(other.data()), size_(other.size()) {}

  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }
  // REQUIRES: i < size().
  constexpr T& operator[](size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_SPAN_H_

// Result<T>: a value of type T or an Error, for functions that can fail.
//
// The runtime is built without exceptions; constructors that can fail are
// `static Result<T> Create(...)`. A Result must be checked with ok() before
// get() / operator*; get() on an error aborts (a programming mistake, not a
// recoverable condition). T must be movable.

#ifndef EDGEFLEET_RUNTIME_CORE_RESULT_H_
#define EDGEFLEET_RUNTIME_CORE_RESULT_H_

#include <new>
#include <type_traits>
#include <utility>

#include "runtime/core/error.h"
#include "runtime/platform/abort.h"

namespace edgefleet {

template <typename T>
class [[nodiscard]] Result {
 public:
  // REQUIRES: error != Error::kOk.
  Result(Error error) : error_(error) {  // NOLINT: implicit by design.
    if (error == Error::kOk) Abort("Result constructed from Error::kOk");
  }
  Result(T&& value) : error_(Error::kOk) {  // NOLINT: implicit by design.
    new (&storage_) T(std::move(value));
  }
  Result(const T& value) : error_(Error::kOk) {  // NOLINT
    new (&storage_) T(value);
  }
  Result(Result&& other) noexcept : error_(other.error_) {
    if (ok()) new (&storage_) T(std::move(*other.ptr()));
  }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  Result& operator=(Result&&) = delete;
  ~Result() {
    if (ok()) ptr()->~T();
  }

  bool ok() const { return error_ == Error::kOk; }
  Error error() const { return error_; }

  T& get() {
    CheckOk();
    return *ptr();
  }
  const T& get() const {
    CheckOk();
    return *ptr();
  }
  T& operator*() { return get(); }
  const T& operator*() const { return get(); }
  T* operator->() { return &get(); }
  const T* operator->() const { return &get(); }

 private:
  void CheckOk() const {
    if (!ok()) Abort("Result::get() on an error");
  }
  T* ptr() { return std::launder(reinterpret_cast<T*>(&storage_)); }
  const T* ptr() const { return std::launder(reinterpret_cast<const T*>(&storage_)); }

  Error error_;
  alignas(T) unsigned char storage_[sizeof(T)];
};

}  // namespace edgefleet

// EF_ASSIGN_OR_RETURN(lhs, result_expr): evaluates a Result-valued
// expression; on error returns its Error, otherwise moves the value into
// `lhs` (which may be a declaration such as `auto x`).
#define EF_CONCAT_INNER_(a, b) a##b
#define EF_CONCAT_(a, b) EF_CONCAT_INNER_(a, b)
#define EF_ASSIGN_OR_RETURN(lhs, expr) \
  EF_ASSIGN_OR_RETURN_IMPL_(EF_CONCAT_(ef_result_, __LINE__), lhs, expr)
#define EF_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.error();              \
  lhs = std::move(tmp.get())

#endif  // EDGEFLEET_RUNTIME_CORE_RESULT_H_

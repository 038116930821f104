// The human-readable reason for the most recent runtime failure on this thread.
//
// Runtime functions that fail record one line ("operator aten::foo.out is not
// registered") with SetErrorDetail before returning their Error. Callers that
// surface errors to people (edgefleet-run, the gRPC service) read it with
// LastErrorDetail(). Storage is a fixed thread-local buffer: no heap use, and
// each thread sees only its own failures.

#ifndef EDGEFLEET_RUNTIME_CORE_ERROR_DETAIL_H_
#define EDGEFLEET_RUNTIME_CORE_ERROR_DETAIL_H_

#include "runtime/core/error.h"

namespace edgefleet {

// Longest detail kept, including the terminating NUL; longer text is cut.
inline constexpr int kMaxErrorDetail = 1024;

// Records printf-style text as the calling thread's last error detail and
// emits it to the log at debug level.
void SetErrorDetail(const char* format, ...) __attribute__((format(printf, 1, 2)));

// The calling thread's last detail, or "" if none was recorded since
// ClearErrorDetail(). The pointer stays valid until the next Set/Clear.
const char* LastErrorDetail();

void ClearErrorDetail();

}  // namespace edgefleet

// Log-and-return helpers. These are the only macros of the runtime.
//
// EF_CHECK_OR_RETURN(cond, error, format, ...): if `cond` is false, records
// the detail and returns `error` from the enclosing function (which must
// return Error or Result<T>).
#define EF_CHECK_OR_RETURN(cond, error, ...)    \
  do {                                          \
    if (!(cond)) {                              \
      ::edgefleet::SetErrorDetail(__VA_ARGS__); \
      return (error);                           \
    }                                           \
  } while (0)

// EF_FAIL(error, format, ...): records the detail and returns `error`.
#define EF_FAIL(error, ...)                   \
  do {                                        \
    ::edgefleet::SetErrorDetail(__VA_ARGS__); \
    return (error);                           \
  } while (0)

// EF_RETURN_IF_ERROR(expr): evaluates an Error-valued expression and returns
// it if it is not kOk. The detail was recorded by whoever failed.
#define EF_RETURN_IF_ERROR(expr)                                \
  do {                                                          \
    const ::edgefleet::Error ef_error_ = (expr);                \
    if (ef_error_ != ::edgefleet::Error::kOk) return ef_error_; \
  } while (0)

#endif  // EDGEFLEET_RUNTIME_CORE_ERROR_DETAIL_H_

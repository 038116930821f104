// Adds context to the calling thread's last error detail (error_detail.h),
// e.g. "input.npy: " in front of a parser's "not a .npy file (bad magic)".
// Thread-safe (the detail is thread-local).

#ifndef EDGEFLEET_RUNTIME_TOOLS_ERROR_CONTEXT_H_
#define EDGEFLEET_RUNTIME_TOOLS_ERROR_CONTEXT_H_

#include "runtime/core/error.h"

namespace edgefleet {
namespace tools {

// Replaces the last detail D with "<context>: D" and returns `error`, so a
// caller can write `return WithErrorContext(error, "input 0")`. If no
// detail was recorded, the error's name stands in for D.
Error WithErrorContext(Error error, const char* context);

}  // namespace tools
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_TOOLS_ERROR_CONTEXT_H_

// Process abort for broken invariants (programming errors, never bad input).

#ifndef EDGEFLEET_RUNTIME_PLATFORM_ABORT_H_
#define EDGEFLEET_RUNTIME_PLATFORM_ABORT_H_

namespace edgefleet {

// Logs `reason` at error level and aborts the process. Never returns.
[[noreturn]] void Abort(const char* reason);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_PLATFORM_ABORT_H_

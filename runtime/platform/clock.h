// Monotonic clock for timing loads, executions and trace events.
// Thread-safe.

#ifndef EDGEFLEET_RUNTIME_PLATFORM_CLOCK_H_
#define EDGEFLEET_RUNTIME_PLATFORM_CLOCK_H_

#include <cstdint>

namespace edgefleet {

// Nanoseconds since an arbitrary fixed point; never decreases.
uint64_t MonotonicNanos();

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_PLATFORM_CLOCK_H_

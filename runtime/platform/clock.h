// Clocks for timing loads, executions and trace events: the monotonic
// clock (wall time) and the calling thread's CPU time. Thread-safe.

#ifndef EDGEFLEET_RUNTIME_PLATFORM_CLOCK_H_
#define EDGEFLEET_RUNTIME_PLATFORM_CLOCK_H_

#include <cstdint>

namespace edgefleet {

// Nanoseconds since an arbitrary fixed point; never decreases.
uint64_t MonotonicNanos();

// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), nanoseconds:
// unlike wall time it does not count the time other processes hold the
// core, so a loaded host measures (nearly) what a quiet one does.
uint64_t ThreadCpuNanos();

// CPU time of the whole process (CLOCK_PROCESS_CPUTIME_ID), nanoseconds:
// every thread's, so a parallel run counts its workers (spinning too).
uint64_t ProcessCpuNanos();

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_PLATFORM_CLOCK_H_

// TraceRecorder: an EventTracer that keeps events in a caller-provided,
// fixed-size array, with timestamps of the monotonic clock (the default:
// wall time, for traces) or of the executing thread's CPU clock
// (TraceClock::kThreadCpu: time other processes hold the core is not
// counted, for cost models measured on a busy host).
//
// Allocation-free: the recorder never grows its buffer. When it is full,
// further events are dropped and counted (dropped()); the events already
// kept stay valid and consistent (an event whose Begin was kept always gets
// its End). Exporters (etdump_writer.h, runtime/tools/chrome_trace.h) read
// the records after the run.
//
// Ownership: the caller owns the record array, which must outlive the
// recorder; record names point into the Program (see event_tracer.h), so
// export the records before unloading it.
// Thread safety: one thread at a time (the Method's executing thread).

#ifndef EDGEFLEET_RUNTIME_DEVTOOLS_TRACE_RECORDER_H_
#define EDGEFLEET_RUNTIME_DEVTOOLS_TRACE_RECORDER_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/span.h"
#include "runtime/devtools/event_tracer.h"

namespace edgefleet {

enum class TraceClock : uint8_t {
  kMonotonic,  // MonotonicNanos()
  kThreadCpu,  // ThreadCpuNanos()
};

struct TraceRecord {
  TraceEvent event;
  uint64_t start_ns = 0;  // the recorder's clock at Begin (or Record)
  uint64_t end_ns = 0;    // at End; equal to start_ns for point events
  uint32_t depth = 0;     // events open around this one when it began
};

class TraceRecorder final : public EventTracer {
 public:
  explicit TraceRecorder(Span<TraceRecord> buffer, TraceClock clock = TraceClock::kMonotonic)
      : buffer_(buffer), clock_(clock) {}

  TraceToken Begin(const TraceEvent& event) override;
  void End(TraceToken token) override;
  void Record(const TraceEvent& event) override;

  size_t size() const { return size_; }
  const TraceRecord& record(size_t i) const { return buffer_[i]; }
  // Events not kept because the buffer was full.
  uint64_t dropped() const { return dropped_; }
  // Forgets every record and the dropped count. REQUIRES: no event open.
  void Clear();
  TraceClock clock() const { return clock_; }

 private:
  uint64_t Now() const;

  Span<TraceRecord> buffer_;
  TraceClock clock_;
  size_t size_ = 0;
  uint64_t dropped_ = 0;
  uint32_t depth_ = 0;
  // The innermost open instruction event (for delegate nodes), or -1.
  int32_t open_instruction_ = -1;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_DEVTOOLS_TRACE_RECORDER_H_

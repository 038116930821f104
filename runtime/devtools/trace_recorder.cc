#include "runtime/devtools/trace_recorder.h"

#include "runtime/platform/clock.h"

namespace edgefleet {

uint64_t TraceRecorder::Now() const {
  return clock_ == TraceClock::kThreadCpu ? ThreadCpuNanos() : MonotonicNanos();
}

TraceToken TraceRecorder::Begin(const TraceEvent& event) {
  ++depth_;
  if (event.kind == TraceEventKind::kInstruction) open_instruction_ = event.instruction;
  if (size_ == buffer_.size() || size_ >= kDroppedEvent) {
    ++dropped_;
    return kDroppedEvent;
  }
  TraceRecord& r = buffer_[size_];
  r.event = event;
  if (event.kind == TraceEventKind::kDelegateNode && event.instruction < 0) {
    r.event.instruction = open_instruction_;
  }
  r.depth = depth_ - 1;
  r.end_ns = 0;
  r.start_ns = Now();  // last, so the recorder's own work is outside
  return static_cast<TraceToken>(size_++);
}

void TraceRecorder::End(TraceToken token) {
  const uint64_t now = Now();
  if (depth_ > 0) --depth_;
  if (token >= size_) return;  // dropped (or not ours)
  TraceRecord& r = buffer_[token];
  r.end_ns = now;
  if (r.event.kind == TraceEventKind::kInstruction) open_instruction_ = -1;
}

void TraceRecorder::Record(const TraceEvent& event) {
  if (size_ == buffer_.size() || size_ >= kDroppedEvent) {
    ++dropped_;
    return;
  }
  TraceRecord& r = buffer_[size_++];
  r.event = event;
  r.depth = depth_;
  r.start_ns = r.end_ns = Now();
}

void TraceRecorder::Clear() {
  size_ = 0;
  dropped_ = 0;
  depth_ = 0;
  open_instruction_ = -1;
}

}  // namespace edgefleet

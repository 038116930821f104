// Load-time and execute-time tracing helpers of Method (internal to the
// executor): a scope that begins and ends one traced event, the load phase
// events, and allocation reports. Each call forwards to the given tracer
// (null: nothing); they hold no state of their own, so they are as
// thread-safe as the tracer they are given.

#ifndef EDGEFLEET_RUNTIME_EXECUTOR_METHOD_TRACE_H_
#define EDGEFLEET_RUNTIME_EXECUTOR_METHOD_TRACE_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/memory_allocator.h"
#include "runtime/devtools/event_tracer.h"

namespace edgefleet {
namespace internal {

// Begins a traced event if a tracer is attached and ends it when destroyed.
class TraceScope {
 public:
  TraceScope(EventTracer* tracer, const TraceEvent& event)
      : tracer_(tracer), token_(tracer != nullptr ? tracer->Begin(event) : kDroppedEvent) {}
  ~TraceScope() {
    if (tracer_ != nullptr) tracer_->End(token_);
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  EventTracer* tracer_;
  TraceToken token_;
};

inline TraceEvent LoadPhase(const char* name, int32_t delegate = -1) {
  TraceEvent event{TraceEventKind::kLoadPhase, name};
  event.delegate_id = delegate;
  return event;
}

// Reports the bytes `allocator` gave out since its use was `mark`.
inline void TraceAllocation(EventTracer* tracer, const char* name, const MemoryAllocator* allocator,
                            size_t mark) {
  if (tracer == nullptr || allocator == nullptr || allocator->used() <= mark) return;
  TraceEvent event{TraceEventKind::kAllocation, name};
  event.bytes = allocator->used() - mark;
  tracer->Record(event);
}

}  // namespace internal
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_EXECUTOR_METHOD_TRACE_H_

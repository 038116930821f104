// EventTracer: the hook interface through which the executor reports what it
// does, for profiling and debugging tools.
//
// The executor (runtime/executor/method.cc) calls a tracer, when one is
// attached, at:
//   - load phases: "Program::load_method" (all of Method::Load), inside it
//     "Method::init" and its steps (parse_values, init_delegates, one event
//     per delegate's Init, init_instructions, optimize_plan);
//   - every Execute(): one kExecute event "Method::execute";
//   - every instruction executed: its operator name and the kernel that ran
//     it (TraceEvent::detail);
//   - work inside a delegate call, where the delegate reports it (XNNPACK:
//     one event per node our own kernels run and per XNNPACK runtime);
//   - allocations: the method allocator's bytes per load step, the constant
//     allocator's for plan optimization, the temp allocator's scratch bytes
//     per instruction.
// With no tracer attached each hook costs one null-pointer test.
//
// Ownership: a tracer is owned by the caller, attached by pointer
// (MethodOptions::tracer, Method::set_event_tracer) and must outlive its use.
// Every `const char*` in a TraceEvent points at a string literal, a kernel
// name, or the Program's flatbuffer: valid while the Program is loaded.
// Thread safety: called on the thread that loads or executes the Method;
// one tracer serves one Method at a time.

#ifndef EDGEFLEET_RUNTIME_DEVTOOLS_EVENT_TRACER_H_
#define EDGEFLEET_RUNTIME_DEVTOOLS_EVENT_TRACER_H_

#include <cstdint>

namespace edgefleet {

enum class TraceEventKind : uint8_t {
  kLoadPhase,     // a step of Method::Load
  kExecute,       // one Method::Execute()
  kInstruction,   // one executed instruction
  kDelegateNode,  // work inside a delegate call
  kAllocation,    // bytes taken from an allocator (no duration)
};

struct TraceEvent {
  TraceEventKind kind;
  // Load phases and executes: the phase name. Instructions: the operator
  // ("aten::convolution.out", a plan pass's fused kernel such as
  // "edgefleet::quantized_convolution"), the backend id for delegate calls,
  // or "move", "jump_false", "free". Delegate nodes: the node's type.
  // Allocations: the allocator ("method", "constant", "temp").
  const char* name;
  // Instructions: the kernel kind, "portable", "optimized", "folded"
  // (computed at load, skipped), "fused" (work done by another
  // instruction), "delegate" or "control". Delegate nodes: where the node
  // ran ("xnnpack", "own", "own-optimized", "own-int8"). Otherwise null.
  const char* detail = nullptr;
  // Instructions: the instruction index in chain 0. Delegate nodes: left -1
  // by delegates; recorders attribute them to the open delegate call.
  int32_t instruction = -1;
  // Delegate calls and per-delegate Init phases: the delegate index.
  // Delegate nodes: the node's debug handle from the delegate payload.
  int32_t delegate_id = -1;
  // Allocations: the bytes taken.
  uint64_t bytes = 0;
};

// Returned by Begin and handed back to End. kDroppedEvent marks an event the
// tracer did not keep (e.g. its buffer was full); End ignores it.
using TraceToken = uint32_t;
inline constexpr TraceToken kDroppedEvent = 0xffffffffu;

class EventTracer {
 public:
  virtual ~EventTracer() = default;
  // An event with a duration starts now; End(token) closes it. Events nest:
  // every Begin is closed by its End before the enclosing event's End.
  virtual TraceToken Begin(const TraceEvent& event) = 0;
  virtual void End(TraceToken token) = 0;
  // A point event without duration (kAllocation).
  virtual void Record(const TraceEvent& event) = 0;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_DEVTOOLS_EVENT_TRACER_H_

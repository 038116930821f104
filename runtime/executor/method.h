// Method: an executable instance of one method of a Program.
//
// Method::Load builds the value table from the program (tensors pointing
// into planned arenas or constants), initializes delegates, and resolves a
// kernel for every KernelCall. After inputs are set, Execute() runs the
// instructions; it allocates nothing (kernel scratch comes from the temp
// allocator, reset after every instruction).
//
// Ownership: all memory comes from the caller's MemoryManager, which must
// outlive the Method; the Program must outlive it too. The Method owns its
// delegate handles and destroys them in its destructor.
// Thread safety: one thread at a time. Several Methods of one Program may
// run concurrently on different threads.

#ifndef EDGEFLEET_RUNTIME_EXECUTOR_METHOD_H_
#define EDGEFLEET_RUNTIME_EXECUTOR_METHOD_H_

#include <cstddef>
#include <cstdint>

#include "runtime/backends/backend.h"
#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/devtools/event_tracer.h"
#include "runtime/executor/instruction.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/method_meta.h"
#include "runtime/executor/program.h"
#include "runtime/kernels/kernel_registry.h"

namespace edgefleet {

struct MethodOptions {
  // Kernel choice: optimized where available, or portable only (reference).
  KernelPreference kernels = KernelPreference::kOptimizedFirst;
  // Threads kernels and delegates may use (>= 1).
  int num_threads = 1;
  // Most instructions one Execute() runs before failing with
  // kInvalidProgram: a bound against malformed jump loops. Straight-line
  // programs run each instruction once; lower it for untrusted programs.
  uint64_t max_instructions = 10 * 1000 * 1000;
  // Load-time plan optimization (needs MemoryManager::constant_allocator):
  // registered plan passes (kernels/plan_pass.h; with optimized kernels
  // only), then constant folding (executor/constant_folding.h).
  bool optimize_plan = true;
  // Receives load events, and execute events until Method::set_event_tracer
  // replaces it (runtime/devtools/event_tracer.h). Null: no tracing. Not
  // owned; must outlive its use.
  EventTracer* tracer = nullptr;
};

class Method {
 public:
  // Errors: kNotFound (no such method), kOperatorMissing (detail names the
  // first missing operator), kNotFound for an unregistered backend,
  // kMemoryAllocationFailed, kNotSupported (unbounded dynamic shapes,
  // external data), kInvalidProgram.
  static Result<Method> Load(const Program& program, const char* name, const MemoryManager& memory,
                             const MethodOptions& options = {});

  Method(Method&& other) noexcept;
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  Method& operator=(Method&&) = delete;
  ~Method();

  const MethodMeta& meta() const { return meta_; }
  size_t num_inputs() const { return num_inputs_; }
  size_t num_outputs() const { return num_outputs_; }

  // Sets input `i` from `value`. Tensors must match the input's dtype and
  // rank, and its shape (static inputs) or bound (DYNAMIC_BOUND inputs);
  // their data is copied into planned memory, converting the dim order if
  // needed, or (unplanned inputs) aliased and must outlive Execute().
  // Scalar inputs must equal the value traced at export.
  // Errors: kInvalidArgument with a detail such as
  // "input 0: expected float32[1,3,224,224], got float32[1,3,32,32]".
  Error SetInput(size_t i, const EValue& value);

  // Runs the method. REQUIRES: every input set since Load, and set again
  // since the last Execute() for inputs whose planned memory the method
  // reuses for intermediate values (the exporter's memory planner may
  // overlap a dead input with later tensors); otherwise kInvalidState.
  Error Execute();

  // Output `i`. Tensors point into planned memory, valid until the next
  // Execute(). REQUIRES: i < num_outputs().
  const EValue& output(size_t i) const;

  // Per-instruction kernel choice, for inspection: "portable"/"optimized",
  // "folded" (computed at load) or "fused" (taken over by another
  // instruction) for kernel calls, "delegate" or "control" for the other
  // kinds. REQUIRES: pc is a valid instruction index of chain 0.
  const char* instruction_kind(size_t pc) const;
  // Kernel name of instruction `pc` ("aten::add.out", or a plan pass's
  // fused kernel such as "edgefleet::quantized_convolution") into `buffer`, or
  // "delegate <backend id>#<delegate index>" for delegate calls, or the
  // instruction kind ("move", "jump_false", "free") for other instructions. False if it does not
  // fit. REQUIRES: valid pc.
  bool instruction_name(size_t pc, char* buffer, size_t size) const;
  size_t num_instructions() const { return num_instructions_; }
  // Arguments of instruction `pc` (kernel calls and delegates; empty for the
  // other kinds), as the kernel sees them: after a plan pass they are the
  // fused kernel's. For cost models (tensor shapes of an operator's inputs
  // and outputs); valid for the Method's lifetime. REQUIRES: valid pc.
  Span<EValue* const> instruction_args(size_t pc) const;

  // The method's initialized delegates, in the program's order.
  size_t num_delegates() const { return num_delegates_; }
  // Backend `i`'s description of its compiled delegate (node types and
  // where each runs) into `buffer`; false if cut. REQUIRES: i < num_delegates().
  bool delegate_description(size_t i, char* buffer, size_t size) const;
  // Heap bytes every delegate holds (packed weights, workspaces).
  size_t delegate_memory_bytes() const;

  // Tracer for the following executes; may be null. Not owned.
  void set_event_tracer(EventTracer* tracer) { tracer_ = tracer; }
  EventTracer* event_tracer() const { return tracer_; }

 private:
  using Instruction = internal::Instruction;
  struct Delegate;

  Method(const Program& program, MethodMeta meta, const MemoryManager& memory,
         const MethodOptions& options);
  Error Init(const edgefleet_fb::ExecutionPlan& plan);
  Error InitDelegates(const edgefleet_fb::ExecutionPlan& plan);
  Error InitInstructions(const edgefleet_fb::ExecutionPlan& plan);
  // Runs the instructions from the first; Execute() after its checks.
  Error RunInstructions();
  Error ExecuteInstruction(const Instruction& instruction, size_t* next_pc);
  // What the tracer is told about instruction `pc`.
  TraceEvent InstructionEvent(size_t pc) const;
  Error SetTensorInput(size_t i, Tensor& dst, const Tensor& src);
  void FindClobberedInputs(const edgefleet_fb::ExecutionPlan& plan);
  void OptimizePlan(const edgefleet_fb::ExecutionPlan& plan);

  const Program* program_;
  MethodMeta meta_;
  MemoryManager memory_;
  MethodOptions options_;
  EValue* values_ = nullptr;
  size_t num_values_ = 0;
  size_t* input_indices_ = nullptr;
  bool* input_set_ = nullptr;
  bool* input_clobbered_ = nullptr;  // planned memory overwritten by Execute
  size_t num_inputs_ = 0;
  size_t* output_indices_ = nullptr;
  size_t num_outputs_ = 0;
  Delegate* delegates_ = nullptr;
  size_t num_delegates_ = 0;
  Instruction* instructions_ = nullptr;
  size_t num_instructions_ = 0;
  EventTracer* tracer_ = nullptr;
  bool executed_ = false;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_EXECUTOR_METHOD_H_

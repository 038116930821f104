// Plan passes: init-time rewrites of a method's instruction list, registered
// by kernel libraries next to their kernels.
//
// A pass sees the method through a PlanEditor: the live kernel instructions
// (operator name, argument values), which instruction writes each value and
// how many read it, and which values are constant. It may replace an
// instruction's kernel and arguments (fusing a convolution with the batch
// norm after it, or a dequantize -> convolution -> quantize chain into one
// int8 convolution over pre-packed weights) and remove instructions whose
// work the replacement took over. It may also change the dim order of
// intermediate tensors it reaches through args() (same sizes and bytes),
// when every live instruction naming them runs that layout
// (optimized/channels_last_regions.h); never of constants or method I/O.
// Method::Load runs every registered pass, in registration order, when the
// method uses optimized kernels; then it folds instructions whose inputs
// are all constant (executor/constant_folding).
//
// Rules for passes: never change what the method computes beyond
// floating-point reassociation; leave the plan untouched when a pattern does
// not match exactly (dtypes, dim orders, reader counts, constant operands);
// allocate only through PlanEditor::Allocate and treat nullptr as "do not
// rewrite"; never fail Method::Load (a pass has no error result).
//
// Thread safety: registration as for kernels (kernel_registry.h); a
// PlanEditor is used by one thread during Method::Load.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PLAN_PASS_H_
#define EDGEFLEET_RUNTIME_KERNELS_PLAN_PASS_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernels/kernel_registry.h"

namespace edgefleet {

class PlanEditor {
 public:
  virtual ~PlanEditor() = default;

  // Instructions of the method, in program order (indices stay stable:
  // removed instructions keep their index and report op() == nullptr).
  virtual size_t num_instructions() const = 0;
  // Operator of live kernel instruction `pc` ("aten::convolution.out",
  // or the replacement kernel's name), or nullptr for removed instructions
  // and other instruction kinds.
  virtual const char* op(size_t pc) const = 0;
  // Arguments of kernel instruction `pc` (schema order, return slot last).
  virtual Span<EValue*> args(size_t pc) const = 0;
  // Threads kernels may use (MethodOptions::num_threads).
  virtual int num_threads() const = 0;

  // Value facts, for values reached through args(). Recomputed after every
  // Replace/Remove.
  // The one live instruction writing `value` (method outputs included), or
  // -1 (a constant, a method input, or a value with several writers or
  // none).
  virtual int64_t writer(const EValue* value) const = 0;
  // Live instructions reading `value` (its writer excluded).
  virtual size_t num_readers(const EValue* value) const = 0;
  // Data fixed before Execute and never written by it: program constants.
  virtual bool is_constant(const EValue* value) const = 0;
  // A method output or input (its memory is visible to the caller).
  virtual bool is_method_io(const EValue* value) const = 0;

  // Memory living as long as the Method (pre-packed weights), or nullptr
  // when the method's constant budget is exhausted.
  virtual void* Allocate(size_t bytes, size_t alignment) = 0;
  // A new value usable in Replace() arguments (e.g. a tensor over packed
  // weights, or a scalar the fused kernel needs), or nullptr (budget).
  virtual EValue* NewValue(const EValue& value) = 0;

  // Makes `pc` a call of `kernel` with `args` (copied). The kernel's
  // Supports() is not consulted. Errors: kInvalidArgument if `pc` is not a
  // live kernel instruction; kMemoryAllocationFailed.
  virtual Error Replace(size_t pc, const Kernel& kernel, Span<EValue* const> args) = 0;
  // Removes live kernel instruction `pc`: Execute skips it.
  virtual void Remove(size_t pc) = 0;
};

// A pass: inspects `plan` and rewrites what it recognises.
struct PlanPass {
  const char* name;  // "fuse_batch_norm_into_convolution"
  void (*run)(PlanEditor& plan);
};

inline constexpr int kMaxRegisteredPlanPasses = 32;

// Adds `passes`. Errors: kRegistrationAlreadyRegistered (same name),
// kRegistrationExceedingMaxKernels (table full); nothing is added then.
Error RegisterPlanPasses(Span<const PlanPass> passes);
int NumRegisteredPlanPasses();
// REQUIRES: 0 <= i < NumRegisteredPlanPasses().
const PlanPass& RegisteredPlanPass(int i);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PLAN_PASS_H_

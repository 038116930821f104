// Instruction: one decoded instruction of a loaded Method (internal to the
// executor). Method::Load builds the table from the program's chain; plan
// passes and constant folding (plan_editor.h) may later skip instructions
// or swap a kernel call's kernel and arguments. Plain data in method or
// constant allocator memory; owned by the Method.

#ifndef EDGEFLEET_RUNTIME_EXECUTOR_INSTRUCTION_H_
#define EDGEFLEET_RUNTIME_EXECUTOR_INSTRUCTION_H_

#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernels/kernel_registry.h"

namespace edgefleet {
namespace internal {

struct Instruction {
  enum class Kind : uint8_t { kKernel, kDelegate, kMove, kJumpFalse, kFree };
  // Why Execute() skips a kernel call.
  enum class Skip : uint8_t {
    kNo,
    kFolded,  // computed once at load: every input was constant
    kFused,   // a plan pass gave its work to another instruction
  };
  Kind kind;
  Skip skip;
  const Kernel* kernel;  // kKernel
  Span<EValue*> args;    // kKernel, kDelegate
  int32_t a;             // operator or delegate index, move source, jump condition, freed value
  int32_t b;             // move destination, jump target
};

}  // namespace internal
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_EXECUTOR_INSTRUCTION_H_

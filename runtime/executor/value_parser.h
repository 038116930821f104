// Builds a method's value table from its execution plan (internal to the
// executor). Tensors get their metadata from the method allocator and their
// data from planned arenas, the program's constants, or nothing (set later
// by inputs or view kernels). Lists are boxed over the table's own values.
// REQUIRES: the plan passed ValidateProgram.

#ifndef EDGEFLEET_RUNTIME_EXECUTOR_VALUE_PARSER_H_
#define EDGEFLEET_RUNTIME_EXECUTOR_VALUE_PARSER_H_

#include "runtime/core/evalue.h"
#include "runtime/core/result.h"
#include "runtime/executor/memory_manager.h"
#include "runtime/executor/program.h"
#include "runtime/format/program_generated.h"

namespace edgefleet {
namespace internal {

// Returns an array of plan.values()->size() EValues in method allocator
// memory. Errors: kMemoryAllocationFailed, kNotSupported (unbounded dynamic
// shapes, external data), kInvalidProgram, kInvalidArgument (planned memory
// smaller than the program needs).
Result<EValue*> ParseValues(const Program& program, const edgefleet_fb::ExecutionPlan& plan,
                            const MemoryManager& memory);

}  // namespace internal
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_EXECUTOR_VALUE_PARSER_H_

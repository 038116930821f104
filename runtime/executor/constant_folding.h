// Constant folding at Method::Load (internal to the executor).
//
// A live kernel call whose every input is constant (program constants, or
// values folded before it) computes the same outputs on every Execute():
// transposing a Linear layer's weight (permute_copy), dequantizing int8
// weights, building a zero initial state (full). FoldConstants runs such
// calls once, into memory from the editor's constant budget instead of the
// planned arenas (which later instructions reuse), and marks them skipped.
//
// A call is folded only if every value it writes is a planned tensor that
// no other instruction writes, no static view aliases and the caller never
// sees (not method I/O).
// A call that computes exactly what an earlier folded call did (same
// kernel, same constant inputs, equal scalars and int lists; unrolled
// recurrent networks transpose one weight every step) shares its result.
// A call that fails, or whose outputs do not fit the budget, is left to
// run (and fail) at Execute() as before. Kernel scratch comes from the
// editor's scratch allocator and is released after each call.

#ifndef EDGEFLEET_RUNTIME_EXECUTOR_CONSTANT_FOLDING_H_
#define EDGEFLEET_RUNTIME_EXECUTOR_CONSTANT_FOLDING_H_

#include <cstddef>

#include "runtime/executor/plan_editor.h"

namespace edgefleet {
namespace internal {

// Returns the number of instructions folded.
size_t FoldConstants(MethodPlanEditor& plan);

}  // namespace internal
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_EXECUTOR_CONSTANT_FOLDING_H_

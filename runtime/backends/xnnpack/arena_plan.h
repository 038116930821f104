// Memory plan for the XNNPACK delegate's boundary values (values that cross
// from one step to another: an XNNPACK runtime, a node on our kernels).
//
// Each value lives from the step that writes it to the last step that reads
// it. Values whose lifetimes overlap get disjoint byte ranges of one arena;
// the others may share (greedy: largest first, each at the lowest offset
// that fits beside the values already placed that it overlaps in time). One
// arena instead of a buffer per value keeps a method's activations few and
// warm in cache, and its load cheap. Pure computation; thread-compatible.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_ARENA_PLAN_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_ARENA_PLAN_H_

#include <cstddef>
#include <vector>

namespace edgefleet {
namespace xnnpack {

struct Lifetime {
  size_t bytes;
  int first_step;  // the step that writes the value
  int last_step;   // the last step that reads it (>= first_step)
};

struct ArenaPlan {
  std::vector<size_t> offsets;  // per lifetime, in input order; multiples of the alignment
  size_t size = 0;              // bytes the arena needs
};

// REQUIRES: alignment is a power of two.
ArenaPlan PlanArena(const std::vector<Lifetime>& values, size_t alignment);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_ARENA_PLAN_H_

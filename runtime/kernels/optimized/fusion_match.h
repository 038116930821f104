// Matching helpers shared by the optimized library's fusion passes
// (conv_fusion.h, binary_fusion.h): operand checks, the clamp-like
// activation after an instruction, and whether an output may be written
// earlier than the instruction that wrote it. Stateless; used by one thread
// during Method::Load (plan_pass.h).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_FUSION_MATCH_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_FUSION_MATCH_H_

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernels/plan_pass.h"

namespace edgefleet {
namespace optimized {

// A float32 tensor with data (or no elements), or nullptr.
const Tensor* FloatTensor(const EValue* v);

// Same sizes and dim order.
bool SameShape(const Tensor& a, const Tensor& b);

// The relu / hardtanh / clamp at `act_pc` (>= 0 or not matched) whose
// input is `in` and whose out is a float32 tensor of `like`'s shape written
// only by it: its bounds as a fused kernel's min and max arguments (relu:
// new values 0 and None; hardtanh and clamp: their constant finite bounds,
// clamp's may be None but not both) in bounds[0..1], and its out in *out.
// False when it does not match (or method memory for relu's bounds ran
// out).
bool MatchClampActivation(PlanEditor& plan, int64_t act_pc, const EValue* in, const Tensor& like,
                          EValue* bounds[2], EValue** out);

// True if a live instruction after `pc` and before `later`, other than
// those in `skip` (removed by the same rewrite), names a tensor sharing
// memory with `t`: then `t` may not be written at `pc` instead of at
// `later`.
bool TouchedBetween(const PlanEditor& plan, size_t pc, size_t later, const Tensor& t,
                    Span<const int64_t> skip = {});

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_FUSION_MATCH_H_

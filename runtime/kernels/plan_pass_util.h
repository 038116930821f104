// Helpers for writing plan passes (plan_pass.h) and for the executor's
// analysis of kernel-call arguments. Stateless; thread-safe.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PLAN_PASS_UTIL_H_
#define EDGEFLEET_RUNTIME_KERNELS_PLAN_PASS_UTIL_H_

#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernels/plan_pass.h"

namespace edgefleet {

// Calls fn(value) for every value `args` name: the items of tensor and int
// lists instead of the lists themselves (None items skipped). A value named
// twice is passed twice.
template <typename Fn>
void ForEachArgValue(Span<EValue* const> args, Fn fn) {
  for (size_t a = 0; a < args.size(); ++a) {
    const EValue* arg = args[a];
    if (arg->tag() == Tag::kListTensor || arg->tag() == Tag::kListOptionalTensor) {
      const BoxedTensorList& items = arg->to_tensor_list();
      for (size_t k = 0; k < items.size; ++k) {
        if (items.items[k] != nullptr) fn(items.items[k]);
      }
    } else if (arg->tag() == Tag::kListInt) {
      const BoxedIntList& items = arg->to_int_list();
      for (size_t k = 0; k < items.size; ++k) fn(items.items[k]);
    } else {
      fn(arg);
    }
  }
}

// True if `pc` >= 0 is a live kernel call of operator `name`.
bool IsOp(const PlanEditor& plan, int64_t pc, const char* name);

// A finite Int or Double argument that no instruction writes, as a double.
bool ConstNumber(const PlanEditor& plan, const EValue* value, double* out);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PLAN_PASS_UTIL_H_

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

// Who reads a value. Every pass asks these, never the argument lists
// directly: a value is read by an instruction that names it, either as an
// argument or as an item of a tensor or int list argument (aten::cat reads
// its inputs through a list). A fusion that counted only direct arguments
// would drop a value a list still reads.

// True if live instruction `pc` names `v` (directly or through a list).
bool Names(const PlanEditor& plan, size_t pc, const EValue* v);

// Live instructions naming `v`, other than its writer: its readers. Unlike
// PlanEditor::num_readers, readers of views that share its memory without
// naming it are not counted.
size_t NumNamingReaders(const PlanEditor& plan, const EValue* v);

// Live instructions after `pc` naming `v`, in order, stored in `pcs` up to
// `max` of them. Returns how many there are, or max + 1 when there are more.
size_t ReadersAfter(const PlanEditor& plan, size_t pc, const EValue* v, int64_t* pcs, size_t max);

// The first live instruction after `pc` naming `v`, or -1.
int64_t FirstReaderAfter(const PlanEditor& plan, size_t pc, const EValue* v);

// True if a live instruction other than `pc` names `v`.
bool NamedElsewhere(const PlanEditor& plan, const EValue* v, size_t pc);

// The one live instruction after `pc` that names `v`, if `v` is private to
// it: written only by `pc`, read by exactly one instruction (readers of
// views sharing its memory included), not method I/O. Else -1 (also when
// the one read is through a view).
int64_t SoleReader(const PlanEditor& plan, size_t pc, const EValue* v);

// True if `pc` >= 0 is a live kernel call of operator `name`.
bool IsOp(const PlanEditor& plan, int64_t pc, const char* name);

// A finite Int or Double argument that no instruction writes, as a double.
bool ConstNumber(const PlanEditor& plan, const EValue* value, double* out);

// A new float32 [rows, cols] value (default dim order) over new method
// memory from plan.Allocate, its data in *data; null when memory ran out
// or rows do not fit the tensor's int32 sizes.
EValue* NewFloatMatrix(PlanEditor& plan, int64_t rows, int32_t cols, float** data);
// A new float32 [rows, cols] value in dim order `order` ({0, 1} or {1, 0})
// over `data`, which must live as long as the method (a constant): a view,
// e.g. a weight read transposed. Null when method memory ran out.
EValue* NewFloatMatrixView(PlanEditor& plan, int32_t rows, int32_t cols, const uint8_t* order,
                           const float* data);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PLAN_PASS_UTIL_H_

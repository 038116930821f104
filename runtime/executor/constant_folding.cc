#include "runtime/executor/constant_folding.h"

#include "runtime/kernels/kernel_context.h"

namespace edgefleet {
namespace internal {
namespace {

// Most distinct tensors one folded call may write.
constexpr size_t kMaxFoldedOutputs = 16;
// Earlier folds searched for one computing the same thing.
constexpr size_t kMaxRemembered = 512;

bool SameIntList(const EValue& a, const EValue& b) {
  const BoxedIntList& x = a.to_int_list();
  const BoxedIntList& y = b.to_int_list();
  if (x.size != y.size) return false;
  for (size_t i = 0; i < x.size; ++i) {
    if (!x.items[i]->is_int() || !y.items[i]->is_int() ||
        x.items[i]->to_int() != y.items[i]->to_int()) {
      return false;
    }
  }
  return true;
}

bool SameShape(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.dim() != b.dim()) return false;
  for (int d = 0; d < a.dim(); ++d) {
    if (a.size(d) != b.size(d) || a.dim_order()[d] != b.dim_order()[d]) return false;
  }
  return true;
}

// Whether folded call `earlier` computed what `pc` would: the same kernel on
// the same constant inputs and equal scalar arguments, into outputs of the
// same shapes. Unrolled recurrent networks repeat such calls every step
// (transposing one weight per step), so the result is shared, not redone.
bool SameComputation(const MethodPlanEditor& plan, size_t earlier, size_t pc) {
  const Instruction& a = plan.instruction(earlier);
  const Instruction& b = plan.instruction(pc);
  if (a.kernel != b.kernel || a.args.size() != b.args.size()) return false;
  for (size_t i = 0; i < a.args.size(); ++i) {
    const EValue& x = *a.args[i];
    const EValue& y = *b.args[i];
    if (&x == &y) continue;
    if (x.tag() != y.tag()) return false;
    switch (x.tag()) {
      case Tag::kTensor:
        // Only outputs (written by the calls themselves) may differ.
        if (plan.writer(&y) != static_cast<int64_t>(pc) || !plan.is_constant(&x) ||
            !SameShape(x.to_tensor(), y.to_tensor())) {
          return false;
        }
        break;
      case Tag::kInt:
        if (x.to_int() != y.to_int()) return false;
        break;
      case Tag::kBool:
        if (x.to_bool() != y.to_bool()) return false;
        break;
      case Tag::kDouble:
        if (x.to_double() != y.to_double()) return false;
        break;
      case Tag::kNone:
        break;
      case Tag::kListInt:
        if (!SameIntList(x, y)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

// Whether `pc` reads only constants and writes only foldable tensors; the
// tensors it writes go to `outputs`.
bool Foldable(const MethodPlanEditor& plan, size_t pc, const EValue** outputs,
              size_t* num_outputs) {
  bool ok = true;
  *num_outputs = 0;
  plan.ForEachArgValue(pc, [&](const EValue* value) {
    if (!ok) return;
    if (plan.writer(value) == static_cast<int64_t>(pc)) {
      if (!value->is_tensor() || !plan.is_planned(value) || plan.is_method_io(value) ||
          plan.has_alias(value)) {
        ok = false;
        return;
      }
      for (size_t i = 0; i < *num_outputs; ++i) {
        if (outputs[i] == value) return;
      }
      if (*num_outputs == kMaxFoldedOutputs) {
        ok = false;
        return;
      }
      outputs[(*num_outputs)++] = value;
    } else if (!plan.is_constant(value)) {
      ok = false;
    }
  });
  return ok && *num_outputs > 0;
}

// A folded call with one output, for sharing its result.
struct Remembered {
  size_t pc;
  const EValue* output;
};

// If a remembered fold computed what `pc` would, points `output` at its
// result and marks `pc` folded.
bool ShareEarlierResult(MethodPlanEditor& plan, const Remembered* remembered, size_t count,
                        size_t pc, const EValue* output) {
  for (size_t i = 0; i < count; ++i) {
    if (!SameComputation(plan, remembered[i].pc, pc)) continue;
    output->to_tensor().set_data(remembered[i].output->to_tensor().mutable_data());
    plan.instruction(pc).skip = Instruction::Skip::kFolded;
    plan.MarkFolded(output);
    return true;
  }
  return false;
}

}  // namespace

size_t FoldConstants(MethodPlanEditor& plan) {
  size_t folded = 0;
  MemoryAllocator& scratch = *plan.scratch();
  const size_t mark = scratch.used();
  Remembered* remembered = scratch.AllocateArray<Remembered>(kMaxRemembered);
  size_t num_remembered = 0;
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    if (plan.op(pc) == nullptr) continue;
    const EValue* outputs[kMaxFoldedOutputs];
    size_t num_outputs = 0;
    if (!Foldable(plan, pc, outputs, &num_outputs)) continue;
    if (num_outputs == 1 && remembered != nullptr &&
        ShareEarlierResult(plan, remembered, num_remembered, pc, outputs[0])) {
      ++folded;
      continue;
    }
    // Give the outputs memory of their own, for their full capacity.
    void* old_data[kMaxFoldedOutputs];
    size_t num_placed = 0;
    for (; num_placed < num_outputs; ++num_placed) {
      Tensor& t = outputs[num_placed]->to_tensor();
      const size_t bytes = static_cast<size_t>(t.numel_bound()) * ElementSize(t.dtype());
      void* data = plan.Allocate(bytes == 0 ? 1 : bytes, 64);
      if (data == nullptr) break;
      old_data[num_placed] = t.mutable_data();
      t.set_data(data);
    }
    const bool placed = num_placed == num_outputs;
    Instruction& instruction = plan.instruction(pc);
    bool computed = false;
    if (placed) {
      const size_t mark = scratch.used();
      KernelContext context(&scratch, plan.num_threads());
      instruction.kernel->fn(context, instruction.args);
      scratch.ResetTo(mark);
      computed = !context.failed();
    }
    if (!computed) {
      for (size_t i = 0; i < num_placed; ++i) outputs[i]->to_tensor().set_data(old_data[i]);
      continue;
    }
    instruction.skip = Instruction::Skip::kFolded;
    for (size_t i = 0; i < num_outputs; ++i) plan.MarkFolded(outputs[i]);
    if (num_outputs == 1 && remembered != nullptr && num_remembered < kMaxRemembered) {
      remembered[num_remembered++] = {pc, outputs[0]};
    }
    ++folded;
  }
  scratch.ResetTo(mark);
  return folded;
}

}  // namespace internal
}  // namespace edgefleet

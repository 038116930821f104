#include "runtime/executor/constant_folding.h"

#include "runtime/kernels/kernel_context.h"

namespace edgefleet {
namespace internal {
namespace {

// Most distinct tensors one folded call may write.
constexpr size_t kMaxFoldedOutputs = 16;

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

}  // namespace

size_t FoldConstants(MethodPlanEditor& plan) {
  size_t folded = 0;
  MemoryAllocator& scratch = *plan.scratch();
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    if (plan.op(pc) == nullptr) continue;
    const EValue* outputs[kMaxFoldedOutputs];
    size_t num_outputs = 0;
    if (!Foldable(plan, pc, outputs, &num_outputs)) continue;
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
    ++folded;
  }
  return folded;
}

}  // namespace internal
}  // namespace edgefleet

#include "runtime/kernels/optimized/pool_indices.h"

#include <cstring>

#include "runtime/kernels/optimized/optimized_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr const char* kWithIndices = "aten::max_pool2d_with_indices.out";
constexpr size_t kArgs = 9, kOut = 6, kIndices = 7;

}  // namespace

const Kernel kMaxPool2dValuesKernel = {"edgefleet::max_pool2d_values.out", MaxPool2dValuesOut,
                                       nullptr, KernelVariant::kOptimized};

void DropUnusedPoolIndices(PlanEditor& plan) {
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    const char* op = plan.op(pc);
    if (op == nullptr || std::strcmp(op, kWithIndices) != 0) continue;
    const Span<EValue*> args = plan.args(pc);
    if (args.size() != kArgs || !args[kOut]->is_tensor() || !args[kIndices]->is_tensor()) {
      continue;
    }
    const EValue* indices = args[kIndices];
    if (plan.writer(indices) != static_cast<int64_t>(pc) || plan.num_readers(indices) != 0 ||
        plan.is_method_io(indices) || plan.is_constant(indices)) {
      continue;
    }
    // The same arguments without the indices, returning out.
    EValue* call[kArgs - 1];
    for (size_t a = 0; a <= kOut; ++a) call[a] = args[a];
    call[kOut + 1] = args[kOut];
    plan.Replace(pc, kMaxPool2dValuesKernel, Span<EValue* const>(call, kArgs - 1));
  }
}

}  // namespace optimized
}  // namespace edgefleet

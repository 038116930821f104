#include "runtime/kernels/optimized/binary_fusion.h"

#include "runtime/kernels/optimized/fusion_match.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/plan_pass_util.h"

namespace edgefleet {
namespace optimized {
namespace {

struct BinaryOp {
  const char* name;
  size_t num_args;  // self, other, [alpha], out, ret
  const Kernel* fused;
};

const BinaryOp kBinaryOps[] = {
    {"aten::add.out", 5, &kFusedAddClampKernel},
    {"aten::sub.out", 5, &kFusedSubClampKernel},
    {"aten::mul.out", 4, &kFusedMulClampKernel},
};

// True if `out` may be written while `operand` is read element by element:
// they share no memory, or out is the operand's elements in place (same
// data, sizes and dim order; a broadcast operand is read again later).
bool ApartOrInPlace(const Tensor& operand, const Tensor& out) {
  return !Overlaps(operand, out) || (operand.data() == out.data() && SameShape(operand, out));
}

// The binary instruction `op` at `pc` -> clamp-like activation: the fused
// kernel writing the activation's out.
void FuseWithActivation(PlanEditor& plan, size_t pc, const BinaryOp& op) {
  const Span<EValue*> bin = plan.args(pc);
  const size_t n = op.num_args;
  if (bin.size() != n || bin[n - 1] != bin[n - 2]) return;
  EValue* t_value = bin[n - 2];
  const Tensor* a = FloatTensor(bin[0]);
  const Tensor* b = FloatTensor(bin[1]);
  const Tensor* t = FloatTensor(t_value);
  double alpha = 0;
  if (a == nullptr || b == nullptr || t == nullptr ||
      (n == 5 && !ConstNumber(plan, bin[2], &alpha))) {
    return;
  }
  const int64_t act_pc = SoleReader(plan, pc, t_value);
  EValue* bounds[2] = {nullptr, nullptr};
  EValue* u_value = nullptr;
  if (!MatchClampActivation(plan, act_pc, t_value, *t, bounds, &u_value)) return;
  const Tensor& u = u_value->to_tensor();
  if (!ApartOrInPlace(*a, u) || !ApartOrInPlace(*b, u) ||
      TouchedBetween(plan, pc, static_cast<size_t>(act_pc), u)) {
    return;
  }
  EValue* args[7];
  size_t k = 0;
  for (size_t i = 0; i + 2 < n; ++i) args[k++] = bin[i];
  args[k++] = bounds[0];
  args[k++] = bounds[1];
  args[k++] = u_value;
  args[k++] = u_value;
  if (plan.Replace(pc, *op.fused, Span<EValue* const>(args, k)) != Error::kOk) return;
  plan.Remove(static_cast<size_t>(act_pc));
}

}  // namespace

void FuseBinaryActivation(PlanEditor& plan) {
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    for (const BinaryOp& op : kBinaryOps) {
      if (IsOp(plan, static_cast<int64_t>(pc), op.name)) FuseWithActivation(plan, pc, op);
    }
  }
}

}  // namespace optimized
}  // namespace edgefleet

#include "runtime/kernels/optimized/fusion_match.h"

#include <cstring>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/plan_pass_util.h"

namespace edgefleet {
namespace optimized {

const Tensor* FloatTensor(const EValue* v) {
  if (v == nullptr || !v->is_tensor()) return nullptr;
  const Tensor& t = v->to_tensor();
  if (t.dtype() != ScalarType::kFloat) return nullptr;
  if (t.numel() > 0 && t.data() == nullptr) return nullptr;
  return &t;
}

bool SameShape(const Tensor& a, const Tensor& b) {
  return a.dim() == b.dim() && SameSizes(a, b.sizes()) && SameDimOrder(a, b);
}

bool MatchClampActivation(PlanEditor& plan, int64_t act_pc, const EValue* in, const Tensor& like,
                          EValue* bounds[2], EValue** out) {
  if (act_pc < 0 || plan.op(static_cast<size_t>(act_pc)) == nullptr) return false;
  const char* op = plan.op(static_cast<size_t>(act_pc));
  const Span<EValue*> act = plan.args(static_cast<size_t>(act_pc));
  const bool relu = std::strcmp(op, "aten::relu.out") == 0;
  const bool hardtanh = std::strcmp(op, "aten::hardtanh.out") == 0;
  const bool clamp = std::strcmp(op, "aten::clamp.out") == 0;
  if (!(relu || hardtanh || clamp) || act.size() != (relu ? 3u : 5u) || act[0] != in ||
      act[act.size() - 1] != act[act.size() - 2]) {
    return false;
  }
  EValue* r = act[act.size() - 2];
  const Tensor* rt = FloatTensor(r);
  if (rt == nullptr || !SameShape(*rt, like) || plan.writer(r) != act_pc) return false;
  if (relu) {
    bounds[0] = plan.NewValue(EValue::FromDouble(0.0));
    bounds[1] = plan.NewValue(EValue());
    if (bounds[0] == nullptr || bounds[1] == nullptr) return false;
  } else {
    for (int i = 0; i < 2; ++i) {
      double v = 0;
      if (!(ConstNumber(plan, act[1 + i], &v) || (clamp && act[1 + i]->is_none()))) return false;
      bounds[i] = act[1 + i];
    }
    if (bounds[0]->is_none() && bounds[1]->is_none()) return false;
  }
  *out = r;
  return true;
}

bool TouchedBetween(const PlanEditor& plan, size_t pc, size_t later, const Tensor& t,
                    Span<const int64_t> skip) {
  for (size_t i = pc + 1; i < later; ++i) {
    if (plan.op(i) == nullptr) continue;
    bool skipped = false;
    for (int64_t s : skip) skipped = skipped || s == static_cast<int64_t>(i);
    if (skipped) continue;
    bool touches = false;
    ForEachArgValue(plan.args(i), [&](const EValue* a) {
      touches = touches || (a->is_tensor() && Overlaps(a->to_tensor(), t));
    });
    if (touches) return true;
  }
  return false;
}

}  // namespace optimized
}  // namespace edgefleet

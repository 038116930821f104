#include "runtime/kernels/optimized/matmul_panels.h"

#include <cstring>

#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/plan_pass_util.h"

namespace edgefleet {
namespace optimized {
namespace {

// mat2 of the product at `pc` as a constant [K, N] tensor: itself, or for
// a permute_copy (dims 1, 0) of a constant 2-D weight in the default dim
// order, a transposed view of that weight (and *permute its instruction);
// null otherwise.
EValue* ConstantMat2(PlanEditor& plan, Span<EValue*> args, size_t index, int64_t* permute) {
  *permute = -1;
  EValue* mat2 = args[index];
  const Tensor* b = PeekFloatTensor(args, index);
  if (b == nullptr || b->dim() != 2 || b->numel() == 0) return nullptr;
  if (plan.is_constant(mat2)) return b->data() != nullptr ? mat2 : nullptr;
  const int64_t w = plan.writer(mat2);
  if (!IsOp(plan, w, "aten::permute_copy.out") || plan.is_method_io(mat2)) return nullptr;
  const Span<EValue*> pargs = plan.args(static_cast<size_t>(w));
  const Tensor* weight = pargs.size() == 4 ? PeekFloatTensor(pargs, 0) : nullptr;
  if (weight == nullptr || !plan.is_constant(pargs[0]) || weight->dim() != 2 ||
      !weight->IsDefaultDimOrder() || weight->data() == nullptr ||
      pargs[1]->tag() != Tag::kListInt) {
    return nullptr;
  }
  const BoxedIntList& list = pargs[1]->to_int_list();
  for (size_t i = 0; i < list.size; ++i) {
    if (list.items[i] == nullptr || plan.writer(list.items[i]) >= 0) return nullptr;
  }
  const Span<const int64_t> dims = list.Get();
  if (dims.size() != 2 || dims[0] != 1 || dims[1] != 0 || weight->size(0) != b->size(1) ||
      weight->size(1) != b->size(0)) {
    return nullptr;
  }
  const uint8_t order[2] = {1, 0};
  *permute = w;
  return NewFloatMatrixView(plan, b->size(0), b->size(1), order, weight->data_as<const float>());
}

}  // namespace

void PackMatmulPanels(PlanEditor& plan) {
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    const char* op = plan.op(pc);
    if (op == nullptr) continue;
    const Span<EValue*> args = plan.args(pc);
    const bool addmm = std::strcmp(op, "aten::addmm.out") == 0 && args.size() == 7;
    const bool mm = std::strcmp(op, "aten::mm.out") == 0 && args.size() == 4;
    if (!addmm && !mm) continue;
    EValue* mat1 = args[addmm ? 1 : 0];
    const Tensor* a = PeekFloatTensor(args, addmm ? 1 : 0);
    const Tensor* out = PeekFloatTensor(args, args.size() - 1);
    if (a == nullptr || out == nullptr || a->dim() != 2 || a->size(0) > kMaxPanelRows ||
        args[args.size() - 1] != args[args.size() - 2]) {
      continue;
    }
    int64_t permute = -1;
    EValue* mat2 = ConstantMat2(plan, args, addmm ? 2 : 1, &permute);
    if (mat2 == nullptr) continue;
    const Tensor& b = mat2->to_tensor();
    const int64_t k = b.size(0), n = b.size(1);
    const int width = PanelWidth();
    float* panels = nullptr;
    EValue* panel_value = NewFloatMatrix(plan, PanelFloats(n, k) / width, width, &panels);
    EValue* none = mm ? plan.NewValue(EValue()) : nullptr;
    EValue* one = mm ? plan.NewValue(EValue::FromInt(1)) : nullptr;
    if (panel_value == nullptr || (mm && (none == nullptr || one == nullptr))) return;
    PackPanels(StridedOperand(b.data_as<const float>(), b.stride(1), b.stride(0)), n, k, panels);
    EValue* call[8] = {addmm ? args[0] : none,
                       mat1,
                       mat2,
                       addmm ? args[3] : one,
                       addmm ? args[4] : one,
                       panel_value,
                       args[args.size() - 2],
                       args[args.size() - 1]};
    const EValue* old_mat2 = args[addmm ? 2 : 1];
    if (plan.Replace(pc, kAddmmPanelsKernel, Span<EValue* const>(call, 8)) != Error::kOk) return;
    // The permute's result is read no more: it need not run (nor fold).
    if (permute >= 0 && plan.num_readers(old_mat2) == 0) plan.Remove(static_cast<size_t>(permute));
  }
}

}  // namespace optimized
}  // namespace edgefleet

#include "runtime/kernels/optimized/safe_softmax.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/plan_pass_util.h"

namespace edgefleet {
namespace optimized {
namespace {

bool DefaultOrder(const Tensor& t) {
  for (int d = 0; d < t.dim(); ++d) {
    if (t.dim_order()[d] != d) return false;
  }
  return true;
}

// A float32 tensor in the default dim order, or nullptr.
const Tensor* FloatContiguous(const EValue* v) {
  if (v == nullptr || !v->is_tensor()) return nullptr;
  const Tensor& t = v->to_tensor();
  return t.dtype() == ScalarType::kFloat && DefaultOrder(t) ? &t : nullptr;
}

// A tensor of `dtype` with x's sizes, the last one `last` (-1: x's).
bool ShapedLike(const EValue* v, ScalarType dtype, const Tensor& x, int64_t last = -1) {
  if (v == nullptr || !v->is_tensor()) return false;
  const Tensor& t = v->to_tensor();
  if (t.dtype() != dtype || t.dim() != x.dim() || !DefaultOrder(t)) return false;
  for (int d = 0; d < x.dim(); ++d) {
    const int64_t want = d == x.dim() - 1 && last >= 0 ? last : x.size(d);
    if (t.size(d) != want) return false;
  }
  return true;
}

// A constant int argument naming x's last dimension (-1 or dim - 1).
bool LastDim(const PlanEditor& plan, const EValue* v, const Tensor& x) {
  return v->is_int() && plan.writer(v) == -1 && (v->to_int() == -1 || v->to_int() == x.dim() - 1);
}

// The unary op `name` at the sole reader of `v` (written at `pc`) with
// arguments (v, out, out); its pc and output, or -1.
int64_t SoleUnary(const PlanEditor& plan, size_t pc, const EValue* v, const char* name,
                  EValue** out) {
  const int64_t next = SoleReader(plan, pc, v);
  if (!IsOp(plan, next, name)) return -1;
  const Span<EValue*> a = plan.args(static_cast<size_t>(next));
  if (a.size() != 3 || a[0] != v || a[1] != a[2]) return -1;
  *out = a[1];
  return next;
}

void TryFuse(PlanEditor& plan, size_t pc) {
  const Span<EValue*> sm = plan.args(pc);
  if (sm.size() != 5 || sm[3] != sm[4] || !sm[2]->is_bool() || sm[2]->to_bool()) return;
  EValue* x_value = sm[0];
  EValue* p_value = sm[3];
  const Tensor* x = FloatContiguous(x_value);
  if (x == nullptr || x->dim() < 1 || !LastDim(plan, sm[1], *x) ||
      !ShapedLike(p_value, ScalarType::kFloat, *x) || plan.is_method_io(p_value) ||
      plan.writer(p_value) != static_cast<int64_t>(pc)) {
    return;
  }
  // eq.Scalar(x, -inf): a reader of x after the softmax.
  int64_t readers[4];
  const size_t num = std::min<size_t>(ReadersAfter(plan, pc, x_value, readers, 4), 4);
  int64_t eq_pc = -1;
  for (size_t i = 0; i < num && eq_pc < 0; ++i) {
    if (IsOp(plan, readers[i], "aten::eq.Scalar_out")) eq_pc = readers[i];
  }
  if (eq_pc < 0) return;
  const Span<EValue*> eq = plan.args(static_cast<size_t>(eq_pc));
  if (eq.size() != 4 || eq[0] != x_value || eq[2] != eq[3] || !eq[1]->is_double() ||
      eq[1]->to_double() != -__builtin_inf() || plan.writer(eq[1]) != -1 ||
      !ShapedLike(eq[2], ScalarType::kBool, *x)) {
    return;
  }
  int64_t absorbed[6] = {eq_pc};
  EValue* n = nullptr;
  EValue* c = nullptr;
  absorbed[1] = SoleUnary(plan, static_cast<size_t>(eq_pc), eq[2], "aten::logical_not.out", &n);
  if (absorbed[1] < 0 || !ShapedLike(n, ScalarType::kBool, *x)) return;
  // any(n, dim, keepdim=True)
  absorbed[2] = SoleReader(plan, static_cast<size_t>(absorbed[1]), n);
  if (!IsOp(plan, absorbed[2], "aten::any.out")) return;
  const Span<EValue*> any = plan.args(static_cast<size_t>(absorbed[2]));
  if (any.size() != 5 || any[0] != n || !LastDim(plan, any[1], *x) || !any[2]->is_bool() ||
      !any[2]->to_bool() || any[3] != any[4] || !ShapedLike(any[3], ScalarType::kBool, *x, 1)) {
    return;
  }
  absorbed[3] =
      SoleUnary(plan, static_cast<size_t>(absorbed[2]), any[3], "aten::logical_not.out", &c);
  if (absorbed[3] < 0 || !ShapedLike(c, ScalarType::kBool, *x, 1)) return;
  // where(c, z, p) with z = full_like(p, 0)
  absorbed[5] = SoleReader(plan, static_cast<size_t>(absorbed[3]), c);
  if (!IsOp(plan, absorbed[5], "aten::where.self_out")) return;
  const Span<EValue*> where = plan.args(static_cast<size_t>(absorbed[5]));
  if (where.size() != 5 || where[0] != c || where[2] != p_value || where[3] != where[4]) return;
  EValue* z = where[1];
  absorbed[4] = plan.writer(z);
  if (!IsOp(plan, absorbed[4], "aten::full_like.out") ||
      SoleReader(plan, static_cast<size_t>(absorbed[4]), z) != absorbed[5]) {
    return;
  }
  const Span<EValue*> full = plan.args(static_cast<size_t>(absorbed[4]));
  double fill = 1;
  if (full.size() != 5 || full[0] != p_value || full[3] != z || full[4] != z ||
      !ConstNumber(plan, full[1], &fill) || fill != 0.0 || !ShapedLike(z, ScalarType::kFloat, *x)) {
    return;
  }
  // p: read by the full_like and the where only.
  int64_t p_readers[3];
  if (ReadersAfter(plan, pc, p_value, p_readers, 2) != 2 || plan.num_readers(p_value) != 2) return;
  EValue* out = where[3];
  const int64_t where_pc = absorbed[5];
  if (!ShapedLike(out, ScalarType::kFloat, *x) || plan.writer(out) != where_pc) return;
  // out is now written at pc: nothing in between may touch its memory.
  const Tensor& o = out->to_tensor();
  for (size_t i = pc + 1; i < static_cast<size_t>(where_pc); ++i) {
    if (plan.op(i) == nullptr ||
        std::find(absorbed, absorbed + 6, static_cast<int64_t>(i)) != absorbed + 6) {
      continue;
    }
    bool touches = false;
    ForEachArgValue(plan.args(i), [&](const EValue* a) {
      touches = touches || (a->is_tensor() && Overlaps(a->to_tensor(), o));
    });
    if (touches) return;
  }
  EValue* args[5] = {x_value, sm[1], sm[2], out, out};
  if (plan.Replace(pc, kSafeSoftmaxKernel, Span<EValue* const>(args, 5)) != Error::kOk) return;
  for (int64_t a : absorbed) plan.Remove(static_cast<size_t>(a));
}

}  // namespace

void FuseSafeSoftmax(PlanEditor& plan) {
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    if (IsOp(plan, static_cast<int64_t>(pc), "aten::_softmax.out")) TryFuse(plan, pc);
  }
}

void SafeSoftmaxOut(KernelContext& ctx, Span<EValue*> args) {
  const Tensor* in = args.size() == 5 ? FloatContiguous(args[0]) : nullptr;
  const Tensor* out = args.size() == 5 ? FloatContiguous(args[3]) : nullptr;
  if (in == nullptr || out == nullptr || in->dim() < 1 || !args[1]->is_int() ||
      (args[1]->to_int() != -1 && args[1]->to_int() != in->dim() - 1)) {
    SetErrorDetail("%s: needs float32 tensors in the default dim order and the last dim",
                   kSafeSoftmaxKernel.name);
    ctx.Fail(Error::kInvalidArgument);
    return;
  }
  // With out over self's memory, the softmax reads a copy.
  EValue* call[5] = {args[0], args[1], args[2], args[3], args[4]};
  alignas(Tensor) unsigned char copy_storage[sizeof(Tensor)];
  EValue copy_value;
  const float* x = in->data_as<const float>();
  if (in->numel() > 0 && Overlaps(*in, *out)) {
    void* data = ctx.AllocateTemp(in->nbytes(), 64);
    if (data == nullptr) {
      SetErrorDetail("%s: temp memory for a %zu-byte copy of the input", kSafeSoftmaxKernel.name,
                     in->nbytes());
      ctx.Fail(Error::kMemoryAllocationFailed);
      return;
    }
    std::memcpy(data, in->data(), in->nbytes());
    Tensor* copy = new (copy_storage) Tensor(*in);
    copy->set_data(data);
    copy_value = EValue::FromTensor(copy);
    call[0] = &copy_value;
    x = static_cast<const float*>(data);
  }
  SoftmaxOut(ctx, Span<EValue*>(call, 5));
  if (ctx.failed()) return;
  const int64_t n = in->size(in->dim() - 1);
  if (n == 0 || in->numel() == 0) return;
  float* y = args[3]->to_tensor().data_as<float>();
  // Rows of -inf only: where(all masked, 0, softmax) gives 0.
  for (int64_t r = 0; r < in->numel() / n; ++r) {
    const float* row = x + r * n;
    if (row[0] != -__builtin_inff()) continue;
    if (std::all_of(row, row + n, [](float v) { return v == -__builtin_inff(); })) {
      std::fill(y + r * n, y + (r + 1) * n, 0.0f);
    }
  }
}

const Kernel kSafeSoftmaxKernel = {"edgefleet::safe_softmax.out", SafeSoftmaxOut, nullptr,
                                   KernelVariant::kOptimized};

}  // namespace optimized
}  // namespace edgefleet

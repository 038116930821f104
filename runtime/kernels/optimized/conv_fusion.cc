#include "runtime/kernels/optimized/conv_fusion.h"

#include <cmath>
#include <new>

#include "runtime/kernels/optimized/epilogue.h"
#include "runtime/kernels/optimized/fusion_match.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/plan_pass_util.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr const char* kConvolution = "aten::convolution.out";
constexpr const char* kBatchNorm = "aten::_native_batch_norm_legit_no_training.out";

// A constant float32 vector of n elements.
const Tensor* ConstVector(const PlanEditor& plan, const EValue* v, int64_t n) {
  const Tensor* t = FloatTensor(v);
  if (t == nullptr || !plan.is_constant(v) || t->dim() != 1 || t->size(0) != n) {
    return nullptr;
  }
  return t;
}

// Most input bytes the fused kernel copies to temp memory when its output
// shares the input's memory.
constexpr size_t kMaxInputCopy = size_t{4} << 20;

// Writing `out` at `pc` instead of at `later` is safe and pays: no live
// instruction in between names a tensor sharing its memory, and if it
// shares the convolution's input's memory (the memory planner gave the
// absorbed instruction's output the dead input's bytes), the kernel runs
// in place or the copy of the input it then makes costs less than the
// `saved` bytes of activation traffic (and at most kMaxInputCopy).
bool EarlyWriteSafe(const PlanEditor& plan, size_t pc, size_t later, EValue* out_value,
                    size_t saved, Span<const int64_t> absorbed = {}) {
  const Span<EValue*> conv = plan.args(pc);
  const Tensor* in = FloatTensor(conv[0]);
  const Tensor& out = out_value->to_tensor();
  if (in == nullptr) return false;
  if (Overlaps(*in, out)) {
    EValue* call[11];
    for (int i = 0; i < 9; ++i) call[i] = conv[i];
    call[9] = call[10] = out_value;
    if (!FusedConvolutionInPlace(Span<EValue* const>(call, 11)) &&
        (in->nbytes() > saved || in->nbytes() > kMaxInputCopy)) {
      return false;
    }
  }
  return !TouchedBetween(plan, pc, later, out, absorbed);
}

// A float32 tensor of `like`'s sizes and dim order over new method memory.
struct OwnedTensor {
  int32_t sizes[kMaxTensorRank];
  uint8_t dim_order[kMaxTensorRank];
  int32_t strides[kMaxTensorRank];
  alignas(Tensor) unsigned char storage[sizeof(Tensor)];
};

EValue* NewTensorLike(PlanEditor& plan, const Tensor& like, float** data) {
  void* meta = plan.Allocate(sizeof(OwnedTensor), alignof(OwnedTensor));
  void* bytes = plan.Allocate(like.numel() * sizeof(float) + 1, 64);
  if (meta == nullptr || bytes == nullptr) return nullptr;
  OwnedTensor* o = static_cast<OwnedTensor*>(meta);
  for (int d = 0; d < like.dim(); ++d) {
    o->sizes[d] = like.size(d);
    o->dim_order[d] = like.dim_order()[d];
    o->strides[d] = like.stride(d);
  }
  Tensor* t = new (o->storage) Tensor(ScalarType::kFloat, like.dim(), o->sizes, o->dim_order,
                                      o->strides, bytes, ShapeDynamism::kStatic);
  *data = static_cast<float*>(bytes);
  return plan.NewValue(EValue::FromTensor(t));
}

// True for a convolution call the fusions may rewrite: float32, not
// transposed, constant weight (output channel outermost) and bias.
bool FusibleConvolution(const PlanEditor& plan, size_t pc) {
  const Span<EValue*> args = plan.args(pc);
  if (args.size() != 11 || args[10] != args[9]) return false;
  const Tensor* x = FloatTensor(args[0]);
  const Tensor* w = FloatTensor(args[1]);
  const Tensor* y = FloatTensor(args[9]);
  if (x == nullptr || w == nullptr || y == nullptr || !plan.is_constant(args[1]) ||
      (w->dim() != 3 && w->dim() != 4) || x->dim() != w->dim() || y->dim() != w->dim() ||
      w->size(0) < 1 || w->dim_order()[0] != 0 || w->stride(0) != w->numel() / w->size(0) ||
      !args[6]->is_bool() || args[6]->to_bool() || !args[8]->is_int() ||
      plan.writer(args[8]) != -1) {
    return false;
  }
  return args[2]->is_none() || ConstVector(plan, args[2], w->size(0)) != nullptr;
}

// convolution at `pc` -> batch norm: folds the batch norm into new weight
// and bias constants. Returns true if it rewrote.
bool FoldBatchNorm(PlanEditor& plan, size_t pc) {
  const Span<EValue*> conv = plan.args(pc);
  const Tensor& w = conv[1]->to_tensor();
  const Tensor& y = conv[9]->to_tensor();
  const int64_t oc = w.size(0);
  const int64_t bn_pc = SoleReader(plan, pc, conv[9]);
  if (!IsOp(plan, bn_pc, kBatchNorm)) return false;
  const Span<EValue*> bn = plan.args(static_cast<size_t>(bn_pc));
  if (bn.size() != 11 || bn[0] != conv[9] || y.size(1) != oc) return false;
  const Tensor* gamma = bn[1]->is_none() ? nullptr : ConstVector(plan, bn[1], oc);
  const Tensor* beta = bn[2]->is_none() ? nullptr : ConstVector(plan, bn[2], oc);
  const Tensor* mean = ConstVector(plan, bn[3], oc);
  const Tensor* var = ConstVector(plan, bn[4], oc);
  double eps = 0;
  if ((gamma == nullptr && !bn[1]->is_none()) || (beta == nullptr && !bn[2]->is_none()) ||
      mean == nullptr || var == nullptr || !ConstNumber(plan, bn[6], &eps)) {
    return false;
  }
  EValue* z = bn[7];
  const Tensor* zt = FloatTensor(z);
  if (zt == nullptr || !SameShape(*zt, y) || plan.writer(z) != bn_pc) return false;
  // save_mean, save_invstd: unused.
  for (int i = 8; i <= 9; ++i) {
    if (!bn[i]->is_tensor() || plan.num_readers(bn[i]) > 0 ||
        NamedElsewhere(plan, bn[i], static_cast<size_t>(bn_pc)) || plan.is_method_io(bn[i])) {
      return false;
    }
  }
  // An activation after the batch norm will be fused too: it saves as much.
  size_t saved = zt->nbytes();
  const int64_t next = SoleReader(plan, static_cast<size_t>(bn_pc), z);
  if (IsOp(plan, next, "aten::relu.out") || IsOp(plan, next, "aten::hardtanh.out") ||
      IsOp(plan, next, "aten::clamp.out")) {
    saved *= 2;
  }
  if (!EarlyWriteSafe(plan, pc, static_cast<size_t>(bn_pc), z, saved)) return false;

  float* w_data = nullptr;
  float* b_data = nullptr;
  EValue* new_w = NewTensorLike(plan, w, &w_data);
  int32_t b_size[1] = {static_cast<int32_t>(oc)};
  uint8_t b_order[1] = {0};
  int32_t b_stride[1] = {1};
  const Tensor b_shape(ScalarType::kFloat, 1, b_size, b_order, b_stride, nullptr,
                       ShapeDynamism::kStatic);
  EValue* new_b = new_w == nullptr ? nullptr : NewTensorLike(plan, b_shape, &b_data);
  if (new_b == nullptr) return false;
  const float* wi = w.data_as<const float>();
  const float* bi = conv[2]->is_none() ? nullptr : conv[2]->to_tensor().data_as<const float>();
  const int64_t inner = w.numel() / oc;
  for (int64_t c = 0; c < oc; ++c) {
    // As the batch-norm kernels: invstd, scale and shift in double.
    const double invstd = 1.0 / std::sqrt(var->data_as<const float>()[c] + eps);
    const double scale = (gamma ? gamma->data_as<const float>()[c] : 1.0) * invstd;
    const double shift =
        (beta ? beta->data_as<const float>()[c] : 0.0) - mean->data_as<const float>()[c] * scale;
    for (int64_t i = 0; i < inner; ++i) {
      w_data[c * inner + i] = static_cast<float>(wi[c * inner + i] * scale);
    }
    b_data[c] = static_cast<float>((bi ? bi[c] : 0.0) * scale + shift);
  }
  EValue* none = plan.NewValue(EValue());
  if (none == nullptr) return false;
  EValue* args[13];
  for (int i = 0; i < 9; ++i) args[i] = conv[i];
  args[1] = new_w;
  args[2] = new_b;
  args[9] = none;
  args[10] = none;
  args[11] = z;
  args[12] = z;
  if (plan.Replace(pc, kFusedConvolutionKernel, Span<EValue* const>(args, 13)) != Error::kOk) {
    return false;
  }
  plan.Remove(static_cast<size_t>(bn_pc));
  return true;
}

// convolution (or the fused one without bounds) at `pc` -> relu / hardtanh /
// clamp: the fused kernel with the activation's bounds.
void FuseActivation(PlanEditor& plan, size_t pc) {
  const Span<EValue*> conv = plan.args(pc);
  const bool fused = conv.size() == 13;
  if (fused && !(conv[9]->is_none() && conv[10]->is_none())) return;
  EValue* y_value = conv[fused ? 11 : 9];
  const Tensor& y = y_value->to_tensor();
  const int64_t act_pc = SoleReader(plan, pc, y_value);
  EValue* bounds[2] = {nullptr, nullptr};
  EValue* r = nullptr;
  if (!MatchClampActivation(plan, act_pc, y_value, y, bounds, &r)) return;
  const Tensor* rt = FloatTensor(r);
  // A batch norm folded before saved its pass over y too.
  const size_t saved = rt->nbytes() + (fused ? y.nbytes() : 0);
  if (!EarlyWriteSafe(plan, pc, static_cast<size_t>(act_pc), r, saved)) return;
  EValue* args[13];
  for (int i = 0; i < 9; ++i) args[i] = conv[i];
  args[9] = bounds[0];
  args[10] = bounds[1];
  args[11] = r;
  args[12] = r;
  if (plan.Replace(pc, kFusedConvolutionKernel, Span<EValue* const>(args, 13)) != Error::kOk) {
    return;
  }
  plan.Remove(static_cast<size_t>(act_pc));
}

// The value of a one-element float32 tensor argument: a program constant,
// or the output of a dim-order copy / clone of one (still an instruction
// when the pass runs; constant folding comes after). `copy_pc`: that
// instruction, or -1.
bool ConstElement(const PlanEditor& plan, const EValue* v, float* value, int64_t* copy_pc) {
  const Tensor* t = FloatTensor(v);
  if (t == nullptr || t->numel() != 1) return false;
  *copy_pc = -1;
  if (!plan.is_constant(v)) {
    const int64_t w = plan.writer(v);
    if (!(IsOp(plan, w, "dim_order_ops::_to_dim_order_copy.out") ||
          IsOp(plan, w, "dim_order_ops::_clone_dim_order.out")) ||
        plan.is_method_io(v)) {
      return false;
    }
    // The source: a one-element constant of a dtype whose value converts
    // exactly as the copy converts it (3 and 6 are exact in every one).
    const EValue* src_value = plan.args(static_cast<size_t>(w))[0];
    if (src_value == nullptr || !src_value->is_tensor() || !plan.is_constant(src_value)) {
      return false;
    }
    const Tensor& src = src_value->to_tensor();
    if (src.numel() != 1 || src.data() == nullptr) return false;
    *copy_pc = w;
    switch (src.dtype()) {
      case ScalarType::kFloat:
        *value = src.data_as<const float>()[0];
        return true;
      case ScalarType::kDouble:
        *value = static_cast<float>(src.data_as<const double>()[0]);
        return true;
      case ScalarType::kLong:
        *value = static_cast<float>(src.data_as<const int64_t>()[0]);
        return true;
      case ScalarType::kInt:
        *value = static_cast<float>(src.data_as<const int32_t>()[0]);
        return true;
      default:
        return false;
    }
  }
  *value = t->data_as<const float>()[0];
  return true;
}

// A clamp.out / hardtanh.out at `pc` of `in`: its bounds as floats
// (None: +-infinity) and its output.
bool MatchClamp(const PlanEditor& plan, int64_t pc, const EValue* in, float* lo, float* hi,
                EValue** out) {
  const bool clamp = IsOp(plan, pc, "aten::clamp.out");
  if (!clamp && !IsOp(plan, pc, "aten::hardtanh.out")) return false;
  const Span<EValue*> a = plan.args(static_cast<size_t>(pc));
  if (a.size() != 5 || a[0] != in || a[3] != a[4] || FloatTensor(a[3]) == nullptr) return false;
  float bounds[2] = {-__builtin_inff(), __builtin_inff()};
  for (int i = 0; i < 2; ++i) {
    double v = 0;
    if (ConstNumber(plan, a[1 + i], &v)) {
      bounds[i] = static_cast<float>(v);
    } else if (!(clamp && a[1 + i]->is_none())) {
      return false;
    }
  }
  *lo = bounds[0];
  *hi = bounds[1];
  *out = a[3];
  return true;
}

// The convolution (or the fused one without bounds) at `pc` if an
// activation epilogue may be fused into it: its output y is read only by one
// or two later instructions (`readers`, `*num_readers`), written only by it
// and not a method input or output. Null otherwise.
EValue* ConvOutputForEpilogue(PlanEditor& plan, size_t pc, int64_t readers[2],
                              size_t* num_readers) {
  const Span<EValue*> conv = plan.args(pc);
  const bool fused = conv.size() == 13;
  if (fused && !(IsOp(plan, static_cast<int64_t>(pc), kFusedConvolutionKernel.name) &&
                 conv[9]->is_none() && conv[10]->is_none())) {
    return nullptr;
  }
  EValue* y_value = conv[fused ? 11 : 9];
  *num_readers = ReadersAfter(plan, pc, y_value, readers, 2);
  if (*num_readers < 1 || *num_readers > 2 || plan.num_readers(y_value) != *num_readers ||
      plan.writer(y_value) != static_cast<int64_t>(pc) || plan.is_method_io(y_value)) {
    return nullptr;
  }
  return y_value;
}

// convolution (or the fused one without bounds) at `pc` whose output y
// feeds the exported hardswish (add 3 -> clamp 0 [-> clamp 6] -> mul by y ->
// div 6) or hardsigmoid (add 3 -> clamp -> div 6): the fused kernel with
// that epilogue, writing the division's output.
void FuseHardActivation(PlanEditor& plan, size_t pc) {
  const Span<EValue*> conv = plan.args(pc);
  int64_t readers[2];
  size_t num_readers = 0;
  EValue* y_value = ConvOutputForEpilogue(plan, pc, readers, &num_readers);
  if (y_value == nullptr) return;
  const Tensor& y = y_value->to_tensor();
  int64_t absorbed[6];
  size_t n = 0;
  int64_t copies[2] = {-1, -1};
  // add(y, 3, alpha 1)
  const int64_t add_pc = readers[0];
  if (!IsOp(plan, add_pc, "aten::add.out")) return;
  const Span<EValue*> add = plan.args(static_cast<size_t>(add_pc));
  float three = 0;
  double alpha = 0;
  if (add.size() != 5 || add[0] != y_value || add[3] != add[4] ||
      !ConstElement(plan, add[1], &three, &copies[0]) || three != 3.0f ||
      !ConstNumber(plan, add[2], &alpha) || alpha != 1.0) {
    return;
  }
  absorbed[n++] = add_pc;
  EValue* t = add[3];
  // clamp to [0, 6], in one or two steps
  float lo = 0, hi = 0, lo2 = 0, hi2 = 0;
  EValue* c = nullptr;
  int64_t next = SoleReader(plan, static_cast<size_t>(add_pc), t);
  if (!MatchClamp(plan, next, t, &lo, &hi, &c)) return;
  absorbed[n++] = next;
  if (!(lo == 0.0f && hi == 6.0f)) {
    const int64_t second = SoleReader(plan, static_cast<size_t>(next), c);
    EValue* c2 = nullptr;
    if (!(lo == 0.0f && hi == __builtin_inff()) || !MatchClamp(plan, second, c, &lo2, &hi2, &c2) ||
        !(lo2 == -__builtin_inff() && hi2 == 6.0f)) {
      return;
    }
    absorbed[n++] = second;
    next = second;
    c = c2;
  }
  // [mul(y, c)], then div(., 6)
  PostOp post = PostOp::kHardsigmoid;
  EValue* q = c;
  int64_t q_pc = next;
  const int64_t after = SoleReader(plan, static_cast<size_t>(next), c);
  if (IsOp(plan, after, "aten::mul.out")) {
    const Span<EValue*> mul = plan.args(static_cast<size_t>(after));
    if (num_readers != 2 || readers[1] != after || mul.size() != 4 || mul[2] != mul[3] ||
        !((mul[0] == y_value && mul[1] == c) || (mul[0] == c && mul[1] == y_value))) {
      return;
    }
    absorbed[n++] = after;
    post = PostOp::kHardswish;
    q = mul[2];
    q_pc = after;
  } else if (num_readers != 1) {
    return;
  }
  const int64_t div_pc = SoleReader(plan, static_cast<size_t>(q_pc), q);
  if (!IsOp(plan, div_pc, "aten::div.out")) return;
  const Span<EValue*> div = plan.args(static_cast<size_t>(div_pc));
  float six = 0;
  if (div.size() != 4 || div[0] != q || div[2] != div[3] ||
      !ConstElement(plan, div[1], &six, &copies[1]) || six != 6.0f) {
    return;
  }
  absorbed[n++] = div_pc;
  EValue* out = div[2];
  // Every intermediate and the output: float32 of y's shape (no broadcast).
  for (size_t i = 0; i < n; ++i) {
    const Span<EValue*> a = plan.args(static_cast<size_t>(absorbed[i]));
    const Tensor* o = FloatTensor(a[a.size() - 1]);
    if (o == nullptr || !SameShape(*o, y) || plan.writer(a[a.size() - 1]) != absorbed[i]) return;
  }
  const size_t saved = 2 * n * FloatTensor(out)->nbytes();
  if (!EarlyWriteSafe(plan, pc, static_cast<size_t>(div_pc), out, saved,
                      Span<const int64_t>(absorbed, n))) {
    return;
  }
  EValue* none = plan.NewValue(EValue());
  if (none == nullptr) return;
  EValue* args[13];
  for (int i = 0; i < 9; ++i) args[i] = conv[i];
  args[9] = args[10] = none;
  args[11] = args[12] = out;
  const Kernel& kernel = post == PostOp::kHardswish ? kFusedConvolutionHardswishKernel
                                                    : kFusedConvolutionHardsigmoidKernel;
  if (plan.Replace(pc, kernel, Span<EValue* const>(args, 13)) != Error::kOk) return;
  for (size_t i = 0; i < n; ++i) plan.Remove(static_cast<size_t>(absorbed[i]));
  // The copies of the constants 3 and 6, once nothing reads them.
  for (int64_t cp : copies) {
    if (cp < 0 || plan.op(static_cast<size_t>(cp)) == nullptr) continue;
    const Span<EValue*> a = plan.args(static_cast<size_t>(cp));
    EValue* o = a[a.size() - 1];
    if (plan.num_readers(o) == 0 && !plan.is_method_io(o)) plan.Remove(static_cast<size_t>(cp));
  }
}

// convolution (or the fused one without bounds) at `pc` whose output y
// feeds sigmoid(y) alone, or sigmoid(y) and mul(y, sigmoid(y)) (nn.SiLU as
// torch.export writes it): the fused kernel with that epilogue, writing the
// sigmoid's or the multiplication's output.
void FuseSigmoidActivation(PlanEditor& plan, size_t pc) {
  const Span<EValue*> conv = plan.args(pc);
  int64_t readers[2];
  size_t num_readers = 0;
  EValue* y_value = ConvOutputForEpilogue(plan, pc, readers, &num_readers);
  if (y_value == nullptr) return;
  const Tensor& y = y_value->to_tensor();
  const int64_t sig_pc = readers[0];
  if (!IsOp(plan, sig_pc, "aten::sigmoid.out")) return;
  const Span<EValue*> sig = plan.args(static_cast<size_t>(sig_pc));
  if (sig.size() != 3 || sig[0] != y_value || sig[1] != sig[2]) return;
  int64_t absorbed[2] = {sig_pc, -1};
  size_t n = 1;
  EValue* out = sig[1];
  PostOp post = PostOp::kSigmoid;
  if (num_readers == 2) {
    const int64_t mul_pc = readers[1];
    if (!IsOp(plan, mul_pc, "aten::mul.out") ||
        SoleReader(plan, static_cast<size_t>(sig_pc), sig[1]) != mul_pc) {
      return;
    }
    const Span<EValue*> mul = plan.args(static_cast<size_t>(mul_pc));
    if (mul.size() != 4 || mul[2] != mul[3] ||
        !((mul[0] == y_value && mul[1] == sig[1]) || (mul[0] == sig[1] && mul[1] == y_value))) {
      return;
    }
    absorbed[n++] = mul_pc;
    out = mul[2];
    post = PostOp::kSilu;
  }
  // Every intermediate and the output: float32 of y's shape (no broadcast).
  for (size_t i = 0; i < n; ++i) {
    const Span<EValue*> a = plan.args(static_cast<size_t>(absorbed[i]));
    const Tensor* o = FloatTensor(a[a.size() - 1]);
    if (o == nullptr || !SameShape(*o, y) || plan.writer(a[a.size() - 1]) != absorbed[i]) return;
  }
  const size_t saved = 2 * n * FloatTensor(out)->nbytes();
  if (!EarlyWriteSafe(plan, pc, static_cast<size_t>(absorbed[n - 1]), out, saved,
                      Span<const int64_t>(absorbed, n))) {
    return;
  }
  EValue* none = plan.NewValue(EValue());
  if (none == nullptr) return;
  EValue* args[13];
  for (int i = 0; i < 9; ++i) args[i] = conv[i];
  args[9] = args[10] = none;
  args[11] = args[12] = out;
  const Kernel& kernel =
      post == PostOp::kSilu ? kFusedConvolutionSiluKernel : kFusedConvolutionSigmoidKernel;
  if (plan.Replace(pc, kernel, Span<EValue* const>(args, 13)) != Error::kOk) return;
  for (size_t i = 0; i < n; ++i) plan.Remove(static_cast<size_t>(absorbed[i]));
}

}  // namespace

void FuseConvolution(PlanEditor& plan) {
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    if (!IsOp(plan, static_cast<int64_t>(pc), kConvolution) || !FusibleConvolution(plan, pc)) {
      continue;
    }
    FoldBatchNorm(plan, pc);
    FuseActivation(plan, pc);
    FuseHardActivation(plan, pc);
    FuseSigmoidActivation(plan, pc);
  }
}

}  // namespace optimized
}  // namespace edgefleet

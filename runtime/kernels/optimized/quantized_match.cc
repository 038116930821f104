#include "runtime/kernels/optimized/quantized_match.h"

#include <cmath>
#include <cstring>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/plan_pass_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace internal {

namespace {

constexpr const char* kDequantize = "quantized_decomposed::dequantize_per_tensor.out";
constexpr const char* kDequantizeChannel = "quantized_decomposed::dequantize_per_channel.out";
constexpr const char* kQuantize = "quantized_decomposed::quantize_per_tensor.out";

}  // namespace

bool ConstInt(const PlanEditor& plan, const EValue* v, int64_t* out) {
  if (v == nullptr || !v->is_int() || plan.writer(v) != -1) return false;
  *out = v->to_int();
  return true;
}

const Tensor* TensorOf(const EValue* v, ScalarType dtype) {
  if (v == nullptr || !v->is_tensor()) return nullptr;
  const Tensor& t = v->to_tensor();
  if (t.dtype() != dtype || !t.IsDefaultDimOrder()) return nullptr;
  if (t.numel() > 0 && t.data() == nullptr) return nullptr;
  return &t;
}

// An intermediate value the fusion may drop: read by one instruction
// (through lists included), not I/O. (PlanEditor::num_readers also counts
// readers of views without an instruction that share the value's planned
// bytes; those are checked by AliasReadsCovered once the whole rewrite is
// known.)
bool Private(const PlanEditor& plan, const EValue* v) {
  return NumNamingReaders(plan, v) == 1 && !plan.is_method_io(v);
}

namespace {

bool Contains(const int64_t* pcs, size_t n, int64_t pc) {
  for (size_t i = 0; i < n; ++i) {
    if (pcs[i] == pc) return true;
  }
  return false;
}

}  // namespace

// Values the rewrite stops producing may share planned bytes with a view
// that no instruction writes (a "pure alias", read later). Safe if every
// such read after `from` is preceded by a kept instruction writing a tensor
// that covers the alias's bytes (then the view reads that, not `v`).
bool AliasReadsCovered(const PlanEditor& plan, const EValue* v, int64_t from,
                       const int64_t* dropped, size_t num_dropped) {
  if (v == nullptr || !v->is_tensor() || plan.num_readers(v) == NumNamingReaders(plan, v)) {
    return true;
  }
  const Tensor& t = v->to_tensor();
  for (size_t r = static_cast<size_t>(from) + 1; r < plan.num_instructions(); ++r) {
    if (plan.op(r) == nullptr) continue;
    bool covered_all = true;
    ForEachArgValue(plan.args(r), [&](const EValue* alias) {
      if (!covered_all || alias == v || !alias->is_tensor() || plan.writer(alias) != -1 ||
          plan.is_constant(alias) || plan.is_method_io(alias) || !Overlaps(alias->to_tensor(), t)) {
        return;
      }
      const Tensor& at = alias->to_tensor();
      const char* a0 = static_cast<const char*>(at.data());
      bool covered = false;
      for (size_t w = static_cast<size_t>(from) + 1; w < r && !covered; ++w) {
        if (plan.op(w) == nullptr || Contains(dropped, num_dropped, static_cast<int64_t>(w))) {
          continue;
        }
        const Span<EValue*> wargs = plan.args(w);
        const EValue* out = wargs.size() > 0 ? wargs[wargs.size() - 1] : nullptr;
        if (out == nullptr || !out->is_tensor()) continue;
        const Tensor& ot = out->to_tensor();
        const char* o0 = static_cast<const char*>(ot.data());
        covered = o0 <= a0 && a0 + at.nbytes() <= o0 + ot.nbytes();
      }
      covered_all = covered;
    });
    if (!covered_all) return false;
  }
  return true;
}

namespace {

// quantize / dequantize_per_tensor scalar arguments 1..5 for int8.
bool PerTensorParams(const PlanEditor& plan, Span<EValue*> args, PerTensor* p) {
  int64_t dtype = 0;
  return ConstNumber(plan, args[1], &p->scale) && p->scale > 0 &&
         ConstInt(plan, args[2], &p->zero_point) && ConstInt(plan, args[3], &p->qmin) &&
         ConstInt(plan, args[4], &p->qmax) && ConstInt(plan, args[5], &dtype) &&
         dtype == static_cast<int64_t>(ScalarType::kChar) && p->qmin >= -128 &&
         p->qmin <= p->qmax && p->qmax <= 127 && p->zero_point >= -128 && p->zero_point <= 127;
}

}  // namespace

// dequantize_per_tensor at `pc` of an int8 tensor into float `out`.
bool MatchDequantize(const PlanEditor& plan, int64_t pc, const EValue* out, EValue** in,
                     PerTensor* p) {
  if (!IsOp(plan, pc, kDequantize)) return false;
  const Span<EValue*> args = plan.args(static_cast<size_t>(pc));
  if (args.size() != 9 || args[7] != out || !PerTensorParams(plan, args, p)) return false;
  int64_t out_dtype = 0;
  if (!(args[6]->is_none() || (ConstInt(plan, args[6], &out_dtype) &&
                               out_dtype == static_cast<int64_t>(ScalarType::kFloat)))) {
    return false;
  }
  if (TensorOf(args[0], ScalarType::kChar) == nullptr ||
      TensorOf(args[7], ScalarType::kFloat) == nullptr) {
    return false;
  }
  *in = args[0];
  return true;
}

namespace {

// quantize_per_tensor at `pc` of float `in` into an int8 tensor.
bool MatchQuantize(const PlanEditor& plan, int64_t pc, const EValue* in, EValue** out,
                   PerTensor* p) {
  if (!IsOp(plan, pc, kQuantize)) return false;
  const Span<EValue*> args = plan.args(static_cast<size_t>(pc));
  if (args.size() != 8 || args[0] != in || !PerTensorParams(plan, args, p) ||
      TensorOf(args[6], ScalarType::kChar) == nullptr) {
    return false;
  }
  *out = args[6];
  return true;
}

}  // namespace

bool MatchWeights(const PlanEditor& plan, const EValue* w_f, int64_t* pc_out, Weights* w) {
  const int64_t pc = plan.writer(w_f);
  if (!IsOp(plan, pc, kDequantizeChannel) || plan.is_method_io(w_f)) return false;
  const Span<EValue*> args = plan.args(static_cast<size_t>(pc));
  if (args.size() != 10 || args[8] != w_f) return false;
  int64_t axis = 0, qmin = 0, qmax = 0, dtype = 0, out_dtype = 0;
  w->q = TensorOf(args[0], ScalarType::kChar);
  w->scales = TensorOf(args[1], ScalarType::kFloat);
  if (w->q == nullptr || w->scales == nullptr || !plan.is_constant(args[0]) ||
      !plan.is_constant(args[1]) || w->q->dim() < 1 || !ConstInt(plan, args[3], &axis) ||
      !(axis == 0 || axis == -w->q->dim()) || !ConstInt(plan, args[4], &qmin) ||
      !ConstInt(plan, args[5], &qmax) || !ConstInt(plan, args[6], &dtype) ||
      dtype != static_cast<int64_t>(ScalarType::kChar) ||
      !(args[7]->is_none() || (ConstInt(plan, args[7], &out_dtype) &&
                               out_dtype == static_cast<int64_t>(ScalarType::kFloat))) ||
      w->scales->dim() != 1 || w->scales->size(0) != w->q->size(0)) {
    return false;
  }
  if (!args[2]->is_none()) {
    const Tensor* zp = TensorOf(args[2], ScalarType::kLong);
    if (zp == nullptr || !plan.is_constant(args[2]) || zp->numel() != w->q->size(0)) {
      return false;
    }
    for (int64_t i = 0; i < zp->numel(); ++i) {
      if (zp->data_as<const int64_t>()[i] != 0) return false;
    }
  }
  const float* s = w->scales->data_as<const float>();
  for (int64_t i = 0; i < w->scales->numel(); ++i) {
    if (!(s[i] > 0) || !std::isfinite(s[i])) return false;
  }
  *pc_out = pc;
  return true;
}

namespace {

// quantize(act(dequantize(q))) over every code q in [qmin, qmax] of the
// first quantize, run with the portable kernels on the instructions' own
// scalar arguments. True if it is clamp(q, *lo, *hi).
bool ActivationAsClamp(const PlanEditor& plan, int64_t dq, int64_t act, int64_t q,
                       const PerTensor& range, int32_t* lo, int32_t* hi) {
  int8_t codes[256], result[256];
  float deq[256], activated[256];
  int32_t n = static_cast<int32_t>(range.qmax - range.qmin + 1);
  for (int32_t i = 0; i < n; ++i) codes[i] = static_cast<int8_t>(range.qmin + i);
  int32_t sizes[4][1] = {{n}, {n}, {n}, {n}};
  uint8_t order[4][1] = {{0}, {0}, {0}, {0}};
  int32_t strides[4][1] = {{1}, {1}, {1}, {1}};
  Tensor t_codes(ScalarType::kChar, 1, sizes[0], order[0], strides[0], codes,
                 ShapeDynamism::kStatic);
  Tensor t_deq(ScalarType::kFloat, 1, sizes[1], order[1], strides[1], deq, ShapeDynamism::kStatic);
  Tensor t_act(ScalarType::kFloat, 1, sizes[2], order[2], strides[2], activated,
               ShapeDynamism::kStatic);
  Tensor t_out(ScalarType::kChar, 1, sizes[3], order[3], strides[3], result,
               ShapeDynamism::kStatic);
  EValue v_codes = EValue::FromTensor(&t_codes), v_deq = EValue::FromTensor(&t_deq),
         v_act = EValue::FromTensor(&t_act), v_out = EValue::FromTensor(&t_out);
  // Each call: the instruction's arguments with the tensors swapped.
  const auto run = [&](int64_t pc, OpFunction fn, EValue* in, EValue* out) {
    const Span<EValue*> args = plan.args(static_cast<size_t>(pc));
    EValue* call[16];
    if (args.size() < 3 || args.size() > 16) return false;
    for (size_t i = 0; i < args.size(); ++i) call[i] = args[i];
    call[0] = in;
    call[args.size() - 2] = out;
    call[args.size() - 1] = out;
    KernelContext ctx(nullptr, 1);
    fn(ctx, Span<EValue*>(call, args.size()));
    return !ctx.failed();
  };
  OpFunction act_fn = nullptr;
  const char* act_name = plan.op(static_cast<size_t>(act));
  if (std::strcmp(act_name, "aten::hardtanh.out") == 0) {
    act_fn = portable::HardtanhOut;
  } else if (std::strcmp(act_name, "aten::relu.out") == 0) {
    act_fn = portable::ReluOut;
  } else if (std::strcmp(act_name, "aten::clamp.out") == 0) {
    act_fn = portable::ClampOut;
  } else {
    return false;
  }
  if (!run(dq, portable::DequantizePerTensorOut, &v_codes, &v_deq) ||
      !run(act, act_fn, &v_deq, &v_act) ||
      !run(q, portable::QuantizePerTensorOut, &v_act, &v_out)) {
    return false;
  }
  const int32_t a = result[0], b = result[n - 1];
  if (a < range.qmin || b > range.qmax || a > b) return false;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t c = codes[i];
    if (result[i] != (c < a ? a : (c > b ? b : c))) return false;
  }
  *lo = a;
  *hi = b;
  return true;
}

bool OverlapsValue(const EValue* v, const Tensor& t) {
  return v != nullptr && v->is_tensor() && Overlaps(v->to_tensor(), t);
}

}  // namespace

// Writing `out` at `first` instead of `last`, and reading `in` at `first`
// instead of at `in_read`, is safe: no other live instruction in between
// touches out's memory or writes over in's. (`out` may share memory with
// `in`: the kernel then reads a copy of the input.)
bool MemorySafe(const PlanEditor& plan, int64_t in_read, int64_t first, int64_t last,
                const Tensor& in, const Tensor& out, const int64_t* absorbed, size_t num_absorbed) {
  for (int64_t pc = in_read + 1; pc <= last; ++pc) {
    if (pc == first || plan.op(static_cast<size_t>(pc)) == nullptr) continue;
    bool skip = false;
    for (size_t i = 0; i < num_absorbed; ++i) skip = skip || absorbed[i] == pc;
    if (skip) continue;
    bool clobbers = false;
    ForEachArgValue(plan.args(static_cast<size_t>(pc)), [&](const EValue* a) {
      clobbers = clobbers || (pc < first && plan.writer(a) == pc && OverlapsValue(a, in)) ||
                 (pc > first && OverlapsValue(a, out));
    });
    if (clobbers) return false;
  }
  return true;
}

namespace {

bool MatchTail(const PlanEditor& plan, size_t op_pc, EValue* y_f, Tail* t) {
  if (!Private(plan, y_f)) return false;
  const int64_t q_pc = FirstReaderAfter(plan, op_pc, y_f);
  if (!MatchQuantize(plan, q_pc, y_f, &t->out, &t->q)) return false;
  t->pcs[0] = q_pc;
  t->count = 1;
  t->dropped[0] = y_f;
  t->dropped_from[0] = static_cast<int64_t>(op_pc);
  t->lo = static_cast<int32_t>(t->q.qmin);
  t->hi = static_cast<int32_t>(t->q.qmax);
  // Optional activation between a dequantize and a requantize.
  EValue* y_q = t->out;
  if (!Private(plan, y_q)) return true;
  const int64_t dq_pc = FirstReaderAfter(plan, static_cast<size_t>(q_pc), y_q);
  PerTensor dq_params, q2_params;
  EValue* dq_in = nullptr;
  if (!IsOp(plan, dq_pc, kDequantize)) return true;
  const Span<EValue*> dq_args = plan.args(static_cast<size_t>(dq_pc));
  if (dq_args.size() != 9 || dq_args[0] != y_q) return true;
  EValue* z_f = dq_args[7];
  if (!MatchDequantize(plan, dq_pc, z_f, &dq_in, &dq_params) || !Private(plan, z_f)) {
    return true;
  }
  const int64_t act_pc = FirstReaderAfter(plan, static_cast<size_t>(dq_pc), z_f);
  if (act_pc < 0) return true;
  const Span<EValue*> act_args = plan.args(static_cast<size_t>(act_pc));
  if (act_args.size() < 3 || act_args[0] != z_f) return true;
  EValue* a_f = act_args[act_args.size() - 2];
  if (act_args[act_args.size() - 1] != a_f || TensorOf(a_f, ScalarType::kFloat) == nullptr ||
      !Private(plan, a_f)) {
    return true;
  }
  for (size_t i = 1; i + 2 < act_args.size(); ++i) {
    if (act_args[i]->is_tensor() || plan.writer(act_args[i]) != -1) return true;
  }
  const int64_t q2_pc = FirstReaderAfter(plan, static_cast<size_t>(act_pc), a_f);
  EValue* out2 = nullptr;
  if (!MatchQuantize(plan, q2_pc, a_f, &out2, &q2_params)) return true;
  const Tensor& o1 = t->out->to_tensor();
  const Tensor& o2 = out2->to_tensor();
  if (o1.dim() != o2.dim() || !SameSizes(o2, o1.sizes())) return true;
  int32_t lo = 0, hi = 0;
  if (!ActivationAsClamp(plan, dq_pc, act_pc, q2_pc, t->q, &lo, &hi)) return true;
  t->pcs[1] = dq_pc;
  t->pcs[2] = act_pc;
  t->pcs[3] = q2_pc;
  t->count = 4;
  t->dropped[1] = y_q;
  t->dropped_from[1] = q_pc;
  t->dropped[2] = z_f;
  t->dropped_from[2] = dq_pc;
  t->dropped[3] = a_f;
  t->dropped_from[3] = act_pc;
  t->out = out2;
  t->lo = lo;
  t->hi = hi;
  return true;
}

bool TailAliasSafe(const PlanEditor& plan, size_t op_pc, const Tail& t) {
  int64_t dropped[5];
  for (size_t i = 0; i < t.count; ++i) dropped[i] = t.pcs[i];
  dropped[t.count] = static_cast<int64_t>(op_pc);
  for (size_t i = 0; i < t.count; ++i) {
    if (!AliasReadsCovered(plan, t.dropped[i], t.dropped_from[i], dropped, t.count + 1)) {
      return false;
    }
  }
  return true;
}

}  // namespace

// The quantize tail after `pc` (MatchTail) whose output has `yf`'s shape,
// where writing that output at `pc` is safe: nothing between `in_read`
// (the last read of `in`) and the tail's end touches the memory involved
// (MemorySafe), and no view still reads a dropped value (TailAliasSafe).
bool MatchSafeTail(const PlanEditor& plan, size_t pc, EValue* y_f, const Tensor& yf,
                   int64_t in_read, const Tensor* in, Tail* tail) {
  if (!MatchTail(plan, pc, y_f, tail)) return false;
  const Tensor& out = tail->out->to_tensor();
  if (out.dim() != yf.dim() || !SameSizes(out, yf.sizes())) return false;
  return MemorySafe(plan, in_read, static_cast<int64_t>(pc), tail->pcs[tail->count - 1],
                    in != nullptr ? *in : out, out, tail->pcs, tail->count) &&
         TailAliasSafe(plan, pc, *tail);
}

}  // namespace internal
}  // namespace optimized
}  // namespace edgefleet

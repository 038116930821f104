#include "runtime/kernels/optimized/quantized_fusion.h"

#include <cmath>
#include <cstring>
#include <new>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/quantized_add.h"
#include "runtime/kernels/optimized/quantized_conv.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/plan_pass_util.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr const char* kDequantize = "quantized_decomposed::dequantize_per_tensor.out";
constexpr const char* kDequantizeChannel = "quantized_decomposed::dequantize_per_channel.out";
constexpr const char* kQuantize = "quantized_decomposed::quantize_per_tensor.out";



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

bool Contains(const int64_t* pcs, size_t n, int64_t pc) {
  for (size_t i = 0; i < n; ++i) {
    if (pcs[i] == pc) return true;
  }
  return false;
}

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
          plan.is_constant(alias) || plan.is_method_io(alias) ||
          !Overlaps(alias->to_tensor(), t)) {
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

struct PerTensor {
  double scale = 0;
  int64_t zero_point = 0, qmin = 0, qmax = 0;
};

// quantize / dequantize_per_tensor scalar arguments 1..5 for int8.
bool PerTensorParams(const PlanEditor& plan, Span<EValue*> args, PerTensor* p) {
  int64_t dtype = 0;
  return ConstNumber(plan, args[1], &p->scale) && p->scale > 0 &&
         ConstInt(plan, args[2], &p->zero_point) && ConstInt(plan, args[3], &p->qmin) &&
         ConstInt(plan, args[4], &p->qmax) && ConstInt(plan, args[5], &dtype) &&
         dtype == static_cast<int64_t>(ScalarType::kChar) && p->qmin >= -128 &&
         p->qmin <= p->qmax && p->qmax <= 127 && p->zero_point >= -128 &&
         p->zero_point <= 127;
}

// dequantize_per_tensor at `pc` of an int8 tensor into float `out`.
bool MatchDequantize(const PlanEditor& plan, int64_t pc, const EValue* out,
                     EValue** in, PerTensor* p) {
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

// quantize_per_tensor at `pc` of float `in` into an int8 tensor.
bool MatchQuantize(const PlanEditor& plan, int64_t pc, const EValue* in,
                   EValue** out, PerTensor* p) {
  if (!IsOp(plan, pc, kQuantize)) return false;
  const Span<EValue*> args = plan.args(static_cast<size_t>(pc));
  if (args.size() != 8 || args[0] != in || !PerTensorParams(plan, args, p) ||
      TensorOf(args[6], ScalarType::kChar) == nullptr) {
    return false;
  }
  *out = args[6];
  return true;
}

// dequantize_per_channel of constant symmetric int8 weights along axis 0.
struct Weights {
  const Tensor* q = nullptr;
  const Tensor* scales = nullptr;
};
bool MatchWeights(const PlanEditor& plan, const EValue* w_f, int64_t* pc_out,
                  Weights* w) {
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
  Tensor t_deq(ScalarType::kFloat, 1, sizes[1], order[1], strides[1], deq,
               ShapeDynamism::kStatic);
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

// The packed blob as a 1-D uint8 tensor value in method memory.
struct BlobTensor {
  int32_t size;
  uint8_t dim_order;
  int32_t stride;
  alignas(Tensor) unsigned char tensor[sizeof(Tensor)];
};

EValue* NewBlobValue(PlanEditor& plan, const QuantizedConvSpec& spec, const int8_t* weight,
                     const float* weight_scale, const float* bias) {
  const size_t bytes = QuantizedConvPackedBytes(spec);
  if (bytes == 0 || bytes > 0x7fffffff) return nullptr;
  void* blob = plan.Allocate(bytes, 64);
  void* meta = plan.Allocate(sizeof(BlobTensor), alignof(BlobTensor));
  if (blob == nullptr || meta == nullptr) return nullptr;
  if (!PackQuantizedConv(spec, weight, weight_scale, bias, blob)) return nullptr;
  BlobTensor* bt = static_cast<BlobTensor*>(meta);
  bt->size = static_cast<int32_t>(bytes);
  bt->dim_order = 0;
  bt->stride = 1;
  Tensor* t = new (bt->tensor) Tensor(ScalarType::kByte, 1, &bt->size, &bt->dim_order,
                                      &bt->stride, blob, ShapeDynamism::kStatic);
  return plan.NewValue(EValue::FromTensor(t));
}

bool OverlapsValue(const EValue* v, const Tensor& t) {
  return v != nullptr && v->is_tensor() && Overlaps(v->to_tensor(), t);
}

// Writing `out` at `first` instead of `last`, and reading `in` at `first`
// instead of at `in_read`, is safe: no other live instruction in between
// touches out's memory or writes over in's. (`out` may share memory with
// `in`: the kernel then reads a copy of the input.)
bool MemorySafe(const PlanEditor& plan, int64_t in_read, int64_t first, int64_t last,
                const Tensor& in, const Tensor& out, const int64_t* absorbed,
                size_t num_absorbed) {
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

// The common tail: quantize of the op's float output, then an optional
// dequantize -> activation -> quantize narrowing the range.
struct Tail {
  int64_t pcs[4] = {-1, -1, -1, -1};  // quantize, [dequantize, act, quantize]
  size_t count = 0;
  const EValue* dropped[4] = {};  // values no longer produced, by pcs[i] - 1 ...
  int64_t dropped_from[4] = {};
  EValue* out = nullptr;
  PerTensor q;
  int32_t lo = 0, hi = 0;
};

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

// Replaces `op_pc` by the fused kernel and removes what it absorbed.
void Rewrite(PlanEditor& plan, size_t op_pc, EValue* x_q, EValue* blob, const Tail& tail,
             const int64_t* feeders, size_t num_feeders, EValue* const* feeder_outs) {
  EValue* args[4] = {x_q, blob, tail.out, tail.out};
  if (plan.Replace(op_pc, kQuantizedConvolutionKernel, Span<EValue* const>(args, 4)) !=
      Error::kOk) {
    return;
  }
  for (size_t i = 0; i < tail.count; ++i) plan.Remove(static_cast<size_t>(tail.pcs[i]));
  // Dequantizes (and the permute) feeding the op, in order: each goes once
  // nothing reads its output any more.
  for (size_t i = 0; i < num_feeders; ++i) {
    const int64_t pc = feeders[i];
    if (pc >= 0 && plan.op(static_cast<size_t>(pc)) != nullptr &&
        NumNamingReaders(plan, feeder_outs[i]) == 0 && !plan.is_method_io(feeder_outs[i]) &&
        AliasReadsCovered(plan, feeder_outs[i], pc, &pc, 1)) {
      plan.Remove(static_cast<size_t>(pc));
    }
  }
}

void FuseConvolution(PlanEditor& plan, size_t pc) {
  const Span<EValue*> args = plan.args(pc);
  if (args.size() != 11) return;
  EValue* x_f = args[0];
  EValue* w_f = args[1];
  EValue* y_f = args[9];
  const Tensor* xf = TensorOf(x_f, ScalarType::kFloat);
  const Tensor* yf = TensorOf(y_f, ScalarType::kFloat);
  if (xf == nullptr || yf == nullptr || xf->dim() != 4 || yf->dim() != 4 ||
      args[10] != y_f || plan.is_method_io(x_f)) {
    return;
  }
  Span<const int64_t> stride, padding, dilation, output_padding;
  int64_t groups = 0;
  if (!PeekIntList(args, 3, &stride) || !PeekIntList(args, 4, &padding) ||
      !PeekIntList(args, 5, &dilation) || !args[6]->is_bool() || args[6]->to_bool() ||
      !PeekIntList(args, 7, &output_padding) || !ConstInt(plan, args[8], &groups) ||
      stride.size() != 2 || padding.size() != 2 || dilation.size() != 2 ||
      groups <= 0 || groups > (1 << 20)) {
    return;
  }
  for (int64_t v : output_padding) {
    if (v != 0) return;
  }
  for (size_t i = 0; i < 2; ++i) {
    if (stride[i] <= 0 || stride[i] > 4096 || padding[i] < 0 || padding[i] > 4096 ||
        dilation[i] <= 0 || dilation[i] > 4096) {
      return;
    }
  }
  const int64_t dq_pc = plan.writer(x_f);
  EValue* x_q = nullptr;
  PerTensor in_q;
  if (!MatchDequantize(plan, dq_pc, x_f, &x_q, &in_q)) return;
  Weights w;
  int64_t w_pc = -1;
  if (!MatchWeights(plan, w_f, &w_pc, &w) || w.q->dim() != 4) return;
  const Tensor* bias = nullptr;
  if (!args[2]->is_none()) {
    bias = TensorOf(args[2], ScalarType::kFloat);
    if (bias == nullptr || !plan.is_constant(args[2]) || bias->dim() != 1 ||
        bias->size(0) != w.q->size(0)) {
      return;
    }
  }
  const Tensor& xq = x_q->to_tensor();
  if (xq.dim() != 4 || !SameSizes(xq, xf->sizes()) ||
      xq.size(1) != w.q->size(1) * groups || yf->size(1) != w.q->size(0)) {
    return;
  }
  Tail tail;
  if (!MatchSafeTail(plan, pc, y_f, *yf, dq_pc, &xq, &tail)) return;
  QuantizedConvSpec spec;
  spec.kind = QuantizedOpKind::kConv2d;
  spec.out_channels = w.q->size(0);
  spec.in_channels = xq.size(1);
  spec.kernel_h = w.q->size(2);
  spec.kernel_w = w.q->size(3);
  spec.groups = static_cast<int32_t>(groups);
  spec.stride_h = static_cast<int32_t>(stride[0]);
  spec.stride_w = static_cast<int32_t>(stride[1]);
  spec.pad_h = static_cast<int32_t>(padding[0]);
  spec.pad_w = static_cast<int32_t>(padding[1]);
  spec.dilation_h = static_cast<int32_t>(dilation[0]);
  spec.dilation_w = static_cast<int32_t>(dilation[1]);
  spec.in_scale = static_cast<float>(in_q.scale);
  spec.in_zero_point = static_cast<int32_t>(in_q.zero_point);
  spec.out_scale = tail.q.scale;
  spec.out_zero_point = static_cast<int32_t>(tail.q.zero_point);
  spec.out_min = tail.lo;
  spec.out_max = tail.hi;
  EValue* blob = NewBlobValue(plan, spec, w.q->data_as<const int8_t>(),
                              w.scales->data_as<const float>(),
                              bias != nullptr ? bias->data_as<const float>() : nullptr);
  if (blob == nullptr) return;
  const int64_t feeders[2] = {dq_pc, w_pc};
  EValue* const outs[2] = {x_f, w_f};
  Rewrite(plan, pc, x_q, blob, tail, feeders, 2, outs);
}

// addmm(bias, dequantize(x_q), permute_copy(dequantize_per_channel(W_q), [1, 0])).
void FuseAddmm(PlanEditor& plan, size_t pc) {
  const Span<EValue*> args = plan.args(pc);
  if (args.size() != 7) return;
  EValue* x_f = args[1];
  EValue* wt_f = args[2];
  EValue* y_f = args[5];
  const Tensor* xf = TensorOf(x_f, ScalarType::kFloat);
  const Tensor* yf = TensorOf(y_f, ScalarType::kFloat);
  double beta = 0, alpha = 0;
  if (xf == nullptr || yf == nullptr || xf->dim() != 2 || yf->dim() != 2 ||
      args[6] != y_f || plan.is_method_io(x_f) || plan.is_method_io(wt_f) ||
      !ConstNumber(plan, args[3], &beta) || beta != 1 || !ConstNumber(plan, args[4], &alpha) ||
      alpha != 1) {
    return;
  }
  const int64_t perm_pc = plan.writer(wt_f);
  if (!IsOp(plan, perm_pc, "aten::permute_copy.out")) return;
  const Span<EValue*> perm_args = plan.args(static_cast<size_t>(perm_pc));
  Span<const int64_t> dims;
  if (perm_args.size() != 4 || perm_args[2] != wt_f || !PeekIntList(perm_args, 1, &dims) ||
      dims.size() != 2 || !((dims[0] == 1 || dims[0] == -1) && (dims[1] == 0 || dims[1] == -2))) {
    return;
  }
  EValue* w_f = perm_args[0];
  const int64_t dq_pc = plan.writer(x_f);
  EValue* x_q = nullptr;
  PerTensor in_q;
  if (!MatchDequantize(plan, dq_pc, x_f, &x_q, &in_q)) return;
  Weights w;
  int64_t w_pc = -1;
  if (!MatchWeights(plan, w_f, &w_pc, &w) || w.q->dim() != 2) return;
  const int32_t n = w.q->size(0), k = w.q->size(1);
  const Tensor* bias = TensorOf(args[0], ScalarType::kFloat);
  if (bias == nullptr || !plan.is_constant(args[0]) || bias->numel() != n ||
      bias->size(bias->dim() - 1) != n) {
    return;
  }
  const Tensor& xq = x_q->to_tensor();
  if (xq.dim() != 2 || xq.size(1) != k || !SameSizes(xq, xf->sizes()) || yf->size(1) != n ||
      yf->size(0) != xq.size(0)) {
    return;
  }
  Tail tail;
  if (!MatchSafeTail(plan, pc, y_f, *yf, dq_pc, &xq, &tail)) return;
  QuantizedConvSpec spec;
  spec.kind = QuantizedOpKind::kLinear;
  spec.out_channels = n;
  spec.in_channels = k;
  spec.in_scale = static_cast<float>(in_q.scale);
  spec.in_zero_point = static_cast<int32_t>(in_q.zero_point);
  spec.out_scale = tail.q.scale;
  spec.out_zero_point = static_cast<int32_t>(tail.q.zero_point);
  spec.out_min = tail.lo;
  spec.out_max = tail.hi;
  EValue* blob = NewBlobValue(plan, spec, w.q->data_as<const int8_t>(),
                              w.scales->data_as<const float>(), bias->data_as<const float>());
  if (blob == nullptr) return;
  const int64_t feeders[3] = {dq_pc, perm_pc, w_pc};
  EValue* const outs[3] = {x_f, wt_f, w_f};
  Rewrite(plan, pc, x_q, blob, tail, feeders, 3, outs);
}

// add(a, b, alpha = 1) -> quantize [-> activation chain]: one
// edgefleet::quantized_add. Each operand that is a dequantize read only
// here, whose int8 input is still intact at the add, is read as int8 and
// its dequantize removed; other operands are read as floats.
void FuseAdd(PlanEditor& plan, size_t pc) {
  const Span<EValue*> args = plan.args(pc);
  if (args.size() != 5) return;
  EValue* y_f = args[3];
  const Tensor* yf = TensorOf(y_f, ScalarType::kFloat);
  double alpha = 0;
  if (yf == nullptr || args[4] != y_f || !ConstNumber(plan, args[2], &alpha) || alpha != 1) {
    return;
  }
  EValue* operands[2] = {args[0], args[1]};
  for (EValue* v : operands) {
    const Tensor* t = TensorOf(v, ScalarType::kFloat);
    if (t == nullptr || t->dim() != yf->dim() || !SameSizes(*t, yf->sizes())) return;
  }
  Tail tail;
  if (!MatchSafeTail(plan, pc, y_f, *yf, static_cast<int64_t>(pc), nullptr, &tail)) return;
  const Tensor& out = tail.out->to_tensor();
  int64_t dropped[6];
  size_t num_dropped = 0;
  for (size_t i = 0; i < tail.count; ++i) dropped[num_dropped++] = tail.pcs[i];
  dropped[num_dropped++] = static_cast<int64_t>(pc);
  // Operands: (tensor, scale, zero point) and the dequantize to drop.
  EValue* call[12];
  int64_t feeders[2] = {-1, -1};
  EValue* feeder_outs[2] = {nullptr, nullptr};
  // The quant range narrowed by a fused activation.
  EValue* none_value = plan.NewValue(EValue());
  EValue* lo = plan.NewValue(EValue::FromInt(tail.lo));
  EValue* hi = plan.NewValue(EValue::FromInt(tail.hi));
  if (none_value == nullptr || lo == nullptr || hi == nullptr) return;
  for (int k = 0; k < 2; ++k) {
    EValue* v = operands[k];
    call[3 * k] = v;
    call[3 * k + 1] = none_value;
    call[3 * k + 2] = none_value;
    if (operands[0] == operands[1]) continue;  // x + x: keep floats
    const int64_t dq_pc = plan.writer(v);
    EValue* x_q = nullptr;
    PerTensor q;
    if (!MatchDequantize(plan, dq_pc, v, &x_q, &q) || !Private(plan, v)) continue;
    const Tensor& xq = x_q->to_tensor();
    if (xq.dim() != yf->dim() || !SameSizes(xq, yf->sizes())) continue;
    // x_q must not be overwritten between its dequantize and the add.
    if (!MemorySafe(plan, dq_pc, static_cast<int64_t>(pc), static_cast<int64_t>(pc), xq, out,
                    dropped, num_dropped)) {
      continue;
    }
    const Span<EValue*> dq_args = plan.args(static_cast<size_t>(dq_pc));
    call[3 * k] = x_q;
    call[3 * k + 1] = dq_args[1];
    call[3 * k + 2] = dq_args[2];
    feeders[k] = dq_pc;
    feeder_outs[k] = v;
  }
  const Span<EValue*> q_args = plan.args(static_cast<size_t>(tail.pcs[0]));
  call[6] = q_args[1];
  call[7] = q_args[2];
  call[8] = lo;
  call[9] = hi;
  call[10] = tail.out;
  call[11] = tail.out;
  if (plan.Replace(pc, kQuantizedAddKernel, Span<EValue* const>(call, 12)) != Error::kOk) {
    return;
  }
  for (size_t i = 0; i < tail.count; ++i) plan.Remove(static_cast<size_t>(tail.pcs[i]));
  for (int k = 0; k < 2; ++k) {
    const int64_t f = feeders[k];
    if (f >= 0 && plan.op(static_cast<size_t>(f)) != nullptr &&
        NumNamingReaders(plan, feeder_outs[k]) == 0 && !plan.is_method_io(feeder_outs[k]) &&
        AliasReadsCovered(plan, feeder_outs[k], f, &f, 1)) {
      plan.Remove(static_cast<size_t>(f));
    }
  }
}

}  // namespace

void FuseQuantizedConvolution(PlanEditor& plan) {
  for (size_t pc = 0; pc < plan.num_instructions(); ++pc) {
    const char* op = plan.op(pc);
    if (op == nullptr) continue;
    if (std::strcmp(op, "aten::convolution.out") == 0) {
      FuseConvolution(plan, pc);
    } else if (std::strcmp(op, "aten::addmm.out") == 0) {
      FuseAddmm(plan, pc);
    } else if (std::strcmp(op, "aten::add.out") == 0) {
      FuseAdd(plan, pc);
    }
  }
}

}  // namespace optimized
}  // namespace edgefleet

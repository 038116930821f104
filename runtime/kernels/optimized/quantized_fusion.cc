#include "runtime/kernels/optimized/quantized_fusion.h"

#include <cmath>
#include <cstring>
#include <new>

#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/quantized_add.h"
#include "runtime/kernels/optimized/quantized_conv.h"
#include "runtime/kernels/optimized/quantized_match.h"
#include "runtime/kernels/plan_pass_util.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

using internal::AliasReadsCovered;
using internal::ConstInt;
using internal::MatchDequantize;
using internal::MatchSafeTail;
using internal::MatchWeights;
using internal::MemorySafe;
using internal::PerTensor;
using internal::Private;
using internal::Tail;
using internal::TensorOf;
using internal::Weights;

// The packed blob as a 1-D uint8 tensor value in method memory.
struct BlobTensor {
  int32_t size;
  uint8_t dim_order;
  int32_t stride;
  alignas(Tensor) unsigned char tensor[sizeof(Tensor)];
};

EValue* NewBlobValue(PlanEditor& plan, const QuantizedConvSpec& spec, const int8_t* weight,
                     const float* weight_scale, const float* bias) {
  const size_t bytes = QuantizedConvPackedBytes(spec, weight, weight_scale, bias);
  if (bytes == 0 || bytes > 0x7fffffff) return nullptr;
  void* blob = plan.Allocate(bytes, 64);
  void* meta = plan.Allocate(sizeof(BlobTensor), alignof(BlobTensor));
  if (blob == nullptr || meta == nullptr) return nullptr;
  if (!PackQuantizedConv(spec, weight, weight_scale, bias, blob)) return nullptr;
  BlobTensor* bt = static_cast<BlobTensor*>(meta);
  bt->size = static_cast<int32_t>(bytes);
  bt->dim_order = 0;
  bt->stride = 1;
  Tensor* t = new (bt->tensor) Tensor(ScalarType::kByte, 1, &bt->size, &bt->dim_order, &bt->stride,
                                      blob, ShapeDynamism::kStatic);
  return plan.NewValue(EValue::FromTensor(t));
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
  if (xf == nullptr || yf == nullptr || xf->dim() != 4 || yf->dim() != 4 || args[10] != y_f ||
      plan.is_method_io(x_f)) {
    return;
  }
  Span<const int64_t> stride, padding, dilation, output_padding;
  int64_t groups = 0;
  if (!PeekIntList(args, 3, &stride) || !PeekIntList(args, 4, &padding) ||
      !PeekIntList(args, 5, &dilation) || !args[6]->is_bool() || args[6]->to_bool() ||
      !PeekIntList(args, 7, &output_padding) || !ConstInt(plan, args[8], &groups) ||
      stride.size() != 2 || padding.size() != 2 || dilation.size() != 2 || groups <= 0 ||
      groups > (1 << 20)) {
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
  if (xq.dim() != 4 || !SameSizes(xq, xf->sizes()) || xq.size(1) != w.q->size(1) * groups ||
      yf->size(1) != w.q->size(0)) {
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
  EValue* blob =
      NewBlobValue(plan, spec, w.q->data_as<const int8_t>(), w.scales->data_as<const float>(),
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
  if (xf == nullptr || yf == nullptr || xf->dim() != 2 || yf->dim() != 2 || args[6] != y_f ||
      plan.is_method_io(x_f) || plan.is_method_io(wt_f) || !ConstNumber(plan, args[3], &beta) ||
      beta != 1 || !ConstNumber(plan, args[4], &alpha) || alpha != 1) {
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

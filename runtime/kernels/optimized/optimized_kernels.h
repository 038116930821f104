// Entry points of the optimized kernels and their Supports() functions.
//
// Each kernel is an OpFunction for the operator named in the comment; its
// fast path covers float32 calls in the dim orders listed, and every other
// call (other dtypes or layouts, shapes it does not handle at execution
// time, invalid arguments) runs the portable kernel of the same operator,
// which also reports errors. Supports() (run at method init) accepts the
// calls the fast path is meant for, so `edgefleet-run inspect` shows where
// they apply. RegisterOptimizedKernels() maps operator names to these.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_OPTIMIZED_KERNELS_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_OPTIMIZED_KERNELS_H_

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernels/kernel_context.h"

namespace edgefleet {
namespace optimized {

// mask_ops.cc: attention's masking ops, aten::eq.Scalar_out (float32 ->
// bool), aten::logical_not.out (bool), aten::any.out over the last dim
// (bool) and aten::where.self_out (bool condition, float32 operands, each
// the out's shape, one element or the out's shape with a last dim of 1).
void EqScalarOut(KernelContext& ctx, Span<EValue*> args);
void LogicalNotOut(KernelContext& ctx, Span<EValue*> args);
void AnyOut(KernelContext& ctx, Span<EValue*> args);
void WhereSelfOut(KernelContext& ctx, Span<EValue*> args);
bool EqScalarSupports(Span<EValue* const> args);
bool LogicalNotSupports(Span<EValue* const> args);
bool AnySupports(Span<EValue* const> args);
bool WhereSupports(Span<EValue* const> args);

// matmul.cc: aten::{mm,bmm,addmm,linear}.out through the packed GEMM.
// Operands in any dim order; out (and linear's input) in the default one.
void MmOut(KernelContext& ctx, Span<EValue*> args);
void BmmOut(KernelContext& ctx, Span<EValue*> args);
void AddmmOut(KernelContext& ctx, Span<EValue*> args);
void LinearOut(KernelContext& ctx, Span<EValue*> args);
bool MmSupports(Span<EValue* const> args);
bool BmmSupports(Span<EValue* const> args);
bool AddmmSupports(Span<EValue* const> args);
bool LinearSupports(Span<EValue* const> args);

// convolution.cc: aten::convolution.out, 1-D and 2-D, not transposed; NCHW
// (default dim order) or channels-last input and out. Depthwise runs a
// direct kernel, everything else the GEMM (1x1 in place, others with
// im2col inside the packing).
void ConvolutionOut(KernelContext& ctx, Span<EValue*> args);
bool ConvolutionSupports(Span<EValue* const> args);

// elementwise.cc: aten::{add,sub,mul,div}.out and .Scalar_out with
// PyTorch broadcasting, when the innermost dimension is contiguous.
void AddOut(KernelContext& ctx, Span<EValue*> args);
void SubOut(KernelContext& ctx, Span<EValue*> args);
void MulOut(KernelContext& ctx, Span<EValue*> args);
void DivOut(KernelContext& ctx, Span<EValue*> args);
void AddScalarOut(KernelContext& ctx, Span<EValue*> args);
void SubScalarOut(KernelContext& ctx, Span<EValue*> args);
void MulScalarOut(KernelContext& ctx, Span<EValue*> args);
void DivScalarOut(KernelContext& ctx, Span<EValue*> args);
bool BinarySupports(Span<EValue* const> args);
bool BinaryScalarSupports(Span<EValue* const> args);

// activation.cc: aten::{relu,hardtanh,clamp,hardswish,hardsigmoid,sigmoid,
// tanh,gelu}.out, input and out in the same dim order.
void ReluOut(KernelContext& ctx, Span<EValue*> args);
void HardtanhOut(KernelContext& ctx, Span<EValue*> args);
void ClampOut(KernelContext& ctx, Span<EValue*> args);
void HardswishOut(KernelContext& ctx, Span<EValue*> args);
void HardsigmoidOut(KernelContext& ctx, Span<EValue*> args);
void SigmoidOut(KernelContext& ctx, Span<EValue*> args);
void TanhOut(KernelContext& ctx, Span<EValue*> args);
void GeluOut(KernelContext& ctx, Span<EValue*> args);
bool UnarySupports(Span<EValue* const> args);

// normalization.cc: aten::_softmax.out over the innermost dim and
// aten::native_layer_norm.out over trailing dims, default dim order.
void SoftmaxOut(KernelContext& ctx, Span<EValue*> args);
bool SoftmaxSupports(Span<EValue* const> args);
void LayerNormOut(KernelContext& ctx, Span<EValue*> args);
bool LayerNormSupports(Span<EValue* const> args);

// batch_norm.cc: aten::_native_batch_norm_legit_no_training.out, NCHW-like
// (default dim order, rank >= 2) or channels-last.
void BatchNormOut(KernelContext& ctx, Span<EValue*> args);
bool BatchNormSupports(Span<EValue* const> args);

// reduction.cc: aten::mean.out where the reduced elements of each output
// are one contiguous run (e.g. H, W of NCHW) or the kept ones are (H, W of
// channels-last).
void MeanOut(KernelContext& ctx, Span<EValue*> args);
bool MeanSupports(Span<EValue* const> args);

// pooling.cc: aten::max_pool2d_with_indices.out, NCHW (a channels-last
// input or out too: max_pool_nhwc.h). MaxPool2dValuesOut: its arguments
// without the indices, the values only (pool_indices.h).
void MaxPool2dWithIndicesOut(KernelContext& ctx, Span<EValue*> args);
void MaxPool2dValuesOut(KernelContext& ctx, Span<EValue*> args);
bool MaxPool2dSupports(Span<EValue* const> args);

// upsample.cc: aten::upsample_bilinear2d.vec_out, NCHW.
void UpsampleBilinear2dVecOut(KernelContext& ctx, Span<EValue*> args);
bool UpsampleBilinear2dSupports(Span<EValue* const> args);

// quantized.cc: quantized_decomposed::{quantize_per_tensor,
// dequantize_per_tensor,dequantize_per_channel}.out, float32 <-> int8/uint8,
// default dim order.
void QuantizePerTensorOut(KernelContext& ctx, Span<EValue*> args);
void DequantizePerTensorOut(KernelContext& ctx, Span<EValue*> args);
void DequantizePerChannelOut(KernelContext& ctx, Span<EValue*> args);
bool QuantizePerTensorSupports(Span<EValue* const> args);
bool DequantizePerTensorSupports(Span<EValue* const> args);
bool DequantizePerChannelSupports(Span<EValue* const> args);

// cat.cc: aten::cat.out over at most 64 inputs of out's dtype (1, 2, 4 or
// 8 bytes), rank and dim order (any).
void CatOut(KernelContext& ctx, Span<EValue*> args);
bool CatSupports(Span<EValue* const> args);

// permute.cc: aten::permute_copy.out and aten::t_copy.out for any dtype of
// 1, 2, 4 or 8 bytes: blocked transposes and contiguous runs.
void PermuteCopyOut(KernelContext& ctx, Span<EValue*> args);
void TCopyOut(KernelContext& ctx, Span<EValue*> args);
bool PermuteSupports(Span<EValue* const> args);
// dim_order_ops::_clone_dim_order.out and _to_dim_order_copy.out without a
// dtype change: a copy into out's dim order (permute.cc).
void CloneDimOrderOut(KernelContext& ctx, Span<EValue*> args);
void ToDimOrderCopyOut(KernelContext& ctx, Span<EValue*> args);
bool DimOrderCopySupports(Span<EValue* const> args);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_OPTIMIZED_KERNELS_H_

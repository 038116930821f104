// Entry points of the portable kernels, one per operator overload.
//
// Each is an OpFunction (kernel_registry.h): `args` holds every schema
// argument in schema order plus the trailing return slot. Kernels validate
// their arguments and fail the context (with an error detail) instead of
// crashing. RegisterPortableKernels() maps operator names to these; tests
// call them directly.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_PORTABLE_KERNELS_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_PORTABLE_KERNELS_H_

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernels/kernel_context.h"

namespace edgefleet {
namespace portable {

// elementwise_binary.cc: aten::{add,sub}.out, {add,sub}.Scalar_out, mul.out,
// mul.Scalar_out, div.out, div.out_mode, div.Scalar_out
void AddOut(KernelContext& ctx, Span<EValue*> args);
void SubOut(KernelContext& ctx, Span<EValue*> args);
void AddScalarOut(KernelContext& ctx, Span<EValue*> args);
void SubScalarOut(KernelContext& ctx, Span<EValue*> args);
void MulOut(KernelContext& ctx, Span<EValue*> args);
void MulScalarOut(KernelContext& ctx, Span<EValue*> args);
void DivOut(KernelContext& ctx, Span<EValue*> args);
void DivOutMode(KernelContext& ctx, Span<EValue*> args);
void DivScalarOut(KernelContext& ctx, Span<EValue*> args);
// ... and fmod.{Tensor,Scalar}_out, remainder.{Tensor,Scalar}_out,
// pow.Tensor_Tensor_out, pow.Tensor_Scalar_out, maximum.out, minimum.out
void FmodTensorOut(KernelContext& ctx, Span<EValue*> args);
void FmodScalarOut(KernelContext& ctx, Span<EValue*> args);
void RemainderTensorOut(KernelContext& ctx, Span<EValue*> args);
void RemainderScalarOut(KernelContext& ctx, Span<EValue*> args);
void PowTensorTensorOut(KernelContext& ctx, Span<EValue*> args);
void PowTensorScalarOut(KernelContext& ctx, Span<EValue*> args);
void MaximumOut(KernelContext& ctx, Span<EValue*> args);
void MinimumOut(KernelContext& ctx, Span<EValue*> args);

// activation.cc: aten::{relu,hardtanh,clamp,hardswish,hardsigmoid,gelu}.out
void ReluOut(KernelContext& ctx, Span<EValue*> args);
void HardtanhOut(KernelContext& ctx, Span<EValue*> args);
void ClampOut(KernelContext& ctx, Span<EValue*> args);
void HardswishOut(KernelContext& ctx, Span<EValue*> args);
void HardsigmoidOut(KernelContext& ctx, Span<EValue*> args);
void GeluOut(KernelContext& ctx, Span<EValue*> args);

// unary_math.cc: aten::{sigmoid,tanh,exp,log,sin,cos,erf,sqrt,rsqrt,neg,abs,
// floor,ceil,round,trunc}.out
void SigmoidOut(KernelContext& ctx, Span<EValue*> args);
void TanhOut(KernelContext& ctx, Span<EValue*> args);
void ExpOut(KernelContext& ctx, Span<EValue*> args);
void LogOut(KernelContext& ctx, Span<EValue*> args);
void SinOut(KernelContext& ctx, Span<EValue*> args);
void CosOut(KernelContext& ctx, Span<EValue*> args);
void ErfOut(KernelContext& ctx, Span<EValue*> args);
void FloorOut(KernelContext& ctx, Span<EValue*> args);
void CeilOut(KernelContext& ctx, Span<EValue*> args);
void RoundOut(KernelContext& ctx, Span<EValue*> args);
void TruncOut(KernelContext& ctx, Span<EValue*> args);
void SqrtOut(KernelContext& ctx, Span<EValue*> args);
void RsqrtOut(KernelContext& ctx, Span<EValue*> args);
void NegOut(KernelContext& ctx, Span<EValue*> args);
void AbsOut(KernelContext& ctx, Span<EValue*> args);

// matmul.cc: aten::{mm,bmm,addmm,linear}.out
void MmOut(KernelContext& ctx, Span<EValue*> args);
void BmmOut(KernelContext& ctx, Span<EValue*> args);
void AddmmOut(KernelContext& ctx, Span<EValue*> args);
void LinearOut(KernelContext& ctx, Span<EValue*> args);

// convolution.cc: aten::convolution.out
void ConvolutionOut(KernelContext& ctx, Span<EValue*> args);

// batch_norm.cc: aten::_native_batch_norm_legit_no_training.out
void NativeBatchNormNoTrainingOut(KernelContext& ctx, Span<EValue*> args);

// layer_norm.cc: aten::native_layer_norm.out
void NativeLayerNormOut(KernelContext& ctx, Span<EValue*> args);

// max_pool.cc, avg_pool.cc: aten::max_pool2d_with_indices.out,
// aten::avg_pool2d.out, aten::_adaptive_avg_pool2d.out
void MaxPool2dWithIndicesOut(KernelContext& ctx, Span<EValue*> args);
void AvgPool2dOut(KernelContext& ctx, Span<EValue*> args);
void AdaptiveAvgPool2dOut(KernelContext& ctx, Span<EValue*> args);

// pool3d.cc: aten::avg_pool3d.out, aten::max_pool3d_with_indices.out
void AvgPool3dOut(KernelContext& ctx, Span<EValue*> args);
void MaxPool3dWithIndicesOut(KernelContext& ctx, Span<EValue*> args);

// softmax.cc: aten::_softmax.out, aten::_log_softmax.out
void SoftmaxOut(KernelContext& ctx, Span<EValue*> args);
void LogSoftmaxOut(KernelContext& ctx, Span<EValue*> args);

// reduction.cc: aten::mean.out, sum.IntList_out, amax.out, amin.out,
// argmax.out, argmin.out, any.{out,dims_out,all_out},
// all.{out,dims_out,all_out}
void MeanOut(KernelContext& ctx, Span<EValue*> args);
void SumIntListOut(KernelContext& ctx, Span<EValue*> args);
void AmaxOut(KernelContext& ctx, Span<EValue*> args);
void AminOut(KernelContext& ctx, Span<EValue*> args);
void ArgmaxOut(KernelContext& ctx, Span<EValue*> args);
void ArgminOut(KernelContext& ctx, Span<EValue*> args);
void AnyOut(KernelContext& ctx, Span<EValue*> args);
void AnyDimsOut(KernelContext& ctx, Span<EValue*> args);
void AnyAllOut(KernelContext& ctx, Span<EValue*> args);
void AllOut(KernelContext& ctx, Span<EValue*> args);
void AllDimsOut(KernelContext& ctx, Span<EValue*> args);
void AllAllOut(KernelContext& ctx, Span<EValue*> args);

// compare.cc: aten::{eq,ne,lt,le,gt,ge}.{Scalar,Tensor}_out,
// logical_{not,and,or,xor}.out
void EqScalarOut(KernelContext& ctx, Span<EValue*> args);
void EqTensorOut(KernelContext& ctx, Span<EValue*> args);
void NeScalarOut(KernelContext& ctx, Span<EValue*> args);
void NeTensorOut(KernelContext& ctx, Span<EValue*> args);
void LtScalarOut(KernelContext& ctx, Span<EValue*> args);
void LtTensorOut(KernelContext& ctx, Span<EValue*> args);
void LeScalarOut(KernelContext& ctx, Span<EValue*> args);
void LeTensorOut(KernelContext& ctx, Span<EValue*> args);
void GtScalarOut(KernelContext& ctx, Span<EValue*> args);
void GtTensorOut(KernelContext& ctx, Span<EValue*> args);
void GeScalarOut(KernelContext& ctx, Span<EValue*> args);
void GeTensorOut(KernelContext& ctx, Span<EValue*> args);
void LogicalNotOut(KernelContext& ctx, Span<EValue*> args);
void LogicalAndOut(KernelContext& ctx, Span<EValue*> args);
void LogicalOrOut(KernelContext& ctx, Span<EValue*> args);
void LogicalXorOut(KernelContext& ctx, Span<EValue*> args);

// where.cc: aten::where.self_out
void WhereSelfOut(KernelContext& ctx, Span<EValue*> args);

// permute_ops.cc: aten::permute_copy.out, t_copy.out, transpose_copy.int_out,
// expand_copy.out, as_strided_copy.out
void PermuteCopyOut(KernelContext& ctx, Span<EValue*> args);
void TCopyOut(KernelContext& ctx, Span<EValue*> args);
void TransposeCopyIntOut(KernelContext& ctx, Span<EValue*> args);
void ExpandCopyOut(KernelContext& ctx, Span<EValue*> args);
void AsStridedCopyOut(KernelContext& ctx, Span<EValue*> args);

// view_ops.cc: aten::view_copy.out, unsqueeze_copy.out, squeeze_copy.dim_out,
// squeeze_copy.dims_out
void ViewCopyOut(KernelContext& ctx, Span<EValue*> args);
void UnsqueezeCopyOut(KernelContext& ctx, Span<EValue*> args);
void SqueezeCopyDimOut(KernelContext& ctx, Span<EValue*> args);
void SqueezeCopyDimsOut(KernelContext& ctx, Span<EValue*> args);

// copy_ops.cc: aten::clone.out, _to_copy.out, copy.out, full.out,
// full_like.out, scalar_tensor.out, arange.out, arange.start_out,
// dim_order_ops::_clone_dim_order.out, _to_dim_order_copy.out
void CloneOut(KernelContext& ctx, Span<EValue*> args);
void ToCopyOut(KernelContext& ctx, Span<EValue*> args);
void CopyOut(KernelContext& ctx, Span<EValue*> args);
void FullOut(KernelContext& ctx, Span<EValue*> args);
void FullLikeOut(KernelContext& ctx, Span<EValue*> args);
void ScalarTensorOut(KernelContext& ctx, Span<EValue*> args);
void ArangeOut(KernelContext& ctx, Span<EValue*> args);
void ArangeStartOut(KernelContext& ctx, Span<EValue*> args);
void CloneDimOrderOut(KernelContext& ctx, Span<EValue*> args);
void ToDimOrderCopyOut(KernelContext& ctx, Span<EValue*> args);

// cat.cc: aten::cat.out
void CatOut(KernelContext& ctx, Span<EValue*> args);

// split.cc: aten::split_with_sizes_copy.out, split_copy.Tensor_out,
// unbind_copy.int_out
void SplitWithSizesCopyOut(KernelContext& ctx, Span<EValue*> args);
void SplitCopyTensorOut(KernelContext& ctx, Span<EValue*> args);
void UnbindCopyIntOut(KernelContext& ctx, Span<EValue*> args);

// grid_sampler.cc: aten::grid_sampler_2d.out
void GridSampler2dOut(KernelContext& ctx, Span<EValue*> args);
// upsample.cc: aten::upsample_nearest2d.vec_out, upsample_bilinear2d.vec_out
void UpsampleNearest2dVecOut(KernelContext& ctx, Span<EValue*> args);
void UpsampleBilinear2dVecOut(KernelContext& ctx, Span<EValue*> args);

// quantized.cc: quantized_decomposed::{quantize,dequantize}_per_tensor.
// {out,Tensor_out}, {quantize,dequantize}_per_channel.out,
// choose_qparams.Tensor_out
void QuantizePerTensorOut(KernelContext& ctx, Span<EValue*> args);
void QuantizePerTensorTensorOut(KernelContext& ctx, Span<EValue*> args);
void DequantizePerTensorOut(KernelContext& ctx, Span<EValue*> args);
void DequantizePerTensorTensorOut(KernelContext& ctx, Span<EValue*> args);
void QuantizePerChannelOut(KernelContext& ctx, Span<EValue*> args);
void DequantizePerChannelOut(KernelContext& ctx, Span<EValue*> args);
void ChooseQparamsTensorOut(KernelContext& ctx, Span<EValue*> args);
void QuantizedAddOut(KernelContext& ctx, Span<EValue*> args);

// index_ops.cc: aten::slice_copy.Tensor_out, slice_scatter.out,
// select_copy.int_out, constant_pad_nd.out, embedding.out, index_select.out;
// index_tensor.cc: aten::index.Tensor_out
void SliceCopyTensorOut(KernelContext& ctx, Span<EValue*> args);
void SliceScatterOut(KernelContext& ctx, Span<EValue*> args);
void SelectCopyIntOut(KernelContext& ctx, Span<EValue*> args);
void ConstantPadNdOut(KernelContext& ctx, Span<EValue*> args);
void EmbeddingOut(KernelContext& ctx, Span<EValue*> args);
void IndexSelectOut(KernelContext& ctx, Span<EValue*> args);
void IndexTensorOut(KernelContext& ctx, Span<EValue*> args);

// prim_ops.cc: aten::sym_size.int, aten::sym_numel and
// executorch_prim::et_view.default. scalar_prim_ops.cc: Prim<Name>Scalar is
// executorch_prim::<name>.Scalar; PrimFloorDivInt and PrimModInt are
// executorch_prim::floordiv.int and mod.int. Except et_view, these write
// their result into the last argument.
void SymSizeInt(KernelContext& ctx, Span<EValue*> args);
void SymNumel(KernelContext& ctx, Span<EValue*> args);
void EtViewDefault(KernelContext& ctx, Span<EValue*> args);
void PrimAddScalar(KernelContext& ctx, Span<EValue*> args);
void PrimSubScalar(KernelContext& ctx, Span<EValue*> args);
void PrimMulScalar(KernelContext& ctx, Span<EValue*> args);
void PrimFloorDivScalar(KernelContext& ctx, Span<EValue*> args);
void PrimTrueDivScalar(KernelContext& ctx, Span<EValue*> args);
void PrimModScalar(KernelContext& ctx, Span<EValue*> args);
void PrimEqScalar(KernelContext& ctx, Span<EValue*> args);
void PrimGtScalar(KernelContext& ctx, Span<EValue*> args);
void PrimLtScalar(KernelContext& ctx, Span<EValue*> args);
void PrimGeScalar(KernelContext& ctx, Span<EValue*> args);
void PrimLeScalar(KernelContext& ctx, Span<EValue*> args);
void PrimSymMaxScalar(KernelContext& ctx, Span<EValue*> args);
void PrimSymMinScalar(KernelContext& ctx, Span<EValue*> args);
void PrimFloorDivInt(KernelContext& ctx, Span<EValue*> args);
void PrimModInt(KernelContext& ctx, Span<EValue*> args);
void PrimNegScalar(KernelContext& ctx, Span<EValue*> args);
void PrimSymFloatScalar(KernelContext& ctx, Span<EValue*> args);
void PrimSymIntScalar(KernelContext& ctx, Span<EValue*> args);
void PrimCeilScalar(KernelContext& ctx, Span<EValue*> args);
void PrimRoundScalar(KernelContext& ctx, Span<EValue*> args);
void PrimTruncScalar(KernelContext& ctx, Span<EValue*> args);
void PrimSymNotScalar(KernelContext& ctx, Span<EValue*> args);
void PrimSymIteScalar(KernelContext& ctx, Span<EValue*> args);

// transcendental.cc: tan, inverse trigonometric, hyperbolic, expm1, log1p, log2, log10, reciprocal,
// logit
void TanOut(KernelContext& ctx, Span<EValue*> args);
void AsinOut(KernelContext& ctx, Span<EValue*> args);
void AcosOut(KernelContext& ctx, Span<EValue*> args);
void AtanOut(KernelContext& ctx, Span<EValue*> args);
void SinhOut(KernelContext& ctx, Span<EValue*> args);
void CoshOut(KernelContext& ctx, Span<EValue*> args);
void AsinhOut(KernelContext& ctx, Span<EValue*> args);
void AcoshOut(KernelContext& ctx, Span<EValue*> args);
void AtanhOut(KernelContext& ctx, Span<EValue*> args);
void Expm1Out(KernelContext& ctx, Span<EValue*> args);
void Log1pOut(KernelContext& ctx, Span<EValue*> args);
void Log2Out(KernelContext& ctx, Span<EValue*> args);
void Log10Out(KernelContext& ctx, Span<EValue*> args);
void ReciprocalOut(KernelContext& ctx, Span<EValue*> args);
void LogitOut(KernelContext& ctx, Span<EValue*> args);

// sign_classify.cc: sign, isnan, isinf
void SignOut(KernelContext& ctx, Span<EValue*> args);
void IsnanOut(KernelContext& ctx, Span<EValue*> args);
void IsinfOut(KernelContext& ctx, Span<EValue*> args);

// parametric_activation.cc: elu, leaky_relu, glu
void EluOut(KernelContext& ctx, Span<EValue*> args);
void LeakyReluOut(KernelContext& ctx, Span<EValue*> args);
void GluOut(KernelContext& ctx, Span<EValue*> args);

// bitwise.cc: and, or, xor, not, shifts
void BitwiseAndTensorOut(KernelContext& ctx, Span<EValue*> args);
void BitwiseAndScalarOut(KernelContext& ctx, Span<EValue*> args);
void BitwiseOrTensorOut(KernelContext& ctx, Span<EValue*> args);
void BitwiseOrScalarOut(KernelContext& ctx, Span<EValue*> args);
void BitwiseXorTensorOut(KernelContext& ctx, Span<EValue*> args);
void BitwiseXorScalarOut(KernelContext& ctx, Span<EValue*> args);
void BitwiseNotOut(KernelContext& ctx, Span<EValue*> args);
void BitwiseLeftShiftTensorOut(KernelContext& ctx, Span<EValue*> args);
void BitwiseLeftShiftTensorScalarOut(KernelContext& ctx, Span<EValue*> args);
void BitwiseRightShiftTensorOut(KernelContext& ctx, Span<EValue*> args);
void BitwiseRightShiftTensorScalarOut(KernelContext& ctx, Span<EValue*> args);

// atan2.cc and clamp_tensor.cc: atan2, clamp with tensor bounds
void Atan2Out(KernelContext& ctx, Span<EValue*> args);
void ClampTensorOut(KernelContext& ctx, Span<EValue*> args);

// elementwise_binary.cc: div.Scalar_mode_out, floor_divide, rsub.Scalar, pow.Scalar
void DivScalarModeOut(KernelContext& ctx, Span<EValue*> args);
void FloorDivideOut(KernelContext& ctx, Span<EValue*> args);
void RsubScalarOut(KernelContext& ctx, Span<EValue*> args);
void PowScalarOut(KernelContext& ctx, Span<EValue*> args);

// prod.cc, variance.cc, minmax_dim.cc, mean_dtype.cc, cumsum.cc, topk.cc: reductions and scans
void ProdOut(KernelContext& ctx, Span<EValue*> args);
void ProdIntOut(KernelContext& ctx, Span<EValue*> args);
void VarOut(KernelContext& ctx, Span<EValue*> args);
void VarCorrectionOut(KernelContext& ctx, Span<EValue*> args);
void VarMeanCorrectionOut(KernelContext& ctx, Span<EValue*> args);
void MaxDimMax(KernelContext& ctx, Span<EValue*> args);
void MinDimMin(KernelContext& ctx, Span<EValue*> args);
void MaxUnaryOut(KernelContext& ctx, Span<EValue*> args);
void MinUnaryOut(KernelContext& ctx, Span<EValue*> args);
void MeanDtypeOut(KernelContext& ctx, Span<EValue*> args);
void CumsumOut(KernelContext& ctx, Span<EValue*> args);
void TopkValues(KernelContext& ctx, Span<EValue*> args);
void SortValues(KernelContext& ctx, Span<EValue*> args);

// batch_norm.cc and group_norm.cc: training batch norm, group norm
void NativeBatchNormLegitOut(KernelContext& ctx, Span<EValue*> args);
void NativeBatchNormLegitNoStatsOut(KernelContext& ctx, Span<EValue*> args);
void NativeGroupNormOut(KernelContext& ctx, Span<EValue*> args);

// copy_ops.cc: plain copies, zeros, ones, empty, fill
void AliasCopyOut(KernelContext& ctx, Span<EValue*> args);
void DetachCopyOut(KernelContext& ctx, Span<EValue*> args);
void LiftFreshCopyOut(KernelContext& ctx, Span<EValue*> args);
void ZerosOut(KernelContext& ctx, Span<EValue*> args);
void OnesOut(KernelContext& ctx, Span<EValue*> args);
void EmptyOut(KernelContext& ctx, Span<EValue*> args);
void FillScalarOut(KernelContext& ctx, Span<EValue*> args);
void FillTensorOut(KernelContext& ctx, Span<EValue*> args);

// flip_roll.cc: flip, roll
void FlipOut(KernelContext& ctx, Span<EValue*> args);
void RollOut(KernelContext& ctx, Span<EValue*> args);

// strided_view_copies.cc and index_ops.cc: diagonal, narrow, unfold copies; select_scatter
void DiagonalCopyOut(KernelContext& ctx, Span<EValue*> args);
void NarrowCopyOut(KernelContext& ctx, Span<EValue*> args);
void UnfoldCopyOut(KernelContext& ctx, Span<EValue*> args);
void SelectScatterOut(KernelContext& ctx, Span<EValue*> args);

// stack_repeat_tril.cc: stack, repeat, tril
void StackOut(KernelContext& ctx, Span<EValue*> args);
void RepeatOut(KernelContext& ctx, Span<EValue*> args);
void TrilOut(KernelContext& ctx, Span<EValue*> args);

// pixel_shuffle.cc: pixel_shuffle, pixel_unshuffle
void PixelShuffleOut(KernelContext& ctx, Span<EValue*> args);
void PixelUnshuffleOut(KernelContext& ctx, Span<EValue*> args);

// reflection_replication_pad.cc: reflection and replication padding
void ReflectionPad1dOut(KernelContext& ctx, Span<EValue*> args);
void ReflectionPad2dOut(KernelContext& ctx, Span<EValue*> args);
void ReflectionPad3dOut(KernelContext& ctx, Span<EValue*> args);
void ReplicationPad1dOut(KernelContext& ctx, Span<EValue*> args);
void ReplicationPad2dOut(KernelContext& ctx, Span<EValue*> args);
void ReplicationPad3dOut(KernelContext& ctx, Span<EValue*> args);

// gather_scatter.cc: gather, scatter, scatter_add, scatter_reduce
void GatherOut(KernelContext& ctx, Span<EValue*> args);
void ScatterSrcOut(KernelContext& ctx, Span<EValue*> args);
void ScatterValueOut(KernelContext& ctx, Span<EValue*> args);
void ScatterAddOut(KernelContext& ctx, Span<EValue*> args);
void ScatterReduceTwoOut(KernelContext& ctx, Span<EValue*> args);

// masked_ops.cc: masked fill/select/scatter, nonzero, repeat_interleave
void MaskedFillScalarOut(KernelContext& ctx, Span<EValue*> args);
void MaskedSelectOut(KernelContext& ctx, Span<EValue*> args);
void MaskedScatterOut(KernelContext& ctx, Span<EValue*> args);
void NonzeroOut(KernelContext& ctx, Span<EValue*> args);
void RepeatInterleaveTensorOut(KernelContext& ctx, Span<EValue*> args);

// index_tensor.cc: index_put (out and in place)
void IndexPutOut(KernelContext& ctx, Span<EValue*> args);
void IndexPutInPlace(KernelContext& ctx, Span<EValue*> args);

// copy_ops.cc: copy_, host/device copies, _empty_dim_order
void CopyInPlace(KernelContext& ctx, Span<EValue*> args);
void H2dCopyOut(KernelContext& ctx, Span<EValue*> args);
void D2hCopyOut(KernelContext& ctx, Span<EValue*> args);
void EmptyDimOrderOut(KernelContext& ctx, Span<EValue*> args);

// distance.cc: cdist, pdist
void CdistForwardOut(KernelContext& ctx, Span<EValue*> args);
void PdistForwardOut(KernelContext& ctx, Span<EValue*> args);

// random_ops.cc: rand, randn, native_dropout
void RandOut(KernelContext& ctx, Span<EValue*> args);
void RandnOut(KernelContext& ctx, Span<EValue*> args);
void NativeDropoutOut(KernelContext& ctx, Span<EValue*> args);

// upsample_aa.cc
void UpsampleBilinear2dAaOut(KernelContext& ctx, Span<EValue*> args);

// max_pool_backward.cc
void MaxPool2dWithIndicesBackwardGradInput(KernelContext& ctx, Span<EValue*> args);

// mixed_matmul.cc: weight-only int8 products
void MixedMmOut(KernelContext& ctx, Span<EValue*> args);
void MixedLinearOut(KernelContext& ctx, Span<EValue*> args);

// allclose.cc
void AllcloseOut(KernelContext& ctx, Span<EValue*> args);
void AllcloseTensor(KernelContext& ctx, Span<EValue*> args);

// quantized_token_embedding.cc: per-token quantization, 8/4/2-bit embeddings
void ChooseQparamsPerTokenAsymmetricOut(KernelContext& ctx, Span<EValue*> args);
void QuantizePerTokenOut(KernelContext& ctx, Span<EValue*> args);
void DequantizePerTokenOut(KernelContext& ctx, Span<EValue*> args);
void EmbeddingByteOut(KernelContext& ctx, Span<EValue*> args);
void EmbeddingByteDtypeOut(KernelContext& ctx, Span<EValue*> args);
void Embedding4bitOut(KernelContext& ctx, Span<EValue*> args);
void Embedding4bitDtypeOut(KernelContext& ctx, Span<EValue*> args);
void Embedding2bitOut(KernelContext& ctx, Span<EValue*> args);
void Embedding2bitDtypeOut(KernelContext& ctx, Span<EValue*> args);

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_PORTABLE_KERNELS_H_

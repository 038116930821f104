#include "runtime/kernels/portable/register_portable_kernels.h"

#include <mutex>

#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/portable/convolution_backward.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace portable {
namespace {

// Operands of the bitwise operators (integers and bool).
constexpr DtypeSet kBitwiseDtypes = kIntegralDtypes | DtypeSet{ScalarType::kBool};
// The families of dtype_set.h plus float16 and bfloat16, which these
// kernels store as such and compute in float32 (dtype_util.h): the real
// runtime's FLOATHBF16, REALHBF16 and REALHBBF16 switches.
constexpr DtypeSet kReducedFloatingDtypes{ScalarType::kHalf, ScalarType::kBFloat16};
constexpr DtypeSet kFloatingHDtypes = kFloatingDtypes | kReducedFloatingDtypes;
constexpr DtypeSet kRealHDtypes = kRealDtypes | kReducedFloatingDtypes;
constexpr DtypeSet kAllHDtypes = kAllDtypes | kReducedFloatingDtypes;

// `dtypes`: what the kernel accepts as its first tensor argument
// (runtime/kernels/dtype_set.h); docs/operators.md lists it.
constexpr Kernel Portable(const char* name, OpFunction fn, DtypeSet dtypes) {
  return Kernel{name, fn, nullptr, KernelVariant::kPortable, dtypes};
}

const Kernel kPortableKernels[] = {
    // Elementwise arithmetic.
    Portable("aten::add.out", AddOut, kAllHDtypes),
    Portable("aten::sub.out", SubOut, kAllHDtypes),
    Portable("aten::add.Scalar_out", AddScalarOut, kAllHDtypes),
    Portable("aten::sub.Scalar_out", SubScalarOut, kAllHDtypes),
    Portable("aten::mul.out", MulOut, kAllHDtypes),
    Portable("aten::mul.Scalar_out", MulScalarOut, kAllHDtypes),
    Portable("aten::div.out", DivOut, kAllHDtypes),
    Portable("aten::div.out_mode", DivOutMode, kAllHDtypes),
    Portable("aten::div.Scalar_out", DivScalarOut, kAllHDtypes),
    Portable("aten::fmod.Tensor_out", FmodTensorOut, kAllHDtypes),
    Portable("aten::fmod.Scalar_out", FmodScalarOut, kAllHDtypes),
    Portable("aten::remainder.Tensor_out", RemainderTensorOut, kAllHDtypes),
    Portable("aten::remainder.Scalar_out", RemainderScalarOut, kAllHDtypes),
    Portable("aten::pow.Tensor_Tensor_out", PowTensorTensorOut, kAllHDtypes),
    Portable("aten::pow.Tensor_Scalar_out", PowTensorScalarOut, kAllHDtypes),
    Portable("aten::maximum.out", MaximumOut, kAllHDtypes),
    Portable("aten::minimum.out", MinimumOut, kAllHDtypes),
    // Activations and pointwise math.
    Portable("aten::relu.out", ReluOut, kRealHDtypes),
    Portable("aten::hardtanh.out", HardtanhOut, kAllHDtypes),
    Portable("aten::clamp.out", ClampOut, kAllHDtypes),
    Portable("aten::hardswish.out", HardswishOut, kAllHDtypes),
    Portable("aten::hardsigmoid.out", HardsigmoidOut, kAllHDtypes),
    Portable("aten::gelu.out", GeluOut, kAllHDtypes),
    Portable("aten::sigmoid.out", SigmoidOut, kAllHDtypes),
    Portable("aten::tanh.out", TanhOut, kAllHDtypes),
    Portable("aten::exp.out", ExpOut, kAllHDtypes),
    Portable("aten::log.out", LogOut, kAllHDtypes),
    Portable("aten::sin.out", SinOut, kAllHDtypes),
    Portable("aten::cos.out", CosOut, kAllHDtypes),
    Portable("aten::erf.out", ErfOut, kAllHDtypes),
    Portable("aten::floor.out", FloorOut, kRealHDtypes),
    Portable("aten::ceil.out", CeilOut, kRealHDtypes),
    Portable("aten::round.out", RoundOut, kRealHDtypes),
    Portable("aten::trunc.out", TruncOut, kRealHDtypes),
    Portable("aten::sqrt.out", SqrtOut, kAllHDtypes),
    Portable("aten::rsqrt.out", RsqrtOut, kAllHDtypes),
    Portable("aten::neg.out", NegOut, kRealHDtypes),
    Portable("aten::abs.out", AbsOut, kRealHDtypes),
    // Linear algebra, convolution, normalization, pooling.
    Portable("aten::mm.out", MmOut, kFloatingHDtypes),
    Portable("aten::bmm.out", BmmOut, kFloatingHDtypes),
    Portable("aten::addmm.out", AddmmOut, kFloatingHDtypes),
    Portable("aten::linear.out", LinearOut, kFloatingHDtypes),
    Portable("aten::convolution.out", ConvolutionOut, kFloatingHDtypes),
    Portable("aten::convolution_backward.out", ConvolutionBackwardOut, kFloatingHDtypes),
    Portable("aten::_native_batch_norm_legit_no_training.out", NativeBatchNormNoTrainingOut,
             kFloatingHDtypes),
    Portable("aten::native_layer_norm.out", NativeLayerNormOut, kFloatingHDtypes),
    Portable("aten::max_pool2d_with_indices.out", MaxPool2dWithIndicesOut, kRealHDtypes),
    Portable("aten::avg_pool2d.out", AvgPool2dOut, kFloatingHDtypes),
    Portable("aten::_adaptive_avg_pool2d.out", AdaptiveAvgPool2dOut, kFloatingHDtypes),
    Portable("aten::avg_pool3d.out", AvgPool3dOut, kFloatingDtypes),
    Portable("aten::max_pool3d_with_indices.out", MaxPool3dWithIndicesOut, kRealDtypes),
    Portable("aten::_softmax.out", SoftmaxOut, kFloatingHDtypes),
    Portable("aten::_log_softmax.out", LogSoftmaxOut, kFloatingHDtypes),
    Portable("aten::mean.out", MeanOut, kAllHDtypes),
    Portable("aten::sum.IntList_out", SumIntListOut, kAllHDtypes),
    Portable("aten::amax.out", AmaxOut, kAllHDtypes),
    Portable("aten::amin.out", AminOut, kAllHDtypes),
    Portable("aten::argmax.out", ArgmaxOut, kRealHDtypes),
    Portable("aten::argmin.out", ArgminOut, kRealHDtypes),
    Portable("aten::any.out", AnyOut, kAllHDtypes),
    Portable("aten::any.dims_out", AnyDimsOut, kAllHDtypes),
    Portable("aten::any.all_out", AnyAllOut, kAllHDtypes),
    Portable("aten::all.out", AllOut, kAllHDtypes),
    Portable("aten::all.dims_out", AllDimsOut, kAllHDtypes),
    Portable("aten::all.all_out", AllAllOut, kAllHDtypes),
    // Comparisons, logical ops, selection.
    Portable("aten::eq.Scalar_out", EqScalarOut, kAllHDtypes),
    Portable("aten::eq.Tensor_out", EqTensorOut, kAllHDtypes),
    Portable("aten::ne.Scalar_out", NeScalarOut, kAllHDtypes),
    Portable("aten::ne.Tensor_out", NeTensorOut, kAllHDtypes),
    Portable("aten::lt.Scalar_out", LtScalarOut, kAllHDtypes),
    Portable("aten::lt.Tensor_out", LtTensorOut, kAllHDtypes),
    Portable("aten::le.Scalar_out", LeScalarOut, kAllHDtypes),
    Portable("aten::le.Tensor_out", LeTensorOut, kAllHDtypes),
    Portable("aten::gt.Scalar_out", GtScalarOut, kAllHDtypes),
    Portable("aten::gt.Tensor_out", GtTensorOut, kAllHDtypes),
    Portable("aten::ge.Scalar_out", GeScalarOut, kAllHDtypes),
    Portable("aten::ge.Tensor_out", GeTensorOut, kAllHDtypes),
    Portable("aten::logical_not.out", LogicalNotOut, kAllHDtypes),
    Portable("aten::logical_and.out", LogicalAndOut, kAllHDtypes),
    Portable("aten::logical_or.out", LogicalOrOut, kAllHDtypes),
    Portable("aten::logical_xor.out", LogicalXorOut, kAllHDtypes),
    Portable("aten::where.self_out", WhereSelfOut, DtypeSet{ScalarType::kBool, ScalarType::kByte}),
    // Shape and copy ops.
    Portable("aten::permute_copy.out", PermuteCopyOut, kCopyableDtypes),
    Portable("aten::t_copy.out", TCopyOut, kCopyableDtypes),
    Portable("aten::transpose_copy.int_out", TransposeCopyIntOut, kCopyableDtypes),
    Portable("aten::expand_copy.out", ExpandCopyOut, kCopyableDtypes),
    Portable("aten::as_strided_copy.out", AsStridedCopyOut, kCopyableDtypes),
    Portable("aten::view_copy.out", ViewCopyOut, kCopyableDtypes),
    Portable("aten::unsqueeze_copy.out", UnsqueezeCopyOut, kCopyableDtypes),
    Portable("aten::squeeze_copy.dim_out", SqueezeCopyDimOut, kCopyableDtypes),
    Portable("aten::squeeze_copy.dims_out", SqueezeCopyDimsOut, kCopyableDtypes),
    Portable("aten::clone.out", CloneOut, kCopyableDtypes),
    Portable("aten::_to_copy.out", ToCopyOut, kCopyableDtypes),
    Portable("aten::copy.out", CopyOut, kAllHDtypes),
    Portable("aten::cat.out", CatOut, kCopyableDtypes),
    Portable("aten::split_with_sizes_copy.out", SplitWithSizesCopyOut, kCopyableDtypes),
    Portable("aten::split_copy.Tensor_out", SplitCopyTensorOut, kCopyableDtypes),
    Portable("aten::unbind_copy.int_out", UnbindCopyIntOut, kCopyableDtypes),
    Portable("aten::full.out", FullOut, kAllHDtypes),
    Portable("aten::full_like.out", FullLikeOut, kAllHDtypes),
    Portable("aten::scalar_tensor.out", ScalarTensorOut, kAllHDtypes),
    Portable("aten::arange.out", ArangeOut, kAllHDtypes),
    Portable("aten::arange.start_out", ArangeStartOut, kAllHDtypes),
    Portable("dim_order_ops::_clone_dim_order.out", CloneDimOrderOut, kCopyableDtypes),
    Portable("dim_order_ops::_to_dim_order_copy.out", ToDimOrderCopyOut, kCopyableDtypes),
    Portable("aten::slice_copy.Tensor_out", SliceCopyTensorOut, kCopyableDtypes),
    Portable("aten::slice_scatter.out", SliceScatterOut, kCopyableDtypes),
    Portable("aten::select_copy.int_out", SelectCopyIntOut, kCopyableDtypes),
    Portable("aten::constant_pad_nd.out", ConstantPadNdOut, kAllHDtypes),
    Portable("aten::embedding.out", EmbeddingOut, kCopyableDtypes),
    Portable("aten::index_select.out", IndexSelectOut, kCopyableDtypes),
    Portable("aten::index.Tensor_out", IndexTensorOut, kAllHDtypes),
    Portable("aten::upsample_nearest2d.vec_out", UpsampleNearest2dVecOut, kAllHDtypes),
    Portable("aten::upsample_bilinear2d.vec_out", UpsampleBilinear2dVecOut, kFloatingHDtypes),
    Portable("aten::grid_sampler_2d.out", GridSampler2dOut, kFloatingDtypes),
    // Quantization (PT2E programs without a delegate).
    Portable("quantized_decomposed::quantize_per_tensor.out", QuantizePerTensorOut,
             kFloatingDtypes),
    Portable("quantized_decomposed::quantize_per_tensor.Tensor_out", QuantizePerTensorTensorOut,
             kFloatingDtypes),
    Portable("quantized_decomposed::dequantize_per_tensor.out", DequantizePerTensorOut,
             kQuantizedDtypes),
    Portable("quantized_decomposed::dequantize_per_tensor.Tensor_out", DequantizePerTensorTensorOut,
             kQuantizedDtypes),
    Portable("quantized_decomposed::quantize_per_channel.out", QuantizePerChannelOut,
             kFloatingDtypes),
    Portable("quantized_decomposed::dequantize_per_channel.out", DequantizePerChannelOut,
             kQuantizedDtypes),
    Portable("quantized_decomposed::choose_qparams.Tensor_out", ChooseQparamsTensorOut,
             DtypeSet{ScalarType::kFloat}),
    Portable("quantized_decomposed::add.out", QuantizedAddOut, kQuantizedDtypes),
    // Prim ops.
    Portable("aten::sym_size.int", SymSizeInt, kCopyableDtypes),
    Portable("aten::sym_numel", SymNumel, kCopyableDtypes),
    Portable("executorch_prim::et_view.default", EtViewDefault, kCopyableDtypes),
    Portable("executorch_prim::add.Scalar", PrimAddScalar, DtypeSet{}),
    Portable("executorch_prim::sub.Scalar", PrimSubScalar, DtypeSet{}),
    Portable("executorch_prim::mul.Scalar", PrimMulScalar, DtypeSet{}),
    Portable("executorch_prim::floordiv.Scalar", PrimFloorDivScalar, DtypeSet{}),
    Portable("executorch_prim::truediv.Scalar", PrimTrueDivScalar, DtypeSet{}),
    Portable("executorch_prim::mod.Scalar", PrimModScalar, DtypeSet{}),
    Portable("executorch_prim::eq.Scalar", PrimEqScalar, DtypeSet{}),
    Portable("executorch_prim::gt.Scalar", PrimGtScalar, DtypeSet{}),
    Portable("executorch_prim::lt.Scalar", PrimLtScalar, DtypeSet{}),
    Portable("executorch_prim::ge.Scalar", PrimGeScalar, DtypeSet{}),
    Portable("executorch_prim::le.Scalar", PrimLeScalar, DtypeSet{}),
    Portable("executorch_prim::sym_max.Scalar", PrimSymMaxScalar, DtypeSet{}),
    Portable("executorch_prim::sym_min.Scalar", PrimSymMinScalar, DtypeSet{}),
    Portable("executorch_prim::floordiv.int", PrimFloorDivInt, DtypeSet{}),
    Portable("executorch_prim::mod.int", PrimModInt, DtypeSet{}),
    Portable("executorch_prim::neg.Scalar", PrimNegScalar, DtypeSet{}),
    Portable("executorch_prim::sym_float.Scalar", PrimSymFloatScalar, DtypeSet{}),
    Portable("executorch_prim::sym_int.Scalar", PrimSymIntScalar, DtypeSet{}),
    Portable("executorch_prim::ceil.Scalar", PrimCeilScalar, DtypeSet{}),
    Portable("executorch_prim::round.Scalar", PrimRoundScalar, DtypeSet{}),
    Portable("executorch_prim::trunc.Scalar", PrimTruncScalar, DtypeSet{}),
    Portable("executorch_prim::sym_not.Scalar", PrimSymNotScalar, DtypeSet{}),
    Portable("executorch_prim::sym_ite.Scalar", PrimSymIteScalar, DtypeSet{}),
    // transcendental.cc
    Portable("aten::tan.out", TanOut, kAllHDtypes),
    Portable("aten::asin.out", AsinOut, kAllHDtypes),
    Portable("aten::acos.out", AcosOut, kAllHDtypes),
    Portable("aten::atan.out", AtanOut, kAllHDtypes),
    Portable("aten::sinh.out", SinhOut, kAllHDtypes),
    Portable("aten::cosh.out", CoshOut, kAllHDtypes),
    Portable("aten::asinh.out", AsinhOut, kAllHDtypes),
    Portable("aten::acosh.out", AcoshOut, kAllHDtypes),
    Portable("aten::atanh.out", AtanhOut, kAllHDtypes),
    Portable("aten::expm1.out", Expm1Out, kAllHDtypes),
    Portable("aten::log1p.out", Log1pOut, kAllHDtypes),
    Portable("aten::log2.out", Log2Out, kAllHDtypes),
    Portable("aten::log10.out", Log10Out, kAllHDtypes),
    Portable("aten::reciprocal.out", ReciprocalOut, kAllHDtypes),
    Portable("aten::logit.out", LogitOut, kAllHDtypes),
    // sign_classify.cc
    Portable("aten::sign.out", SignOut, kAllHDtypes),
    Portable("aten::isnan.out", IsnanOut, kAllHDtypes),
    Portable("aten::isinf.out", IsinfOut, kAllHDtypes),
    // parametric_activation.cc
    Portable("aten::elu.out", EluOut, kFloatingHDtypes),
    Portable("aten::leaky_relu.out", LeakyReluOut, kFloatingHDtypes),
    Portable("aten::glu.out", GluOut, kFloatingHDtypes),
    // bitwise.cc
    Portable("aten::bitwise_and.Tensor_out", BitwiseAndTensorOut, kBitwiseDtypes),
    Portable("aten::bitwise_and.Scalar_out", BitwiseAndScalarOut, kBitwiseDtypes),
    Portable("aten::bitwise_or.Tensor_out", BitwiseOrTensorOut, kBitwiseDtypes),
    Portable("aten::bitwise_or.Scalar_out", BitwiseOrScalarOut, kBitwiseDtypes),
    Portable("aten::bitwise_xor.Tensor_out", BitwiseXorTensorOut, kBitwiseDtypes),
    Portable("aten::bitwise_xor.Scalar_out", BitwiseXorScalarOut, kBitwiseDtypes),
    Portable("aten::bitwise_not.out", BitwiseNotOut, kBitwiseDtypes),
    Portable("aten::bitwise_left_shift.Tensor_out", BitwiseLeftShiftTensorOut, kBitwiseDtypes),
    Portable("aten::bitwise_left_shift.Tensor_Scalar_out", BitwiseLeftShiftTensorScalarOut,
             kBitwiseDtypes),
    Portable("aten::bitwise_right_shift.Tensor_out", BitwiseRightShiftTensorOut, kBitwiseDtypes),
    Portable("aten::bitwise_right_shift.Tensor_Scalar_out", BitwiseRightShiftTensorScalarOut,
             kBitwiseDtypes),
    // atan2.cc and clamp_tensor.cc
    Portable("aten::atan2.out", Atan2Out, kAllHDtypes),
    Portable("aten::clamp.Tensor_out", ClampTensorOut, kAllHDtypes),
    // elementwise_binary.cc
    Portable("aten::div.Scalar_mode_out", DivScalarModeOut, kAllHDtypes),
    Portable("aten::floor_divide.out", FloorDivideOut, kAllHDtypes),
    Portable("aten::rsub.Scalar_out", RsubScalarOut, kAllHDtypes),
    Portable("aten::pow.Scalar_out", PowScalarOut, kAllHDtypes),
    // prod.cc, variance.cc, minmax_dim.cc, mean_dtype.cc, cumsum.cc, topk.cc (and sort)
    Portable("aten::prod.out", ProdOut, kAllHDtypes),
    Portable("aten::prod.int_out", ProdIntOut, kAllHDtypes),
    Portable("aten::var.out", VarOut, kFloatingHDtypes),
    Portable("aten::var.correction_out", VarCorrectionOut, kFloatingHDtypes),
    Portable("aten::var_mean.correction_out", VarMeanCorrectionOut, kFloatingHDtypes),
    Portable("aten::max.dim_max", MaxDimMax, kAllHDtypes),
    Portable("aten::min.dim_min", MinDimMin, kAllHDtypes),
    Portable("aten::max.unary_out", MaxUnaryOut, kAllHDtypes),
    Portable("aten::min.unary_out", MinUnaryOut, kAllHDtypes),
    Portable("aten::mean.dtype_out", MeanDtypeOut, kAllHDtypes),
    Portable("aten::cumsum.out", CumsumOut, kAllHDtypes),
    Portable("aten::topk.values", TopkValues, kRealHDtypes),
    Portable("aten::sort.values", SortValues, kRealHDtypes),
    // batch_norm.cc and group_norm.cc
    Portable("aten::_native_batch_norm_legit.out", NativeBatchNormLegitOut, kFloatingHDtypes),
    Portable("aten::_native_batch_norm_legit.no_stats_out", NativeBatchNormLegitNoStatsOut,
             kFloatingHDtypes),
    Portable("aten::native_group_norm.out", NativeGroupNormOut, kFloatingHDtypes),
    // copy_ops.cc
    Portable("aten::alias_copy.out", AliasCopyOut, kAllHDtypes),
    Portable("aten::detach_copy.out", DetachCopyOut, kAllHDtypes),
    Portable("aten::lift_fresh_copy.out", LiftFreshCopyOut, kAllHDtypes),
    Portable("aten::zeros.out", ZerosOut, kAllHDtypes),
    Portable("aten::ones.out", OnesOut, kAllHDtypes),
    Portable("aten::empty.out", EmptyOut, kCopyableDtypes),
    Portable("aten::fill.Scalar_out", FillScalarOut, kAllHDtypes),
    Portable("aten::fill.Tensor_out", FillTensorOut, kAllHDtypes),
    // flip_roll.cc
    Portable("aten::flip.out", FlipOut, kCopyableDtypes),
    Portable("aten::roll.out", RollOut, kCopyableDtypes),
    // strided_view_copies.cc and index_ops.cc
    Portable("aten::diagonal_copy.out", DiagonalCopyOut, kCopyableDtypes),
    Portable("aten::narrow_copy.out", NarrowCopyOut, kCopyableDtypes),
    Portable("aten::unfold_copy.out", UnfoldCopyOut, kCopyableDtypes),
    Portable("aten::select_scatter.out", SelectScatterOut, kCopyableDtypes),
    // stack_repeat_tril.cc
    Portable("aten::stack.out", StackOut, kAllHDtypes),
    Portable("aten::repeat.out", RepeatOut, kCopyableDtypes),
    Portable("aten::tril.out", TrilOut, kAllHDtypes),
    // pixel_shuffle.cc
    Portable("aten::pixel_shuffle.out", PixelShuffleOut, kCopyableDtypes),
    Portable("aten::pixel_unshuffle.out", PixelUnshuffleOut, kCopyableDtypes),
    // reflection_replication_pad.cc
    Portable("aten::reflection_pad1d.out", ReflectionPad1dOut, kCopyableDtypes),
    Portable("aten::reflection_pad2d.out", ReflectionPad2dOut, kCopyableDtypes),
    Portable("aten::reflection_pad3d.out", ReflectionPad3dOut, kCopyableDtypes),
    Portable("aten::replication_pad1d.out", ReplicationPad1dOut, kCopyableDtypes),
    Portable("aten::replication_pad2d.out", ReplicationPad2dOut, kCopyableDtypes),
    Portable("aten::replication_pad3d.out", ReplicationPad3dOut, kCopyableDtypes),
    // gather_scatter.cc
    Portable("aten::gather.out", GatherOut, kAllHDtypes),
    Portable("aten::scatter.src_out", ScatterSrcOut, kAllHDtypes),
    Portable("aten::scatter.value_out", ScatterValueOut, kAllHDtypes),
    Portable("aten::scatter_add.out", ScatterAddOut, kAllHDtypes),
    Portable("aten::scatter_reduce.two_out", ScatterReduceTwoOut, kRealHDtypes),
    // masked_ops.cc
    Portable("aten::masked_fill.Scalar_out", MaskedFillScalarOut, kAllHDtypes),
    Portable("aten::masked_select.out", MaskedSelectOut, kAllHDtypes),
    Portable("aten::masked_scatter.out", MaskedScatterOut, kAllHDtypes),
    Portable("aten::nonzero.out", NonzeroOut, kAllHDtypes),
    Portable("aten::repeat_interleave.Tensor_out", RepeatInterleaveTensorOut,
             DtypeSet{ScalarType::kInt, ScalarType::kLong}),
    // index_tensor.cc
    Portable("aten::index_put.out", IndexPutOut, kAllHDtypes),
    Portable("aten::index_put_", IndexPutInPlace, kAllHDtypes),
    // copy_ops.cc
    Portable("aten::copy_", CopyInPlace, kAllHDtypes),
    Portable("et_copy::_h2d_copy.out", H2dCopyOut, kAllHDtypes),
    Portable("et_copy::_d2h_copy.out", D2hCopyOut, kAllHDtypes),
    Portable("dim_order_ops::_empty_dim_order.out", EmptyDimOrderOut, kCopyableDtypes),
    // distance.cc
    Portable("aten::_cdist_forward.out", CdistForwardOut, kFloatingDtypes),
    Portable("aten::_pdist_forward.out", PdistForwardOut, kFloatingDtypes),
    // random_ops.cc
    Portable("aten::rand.out", RandOut, kFloatingHDtypes),
    Portable("aten::randn.out", RandnOut, kFloatingHDtypes),
    Portable("aten::native_dropout.out", NativeDropoutOut, kFloatingHDtypes),
    // upsample_aa.cc
    Portable("aten::_upsample_bilinear2d_aa.out", UpsampleBilinear2dAaOut,
             kFloatingDtypes | DtypeSet{ScalarType::kByte}),
    // max_pool_backward.cc
    Portable("aten::max_pool2d_with_indices_backward.grad_input",
             MaxPool2dWithIndicesBackwardGradInput, kFloatingHDtypes),
    // mixed_matmul.cc
    Portable("quantized_decomposed::mixed_mm.out", MixedMmOut, kFloatingDtypes),
    Portable("quantized_decomposed::mixed_linear.out", MixedLinearOut, kFloatingDtypes),
    // allclose.cc
    Portable("aten::allclose.out", AllcloseOut, kAllHDtypes),
    Portable("aten::allclose.Tensor", AllcloseTensor, kAllHDtypes),
    // quantized_token_embedding.cc
    Portable("quantized_decomposed::choose_qparams_per_token_asymmetric.out",
             ChooseQparamsPerTokenAsymmetricOut, kFloatingDtypes),
    Portable("quantized_decomposed::quantize_per_token.out", QuantizePerTokenOut, kFloatingDtypes),
    Portable("quantized_decomposed::dequantize_per_token.out", DequantizePerTokenOut,
             kIntegralDtypes),
    Portable("quantized_decomposed::embedding_byte.out", EmbeddingByteOut, kByteWeightDtypes),
    Portable("quantized_decomposed::embedding_byte.dtype_out", EmbeddingByteDtypeOut,
             kByteWeightDtypes),
    Portable("quantized_decomposed::embedding_4bit.out", Embedding4bitOut,
             DtypeSet{ScalarType::kByte}),
    Portable("quantized_decomposed::embedding_4bit.dtype_out", Embedding4bitDtypeOut,
             DtypeSet{ScalarType::kByte}),
    Portable("quantized_decomposed::embedding_2bit.out", Embedding2bitOut,
             DtypeSet{ScalarType::kByte}),
    Portable("quantized_decomposed::embedding_2bit.dtype_out", Embedding2bitDtypeOut,
             DtypeSet{ScalarType::kByte}),
};

}  // namespace
}  // namespace portable

Error RegisterPortableKernels() {
  static std::once_flag once;
  static Error result = Error::kOk;
  std::call_once(once, [] { result = RegisterKernels(portable::kPortableKernels); });
  return result;
}

}  // namespace edgefleet

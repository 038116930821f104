#include "runtime/kernels/portable/register_portable_kernels.h"

#include <mutex>

#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/portable/portable_kernels.h"

namespace edgefleet {
namespace portable {
namespace {

constexpr Kernel Portable(const char* name, OpFunction fn) {
  return Kernel{name, fn, nullptr, KernelVariant::kPortable};
}

const Kernel kPortableKernels[] = {
    // Elementwise arithmetic.
    Portable("aten::add.out", AddOut),
    Portable("aten::sub.out", SubOut),
    Portable("aten::add.Scalar_out", AddScalarOut),
    Portable("aten::sub.Scalar_out", SubScalarOut),
    Portable("aten::mul.out", MulOut),
    Portable("aten::mul.Scalar_out", MulScalarOut),
    Portable("aten::div.out", DivOut),
    Portable("aten::div.out_mode", DivOutMode),
    Portable("aten::div.Scalar_out", DivScalarOut),
    Portable("aten::fmod.Tensor_out", FmodTensorOut),
    Portable("aten::fmod.Scalar_out", FmodScalarOut),
    Portable("aten::remainder.Tensor_out", RemainderTensorOut),
    Portable("aten::remainder.Scalar_out", RemainderScalarOut),
    Portable("aten::pow.Tensor_Tensor_out", PowTensorTensorOut),
    Portable("aten::pow.Tensor_Scalar_out", PowTensorScalarOut),
    Portable("aten::maximum.out", MaximumOut),
    Portable("aten::minimum.out", MinimumOut),
    // Activations and pointwise math.
    Portable("aten::relu.out", ReluOut),
    Portable("aten::hardtanh.out", HardtanhOut),
    Portable("aten::clamp.out", ClampOut),
    Portable("aten::hardswish.out", HardswishOut),
    Portable("aten::hardsigmoid.out", HardsigmoidOut),
    Portable("aten::gelu.out", GeluOut),
    Portable("aten::sigmoid.out", SigmoidOut),
    Portable("aten::tanh.out", TanhOut),
    Portable("aten::exp.out", ExpOut),
    Portable("aten::log.out", LogOut),
    Portable("aten::sin.out", SinOut),
    Portable("aten::cos.out", CosOut),
    Portable("aten::erf.out", ErfOut),
    Portable("aten::floor.out", FloorOut),
    Portable("aten::ceil.out", CeilOut),
    Portable("aten::round.out", RoundOut),
    Portable("aten::trunc.out", TruncOut),
    Portable("aten::sqrt.out", SqrtOut),
    Portable("aten::rsqrt.out", RsqrtOut),
    Portable("aten::neg.out", NegOut),
    Portable("aten::abs.out", AbsOut),
    // Linear algebra, convolution, normalization, pooling.
    Portable("aten::mm.out", MmOut),
    Portable("aten::bmm.out", BmmOut),
    Portable("aten::addmm.out", AddmmOut),
    Portable("aten::linear.out", LinearOut),
    Portable("aten::convolution.out", ConvolutionOut),
    Portable("aten::_native_batch_norm_legit_no_training.out",
             NativeBatchNormNoTrainingOut),
    Portable("aten::native_layer_norm.out", NativeLayerNormOut),
    Portable("aten::max_pool2d_with_indices.out", MaxPool2dWithIndicesOut),
    Portable("aten::avg_pool2d.out", AvgPool2dOut),
    Portable("aten::_adaptive_avg_pool2d.out", AdaptiveAvgPool2dOut),
    Portable("aten::_softmax.out", SoftmaxOut),
    Portable("aten::_log_softmax.out", LogSoftmaxOut),
    Portable("aten::mean.out", MeanOut),
    Portable("aten::sum.IntList_out", SumIntListOut),
    Portable("aten::amax.out", AmaxOut),
    Portable("aten::amin.out", AminOut),
    Portable("aten::argmax.out", ArgmaxOut),
    Portable("aten::argmin.out", ArgminOut),
    Portable("aten::any.out", AnyOut),
    Portable("aten::any.dims_out", AnyDimsOut),
    Portable("aten::any.all_out", AnyAllOut),
    Portable("aten::all.out", AllOut),
    Portable("aten::all.dims_out", AllDimsOut),
    Portable("aten::all.all_out", AllAllOut),
    // Comparisons, logical ops, selection.
    Portable("aten::eq.Scalar_out", EqScalarOut),
    Portable("aten::eq.Tensor_out", EqTensorOut),
    Portable("aten::ne.Scalar_out", NeScalarOut),
    Portable("aten::ne.Tensor_out", NeTensorOut),
    Portable("aten::lt.Scalar_out", LtScalarOut),
    Portable("aten::lt.Tensor_out", LtTensorOut),
    Portable("aten::le.Scalar_out", LeScalarOut),
    Portable("aten::le.Tensor_out", LeTensorOut),
    Portable("aten::gt.Scalar_out", GtScalarOut),
    Portable("aten::gt.Tensor_out", GtTensorOut),
    Portable("aten::ge.Scalar_out", GeScalarOut),
    Portable("aten::ge.Tensor_out", GeTensorOut),
    Portable("aten::logical_not.out", LogicalNotOut),
    Portable("aten::logical_and.out", LogicalAndOut),
    Portable("aten::logical_or.out", LogicalOrOut),
    Portable("aten::logical_xor.out", LogicalXorOut),
    Portable("aten::where.self_out", WhereSelfOut),
    // Shape and copy ops.
    Portable("aten::permute_copy.out", PermuteCopyOut),
    Portable("aten::t_copy.out", TCopyOut),
    Portable("aten::transpose_copy.int_out", TransposeCopyIntOut),
    Portable("aten::expand_copy.out", ExpandCopyOut),
    Portable("aten::as_strided_copy.out", AsStridedCopyOut),
    Portable("aten::view_copy.out", ViewCopyOut),
    Portable("aten::unsqueeze_copy.out", UnsqueezeCopyOut),
    Portable("aten::squeeze_copy.dim_out", SqueezeCopyDimOut),
    Portable("aten::squeeze_copy.dims_out", SqueezeCopyDimsOut),
    Portable("aten::clone.out", CloneOut),
    Portable("aten::_to_copy.out", ToCopyOut),
    Portable("aten::copy.out", CopyOut),
    Portable("aten::cat.out", CatOut),
    Portable("aten::split_with_sizes_copy.out", SplitWithSizesCopyOut),
    Portable("aten::split_copy.Tensor_out", SplitCopyTensorOut),
    Portable("aten::unbind_copy.int_out", UnbindCopyIntOut),
    Portable("aten::full.out", FullOut),
    Portable("aten::full_like.out", FullLikeOut),
    Portable("aten::scalar_tensor.out", ScalarTensorOut),
    Portable("aten::arange.out", ArangeOut),
    Portable("aten::arange.start_out", ArangeStartOut),
    Portable("dim_order_ops::_clone_dim_order.out", CloneDimOrderOut),
    Portable("dim_order_ops::_to_dim_order_copy.out", ToDimOrderCopyOut),
    Portable("aten::slice_copy.Tensor_out", SliceCopyTensorOut),
    Portable("aten::slice_scatter.out", SliceScatterOut),
    Portable("aten::select_copy.int_out", SelectCopyIntOut),
    Portable("aten::constant_pad_nd.out", ConstantPadNdOut),
    Portable("aten::embedding.out", EmbeddingOut),
    Portable("aten::index_select.out", IndexSelectOut),
    Portable("aten::index.Tensor_out", IndexTensorOut),
    Portable("aten::upsample_nearest2d.vec_out", UpsampleNearest2dVecOut),
    Portable("aten::upsample_bilinear2d.vec_out", UpsampleBilinear2dVecOut),
    // Quantization (PT2E programs without a delegate).
    Portable("quantized_decomposed::quantize_per_tensor.out",
             QuantizePerTensorOut),
    Portable("quantized_decomposed::quantize_per_tensor.Tensor_out",
             QuantizePerTensorTensorOut),
    Portable("quantized_decomposed::dequantize_per_tensor.out",
             DequantizePerTensorOut),
    Portable("quantized_decomposed::dequantize_per_tensor.Tensor_out",
             DequantizePerTensorTensorOut),
    Portable("quantized_decomposed::quantize_per_channel.out",
             QuantizePerChannelOut),
    Portable("quantized_decomposed::dequantize_per_channel.out",
             DequantizePerChannelOut),
    Portable("quantized_decomposed::choose_qparams.Tensor_out",
             ChooseQparamsTensorOut),
    // Prim ops.
    Portable("aten::sym_size.int", SymSizeInt),
    Portable("aten::sym_numel", SymNumel),
    Portable("executorch_prim::et_view.default", EtViewDefault),
    Portable("executorch_prim::add.Scalar", PrimAddScalar),
    Portable("executorch_prim::sub.Scalar", PrimSubScalar),
    Portable("executorch_prim::mul.Scalar", PrimMulScalar),
    Portable("executorch_prim::floordiv.Scalar", PrimFloorDivScalar),
    Portable("executorch_prim::truediv.Scalar", PrimTrueDivScalar),
    Portable("executorch_prim::mod.Scalar", PrimModScalar),
    Portable("executorch_prim::eq.Scalar", PrimEqScalar),
    Portable("executorch_prim::gt.Scalar", PrimGtScalar),
    Portable("executorch_prim::lt.Scalar", PrimLtScalar),
    Portable("executorch_prim::ge.Scalar", PrimGeScalar),
    Portable("executorch_prim::le.Scalar", PrimLeScalar),
    Portable("executorch_prim::sym_max.Scalar", PrimSymMaxScalar),
    Portable("executorch_prim::sym_min.Scalar", PrimSymMinScalar),
    Portable("executorch_prim::floordiv.int", PrimFloorDivInt),
    Portable("executorch_prim::mod.int", PrimModInt),
    Portable("executorch_prim::neg.Scalar", PrimNegScalar),
    Portable("executorch_prim::sym_float.Scalar", PrimSymFloatScalar),
    Portable("executorch_prim::sym_int.Scalar", PrimSymIntScalar),
    Portable("executorch_prim::ceil.Scalar", PrimCeilScalar),
    Portable("executorch_prim::round.Scalar", PrimRoundScalar),
    Portable("executorch_prim::trunc.Scalar", PrimTruncScalar),
    Portable("executorch_prim::sym_not.Scalar", PrimSymNotScalar),
    Portable("executorch_prim::sym_ite.Scalar", PrimSymIteScalar),
};

}  // namespace
}  // namespace portable

Error RegisterPortableKernels() {
  static std::once_flag once;
  static Error result = Error::kOk;
  std::call_once(once, [] {
    result = RegisterKernels(portable::kPortableKernels);
  });
  return result;
}

}  // namespace edgefleet

#include "runtime/kernels/optimized/register_optimized_kernels.h"

#include <mutex>
#include <thread>

#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/optimized/binary_fusion.h"
#include "runtime/kernels/optimized/channels_last_regions.h"
#include "runtime/kernels/optimized/conv_fusion.h"
#include "runtime/kernels/optimized/matmul_panels.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/pool_indices.h"
#include "runtime/kernels/optimized/quantized_fusion.h"
#include "runtime/kernels/optimized/safe_softmax.h"
#include "runtime/kernels/optimized/small_plane_panels.h"
#include "runtime/kernels/optimized/thread_pool.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr DtypeSet kFloat32{ScalarType::kFloat};
constexpr DtypeSet kInt8{ScalarType::kChar, ScalarType::kByte};
constexpr DtypeSet kBool{ScalarType::kBool};

// `dtypes`: what the kernel accepts as its first tensor argument
// (runtime/kernels/dtype_set.h); `supports` then checks the whole call.
constexpr Kernel Optimized(const char* name, OpFunction fn, SupportsFunction supports,
                           DtypeSet dtypes) {
  return Kernel{name, fn, supports, KernelVariant::kOptimized, dtypes};
}

const Kernel kOptimizedKernels[] = {
    Optimized("aten::mm.out", MmOut, MmSupports, kFloat32),
    Optimized("aten::bmm.out", BmmOut, BmmSupports, kFloat32),
    Optimized("aten::addmm.out", AddmmOut, AddmmSupports, kFloat32),
    Optimized("aten::linear.out", LinearOut, LinearSupports, kFloat32),
    Optimized("aten::convolution.out", ConvolutionOut, ConvolutionSupports, kFloat32),
    Optimized("aten::add.out", AddOut, BinarySupports, kFloat32),
    Optimized("aten::sub.out", SubOut, BinarySupports, kFloat32),
    Optimized("aten::mul.out", MulOut, BinarySupports, kFloat32),
    Optimized("aten::div.out", DivOut, BinarySupports, kFloat32),
    Optimized("aten::add.Scalar_out", AddScalarOut, BinaryScalarSupports, kFloat32),
    Optimized("aten::sub.Scalar_out", SubScalarOut, BinaryScalarSupports, kFloat32),
    Optimized("aten::mul.Scalar_out", MulScalarOut, BinaryScalarSupports, kFloat32),
    Optimized("aten::div.Scalar_out", DivScalarOut, BinaryScalarSupports, kFloat32),
    Optimized("aten::relu.out", ReluOut, UnarySupports, kFloat32),
    Optimized("aten::hardtanh.out", HardtanhOut, UnarySupports, kFloat32),
    Optimized("aten::clamp.out", ClampOut, UnarySupports, kFloat32),
    Optimized("aten::hardswish.out", HardswishOut, UnarySupports, kFloat32),
    Optimized("aten::hardsigmoid.out", HardsigmoidOut, UnarySupports, kFloat32),
    Optimized("aten::sigmoid.out", SigmoidOut, UnarySupports, kFloat32),
    Optimized("aten::tanh.out", TanhOut, UnarySupports, kFloat32),
    Optimized("aten::gelu.out", GeluOut, UnarySupports, kFloat32),
    Optimized("aten::_softmax.out", SoftmaxOut, SoftmaxSupports, kFloat32),
    Optimized("aten::eq.Scalar_out", EqScalarOut, EqScalarSupports, kFloat32),
    Optimized("aten::logical_not.out", LogicalNotOut, LogicalNotSupports, kBool),
    Optimized("aten::any.out", AnyOut, AnySupports, kBool),
    Optimized("aten::where.self_out", WhereSelfOut, WhereSupports, kBool),
    Optimized("aten::native_layer_norm.out", LayerNormOut, LayerNormSupports, kFloat32),
    Optimized("aten::_native_batch_norm_legit_no_training.out", BatchNormOut, BatchNormSupports,
              kFloat32),
    Optimized("aten::mean.out", MeanOut, MeanSupports, kFloat32),
    Optimized("aten::max_pool2d_with_indices.out", MaxPool2dWithIndicesOut, MaxPool2dSupports,
              kFloat32),
    Optimized("aten::upsample_bilinear2d.vec_out", UpsampleBilinear2dVecOut,
              UpsampleBilinear2dSupports, kFloat32),
    Optimized("quantized_decomposed::quantize_per_tensor.out", QuantizePerTensorOut,
              QuantizePerTensorSupports, kFloat32),
    Optimized("quantized_decomposed::dequantize_per_tensor.out", DequantizePerTensorOut,
              DequantizePerTensorSupports, kInt8),
    Optimized("quantized_decomposed::dequantize_per_channel.out", DequantizePerChannelOut,
              DequantizePerChannelSupports, kInt8),
    Optimized("aten::cat.out", CatOut, CatSupports, kCopyableDtypes),
    Optimized("aten::permute_copy.out", PermuteCopyOut, PermuteSupports, kCopyableDtypes),
    Optimized("aten::t_copy.out", TCopyOut, PermuteSupports, kCopyableDtypes),
    Optimized("dim_order_ops::_clone_dim_order.out", CloneDimOrderOut, DimOrderCopySupports,
              kCopyableDtypes),
    Optimized("dim_order_ops::_to_dim_order_copy.out", ToDimOrderCopyOut, DimOrderCopySupports,
              kCopyableDtypes),
};

// Init-time rewrites run by Method::Load on plans using optimized kernels.
const PlanPass kOptimizedPlanPasses[] = {kFuseQuantizedConvolutionPass, kFuseConvolutionPass,
                                         kFuseBinaryActivationPass,     kChannelsLastRegionsPass,
                                         kDropUnusedPoolIndicesPass,    kPackSmallPlanePanelsPass,
                                         kPackMatmulPanelsPass,         kFuseSafeSoftmaxPass};

}  // namespace
}  // namespace optimized

Error RegisterOptimizedKernels(int max_threads) {
  static std::once_flag once;
  static Error result = Error::kOk;
  std::call_once(once, [max_threads] {
    int threads = max_threads;
    if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
    result = optimized::StartKernelThreadPool(threads < 1 ? 1 : threads);
    if (result == Error::kOk) {
      result = RegisterKernels(optimized::kOptimizedKernels);
    }
    if (result == Error::kOk) {
      result = RegisterPlanPasses(optimized::kOptimizedPlanPasses);
    }
  });
  return result;
}

}  // namespace edgefleet

#include "runtime/kernels/optimized/register_optimized_kernels.h"

#include <mutex>
#include <thread>

#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/optimized/conv_fusion.h"
#include "runtime/kernels/optimized/optimized_kernels.h"
#include "runtime/kernels/optimized/quantized_fusion.h"
#include "runtime/kernels/optimized/thread_pool.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr Kernel Optimized(const char* name, OpFunction fn,
                           SupportsFunction supports) {
  return Kernel{name, fn, supports, KernelVariant::kOptimized};
}

const Kernel kOptimizedKernels[] = {
    Optimized("aten::mm.out", MmOut, MmSupports),
    Optimized("aten::bmm.out", BmmOut, BmmSupports),
    Optimized("aten::addmm.out", AddmmOut, AddmmSupports),
    Optimized("aten::linear.out", LinearOut, LinearSupports),
    Optimized("aten::convolution.out", ConvolutionOut, ConvolutionSupports),
    Optimized("aten::add.out", AddOut, BinarySupports),
    Optimized("aten::sub.out", SubOut, BinarySupports),
    Optimized("aten::mul.out", MulOut, BinarySupports),
    Optimized("aten::div.out", DivOut, BinarySupports),
    Optimized("aten::add.Scalar_out", AddScalarOut, BinaryScalarSupports),
    Optimized("aten::sub.Scalar_out", SubScalarOut, BinaryScalarSupports),
    Optimized("aten::mul.Scalar_out", MulScalarOut, BinaryScalarSupports),
    Optimized("aten::div.Scalar_out", DivScalarOut, BinaryScalarSupports),
    Optimized("aten::relu.out", ReluOut, UnarySupports),
    Optimized("aten::hardtanh.out", HardtanhOut, UnarySupports),
    Optimized("aten::clamp.out", ClampOut, UnarySupports),
    Optimized("aten::hardswish.out", HardswishOut, UnarySupports),
    Optimized("aten::hardsigmoid.out", HardsigmoidOut, UnarySupports),
    Optimized("aten::sigmoid.out", SigmoidOut, UnarySupports),
    Optimized("aten::tanh.out", TanhOut, UnarySupports),
    Optimized("aten::gelu.out", GeluOut, UnarySupports),
    Optimized("aten::_softmax.out", SoftmaxOut, SoftmaxSupports),
    Optimized("aten::native_layer_norm.out", LayerNormOut, LayerNormSupports),
    Optimized("aten::_native_batch_norm_legit_no_training.out", BatchNormOut,
              BatchNormSupports),
    Optimized("aten::mean.out", MeanOut, MeanSupports),
    Optimized("aten::max_pool2d_with_indices.out", MaxPool2dWithIndicesOut,
              MaxPool2dSupports),
    Optimized("aten::upsample_bilinear2d.vec_out", UpsampleBilinear2dVecOut,
              UpsampleBilinear2dSupports),
    Optimized("quantized_decomposed::quantize_per_tensor.out",
              QuantizePerTensorOut, QuantizePerTensorSupports),
    Optimized("quantized_decomposed::dequantize_per_tensor.out",
              DequantizePerTensorOut, DequantizePerTensorSupports),
    Optimized("quantized_decomposed::dequantize_per_channel.out",
              DequantizePerChannelOut, DequantizePerChannelSupports),
    Optimized("aten::permute_copy.out", PermuteCopyOut, PermuteSupports),
    Optimized("aten::t_copy.out", TCopyOut, PermuteSupports),
};

// Init-time rewrites run by Method::Load on plans using optimized kernels.
const PlanPass kOptimizedPlanPasses[] = {kFuseQuantizedConvolutionPass,
                                         kFuseConvolutionPass};

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

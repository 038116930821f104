#include "runtime/kernels/optimized/conv_layout_bridge.h"

#include <cstring>
#include <new>

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/kernel_util.h"
#include "runtime/kernels/optimized/transpose.h"

namespace edgefleet {
namespace optimized {
namespace {

constexpr size_t kMaxArgs = 16;

// A channels-last float32 tensor of `like`'s sizes over `data`.
struct ChannelsLastCopy {
  int32_t sizes[4];
  uint8_t dim_order[4] = {0, 2, 3, 1};
  int32_t strides[4];
  alignas(Tensor) unsigned char storage[sizeof(Tensor)];

  Tensor* Make(const Tensor& like, void* data) {
    for (int d = 0; d < 4; ++d) sizes[d] = like.size(d);
    return new (storage)
        Tensor(ScalarType::kFloat, 4, sizes, dim_order, strides, data, ShapeDynamism::kStatic);
  }
};

}  // namespace

void ToChannelsLast(const Tensor& t, const float* src, float* dst, int threads) {
  const int64_t c = t.size(1), pixels = static_cast<int64_t>(t.size(2)) * t.size(3);
  for (int64_t n = 0; n < t.size(0); ++n) {
    Transpose2dParallel<float>(src + n * c * pixels, pixels, dst + n * c * pixels, c, pixels, c,
                               threads);
  }
}
void ToNchw(const Tensor& t, const float* src, float* dst, int threads) {
  const int64_t c = t.size(1), pixels = static_cast<int64_t>(t.size(2)) * t.size(3);
  for (int64_t n = 0; n < t.size(0); ++n) {
    Transpose2dParallel<float>(src + n * c * pixels, c, dst + n * c * pixels, pixels, c, pixels,
                               threads);
  }
}

bool ConvAcrossLayouts(KernelContext& ctx, Span<EValue*> args, OpFunction conv) {
  if (args.size() < 3 || args.size() > kMaxArgs) return false;
  Tensor* in = PeekFloatTensor(args, 0);
  Tensor* out = PeekFloatTensor(args, args.size() - 2);
  if (in == nullptr || out == nullptr || in->dim() != 4 || out->dim() != 4 ||
      PeekFloatTensor(args, args.size() - 1) != out) {
    return false;
  }
  const bool in_nchw = in->IsDefaultDimOrder() && IsChannelsLast(*out);
  // Channels-last over the input's memory: the output is computed into
  // temp and copied when it is no larger than the input (else the kernel
  // copies the input).
  const bool over_input = IsChannelsLast(*in) && IsChannelsLast(*out) && Overlaps(*in, *out) &&
                          out->nbytes() <= in->nbytes();
  if (!in_nchw && !over_input && !(IsChannelsLast(*in) && out->IsDefaultDimOrder())) {
    return false;
  }
  Tensor* replaced = in_nchw ? in : out;
  void* data = ctx.AllocateTemp(replaced->nbytes() + 1, 64);
  if (data == nullptr) {
    SetErrorDetail("convolution: temp memory for a %zu-byte channels-last copy",
                   replaced->nbytes());
    ctx.Fail(Error::kMemoryAllocationFailed);
    return true;
  }
  ChannelsLastCopy copy;
  Tensor* t = copy.Make(*replaced, data);
  EValue value = EValue::FromTensor(t);
  EValue* call[kMaxArgs];
  for (size_t i = 0; i < args.size(); ++i) call[i] = args[i];
  if (in_nchw) {
    ToChannelsLast(*in, in->data_as<const float>(), t->data_as<float>(), ctx.num_threads());
    call[0] = &value;
  } else {
    call[args.size() - 2] = call[args.size() - 1] = &value;
  }
  conv(ctx, Span<EValue*>(call, args.size()));
  if (ctx.failed() || in_nchw) return true;
  if (over_input) {
    std::memcpy(out->mutable_data(), data, out->nbytes());
  } else {
    ToNchw(*out, t->data_as<const float>(), out->data_as<float>(), ctx.num_threads());
  }
  return true;
}

}  // namespace optimized
}  // namespace edgefleet

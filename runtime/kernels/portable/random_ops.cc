// Seeded random kernels: aten::rand.out (uniform [0, 1)), randn.out
// (standard normal, Box-Muller) and native_dropout.out (train: each element
// kept with probability 1 - p and scaled by 1 / (1 - p), mask = kept;
// otherwise out = input and an all-true mask). The values cannot match
// torch's generator; the distributions do. Each call draws from its own
// stream: a process-wide call counter mixed by splitmix64 (thread-safe, no
// allocation).

#include <atomic>
#include <cmath>

#include "runtime/kernels/portable/dtype_util.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"
#include "runtime/kernels/portable/portable_kernels.h"
#include "runtime/kernels/portable/strided_loop.h"

namespace edgefleet {
namespace portable {
namespace {

class SplitMix64 {
 public:
  SplitMix64() {
    static std::atomic<uint64_t> calls{0};
    state_ = 0x5eed5eed12345678ull + 0x9e3779b97f4a7c15ull * ++calls;
  }
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with `bits` (1..53) random bits, so exact in a
  // dtype with that many significand bits (rounding could reach 1).
  double Uniform(int bits = 53) {
    return std::ldexp(static_cast<double>(Next() >> (64 - bits)), -bits);
  }

 private:
  uint64_t state_;
};

// The significand bits of floating dtype t.
int SignificandBits(ScalarType t) {
  switch (t) {
    case ScalarType::kHalf:
      return 11;
    case ScalarType::kBFloat16:
      return 8;
    case ScalarType::kFloat:
      return 24;
    default:
      return 53;
  }
}

// size, out, ret: out resized to size and filled by draw(rng, bits), `bits`
// being out's significand bits.
template <typename Draw>
void RandomFill(KernelContext& ctx, Span<EValue*> raw, const char* name, Draw draw) {
  KernelArgs args(ctx, name, raw, 3);
  Span<const int64_t> size = args.GetIntList(0);
  Tensor* out = args.GetTensor(1);
  if (!args.ok()) return;
  int32_t sizes[kMaxTensorRank];
  bool valid = size.size() <= static_cast<size_t>(kMaxTensorRank) &&
               ToTensorSizes(static_cast<int>(size.size()), size.data(), sizes);
  for (size_t i = 0; valid && i < size.size(); ++i) valid = size[i] >= 0;
  if (!valid) {
    args.Fail(Error::kInvalidArgument, "invalid size");
    return;
  }
  if (!IsFloatingType(out->dtype())) {
    args.Fail(Error::kInvalidArgument, "out must be floating, got %s",
              ScalarTypeName(out->dtype()));
    return;
  }
  if (!args.ResizeOut(*out, {sizes, size.size()}, "out")) return;
  SplitMix64 rng;
  const StridedView v = StridedView::Of(*out);
  const StridedView* const views[1] = {&v};
  const StridedLoop<1> loop = BroadcastLoop<1>(v.dim, v.sizes, views);
  const StoreFn<double> store = GetStorer<double>(out->dtype());
  const int64_t elem = static_cast<int64_t>(ElementSize(out->dtype()));
  const int bits = SignificandBits(out->dtype());
  ForEachOffset(loop, [&](const int64_t* o) { store(draw(rng, bits), v.data + o[0] * elem); });
}

}  // namespace

void RandOut(KernelContext& ctx, Span<EValue*> args) {
  RandomFill(ctx, args, "aten::rand.out",
             [](SplitMix64& rng, int bits) { return rng.Uniform(bits); });
}

void RandnOut(KernelContext& ctx, Span<EValue*> args) {
  RandomFill(ctx, args, "aten::randn.out", [](SplitMix64& rng, int) {
    const double u1 = 1.0 - rng.Uniform();  // (0, 1]
    const double u2 = rng.Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  });
}

void NativeDropoutOut(KernelContext& ctx, Span<EValue*> raw) {
  KernelArgs args(ctx, "aten::native_dropout.out", raw, 6);
  Tensor* in = args.GetTensor(0);
  const double p = args.GetDouble(1);
  bool train = false;
  EValue* train_arg = args.GetRaw(2);
  if (train_arg != nullptr && !train_arg->is_none()) train = args.GetBool(2);
  Tensor* out = args.GetTensor(3);
  Tensor* mask = args.GetTensor(4);
  if (!args.ok()) return;
  if (!(p >= 0 && p <= 1)) {
    args.Fail(Error::kInvalidArgument, "p must be in [0, 1], got %g", p);
    return;
  }
  if (!IsFloatingType(in->dtype()) || out->dtype() != in->dtype() ||
      mask->dtype() != ScalarType::kBool) {
    args.Fail(Error::kInvalidArgument, "needs a floating input, out of its dtype and a bool mask");
    return;
  }
  if (!args.ResizeOut(*out, in->sizes(), "out") || !args.ResizeOut(*mask, in->sizes(), "mask")) {
    return;
  }
  const StridedView iv = StridedView::Of(*in);
  const StridedView ov = StridedView::Of(*out);
  const StridedView mv = StridedView::Of(*mask);
  const StridedView* const views[3] = {&iv, &ov, &mv};
  const StridedLoop<3> loop = BroadcastLoop<3>(iv.dim, iv.sizes, views);
  SplitMix64 rng;
  SwitchFloatingElement(in->dtype(), [&](auto tag) {
    using S = decltype(tag);
    using T = OpMath<S>;  // float16 and bfloat16 scale in float32
    const S* x = reinterpret_cast<const S*>(iv.data);
    S* y = reinterpret_cast<S*>(ov.data);
    const T scale = p < 1 ? static_cast<T>(1.0 / (1.0 - p)) : T(0);
    ForEachOffset(loop, [&](const int64_t* o) {
      const bool keep = !train || rng.Uniform() >= p;
      y[o[1]] = keep ? (train ? Convert<S>(Convert<T>(x[o[0]]) * scale) : x[o[0]]) : Convert<S>(0);
      mv.data[o[2]] = keep ? 1 : 0;
    });
  });
}

}  // namespace portable
}  // namespace edgefleet

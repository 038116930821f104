// The element-wise epilogue of a fused convolution (conv_fusion.h), shared
// by the GEMM micro-kernels, the GEMM edge tiles and the depthwise kernels
// (its clamp also by the fused binary kernels, binary_fusion.h):
// clamp to [lo, hi] (x < lo -> lo, then x > hi -> hi; NaN stays), then
// optionally the hardswish or hardsigmoid of the exported decomposition
// (add 3, clamp to [0, 6], [multiply by x,] divide by 6), each step one
// float operation as the separate kernels do it, so the results are the
// same bits as the unfused chain; or the sigmoid, or SiLU x * sigmoid(x)
// (nn.SiLU exports as sigmoid then mul), with the optimized sigmoid kernel's
// arithmetic (vec_math.h, the same in every lane and at every width), so
// again the bits of the optimized sigmoid.out [-> mul.out] chain.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_EPILOGUE_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_EPILOGUE_H_

#include <cstdint>

#include "runtime/kernels/optimized/vec.h"
#include "runtime/kernels/optimized/vec_math.h"

namespace edgefleet {
namespace optimized {

enum class PostOp : uint8_t {
  kNone,
  kHardswish,    // (x * clamp(x + 3, 0, 6)) / 6
  kHardsigmoid,  // clamp(x + 3, 0, 6) / 6
  kSigmoid,      // 1 / (1 + exp(-x))
  kSilu,         // x * (1 / (1 + exp(-x)))
};

template <int W>
[[gnu::always_inline]] inline Vf<W> EpilogueV(Vf<W> v, Vf<W> lo, Vf<W> hi, PostOp op) {
  v = Select<W>(v < lo, lo, v);
  v = Select<W>(v > hi, hi, v);
  if (op == PostOp::kSigmoid) return Sigmoid<W>(v);
  if (op == PostOp::kSilu) return v * Sigmoid<W>(v);
  if (op != PostOp::kNone) {
    const Vf<W> zero{}, three = Splat<W>(3.0f), six = Splat<W>(6.0f);
    Vf<W> a = v + three;
    a = Select<W>(a < zero, zero, a);
    a = Select<W>(a > six, six, a);
    v = op == PostOp::kHardswish ? (v * a) / six : a / six;
  }
  return v;
}

[[gnu::always_inline]] inline float EpilogueS(float v, float lo, float hi, PostOp op) {
  v = v < lo ? lo : v;
  v = v > hi ? hi : v;
  if (op == PostOp::kSigmoid || op == PostOp::kSilu) {  // one lane of the vector form
    return EpilogueV<4>(Splat<4>(v), Splat<4>(-__builtin_inff()), Splat<4>(__builtin_inff()),
                        op)[0];
  }
  if (op != PostOp::kNone) {
    float a = v + 3.0f;
    a = a < 0.0f ? 0.0f : a;
    a = a > 6.0f ? 6.0f : a;
    v = op == PostOp::kHardswish ? (v * a) / 6.0f : a / 6.0f;
  }
  return v;
}

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_EPILOGUE_H_

// Pointwise transcendental activations over contiguous float arrays, for
// callers holding raw buffers rather than tensors (the XNNPACK delegate's own
// nodes): the code of the optimized sigmoid, tanh and gelu kernels
// (vec_math.h: within a few ulp of libm, not bit-identical to it). Work is
// split over up to `num_threads` threads of the current parallel runner in
// chunks of 8 Ki elements (one thread below that). No state: thread-safe.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_ACTIVATION_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_ACTIVATION_H_

#include <cstdint>

namespace edgefleet {
namespace optimized {

enum class Activation {
  kSigmoid,   // 1 / (1 + exp(-x))
  kTanh,      // tanh(x)
  kGelu,      // 0.5 * x * (1 + erf(x / sqrt(2)))
  kGeluTanh,  // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
};

// y[i] = f(x[i]) for i < n; x and y may be the same array.
void ActivationArray(Activation f, const float* x, float* y, int64_t n, int num_threads);

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_ACTIVATION_H_

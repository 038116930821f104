// Shared pieces of the pooling kernels (2-D: max_pool.cc, avg_pool.cc; 3-D:
// pool3d.cc): the N x C x H x W view of a rank-3/4 tensor, window parameter
// lists and PyTorch's output-size rule.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_POOL_UTIL_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_POOL_UTIL_H_

#include <cstdint>

#include "runtime/core/tensor.h"
#include "runtime/kernels/portable/kernel_args.h"

namespace edgefleet {
namespace portable {

// A rank-3 or rank-4 tensor seen as N x C x H x W (N = 1 for rank 3).
struct Planes {
  int64_t n, c, h, w;
  int64_t sn, sc, sh, sw;  // element strides
};

// REQUIRES: t.dim() is 3 or 4.
Planes PlanesOf(const Tensor& t);

// Reads a `count`-entry parameter list (1 entry means all); an empty list
// gives `fallback` (count entries) if non-null (e.g. stride = kernel size).
// Fails through args.
bool WindowList(KernelArgs& args, Span<const int64_t> list, const int64_t* fallback,
                const char* name, int count, int64_t* out);

// WindowList with count 2.
bool Pair(KernelArgs& args, Span<const int64_t> list, const int64_t* fallback, const char* name,
          int64_t* out);

// Max pooling's window lists (kernel_size, stride defaulting to the kernel
// size, padding, dilation) read into `count`-entry arrays (2 for 2-D
// pooling, 3 for 3-D). Fails through args.
bool MaxPoolWindow(KernelArgs& args, Span<const int64_t> kernel_list,
                   Span<const int64_t> stride_list, Span<const int64_t> pad_list,
                   Span<const int64_t> dilation_list, int64_t* k, int64_t* s, int64_t* pad,
                   int64_t* d, int count = 2);

// Average pooling's window lists (kernel_size, stride defaulting to the
// kernel size, padding) read into `count`-entry arrays. Fails through args.
bool AvgPoolWindow(KernelArgs& args, Span<const int64_t> kernel_list,
                   Span<const int64_t> stride_list, Span<const int64_t> pad_list, int64_t* k,
                   int64_t* s, int64_t* pad, int count);

// Average pooling's dtypes: input and out of one floating dtype (float16 and
// bfloat16 included: the 2-D kernels sum them in double). Fails
// through args.
bool CheckFloatingPool(KernelArgs& args, const Tensor& in, const Tensor& out);

// avg_pool{2,3}d's divisor_override: absent or non-zero. Fails through args.
bool CheckDivisorOverride(KernelArgs& args, bool has_divisor, int64_t divisor);

// PyTorch's pooling_output_shape; -1 if the window arguments are invalid.
int64_t PoolOutSize(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation,
                    bool ceil_mode);

// Checks the input rank and window, computes the output plane size and
// resizes `outs` to it. Returns args.ok().
bool PreparePoolOutputs(KernelArgs& args, const Tensor& in, const int64_t* kernel,
                        const int64_t* stride, const int64_t* pad, const int64_t* dilation,
                        bool ceil_mode, Tensor* const* outs, int num_outs);

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_POOL_UTIL_H_

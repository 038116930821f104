// Shared setup of the two-operand elementwise kernels added after
// elementwise_binary.cc (atan2, bitwise ops): dtype checks, the broadcast
// output shape, out's resize and the promoted result type.

#ifndef EDGEFLEET_RUNTIME_KERNELS_PORTABLE_BINARY_PREPARE_H_
#define EDGEFLEET_RUNTIME_KERNELS_PORTABLE_BINARY_PREPARE_H_

#include "runtime/core/tensor.h"
#include "runtime/kernels/portable/elementwise.h"
#include "runtime/kernels/portable/kernel_args.h"

namespace edgefleet {
namespace portable {

// Checks a, b and out have element dtypes and a, b broadcast; resizes out to
// the broadcast shape and sets *common to torch.result_type(a, b).
// Returns args.ok().
bool PrepareBinaryOut(KernelArgs& args, const Operand& a, const Operand& b, Tensor& out,
                      ScalarType* common);

// Fails unless `result` can be cast to out's dtype. Returns args.ok().
bool CheckCastToOut(KernelArgs& args, ScalarType result, const Tensor& out);

}  // namespace portable
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_PORTABLE_BINARY_PREPARE_H_

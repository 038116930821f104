// Plan pass "drop_unused_pool_indices": a max pool whose int64 indices
// nothing reads computes its values only.
//
//   aten::max_pool2d_with_indices.out(in, kernel, stride, padding,
//   dilation, ceil_mode, out=y, indices=i) with i read by no instruction
//   (views of its memory included), not method I/O
//     becomes edgefleet::max_pool2d_values.out(in, kernel, stride,
//     padding, dilation, ceil_mode, out=y, ret=y): no instruction names i.
//
// An exported nn.MaxPool2d is the with-indices operator (GoogLeNet's
// thirteen, SqueezeNet's three, every ResNet stem) whose indices the model
// never uses; the real runtime's XNNPACK delegate lowers such a pool to a
// max pooling without indices. The values are the same bits: over a
// channels-last input the kernel (max_pool_nhwc.h) tracks no positions;
// every other call runs the with-indices kernel with its indices in temp
// memory. Runs after channels_last_regions (which knows the aten
// operator).

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_POOL_INDICES_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_POOL_INDICES_H_

#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/plan_pass.h"

namespace edgefleet {
namespace optimized {

void DropUnusedPoolIndices(PlanEditor& plan);

inline constexpr PlanPass kDropUnusedPoolIndicesPass = {"drop_unused_pool_indices",
                                                        DropUnusedPoolIndices};

// edgefleet::max_pool2d_values.out(in, kernel, stride, padding, dilation,
// ceil_mode, out, ret): MaxPool2dValuesOut (pooling.cc,
// optimized_kernels.h). Thread-safe as the other kernels.
extern const Kernel kMaxPool2dValuesKernel;

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_POOL_INDICES_H_

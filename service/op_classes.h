// Operator classes of the device-time model: what limits an operator's
// speed, decided from the operator and the shapes of its arguments.
//
// ClassifyInstruction() looks at one executed instruction of a loaded
// Method: convolutions and matrix products get their FLOPs (a multiply-add
// counts 2) and the bytes of their distinct tensor arguments; their
// arithmetic intensity (FLOP per byte) against the host's ridge point
// (peak FLOP/s over memory bandwidth) makes them dense (compute-bound, at or
// above the ridge) or OP_CLASS_MEMORY_BOUND (depthwise and other thin
// convolutions, batch-1 matrix-vector products, below it). Dense ones are
// split by shape, as runtimes pick their algorithm by it:
// OP_CLASS_DENSE_POINTWISE (1x1 convolutions, matrix products),
// OP_CLASS_DENSE_3X3 (3x3 stride-1 ungrouped: Winograd-eligible) and
// OP_CLASS_DENSE (the rest: strided, 5x5, 7x7, ...). Every other kernel is
// OP_CLASS_DATA_MOVEMENT (copies, permutes, concatenation, slicing, layout)
// or OP_CLASS_ELEMENTWISE (arithmetic, activations, normalization, pooling,
// reductions). Delegate calls count as dense (a delegate takes the
// convolution-heavy part of a graph). OP_CLASS_OVERHEAD is not an
// instruction's class: it is the per-operator fixed cost, one per executed
// operator (host_profiler.h).
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_SERVICE_OP_CLASSES_H_
#define EDGEFLEET_SERVICE_OP_CLASSES_H_

#include <string>

#include "edgefleet/v1/host_profile.pb.h"
#include "runtime/core/evalue.h"
#include "runtime/core/span.h"

namespace edgefleet {
namespace service {

// The classes an instruction can have, and the overhead class, in order.
constexpr v1::OpClass kOpClasses[] = {v1::OP_CLASS_DENSE,       v1::OP_CLASS_DENSE_POINTWISE,
                                      v1::OP_CLASS_DENSE_3X3,   v1::OP_CLASS_MEMORY_BOUND,
                                      v1::OP_CLASS_ELEMENTWISE, v1::OP_CLASS_DATA_MOVEMENT,
                                      v1::OP_CLASS_OVERHEAD};
constexpr int kNumOpClasses = 7;

// Index of `op_class` in kOpClasses, or -1.
int OpClassIndex(v1::OpClass op_class);
// "dense", "dense_pointwise", "dense_3x3", "memory_bound", "elementwise",
// "data_movement", "overhead".
const char* OpClassName(v1::OpClass op_class);

struct OpWork {
  double flops = 0;             // 0 for operators without a multiply-accumulate core
  double bytes = 0;             // distinct tensor arguments, read and written
  bool compute_kernel = false;  // convolution or matrix product
  // For compute kernels: 1x1 convolution or matrix product / 3x3 stride-1
  // ungrouped convolution.
  bool pointwise = false;
  bool conv3x3_stride1 = false;
  bool data_movement = false;  // copy / layout operator
};

// Work of kernel `name` (e.g. "aten::convolution.out",
// "edgefleet::fused_convolution.out") on `args` as the kernel sees them.
OpWork OperatorWork(const std::string& name, Span<EValue* const> args);

// The class of an executed kernel call with `work`, on a host whose ridge
// point is `ridge_flops_per_byte`.
v1::OpClass Classify(const OpWork& work, double ridge_flops_per_byte);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_OP_CLASSES_H_

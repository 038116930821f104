// Our own kernels for delegate nodes the system XNNPACK (2022) cannot run:
// static transpose, slice, concatenation, batch matrix multiply, scaled
// dot-product attention, the transcendental element-wise nodes (tanh, exp,
// log, gelu, sin, cos, reciprocal square root), copy, PReLU with a slope
// XNNPACK cannot take (one slope, or one not static), fully connected
// layers and transposed convolutions on static int8 with per-channel
// weights, dynamically quantized
// (qd8) fully connected layers with their activation quantizer, and qd8
// convolutions (dynamic_conv_nodes.h), global
// float32 clamps with an empty range (min >= max, PyTorch's clamp with min
// above max or hardtanh(x, v, v): every element becomes max), global
// average pooling (global_pooling_nodes.h: float32, and static int8 rounded
// as the real runtime's XNNPACK does), average and max pooling with a
// 1 x 1 window (unit_pooling_nodes.h), and float32 multiplies and adds
// (float_binary_nodes.h).
// They run between XNNPACK segments on the delegate's layouts (NHWC inside
// the delegated region, whatever the serialized dims say).
//
// Stateless functions; buffers belong to the caller. Thread-compatible.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_NODE_KERNELS_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_NODE_KERNELS_H_

#include <cstddef>
#include <vector>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/core/error.h"
#include "runtime/kernels/kernel_context.h"

namespace edgefleet {
namespace xnnpack {

// Per-row parameters that follow the int8 data of a qdint8 buffer.
struct RowQuant {
  float scale;
  int32_t zero_point;
};

// Bytes a buffer of value `v` needs when our kernels hold it (qdint8 values
// carry per-row parameters after their data).
size_t OwnBufferBytes(const Value& v, const std::vector<size_t>& dims);

// True when our kernels can run `node` with its operands' datatypes.
bool OwnKernelSupports(const Graph& graph, const Node& node);

// True for the nodes that run on our kernels even where the system XNNPACK
// accepts them: static int8 global average pooling (the 2022 XNNPACK
// rounds before adding the output zero point, the real runtime after),
// and with `optimized` (the method may use our optimized kernels) float32
// global average pooling and multiplies by a per-channel scale (ours are
// faster, and one XNNPACK step fewer between our nodes each). (The delegate
// also runs a static reshape on our kernels when neither node beside it runs
// on XNNPACK: delegate.cc.)
bool OwnKernelPreferred(const Graph& graph, const Node& node, bool optimized);

// Runs `node` on values of the current shapes `dims` (indexed by value id;
// they differ from the serialized ones after a dynamic-shape change).
// `in[i]` / `out[i]` are the buffers of node.inputs[i] / node.outputs[i]
// (null for an absent optional operand); data movement (transposes,
// slices, reshapes, concatenations) in data_movement_nodes.h; batch matrix
// multiplies, transcendental nodes, transposes and concatenations split over up to
// ctx.num_threads() threads of the kernels' pool or the runner installed on
// the calling thread, and the GEMM takes its scratch from ctx.
// REQUIRES: OwnKernelSupports(graph, node) and shapes validated by
// InferOutputDims.
Error RunOwnNode(KernelContext& ctx, const Graph& graph, const Node& node,
                 const std::vector<std::vector<size_t>>& dims, const void* const* in,
                 void* const* out);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_NODE_KERNELS_H_

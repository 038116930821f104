// Dynamically quantized convolutions on our kernels: XNNConv2d,
// XNNDepthwiseConv2d and XNNConvTranspose2d reading a qdint8 input (the
// fp32 -> qdint8 XNNConvert before them quantizes each image with its own
// scale and zero point) and int8 filters with per-output-channel scales
// (qcint8), writing float32. The XNNPACKQuantizer's dynamic configuration
// (get_symmetric_quantization_config(is_dynamic=True)) quantizes
// convolutions and transposed convolutions this way, not only linear
// layers; the 2022 system XNNPACK has no qd8 operators.
//
// y[oc] = float(sum over the taps inside the input of (q - zero_point) *
// w[oc]) * input scale * w_scale[oc] + bias[oc], clamped to the node's
// output range: padding contributes nothing (the real runtime's XNNPACK
// pads with the zero point), each image with its own parameters; except a
// pointwise convolution (1 x 1 kernel, one group, stride 1, no padding:
// XNNPACK's GEMM path), which the real runtime quantizes pixel by pixel (each pixel its
// own scale and zero point, as a fully connected layer's rows):
// QuantizePointwiseInputsPerPixel makes the quantizer do the same.
// Accumulation in 64-bit integers; NHWC; groups and depth multipliers as
// the float convolutions.
//
// Stateless; buffers belong to the caller. Thread-compatible.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DYNAMIC_CONV_NODES_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DYNAMIC_CONV_NODES_H_

#include <vector>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/kernels/kernel_context.h"

namespace edgefleet {
namespace xnnpack {

// Gives the qdint8 output of every XNNConvert read only by pointwise
// dynamically quantized convolutions one row per pixel (num_nonbatch_dims
// 1). Run once on a validated graph, before the nodes are planned.
void QuantizePointwiseInputsPerPixel(Graph& graph);

// Whether `node` is such a convolution: a per-token qdint8 input whose
// rows hold whole images (at least its 3 last dims non-batch; one pixel
// each for a pointwise convolution), constant
// qcint8 filters per output channel, an absent or float32 bias, a float32
// output.
bool DynamicConvolutionSupports(const Graph& graph, const Node& node);

// y = the node's convolution of the qdint8 buffer x (int8 data, then one
// RowQuant per row, node_kernels.h) with filter w and bias b (may be null),
// on the current shapes `dims` (validated by InferOutputDims). False if the
// transposed convolution's int64 accumulators do not fit in ctx's temp
// memory. REQUIRES: DynamicConvolutionSupports(graph, node).
bool RunDynamicConvolution(KernelContext& ctx, const Graph& graph, const Node& node,
                           const std::vector<Dims>& dims, const void* x, const void* w,
                           const void* b, float* y);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DYNAMIC_CONV_NODES_H_

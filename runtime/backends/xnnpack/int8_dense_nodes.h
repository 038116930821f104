// The delegate's static int8 convolutions with one group and depthwise
// convolutions (no depth multiplier) on our VNNI kernels
// (runtime/kernels/optimized/int8_pointwise_nhwc.h, a window other than 1x1
// stride 1 gathering its patches first, padding read as the input zero
// point; int8_depthwise_nhwc.h), in the delegate's NHWC layout, computed as the real
// runtime's XNNPACK computes them (fp32 requantization): with the int32 sum
//   acc = bias_q[c] + sum_k (x[p][k] - zx) * w[c][k]   (wrapping, as XNNPACK's)
//   y[p][c] = min(max(round_half_even(float(acc) * s[c]), lo - zy), hi - zy) + zy
// where s[c] = (sx * sw[c]) / sy in float, and lo / hi are the node's
// output range quantized as XNNPACK does (round(v / sy + zy), within int8).
//
// Why: this machine's XNNPACK (Debian's 2022 build) has no VNNI int8
// kernels; the real runtime's XNNPACK has. The rule and measurements are in
// docs/xnnpack-delegate.md ("Engine per node").
//
// Stateless functions; buffers belong to the caller. Thread-compatible:
// work is split over ctx.num_threads() threads (ParallelFor).

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_DENSE_NODES_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_DENSE_NODES_H_

#include <cstddef>
#include <vector>

#include "runtime/backends/xnnpack/graph.h"
#include "runtime/core/error.h"
#include "runtime/kernels/kernel_context.h"

namespace edgefleet {
namespace xnnpack {

// Filter depth (kh * kw * input channels) up to which the int32 sums cannot
// overflow before the bias is added (255 * 128 * depth < 2^31).
inline constexpr size_t kMaxInt8DenseDepth = 65535;

// The rule: true for a one-group Conv2d or a DepthwiseConv2d with one
// output channel per group and at most optimized::kInt8DepthwiseMaxTaps
// taps, over qint8 (per-tensor) activations
// to a qint8 output, with constant int8 weights per output channel (or per
// tensor with zero point 0), an optional constant int32 bias and
// requantization scales in (0, 256), when the host has AVX-512 VNNI (without
// it XNNPACK's kernels stay the faster choice).
bool Int8DenseKernelPreferred(const Graph& graph, const Node& node);

// Folds every Clamp that directly follows a node Int8DenseKernelPreferred
// takes, is the only reader of its output and keeps its quantization, into
// that node's output range (as XNNPACK fuses them), removing the Clamp from
// `graph`; returns how many were folded. Exact: the output range of the
// folded node is the intersection of the two, quantized as XNNPACK does.
size_t FoldInt8Clamps(Graph& graph);

// Bytes of what PackInt8DenseFilter writes for `node` (Int8DenseKernelPreferred).
size_t PackedInt8FilterBytes(const Graph& graph, const Node& node);

// Writes `node`'s filter as the GEMM reads it, with its per-channel
// corrections (bias and zero point folded in) and requantization scales,
// to `dst` (PackedInt8FilterBytes bytes, 64-byte aligned).
void PackInt8DenseFilter(const Graph& graph, const Node& node, void* dst);

// Runs `node` (REQUIRES: Int8DenseKernelPreferred, shapes validated by
// InferOutputDims) on the current shapes `dims`: in[0] / out[0] are the
// buffers of its input and output, `packed` what PackInt8DenseFilter
// wrote. Errors: kMemoryAllocationFailed when ctx's scratch memory does not
// fit a block of patches (a window other than 1x1 stride 1).
Error RunInt8DenseNode(KernelContext& ctx, const Graph& graph, const Node& node,
                       const std::vector<Dims>& dims, const void* const* in, void* const* out,
                       const void* packed);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_INT8_DENSE_NODES_H_

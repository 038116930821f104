#include "runtime/backends/xnnpack/dense_nodes.h"

#include <algorithm>

#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/conv_small_input.h"
#include "runtime/kernels/optimized/convolution.h"
#include "runtime/kernels/optimized/cpu_features.h"
#include "runtime/kernels/optimized/depthwise.h"
#include "runtime/kernels/optimized/gemm.h"
#include "runtime/kernels/optimized/grouped_nhwc.h"
#include "runtime/kernels/optimized/vec.h"

namespace edgefleet {
namespace xnnpack {
namespace {

constexpr uint32_t kTransposeWeights = 1;  // XNN_FLAG_TRANSPOSE_WEIGHTS

bool IsFp32(const Graph& g, uint32_t id) {
  return id == kInvalidId || g.values[id].type == DataType::kFp32;
}

// Input channels from which a dense (one group) convolution with a larger
// window runs faster on our GEMM over packed patches than on the system
// XNNPACK (docs/xnnpack-delegate.md, "Engine per node").
constexpr size_t kMinDenseWindowChannels = 16;

// A convolution with one group and a window over at least
// kMinDenseWindowChannels input channels, or over at most
// optimized::kSmallInputMaxChannels (a first layer over an image, which our
// direct kernel runs; conv_small_input.h). The filter is OHWI.
bool IsFastDenseConv(const Graph& g, const Node& n) {
  if (n.type != NodeType::kConv2d || n.window.groups != 1) return false;
  const Value& w = g.values[n.inputs[1]];
  if (w.dims.size() != 4) return false;
  return w.dims[3] >= kMinDenseWindowChannels ||
         w.dims[3] <= static_cast<size_t>(optimized::kSmallInputMaxChannels);
}

// A depthwise convolution without a depth multiplier on an AVX-512 host,
// where our direct kernel (optimized/depthwise.h) runs it faster than the
// system XNNPACK; on AVX2 hosts it was measured slower, and stays there
// (docs/xnnpack-delegate.md, "Engine per node"). The filter is
// [1, kh, kw, out_c].
bool IsFastDepthwiseConv(const Graph& g, const Node& n) {
  if (n.type != NodeType::kDepthwiseConv2d || optimized::HostIsa() != optimized::Isa::kAvx512) {
    return false;
  }
  const Dims& xd = g.values[n.inputs[0]].dims;
  const Dims& wd = g.values[n.inputs[1]].dims;
  return xd.size() == 4 && wd.size() == 4 && wd[3] == xd[3] &&
         static_cast<int64_t>(wd[1] * wd[2]) <= optimized::kMaxDepthwiseTaps;
}

// A grouped convolution with narrow groups (optimized/grouped_nhwc.h:
// as many input as output channels per group, a power of two up to 16, at
// least 16 channels) on an AVX-512 host, where our direct kernel runs most
// of RegNet's grouped layers faster than the system XNNPACK (measured
// there only). The filter is OHWI, [out_c, kh, kw, in_c / groups].
bool IsFastGroupedConv(const Graph& g, const Node& n) {
  if (n.type != NodeType::kConv2d || n.window.groups <= 1 ||
      optimized::HostIsa() != optimized::Isa::kAvx512) {
    return false;
  }
  const Dims& wd = g.values[n.inputs[1]].dims;
  return wd.size() == 4 &&
         optimized::NarrowGroupsApply(static_cast<int64_t>(wd[0]), static_cast<int64_t>(wd[3]),
                                      n.window.groups, static_cast<int64_t>(wd[1] * wd[2]));
}

// A fully connected layer or a pointwise convolution: y[rows][units] =
// x[rows][depth] * filter^T + bias, the filter [units][depth] (OHWI with
// 1x1 taps, or FullyConnected's layout), [depth][units] when transposed
// (FullyConnected's flag, or `packed`), or column panels (`packed` with
// `panels`).
Error RunMatrixNode(KernelContext& ctx, const Node& n, const std::vector<Dims>& dims,
                    const void* const* in, float* y, const float* packed, bool panels,
                    optimized::PostOp post) {
  const Dims& xd = dims[n.inputs[0]];
  const Dims& wd = dims[n.inputs[1]];
  const bool fc_transposed =
      n.type == NodeType::kFullyConnected && (n.flags & kTransposeWeights) != 0;
  const bool transposed = packed != nullptr || fc_transposed;
  const int64_t k = static_cast<int64_t>(fc_transposed ? wd[0] : wd.back());
  const int64_t units = static_cast<int64_t>(fc_transposed ? wd[1] : wd[0]);
  int64_t numel = 1;
  for (size_t d : xd) numel *= static_cast<int64_t>(d);
  const int64_t rows = k == 0 ? 0 : numel / k;
  const auto* x = static_cast<const float*>(in[0]);
  const float* w = packed != nullptr ? packed : static_cast<const float*>(in[1]);
  // B(unit, depth) = w[unit][depth], or w[depth][unit] when transposed.
  const optimized::StridedOperand a(x, k, 1);
  const optimized::StridedOperand strided(w, transposed ? 1 : k, transposed ? units : 1);
  const optimized::PanelOperand in_panels(w, k);
  const optimized::GemmOperand& b =
      panels ? static_cast<const optimized::GemmOperand&>(in_panels) : strided;
  optimized::GemmEpilogue epilogue;
  epilogue.col_bias = static_cast<const float*>(in[2]);
  epilogue.lo = n.output_min;
  epilogue.hi = n.output_max;
  epilogue.post = post;
  EF_CHECK_OR_RETURN(optimized::Gemm(ctx, rows, units, k, a, b, y, units, false, &epilogue),
                     Error::kMemoryAllocationFailed, "xnnpack: %s: kernel scratch memory exhausted",
                     NodeTypeName(n.type));
  return Error::kOk;
}

Error RunConvolution(KernelContext& ctx, const Node& n, const std::vector<Dims>& dims,
                     const void* const* in, float* y, const float* packed, bool panels,
                     optimized::PostOp post) {
  const optimized::ConvGeometry g = ConvGeometryOf(n, dims);
  if (panels) {
    EF_CHECK_OR_RETURN(optimized::ConvolutionNhwcPanels(ctx, g, static_cast<const float*>(in[0]),
                                                        packed, static_cast<const float*>(in[2]), y,
                                                        n.output_min, n.output_max, post),
                       Error::kMemoryAllocationFailed,
                       "xnnpack: %s: kernel scratch memory exhausted", NodeTypeName(n.type));
    return Error::kOk;
  }
  int64_t strides[4];  // oc, ic (within the group), kh, kw
  if (n.type == NodeType::kDepthwiseConv2d) {
    // [1, kh, kw, out_c]: one input channel per group.
    strides[0] = 1;
    strides[1] = 0;
    strides[2] = g.k_w * g.out_c;
    strides[3] = g.out_c;
  } else if (packed != nullptr) {
    // PackDenseFilter's [kh, kw, in_c / groups, out_c].
    strides[0] = 1;
    strides[1] = g.out_c;
    strides[3] = g.in_c / g.groups * g.out_c;
    strides[2] = g.k_w * strides[3];
  } else {
    // [out_c, kh, kw, in_c / groups] (OHWI).
    const int64_t cin_g = g.in_c / g.groups;
    strides[0] = g.k_h * g.k_w * cin_g;
    strides[1] = 1;
    strides[2] = g.k_w * cin_g;
    strides[3] = cin_g;
  }
  EF_CHECK_OR_RETURN(optimized::ConvolutionNhwc(
                         ctx, g, static_cast<const float*>(in[0]),
                         packed != nullptr ? packed : static_cast<const float*>(in[1]), strides,
                         static_cast<const float*>(in[2]), y, n.output_min, n.output_max, post),
                     Error::kMemoryAllocationFailed, "xnnpack: %s: kernel scratch memory exhausted",
                     NodeTypeName(n.type));
  return Error::kOk;
}

}  // namespace

optimized::ConvGeometry ConvGeometryOf(const Node& n, const std::vector<Dims>& dims) {
  const Dims& xd = dims[n.inputs[0]];
  const Dims& yd = dims[n.outputs[0]];
  const WindowParams& w = n.window;
  optimized::ConvGeometry g{};
  g.batch = static_cast<int64_t>(xd[0]);
  g.in_h = static_cast<int64_t>(xd[1]);
  g.in_w = static_cast<int64_t>(xd[2]);
  g.in_c = static_cast<int64_t>(xd[3]);
  g.out_h = static_cast<int64_t>(yd[1]);
  g.out_w = static_cast<int64_t>(yd[2]);
  g.out_c = static_cast<int64_t>(yd[3]);
  g.k_h = w.kernel_h;
  g.k_w = w.kernel_w;
  g.groups = w.groups;
  g.stride[0] = w.stride_h;
  g.stride[1] = w.stride_w;
  g.pad[0] = w.pad_top;
  g.pad[1] = w.pad_left;
  g.dilation[0] = w.dilation_h;
  g.dilation[1] = w.dilation_w;
  return g;
}

bool IsPointwiseConv(const Node& n) {
  const WindowParams& w = n.window;
  return n.type == NodeType::kConv2d && w.kernel_h == 1 && w.kernel_w == 1 && w.stride_h == 1 &&
         w.stride_w == 1 && w.pad_top == 0 && w.pad_bottom == 0 && w.pad_left == 0 &&
         w.pad_right == 0 && w.groups == 1;
}

bool DenseKernelSupports(const Graph& g, const Node& n) {
  if (n.type != NodeType::kConv2d && n.type != NodeType::kDepthwiseConv2d &&
      n.type != NodeType::kFullyConnected) {
    return false;
  }
  if (n.inputs.size() != 3 || n.outputs.size() != 1) return false;
  for (uint32_t id : n.inputs) {
    if (!IsFp32(g, id)) return false;
  }
  if (n.inputs[0] == kInvalidId || n.inputs[1] == kInvalidId || !IsFp32(g, n.outputs[0])) {
    return false;
  }
  if (n.type == NodeType::kFullyConnected) return (n.flags & ~kTransposeWeights) == 0;
  const WindowParams& w = n.window;
  // Other flags (TensorFlow SAME padding) and asymmetric padding stay with XNNPACK.
  return n.flags == 0 && w.pad_top == w.pad_bottom && w.pad_left == w.pad_right;
}

bool DenseKernelPreferred(const Graph& g, const Node& n) {
  return DenseKernelSupports(g, n) &&
         (n.type == NodeType::kFullyConnected || IsPointwiseConv(n) || IsFastDenseConv(g, n) ||
          IsFastDepthwiseConv(g, n) || IsFastGroupedConv(g, n)) &&
         g.values[n.inputs[1]].is_constant();
}

namespace {

// A node whose filter PackDenseFilter writes as the GEMM's column panels:
// fully connected layers (a classifier's weight then streams from memory
// panel by panel, GemvPanels), pointwise and one-group convolutions the
// GEMM runs (not the small-input direct kernel, which reads
// [kh][kw][in_c][out_c]).
bool FilterInPanels(const Graph& g, const Node& n) {
  if (n.type == NodeType::kFullyConnected) return true;
  if (n.type != NodeType::kConv2d || n.window.groups != 1) return false;
  const Dims& wd = g.values[n.inputs[1]].dims;
  return IsPointwiseConv(n) ||
         (wd.size() == 4 && wd[3] > static_cast<size_t>(optimized::kSmallInputMaxChannels));
}

}  // namespace

size_t PackedFilterFloats(const Graph& g, const Node& n) {
  // A depthwise filter is read where it is.
  if (!DenseKernelPreferred(g, n) || (n.flags & kTransposeWeights) != 0 ||
      n.type == NodeType::kDepthwiseConv2d) {
    return 0;
  }
  const Value& w = g.values[n.inputs[1]];
  if (FilterInPanels(g, n)) {
    const size_t units = w.dims[0];
    return static_cast<size_t>(optimized::PanelFloats(static_cast<int64_t>(units),
                                                      static_cast<int64_t>(w.numel() / units)));
  }
  return w.numel();
}

void PackDenseFilter(const Graph& g, const Node& n, float* packed) {
  const Value& w = g.values[n.inputs[1]];
  const size_t units = w.dims[0];
  const size_t depth = units == 0 ? 0 : w.numel() / units;
  const auto* src = static_cast<const float*>(w.data);
  if (FilterInPanels(g, n)) {
    optimized::PackPanels(optimized::StridedOperand(src, static_cast<int64_t>(depth), 1),
                          static_cast<int64_t>(units), static_cast<int64_t>(depth), packed);
    return;
  }
  constexpr size_t kTile = 32;  // tiles keep both sides of the transpose in cache
  for (size_t u0 = 0; u0 < units; u0 += kTile) {
    for (size_t k0 = 0; k0 < depth; k0 += kTile) {
      const size_t u1 = std::min(units, u0 + kTile), k1 = std::min(depth, k0 + kTile);
      size_t u = u0;
      for (; u + 4 <= u1; u += 4) {  // 4 x 4 blocks in vector registers
        const float* r = src + u * depth;
        size_t k = k0;
        for (; k + 4 <= k1; k += 4) {
          optimized::Transpose4x4(r + k, r + depth + k, r + 2 * depth + k, r + 3 * depth + k,
                                  packed + k * units + u, static_cast<int64_t>(units));
        }
        for (; k < k1; ++k) {
          for (size_t t = 0; t < 4; ++t) packed[k * units + u + t] = r[t * depth + k];
        }
      }
      for (; u < u1; ++u) {
        for (size_t k = k0; k < k1; ++k) packed[k * units + u] = src[u * depth + k];
      }
    }
  }
}

Error RunDenseNode(KernelContext& ctx, const Graph& g, const Node& n, const std::vector<Dims>& dims,
                   const void* const* in, void* const* out, const float* packed_filter) {
  auto* y = static_cast<float*>(out[0]);
  const bool panels = packed_filter != nullptr && FilterInPanels(g, n);
  optimized::PostOp post = optimized::PostOp::kNone;
  if (n.activation == FusedActivation::kSilu) post = optimized::PostOp::kSilu;
  if (n.activation == FusedActivation::kHardswish) post = optimized::PostOp::kHardswish;
  if (n.activation == FusedActivation::kSigmoid) post = optimized::PostOp::kSigmoid;
  if (n.type == NodeType::kFullyConnected || IsPointwiseConv(n)) {
    return RunMatrixNode(ctx, n, dims, in, y, packed_filter, panels, post);
  }
  return RunConvolution(ctx, n, dims, in, y, packed_filter, panels, post);
}

}  // namespace xnnpack
}  // namespace edgefleet

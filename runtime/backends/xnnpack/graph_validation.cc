#include "runtime/backends/xnnpack/graph_validation.h"

#include <algorithm>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace xnnpack {
namespace {

constexpr uint32_t kTransposeWeights = 1;  // XNN_FLAG_TRANSPOSE_WEIGHTS

// Output extent of a sliding window; false when the window does not fit.
bool WindowExtent(size_t in, uint32_t pad_a, uint32_t pad_b, uint32_t kernel, uint32_t stride,
                  uint32_t dilation, size_t* out) {
  if (kernel == 0 || stride == 0 || dilation == 0 || kernel > 4096 || dilation > 4096) return false;
  const size_t padded = in + pad_a + pad_b;
  const size_t effective = static_cast<size_t>(kernel - 1) * dilation + 1;
  if (padded < effective) return false;
  *out = (padded - effective) / stride + 1;
  return true;
}

size_t Numel(const Dims& d) {
  size_t n = 1;
  for (size_t x : d) n *= x;
  return n;
}

Error Broadcast(const char* name, const Dims& a, const Dims& b, Dims& out) {
  const size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const size_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const size_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    EF_CHECK_OR_RETURN(da == db || da == 1 || db == 1, Error::kInvalidProgram,
                       "xnnpack payload: %s operands do not broadcast", name);
    out[i] = da == 1 ? db : da;
  }
  return Error::kOk;
}

Error Conv(const Node& n, const std::vector<Dims>& dims, Dims& out) {
  const char* name = NodeTypeName(n.type);
  const Dims& in = dims[n.inputs[0]];
  const Dims& filter = dims[n.inputs[1]];
  const WindowParams& w = n.window;
  EF_CHECK_OR_RETURN(in.size() == 4 && filter.size() == 4, Error::kInvalidProgram,
                     "xnnpack payload: %s needs 4-D NHWC operands", name);
  EF_CHECK_OR_RETURN(w.groups >= 1 && w.group_input_channels >= 1 && w.group_output_channels >= 1 &&
                         w.groups <= (1u << 20) && w.group_input_channels <= (1u << 20) &&
                         w.group_output_channels <= (1u << 20),
                     Error::kInvalidProgram,
                     "xnnpack payload: %s has %u groups of %u -> %u channels", name, w.groups,
                     w.group_input_channels, w.group_output_channels);
  size_t out_channels = 0;
  if (n.type == NodeType::kDepthwiseConv2d) {
    EF_CHECK_OR_RETURN(w.group_output_channels % w.group_input_channels == 0,
                       Error::kInvalidProgram,
                       "xnnpack payload: depthwise multiplier is not whole");
    out_channels =
        static_cast<size_t>(w.groups) * (w.group_output_channels / w.group_input_channels);
    EF_CHECK_OR_RETURN(in[3] == w.groups, Error::kInvalidProgram,
                       "xnnpack payload: depthwise input has %zu channels, groups %u", in[3],
                       w.groups);
    EF_CHECK_OR_RETURN(filter[0] == 1 && filter[1] == w.kernel_h && filter[2] == w.kernel_w &&
                           filter[3] == out_channels,
                       Error::kInvalidProgram,
                       "xnnpack payload: depthwise filter shape does not match its parameters");
  } else {
    out_channels = static_cast<size_t>(w.groups) * w.group_output_channels;
    EF_CHECK_OR_RETURN(in[3] == static_cast<size_t>(w.groups) * w.group_input_channels,
                       Error::kInvalidProgram,
                       "xnnpack payload: %s input has %zu channels, expects %u x %u", name, in[3],
                       w.groups, w.group_input_channels);
    EF_CHECK_OR_RETURN(filter[0] == out_channels && filter[1] == w.kernel_h &&
                           filter[2] == w.kernel_w && filter[3] == w.group_input_channels,
                       Error::kInvalidProgram,
                       "xnnpack payload: %s filter shape does not match its parameters", name);
  }
  if (n.inputs[2] != kInvalidId) {
    EF_CHECK_OR_RETURN(Numel(dims[n.inputs[2]]) == out_channels, Error::kInvalidProgram,
                       "xnnpack payload: %s bias has %zu elements for %zu channels", name,
                       Numel(dims[n.inputs[2]]), out_channels);
  }
  size_t oh = 0, ow = 0;
  if (n.type == NodeType::kConvTranspose2d) {
    EF_CHECK_OR_RETURN(
        w.stride_h >= 1 && w.stride_w >= 1 && w.dilation_h >= 1 && w.dilation_w >= 1 &&
            w.kernel_h >= 1 && w.kernel_w >= 1 && w.kernel_h <= 4096 && w.kernel_w <= 4096 &&
            w.adjustment_h < w.stride_h && w.adjustment_w < w.stride_w && in[1] >= 1 && in[2] >= 1,
        Error::kInvalidProgram, "xnnpack payload: %s parameters out of range", name);
    const size_t full_h = static_cast<size_t>(w.stride_h) * (in[1] - 1) + w.adjustment_h +
                          static_cast<size_t>(w.kernel_h - 1) * w.dilation_h + 1;
    const size_t full_w = static_cast<size_t>(w.stride_w) * (in[2] - 1) + w.adjustment_w +
                          static_cast<size_t>(w.kernel_w - 1) * w.dilation_w + 1;
    EF_CHECK_OR_RETURN(full_h > static_cast<size_t>(w.pad_top) + w.pad_bottom &&
                           full_w > static_cast<size_t>(w.pad_left) + w.pad_right,
                       Error::kInvalidProgram, "xnnpack payload: %s padding exceeds the output",
                       name);
    oh = full_h - w.pad_top - w.pad_bottom;
    ow = full_w - w.pad_left - w.pad_right;
  } else {
    EF_CHECK_OR_RETURN(
        WindowExtent(in[1], w.pad_top, w.pad_bottom, w.kernel_h, w.stride_h, w.dilation_h, &oh) &&
            WindowExtent(in[2], w.pad_left, w.pad_right, w.kernel_w, w.stride_w, w.dilation_w, &ow),
        Error::kInvalidProgram, "xnnpack payload: %s window does not fit its input", name);
  }
  out = {in[0], oh, ow, out_channels};
  return Error::kOk;
}

}  // namespace

Error InferOutputDims(const Graph& graph, const Node& n, const std::vector<Dims>& dims,
                      Dims out[2]) {
  const char* name = NodeTypeName(n.type);
  for (uint32_t id : n.inputs) {
    if (id == kInvalidId) {
      // Only bias (conv/FC slot 2) is optional.
      const bool bias_slot =
          (n.type == NodeType::kFullyConnected || n.type == NodeType::kConv2d ||
           n.type == NodeType::kDepthwiseConv2d || n.type == NodeType::kConvTranspose2d) &&
          n.inputs.size() == 3 && n.inputs[2] == kInvalidId;
      EF_CHECK_OR_RETURN(bias_slot, Error::kInvalidProgram,
                         "xnnpack payload: %s is missing an operand", name);
    }
  }
  const Dims& a = dims[n.inputs[0]];
  switch (n.type) {
    case NodeType::kAdd:
    case NodeType::kDiv:
    case NodeType::kMinimum:
    case NodeType::kMaximum:
    case NodeType::kMultiply:
    case NodeType::kSubtract:
      return Broadcast(name, a, dims[n.inputs[1]], out[0]);
    case NodeType::kPReLU: {
      Dims ignored;
      EF_RETURN_IF_ERROR(Broadcast(name, a, dims[n.inputs[1]], ignored));
      EF_CHECK_OR_RETURN(ignored == a, Error::kInvalidProgram,
                         "xnnpack payload: PReLU slope does not broadcast to its input");
      out[0] = a;
      return Error::kOk;
    }
    case NodeType::kSoftmax:
      EF_CHECK_OR_RETURN(!a.empty(), Error::kInvalidProgram,
                         "xnnpack payload: softmax of a scalar");
      out[0] = a;
      return Error::kOk;
    case NodeType::kSigmoid:
    case NodeType::kClamp:
    case NodeType::kFloor:
    case NodeType::kConvert:
    case NodeType::kSquareRoot:
    case NodeType::kCeiling:
    case NodeType::kHardswish:
    case NodeType::kNegate:
    case NodeType::kSquare:
    case NodeType::kAbs:
    case NodeType::kReciprocalSquareRoot:
    case NodeType::kLog:
    case NodeType::kGelu:
    case NodeType::kTanh:
    case NodeType::kExp:
    case NodeType::kSin:
    case NodeType::kCopy:
    case NodeType::kCos:
    case NodeType::kELU:
    case NodeType::kLeakyReLU:
      out[0] = a;
      return Error::kOk;
    case NodeType::kFullyConnected: {
      const Dims& f = dims[n.inputs[1]];
      EF_CHECK_OR_RETURN(!a.empty() && f.size() == 2, Error::kInvalidProgram,
                         "xnnpack payload: FullyConnected needs a 2-D filter");
      const bool transposed = (n.flags & kTransposeWeights) != 0;
      const size_t k = transposed ? f[0] : f[1];
      const size_t units = transposed ? f[1] : f[0];
      EF_CHECK_OR_RETURN(a.back() == k, Error::kInvalidProgram,
                         "xnnpack payload: FullyConnected input depth %zu, filter %zu", a.back(),
                         k);
      if (n.inputs[2] != kInvalidId) {
        EF_CHECK_OR_RETURN(Numel(dims[n.inputs[2]]) == units, Error::kInvalidProgram,
                           "xnnpack payload: FullyConnected bias has %zu elements for %zu units",
                           Numel(dims[n.inputs[2]]), units);
      }
      out[0] = a;
      out[0].back() = units;
      return Error::kOk;
    }
    case NodeType::kConv2d:
    case NodeType::kDepthwiseConv2d:
    case NodeType::kConvTranspose2d:
      return Conv(n, dims, out[0]);
    case NodeType::kAvgPooling2d:
    case NodeType::kMaxPooling2d:
    case NodeType::kArgMaxPooling2d: {
      EF_CHECK_OR_RETURN(a.size() == 4, Error::kInvalidProgram,
                         "xnnpack payload: %s needs a 4-D NHWC input", name);
      const WindowParams& w = n.window;
      size_t oh = 0, ow = 0;
      const uint32_t dh = n.type == NodeType::kMaxPooling2d ? std::max(w.dilation_h, 1u) : 1;
      const uint32_t dw = n.type == NodeType::kMaxPooling2d ? std::max(w.dilation_w, 1u) : 1;
      EF_CHECK_OR_RETURN(
          WindowExtent(a[1], w.pad_top, w.pad_bottom, w.kernel_h, w.stride_h, dh, &oh) &&
              WindowExtent(a[2], w.pad_left, w.pad_right, w.kernel_w, w.stride_w, dw, &ow),
          Error::kInvalidProgram, "xnnpack payload: %s window does not fit its input", name);
      out[0] = {a[0], oh, ow, a[3]};
      if (n.type == NodeType::kArgMaxPooling2d) out[1] = out[0];
      return Error::kOk;
    }
    case NodeType::kGlobalAvgPooling2d:
      EF_CHECK_OR_RETURN(a.size() == 4, Error::kInvalidProgram,
                         "xnnpack payload: %s needs a 4-D NHWC input", name);
      out[0] = {a[0], 1, 1, a[3]};
      return Error::kOk;
    case NodeType::kStaticTranspose: {
      EF_CHECK_OR_RETURN(n.list_a.size() == a.size(), Error::kInvalidProgram,
                         "xnnpack payload: transpose of rank %zu, perm of %zu", a.size(),
                         n.list_a.size());
      std::vector<bool> used(a.size(), false);
      out[0].resize(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        const size_t p = n.list_a[i];
        EF_CHECK_OR_RETURN(p < a.size() && !used[p], Error::kInvalidProgram,
                           "xnnpack payload: transpose perm is not a permutation");
        used[p] = true;
        out[0][i] = a[p];
      }
      return Error::kOk;
    }
    case NodeType::kStaticReshape: {
      // new_shape, where a 0 (PyTorch's -1) is the one dim inferred from the
      // element count, so a reshape follows a bounded-dynamic input.
      out[0] = n.list_a;
      size_t known = 1;
      size_t inferred = out[0].size();
      for (size_t i = 0; i < out[0].size(); ++i) {
        if (out[0][i] == 0) {
          EF_CHECK_OR_RETURN(inferred == out[0].size(), Error::kInvalidProgram,
                             "xnnpack payload: reshape infers more than one dim");
          inferred = i;
        } else {
          EF_CHECK_OR_RETURN(!__builtin_mul_overflow(known, out[0][i], &known),
                             Error::kInvalidProgram, "xnnpack payload: reshape shape overflows");
        }
      }
      if (inferred < out[0].size()) {
        EF_CHECK_OR_RETURN(Numel(a) % known == 0, Error::kInvalidProgram,
                           "xnnpack payload: reshape of %zu elements into ... x %zu", Numel(a),
                           known);
        out[0][inferred] = Numel(a) / known;
      }
      EF_CHECK_OR_RETURN(Numel(out[0]) == Numel(a), Error::kInvalidProgram,
                         "xnnpack payload: reshape changes the element count");
      return Error::kOk;
    }
    case NodeType::kStaticSlice: {
      EF_CHECK_OR_RETURN(n.list_a.size() == a.size() && n.list_b.size() == a.size(),
                         Error::kInvalidProgram,
                         "xnnpack payload: slice rank does not match its input");
      out[0].resize(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        const size_t size = n.list_b[i] == 0 ? a[i] - std::min(a[i], n.list_a[i]) : n.list_b[i];
        EF_CHECK_OR_RETURN(n.list_a[i] <= a[i] && size <= a[i] - n.list_a[i],
                           Error::kInvalidProgram,
                           "xnnpack payload: slice [%zu, +%zu) outside dim %zu of %zu", n.list_a[i],
                           size, i, a[i]);
        out[0][i] = size;
      }
      return Error::kOk;
    }
    case NodeType::kStaticConstantPad: {
      EF_CHECK_OR_RETURN(n.list_a.size() == a.size() && n.list_b.size() == a.size(),
                         Error::kInvalidProgram,
                         "xnnpack payload: pad rank does not match its input");
      out[0].resize(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        EF_CHECK_OR_RETURN(n.list_a[i] <= (1u << 20) && n.list_b[i] <= (1u << 20),
                           Error::kInvalidProgram, "xnnpack payload: padding too large");
        out[0][i] = a[i] + n.list_a[i] + n.list_b[i];
      }
      return Error::kOk;
    }
    case NodeType::kStaticResizeBilinear2D:
      EF_CHECK_OR_RETURN(a.size() == 4 && n.new_height >= 1 && n.new_width >= 1 &&
                             n.new_height <= (1u << 16) && n.new_width <= (1u << 16),
                         Error::kInvalidProgram,
                         "xnnpack payload: resize needs a 4-D input and a positive size");
      out[0] = {a[0], n.new_height, n.new_width, a[3]};
      return Error::kOk;
    case NodeType::kConcatenate2:
    case NodeType::kConcatenate3:
    case NodeType::kConcatenate4:
    case NodeType::kConcatenate5: {
      EF_CHECK_OR_RETURN(n.axis < a.size(), Error::kInvalidProgram,
                         "xnnpack payload: concatenation axis %u of rank %zu", n.axis, a.size());
      out[0] = a;
      for (size_t i = 1; i < n.inputs.size(); ++i) {
        const Dims& b = dims[n.inputs[i]];
        EF_CHECK_OR_RETURN(b.size() == a.size(), Error::kInvalidProgram,
                           "xnnpack payload: concatenation of different ranks");
        for (size_t d = 0; d < a.size(); ++d) {
          EF_CHECK_OR_RETURN(d == n.axis || b[d] == a[d], Error::kInvalidProgram,
                             "xnnpack payload: concatenation operands differ off the axis");
        }
        out[0][n.axis] += b[n.axis];
      }
      return Error::kOk;
    }
    case NodeType::kBatchMatrixMultiply: {
      const Dims& b = dims[n.inputs[1]];
      EF_CHECK_OR_RETURN(a.size() >= 2 && b.size() == a.size(), Error::kInvalidProgram,
                         "xnnpack payload: batch matrix multiply needs operands of one rank >= 2");
      const size_t r = a.size();
      for (size_t d = 0; d + 2 < r; ++d) {
        EF_CHECK_OR_RETURN(a[d] == b[d], Error::kInvalidProgram,
                           "xnnpack payload: batch matrix multiply batch dims differ");
      }
      EF_CHECK_OR_RETURN(a[r - 1] == b[r - 2], Error::kInvalidProgram,
                         "xnnpack payload: batch matrix multiply depth %zu vs %zu", a[r - 1],
                         b[r - 2]);
      out[0] = a;
      out[0][r - 1] = b[r - 1];
      return Error::kOk;
    }
    case NodeType::kScaledDotProductAttention: {
      const Dims& k = dims[n.inputs[1]];
      const Dims& v = dims[n.inputs[2]];
      const Dims& mask = dims[n.inputs[4]];
      EF_CHECK_OR_RETURN(a.size() >= 2 && k.size() == a.size() && v.size() == a.size(),
                         Error::kInvalidProgram,
                         "xnnpack payload: attention operands need one rank >= 2");
      const size_t r = a.size();
      for (size_t d = 0; d + 2 < r; ++d) {
        EF_CHECK_OR_RETURN(a[d] == k[d] && a[d] == v[d], Error::kInvalidProgram,
                           "xnnpack payload: attention batch dims differ");
      }
      EF_CHECK_OR_RETURN(k[r - 1] == a[r - 1] && v[r - 2] == k[r - 2], Error::kInvalidProgram,
                         "xnnpack payload: attention query/key/value shapes disagree");
      EF_CHECK_OR_RETURN(Numel(dims[n.inputs[3]]) == 1 && mask.size() == 2 && mask[0] == a[r - 2] &&
                             mask[1] == k[r - 2],
                         Error::kInvalidProgram,
                         "xnnpack payload: attention scale must be a scalar and the mask [L, S]");
      out[0] = a;
      out[0][r - 1] = v[r - 1];
      return Error::kOk;
    }
    case NodeType::kNone:
      break;
  }
  EF_FAIL(Error::kInvalidProgram, "xnnpack payload: empty node");
}

namespace {

// The exporter declares some internal values that hold channels-last data
// with their NCHW dims: the qdint8 output of an XNNConvert after the
// input's NCHW -> NHWC transpose (a dynamically quantized ConvTranspose2d
// reading a method input), the second of two transposes that cancel out
// before a dynamically quantized convolution (ConvNeXt's downsampling
// layers). The real runtime's XNNPACK infers the shapes of internal values
// and never reads the declared ones; such a value (internal, its declared
// dims a permutation of the inferred ones) takes the inferred dims.
bool IsRelaidInternalValue(const Value& v, const Dims& inferred) {
  if (v.is_external() || v.is_constant() ||
      (v.flags & (kFlagExternalInput | kFlagExternalOutput)) != 0 ||
      v.dims.size() != inferred.size()) {
    return false;
  }
  Dims a = v.dims, b = inferred;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

}  // namespace

Error ValidateGraph(Graph& graph) {
  std::vector<Dims> dims(graph.values.size());
  std::vector<bool> ready(graph.values.size(), false);
  for (const Value& v : graph.values) {
    if (v.id == kInvalidId) continue;
    dims[v.id] = v.dims;
    if (v.is_constant() || (v.flags & kFlagExternalInput)) ready[v.id] = true;
    if (v.flags & kFlagExternalInput) graph.input_values.push_back(v.id);
    if (v.flags & kFlagExternalOutput) graph.output_values.push_back(v.id);
  }
  for (const Node& n : graph.nodes) {
    for (uint32_t id : n.inputs) {
      EF_CHECK_OR_RETURN(id == kInvalidId || ready[id], Error::kInvalidProgram,
                         "xnnpack payload: %s reads value %u before it is written",
                         NodeTypeName(n.type), id);
    }
    Dims out[2];
    EF_RETURN_IF_ERROR(InferOutputDims(graph, n, dims, out));
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      Value& v = graph.values[n.outputs[i]];
      EF_CHECK_OR_RETURN(!ready[v.id], Error::kInvalidProgram,
                         "xnnpack payload: %s writes value %u, which is already defined",
                         NodeTypeName(n.type), v.id);
      if (IsRelaidInternalValue(v, out[i])) {
        v.dims = out[i];
        dims[v.id] = out[i];
      }
      EF_CHECK_OR_RETURN(out[i] == v.dims, Error::kInvalidProgram,
                         "xnnpack payload: %s output %u has the wrong shape", NodeTypeName(n.type),
                         v.id);
      ready[v.id] = true;
    }
  }
  for (uint32_t id : graph.output_values) {
    EF_CHECK_OR_RETURN(ready[id], Error::kInvalidProgram,
                       "xnnpack payload: output value %u is never written", id);
  }
  return Error::kOk;
}

}  // namespace xnnpack
}  // namespace edgefleet

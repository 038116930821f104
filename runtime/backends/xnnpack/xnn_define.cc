#include "runtime/backends/xnnpack/xnn_define.h"

namespace edgefleet {
namespace xnnpack {
namespace {

// Our DataType values 1..7 are XNNPACK's enum values (both follow XNNPACK).
bool XnnDatatype(DataType type, xnn_datatype* out) {
  switch (type) {
    case DataType::kFp32:
      *out = xnn_datatype_fp32;
      return true;
    case DataType::kFp16:
      *out = xnn_datatype_fp16;
      return true;
    case DataType::kQint8:
      *out = xnn_datatype_qint8;
      return true;
    case DataType::kQuint8:
      *out = xnn_datatype_quint8;
      return true;
    case DataType::kQint32:
      *out = xnn_datatype_qint32;
      return true;
    case DataType::kQcint8:
      *out = xnn_datatype_qcint8;
      return true;
    case DataType::kQcint32:
      *out = xnn_datatype_qcint32;
      return true;
    default:
      return false;
  }
}

bool Ok(xnn_status status) { return status == xnn_status_success; }

}  // namespace

bool DefineValue(xnn_subgraph_t sg, const Value& v, const Dims& dims, uint32_t external_id,
                 uint32_t flags, uint32_t* id) {
  xnn_datatype type;
  if (!XnnDatatype(v.type, &type) || v.dq_datatype != DataType::kInvalid) return false;
  const void* data = v.data;
  switch (v.quant) {
    case QuantKind::kNone:
      return Ok(xnn_define_tensor_value(sg, type, dims.size(), dims.data(), data, external_id,
                                        flags, id));
    case QuantKind::kPerTensor:
      return Ok(xnn_define_quantized_tensor_value(sg, type, v.zero_point, v.scale, dims.size(),
                                                  dims.data(), data, external_id, flags, id));
    case QuantKind::kPerChannel:
      // The system XNNPACK (2022) checks dims[0] scales whatever the channel
      // dim (its code reads dims[0] as the loop bound): a value with fewer
      // scales than that stays off it rather than be read past its scales.
      if (dims.empty() || v.channel_scales.size() < dims[0]) return false;
      return Ok(xnn_define_channelwise_quantized_tensor_value(
          sg, type, v.channel_scales.data(), dims.size(), v.channel_dim, dims.data(), data,
          external_id, flags, id));
    case QuantKind::kPerToken:
      return false;  // qdint8: no dynamic quantization in this XNNPACK
  }
  return false;
}

bool DefineNode(xnn_subgraph_t sg, const Node& n, const std::vector<uint32_t>& ids,
                const Dims& out_dims) {
  auto in = [&](size_t i) {
    return n.inputs[i] == kInvalidId ? XNN_INVALID_VALUE_ID : ids[n.inputs[i]];
  };
  const uint32_t out = ids[n.outputs[0]];
  const float lo = n.output_min, hi = n.output_max;
  const WindowParams& w = n.window;
  switch (n.type) {
    case NodeType::kAdd:
      return Ok(xnn_define_add2(sg, lo, hi, in(0), in(1), out, n.flags));
    case NodeType::kSubtract:
      return Ok(xnn_define_subtract(sg, lo, hi, in(0), in(1), out, n.flags));
    case NodeType::kMultiply:
      return Ok(xnn_define_multiply2(sg, lo, hi, in(0), in(1), out, n.flags));
    case NodeType::kDiv:
      return Ok(xnn_define_divide(sg, lo, hi, in(0), in(1), out, n.flags));
    case NodeType::kMinimum:
      return Ok(xnn_define_minimum2(sg, in(0), in(1), out, n.flags));
    case NodeType::kMaximum:
      return Ok(xnn_define_maximum2(sg, in(0), in(1), out, n.flags));
    case NodeType::kPReLU:
      return Ok(xnn_define_prelu(sg, in(0), in(1), out, n.flags));
    case NodeType::kClamp:
      return Ok(xnn_define_clamp(sg, lo, hi, in(0), out, n.flags));
    case NodeType::kSoftmax:
      return Ok(xnn_define_softmax(sg, in(0), out, n.flags));
    case NodeType::kSigmoid:
      return Ok(xnn_define_sigmoid(sg, in(0), out, n.flags));
    case NodeType::kFloor:
      return Ok(xnn_define_floor(sg, in(0), out, n.flags));
    case NodeType::kCeiling:
      return Ok(xnn_define_ceiling(sg, in(0), out, n.flags));
    case NodeType::kHardswish:
      return Ok(xnn_define_hardswish(sg, in(0), out, n.flags));
    case NodeType::kNegate:
      return Ok(xnn_define_negate(sg, in(0), out, n.flags));
    case NodeType::kSquare:
      return Ok(xnn_define_square(sg, in(0), out, n.flags));
    case NodeType::kSquareRoot:
      return Ok(xnn_define_square_root(sg, in(0), out, n.flags));
    case NodeType::kAbs:
      return Ok(xnn_define_abs(sg, in(0), out, n.flags));
    case NodeType::kConvert:
      return Ok(xnn_define_convert(sg, in(0), out, n.flags));
    case NodeType::kELU:
      return Ok(xnn_define_elu(sg, n.scalar, in(0), out, n.flags));
    case NodeType::kLeakyReLU:
      return Ok(xnn_define_leaky_relu(sg, n.scalar, in(0), out, n.flags));
    case NodeType::kGlobalAvgPooling2d:
      return Ok(xnn_define_global_average_pooling_2d(sg, lo, hi, in(0), out, n.flags));
    case NodeType::kFullyConnected:
      return Ok(xnn_define_fully_connected(sg, lo, hi, in(0), in(1), in(2), out, n.flags));
    case NodeType::kConv2d:
      return Ok(xnn_define_convolution_2d(
          sg, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left, w.kernel_h, w.kernel_w, w.stride_h,
          w.stride_w, w.dilation_h, w.dilation_w, w.groups, w.group_input_channels,
          w.group_output_channels, lo, hi, in(0), in(1), in(2), out, n.flags));
    case NodeType::kDepthwiseConv2d:
      return Ok(xnn_define_depthwise_convolution_2d(
          sg, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left, w.kernel_h, w.kernel_w, w.stride_h,
          w.stride_w, w.dilation_h, w.dilation_w, w.group_output_channels / w.group_input_channels,
          w.groups, lo, hi, in(0), in(1), in(2), out, n.flags));
    case NodeType::kConvTranspose2d:
      return Ok(xnn_define_deconvolution_2d(
          sg, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left, w.adjustment_h, w.adjustment_w,
          w.kernel_h, w.kernel_w, w.stride_h, w.stride_w, w.dilation_h, w.dilation_w, w.groups,
          w.group_input_channels, w.group_output_channels, lo, hi, in(0), in(1), in(2), out,
          n.flags));
    case NodeType::kAvgPooling2d:
      return Ok(xnn_define_average_pooling_2d(sg, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left,
                                              w.kernel_h, w.kernel_w, w.stride_h, w.stride_w, lo,
                                              hi, in(0), out, n.flags));
    case NodeType::kMaxPooling2d:
      return Ok(xnn_define_max_pooling_2d(sg, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left,
                                          w.kernel_h, w.kernel_w, w.stride_h, w.stride_w,
                                          w.dilation_h, w.dilation_w, lo, hi, in(0), out, n.flags));
    case NodeType::kArgMaxPooling2d:
      return Ok(xnn_define_argmax_pooling_2d(sg, w.pad_top, w.pad_right, w.pad_bottom, w.pad_left,
                                             w.kernel_h, w.kernel_w, in(0), out, ids[n.outputs[1]],
                                             n.flags));
    case NodeType::kStaticReshape:
      return Ok(
          xnn_define_static_reshape(sg, out_dims.size(), out_dims.data(), in(0), out, n.flags));
    case NodeType::kStaticConstantPad:
      return Ok(xnn_define_static_constant_pad(sg, n.list_a.data(), n.list_b.data(), n.scalar,
                                               in(0), out, n.flags));
    case NodeType::kStaticResizeBilinear2D:
      return Ok(
          xnn_define_static_resize_bilinear_2d(sg, n.new_height, n.new_width, in(0), out, n.flags));
    default:
      return false;  // not in this XNNPACK's subgraph API
  }
}

bool XnnpackAccepts(const Graph& graph, const Node& node) {
  if (node.activation != FusedActivation::kNone) return false;  // ours only
  // Its operators refuse an empty range (min >= max) when they are created.
  if (!(node.output_min < node.output_max)) return false;
  if (node.type == NodeType::kPReLU) {
    // This XNNPACK copies the slope at runtime creation, one value per
    // channel, without checking that it is static (fuzzing found the read
    // through a null pointer).
    const Value& in = graph.values[node.inputs[0]];
    const Value& slope = graph.values[node.inputs[1]];
    if (!slope.is_constant() || in.dims.empty() || slope.numel() != in.dims.back()) return false;
  }
  uint32_t num_operands = 0;
  for (uint32_t id : node.inputs) num_operands += id != kInvalidId;
  num_operands += static_cast<uint32_t>(node.outputs.size());
  xnn_subgraph_t sg = nullptr;
  if (!Ok(xnn_create_subgraph(num_operands, 0, &sg))) return false;
  std::vector<uint32_t> ids(graph.values.size(), XNN_INVALID_VALUE_ID);
  uint32_t next = 0;
  bool ok = true;
  auto define = [&](uint32_t vid, uint32_t flags) {
    if (vid == kInvalidId || ids[vid] != XNN_INVALID_VALUE_ID || !ok) return;
    const Value& v = graph.values[vid];
    const uint32_t external = v.is_constant() ? XNN_INVALID_VALUE_ID : next++;
    ok = DefineValue(sg, v, v.dims, external, v.is_constant() ? 0 : flags, &ids[vid]);
  };
  for (uint32_t id : node.inputs) define(id, XNN_VALUE_FLAG_EXTERNAL_INPUT);
  for (uint32_t id : node.outputs) define(id, XNN_VALUE_FLAG_EXTERNAL_OUTPUT);
  ok = ok && DefineNode(sg, node, ids, graph.values[node.outputs[0]].dims);
  xnn_delete_subgraph(sg);
  return ok;
}

}  // namespace xnnpack
}  // namespace edgefleet

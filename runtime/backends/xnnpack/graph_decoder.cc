#include "runtime/backends/xnnpack/graph_decoder.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>

#include "runtime/backends/xnnpack/aligned_flatbuffer.h"
#include "runtime/backends/xnnpack/graph_validation.h"
#include "runtime/backends/xnnpack/payload_header.h"
#include "runtime/core/error_detail.h"
#include "xnnpack_graph_generated.h"

namespace edgefleet {
namespace xnnpack {
namespace {

namespace fb = edgefleet_xnn;

constexpr uint64_t kNamedOffset = std::numeric_limits<uint64_t>::max();

// Decoding state: the flatbuffer graph plus where constants come from.
class Decoder {
 public:
  Decoder(const fb::XNNGraph& fb_graph, const PayloadSections& sections,
          const NamedDataMap* named_data, Graph& graph)
      : fb_(fb_graph), sections_(sections), named_data_(named_data), graph_(graph) {}

  Error Run() {
    graph_.num_externs = fb_.num_externs();
    EF_CHECK_OR_RETURN(graph_.num_externs <= kMaxExternals, Error::kInvalidProgram,
                       "xnnpack payload: %u externals (at most %u)", graph_.num_externs,
                       kMaxExternals);
    const auto* values = fb_.xvalues();
    const size_t num_values = values ? values->size() : 0;
    EF_CHECK_OR_RETURN(num_values <= kMaxValues, Error::kInvalidProgram,
                       "xnnpack payload: %zu values (at most %zu)", num_values, kMaxValues);
    graph_.values.resize(num_values);
    std::vector<bool> seen_external(graph_.num_externs, false);
    size_t value_bytes = 0;
    for (size_t i = 0; i < num_values; ++i) {
      EF_RETURN_IF_ERROR(DecodeValue(values->Get(static_cast<uint32_t>(i)), seen_external));
    }
    for (const Value& v : graph_.values) {
      if (v.is_constant()) continue;
      EF_CHECK_OR_RETURN(v.nbytes() <= kMaxValueBytes - value_bytes, Error::kInvalidProgram,
                         "xnnpack payload: non-constant values need more than %zu bytes",
                         kMaxValueBytes);
      value_bytes += v.nbytes();
    }
    const auto* nodes = fb_.xnodes();
    const size_t num_nodes = nodes ? nodes->size() : 0;
    EF_CHECK_OR_RETURN(num_nodes <= kMaxNodes, Error::kInvalidProgram,
                       "xnnpack payload: %zu nodes (at most %zu)", num_nodes, kMaxNodes);
    graph_.nodes.resize(num_nodes);
    for (size_t i = 0; i < num_nodes; ++i) {
      EF_RETURN_IF_ERROR(DecodeNode(*nodes->Get(static_cast<uint32_t>(i)), graph_.nodes[i]));
    }
    return Error::kOk;
  }

 private:
  Error DecodeValue(const fb::XValue* value, std::vector<bool>& seen_external) {
    EF_CHECK_OR_RETURN(value != nullptr, Error::kInvalidProgram, "xnnpack payload: null value");
    const fb::XNNTensorValue* tv = nullptr;
    const fb::XNNQuantizedTensorValue* qv = nullptr;
    switch (value->xvalue_union_type()) {
      case fb::XValueUnion::XNNTensorValue:
        tv = value->xvalue_union_as_XNNTensorValue();
        break;
      case fb::XValueUnion::XNNQuantizedTensorValue:
        qv = value->xvalue_union_as_XNNQuantizedTensorValue();
        tv = qv ? qv->tensor_value() : nullptr;
        break;
      default:
        EF_FAIL(Error::kInvalidProgram, "xnnpack payload: value of unknown kind %d",
                static_cast<int>(value->xvalue_union_type()));
    }
    EF_CHECK_OR_RETURN(tv != nullptr, Error::kInvalidProgram,
                       "xnnpack payload: value without a tensor");
    const uint32_t id = tv->id_out();
    EF_CHECK_OR_RETURN(id < graph_.values.size(), Error::kInvalidProgram,
                       "xnnpack payload: value id %u out of range (%zu values)", id,
                       graph_.values.size());
    Value& v = graph_.values[id];
    EF_CHECK_OR_RETURN(v.id == kInvalidId, Error::kInvalidProgram,
                       "xnnpack payload: value id %u defined twice", id);
    v.id = id;
    const int type = static_cast<int>(tv->datatype());
    EF_CHECK_OR_RETURN(type > 0 && type <= static_cast<int>(DataType::kBf16),
                       Error::kInvalidProgram, "xnnpack payload: value %u has datatype %d", id,
                       type);
    v.type = static_cast<DataType>(type);
    EF_CHECK_OR_RETURN(DataTypeSize(v.type) != 0, Error::kNotSupported,
                       "xnnpack: value %u has datatype %s, which this delegate does not support",
                       id, DataTypeName(v.type));
    const auto* dims = tv->dims();
    const size_t rank = dims ? dims->size() : 0;
    EF_CHECK_OR_RETURN(rank == tv->num_dims() && rank <= kMaxDims, Error::kInvalidProgram,
                       "xnnpack payload: value %u has num_dims %u and %zu dims (rank <= %zu)", id,
                       tv->num_dims(), rank, kMaxDims);
    size_t numel = 1;
    for (size_t d = 0; d < rank; ++d) {
      const size_t extent = dims->Get(static_cast<uint32_t>(d));
      EF_CHECK_OR_RETURN(extent == 0 || numel <= (size_t{1} << 40) / extent, Error::kInvalidProgram,
                         "xnnpack payload: value %u is too large", id);
      numel *= extent;
      v.dims.push_back(extent);
    }
    v.flags = tv->flags();
    EF_CHECK_OR_RETURN((v.flags & ~(kFlagExternalInput | kFlagExternalOutput)) == 0,
                       Error::kInvalidProgram, "xnnpack payload: value %u has flags 0x%x", id,
                       v.flags);
    v.external_id = tv->external_id();
    if (v.external_id != kInvalidId) {
      EF_CHECK_OR_RETURN(v.external_id < graph_.num_externs, Error::kInvalidProgram,
                         "xnnpack payload: value %u has external id %u (num_externs %u)", id,
                         v.external_id, graph_.num_externs);
      EF_CHECK_OR_RETURN(!seen_external[v.external_id], Error::kInvalidProgram,
                         "xnnpack payload: external id %u used twice", v.external_id);
      EF_CHECK_OR_RETURN(v.flags != 0, Error::kInvalidProgram,
                         "xnnpack payload: external value %u is neither input nor output", id);
      seen_external[v.external_id] = true;
    } else {
      EF_CHECK_OR_RETURN(v.flags == 0, Error::kInvalidProgram,
                         "xnnpack payload: value %u is flagged external without an external id",
                         id);
    }
    const int dq = static_cast<int>(tv->dq_datatype());
    EF_CHECK_OR_RETURN(dq == 0 || dq == static_cast<int>(DataType::kQint8), Error::kNotSupported,
                       "xnnpack: value %u asks for dynamic quantization to datatype %d", id, dq);
    v.dq_datatype = static_cast<DataType>(dq);
    if (qv != nullptr) EF_RETURN_IF_ERROR(DecodeQuant(*qv, v));
    if (tv->constant_buffer_idx() != 0) {
      EF_CHECK_OR_RETURN(v.external_id == kInvalidId, Error::kInvalidProgram,
                         "xnnpack payload: external value %u is constant", id);
      // A dynamically quantized value is quantized at run time: its buffer
      // carries per-token parameters after the data, which no constant has.
      EF_CHECK_OR_RETURN(v.type != DataType::kQdint8, Error::kInvalidProgram,
                         "xnnpack payload: value %u is dynamically quantized (qdint8) and constant",
                         id);
      size_t size = 0;
      EF_ASSIGN_OR_RETURN(v.data, Constant(tv->constant_buffer_idx(), &size));
      EF_CHECK_OR_RETURN(size >= v.nbytes(), Error::kInvalidProgram,
                         "xnnpack payload: constant of value %u has %zu bytes, needs %zu", id, size,
                         v.nbytes());
    }
    return Error::kOk;
  }

  Error DecodeQuant(const fb::XNNQuantizedTensorValue& qv, Value& v) {
    switch (qv.quant_params_type()) {
      case fb::XNNQuantParams::PerTensorQuant: {
        const auto* q = qv.quant_params_as_PerTensorQuant();
        EF_CHECK_OR_RETURN(q != nullptr, Error::kInvalidProgram, "xnnpack payload: null quant");
        v.quant = QuantKind::kPerTensor;
        v.scale = q->scale();
        v.zero_point = q->zero_point();
        EF_CHECK_OR_RETURN(std::isfinite(v.scale) && v.scale > 0, Error::kInvalidProgram,
                           "xnnpack payload: value %u has scale %g", v.id,
                           static_cast<double>(v.scale));
        const bool int8 = v.type == DataType::kQint8;
        const bool uint8 = v.type == DataType::kQuint8;
        EF_CHECK_OR_RETURN(int8 || uint8 || v.type == DataType::kQint32, Error::kInvalidProgram,
                           "xnnpack payload: per-tensor quantization on a %s value %u",
                           DataTypeName(v.type), v.id);
        EF_CHECK_OR_RETURN((!int8 || (v.zero_point >= -128 && v.zero_point <= 127)) &&
                               (!uint8 || (v.zero_point >= 0 && v.zero_point <= 255)) &&
                               (int8 || uint8 || v.zero_point == 0),
                           Error::kInvalidProgram,
                           "xnnpack payload: value %u has zero point %d for %s", v.id, v.zero_point,
                           DataTypeName(v.type));
        return Error::kOk;
      }
      case fb::XNNQuantParams::PerChannelQuant: {
        const auto* q = qv.quant_params_as_PerChannelQuant();
        EF_CHECK_OR_RETURN(q != nullptr, Error::kInvalidProgram, "xnnpack payload: null quant");
        EF_CHECK_OR_RETURN(v.type == DataType::kQcint8 || v.type == DataType::kQcint32,
                           Error::kInvalidProgram,
                           "xnnpack payload: per-channel quantization on a %s value %u",
                           DataTypeName(v.type), v.id);
        EF_CHECK_OR_RETURN(
            q->channel_dim() >= 0 && static_cast<size_t>(q->channel_dim()) < v.dims.size(),
            Error::kInvalidProgram, "xnnpack payload: value %u has channel dim %d (rank %zu)", v.id,
            q->channel_dim(), v.dims.size());
        v.quant = QuantKind::kPerChannel;
        v.channel_dim = static_cast<uint32_t>(q->channel_dim());
        const size_t channels = v.dims[v.channel_dim];
        if (q->scale() != nullptr && q->scale()->size() > 0) {
          v.channel_scales.assign(q->scale()->begin(), q->scale()->end());
        } else if (q->scale_buffer_idx() != 0) {
          size_t size = 0;
          EF_ASSIGN_OR_RETURN(const void* data, Constant(q->scale_buffer_idx(), &size));
          EF_CHECK_OR_RETURN(q->num_scales() == channels && size >= channels * sizeof(float),
                             Error::kInvalidProgram,
                             "xnnpack payload: value %u: %u scales in %zu bytes for %zu channels",
                             v.id, q->num_scales(), size, channels);
          v.channel_scales.resize(channels);
          if (channels > 0) std::memcpy(v.channel_scales.data(), data, channels * sizeof(float));
        }
        EF_CHECK_OR_RETURN(v.channel_scales.size() == channels, Error::kInvalidProgram,
                           "xnnpack payload: value %u has %zu scales for %zu channels", v.id,
                           v.channel_scales.size(), channels);
        EF_CHECK_OR_RETURN(channels > 0, Error::kInvalidProgram,
                           "xnnpack payload: value %u is quantized per channel over an empty "
                           "dim %u",
                           v.id, v.channel_dim);
        for (float s : v.channel_scales) {
          EF_CHECK_OR_RETURN(std::isfinite(s) && s > 0, Error::kInvalidProgram,
                             "xnnpack payload: value %u has a scale of %g", v.id,
                             static_cast<double>(s));
        }
        return Error::kOk;
      }
      case fb::XNNQuantParams::PerTokenDynamicQuant: {
        const auto* q = qv.quant_params_as_PerTokenDynamicQuant();
        EF_CHECK_OR_RETURN(q != nullptr && v.type == DataType::kQdint8, Error::kInvalidProgram,
                           "xnnpack payload: per-token quantization on a %s value %u",
                           DataTypeName(v.type), v.id);
        EF_CHECK_OR_RETURN(q->num_nonbatch_dims() >= 0 &&
                               static_cast<size_t>(q->num_nonbatch_dims()) <= v.dims.size(),
                           Error::kInvalidProgram,
                           "xnnpack payload: value %u has %d non-batch dims (rank %zu)", v.id,
                           q->num_nonbatch_dims(), v.dims.size());
        v.quant = QuantKind::kPerToken;
        v.num_nonbatch_dims = q->num_nonbatch_dims();
        return Error::kOk;
      }
      case fb::XNNQuantParams::PerChannelGroupQuant:
        EF_FAIL(Error::kNotSupported,
                "xnnpack: value %u uses per-channel-group (4-bit) weights, not supported", v.id);
      default:
        EF_FAIL(Error::kInvalidProgram, "xnnpack payload: value %u has no quantization params",
                v.id);
    }
  }

  // The bytes of constant `index`; `size` receives their length.
  Result<const void*> Constant(uint32_t index, size_t* size) {
    if (!sections_.has_header) {
      const auto* buffers = fb_.constant_buffer();
      EF_CHECK_OR_RETURN(buffers != nullptr && index < buffers->size(), Error::kInvalidProgram,
                         "xnnpack payload: constant buffer %u out of range", index);
      const auto* storage = buffers->Get(index)->storage();
      EF_CHECK_OR_RETURN(storage != nullptr, Error::kInvalidProgram,
                         "xnnpack payload: constant buffer %u is empty", index);
      return Own(storage->data(), storage->size(), size);
    }
    const auto* table = fb_.constant_data();
    EF_CHECK_OR_RETURN(table != nullptr && index < table->size(), Error::kInvalidProgram,
                       "xnnpack payload: constant data %u out of range (%u entries)", index,
                       table ? table->size() : 0u);
    const auto* entry = table->Get(index);
    EF_CHECK_OR_RETURN(entry != nullptr, Error::kInvalidProgram,
                       "xnnpack payload: null constant data %u", index);
    const auto* key = entry->named_key();
    if (key != nullptr && key->size() > 0) {
      EF_CHECK_OR_RETURN(entry->offset() == kNamedOffset, Error::kInvalidProgram,
                         "xnnpack payload: constant %u has both a key and an offset", index);
      return Named(key->str(), entry->size(), size);
    }
    const uint64_t offset = entry->offset();
    const uint64_t length = entry->size();
    EF_CHECK_OR_RETURN(
        length <= sections_.constant_data_size && offset <= sections_.constant_data_size - length,
        Error::kInvalidProgram,
        "xnnpack payload: constant %u [%llu, +%llu) outside the %zu-byte region", index,
        static_cast<unsigned long long>(offset), static_cast<unsigned long long>(length),
        sections_.constant_data_size);
    return Own(sections_.constant_data + offset, static_cast<size_t>(length), size);
  }

  Result<const void*> Named(const std::string& key, uint64_t declared, size_t* size) {
    auto it = named_index_.find(key);
    if (it == named_index_.end()) {
      EF_CHECK_OR_RETURN(named_data_ != nullptr, Error::kNotFound,
                         "xnnpack: constant '%.64s' needs the program's named data", key.c_str());
      Result<FreeableBuffer> buffer = named_data_->GetData(key.c_str());
      EF_CHECK_OR_RETURN(buffer.ok(), Error::kInvalidProgram,
                         "xnnpack payload: named constant '%.64s' not in the program", key.c_str());
      graph_.constant_bytes += buffer.get().size();
      graph_.named_buffers.push_back(std::move(buffer.get()));
      it = named_index_.emplace(key, graph_.named_buffers.size() - 1).first;
    }
    const FreeableBuffer& buffer = graph_.named_buffers[it->second];
    EF_CHECK_OR_RETURN(declared <= buffer.size(), Error::kInvalidProgram,
                       "xnnpack payload: named constant '%.64s' has %zu bytes, declared %llu",
                       key.c_str(), buffer.size(), static_cast<unsigned long long>(declared));
    *size = buffer.size();
    return buffer.data();
  }

  // Copies payload bytes so the payload can be freed (16-byte aligned).
  Result<const void*> Own(const uint8_t* data, size_t length, size_t* size) {
    std::unique_ptr<uint8_t[]> copy(new uint8_t[length + 1]);  // new[] aligns to 16
    std::memcpy(copy.get(), data, length);
    graph_.constant_bytes += length;
    graph_.owned_constant_bytes += length;
    *size = length;
    graph_.owned_constants.push_back(std::move(copy));
    return static_cast<const void*>(graph_.owned_constants.back().get());
  }

  Error Id(uint32_t id, bool optional, std::vector<uint32_t>& out) {
    if (optional && id == kInvalidId) {
      out.push_back(id);
      return Error::kOk;
    }
    EF_CHECK_OR_RETURN(id < graph_.values.size() && graph_.values[id].id == id,
                       Error::kInvalidProgram, "xnnpack payload: node refers to value id %u", id);
    out.push_back(id);
    return Error::kOk;
  }

  // The single input, single output and flags of a one-input node table.
  template <typename T>
  Error InOut(const T& t, Node& n) {
    EF_RETURN_IF_ERROR(Id(t.input_id(), false, n.inputs));
    EF_RETURN_IF_ERROR(Id(t.output_id(), false, n.outputs));
    n.flags = t.flags();
    return Error::kOk;
  }

  template <typename T>
  static void Window(const T& t, WindowParams& w) {
    w.pad_top = t.padding_top();
    w.pad_right = t.padding_right();
    w.pad_bottom = t.padding_bottom();
    w.pad_left = t.padding_left();
  }

  static Error List(const flatbuffers::Vector<uint32_t>* list, std::vector<size_t>& out) {
    EF_CHECK_OR_RETURN(list != nullptr && list->size() <= kMaxDims, Error::kInvalidProgram,
                       "xnnpack payload: node list missing or longer than %zu", kMaxDims);
    out.assign(list->begin(), list->end());
    return Error::kOk;
  }

  Error DecodeNode(const fb::XNode& x, Node& n) {
    const int tag = static_cast<int>(x.xnode_union_type());
    EF_CHECK_OR_RETURN(tag > 0 && tag <= static_cast<int>(NodeType::kLast), Error::kNotSupported,
                       "xnnpack: node type %d is not supported", tag);
    n.type = static_cast<NodeType>(tag);
    n.debug_handle = x.debug_handle();
    if (const auto* mm = x.output_min_max()) {
      n.output_min = mm->output_min();
      n.output_max = mm->output_max();
      // min > max is PyTorch's clamp(x, min, max) with min above max: every
      // element becomes max (min(max(x, lo), hi)).
      EF_CHECK_OR_RETURN(!std::isnan(n.output_min) && !std::isnan(n.output_max),
                         Error::kInvalidProgram, "xnnpack payload: node output range [%g, %g]",
                         static_cast<double>(n.output_min), static_cast<double>(n.output_max));
    }
    const void* body = x.xnode_union();
    EF_CHECK_OR_RETURN(body != nullptr, Error::kInvalidProgram,
                       "xnnpack payload: %s node without a body", NodeTypeName(n.type));
    switch (n.type) {
      case NodeType::kAdd:
      case NodeType::kDiv:
      case NodeType::kMinimum:
      case NodeType::kMaximum:
      case NodeType::kMultiply:
      case NodeType::kSubtract:
      case NodeType::kPReLU:
      case NodeType::kBatchMatrixMultiply: {
        const auto* t = static_cast<const fb::_XNNNode2x1*>(body);
        EF_RETURN_IF_ERROR(Id(t->input1_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->input2_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->output_id(), false, n.outputs));
        n.flags = t->flags();
        break;
      }
      case NodeType::kSoftmax:
      case NodeType::kSigmoid:
      case NodeType::kClamp:
      case NodeType::kFloor:
      case NodeType::kConvert:
      case NodeType::kGlobalAvgPooling2d:
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
      case NodeType::kCos: {
        const auto* t = static_cast<const fb::_XNNNode1x1*>(body);
        EF_RETURN_IF_ERROR(InOut(*t, n));
        break;
      }
      case NodeType::kFullyConnected: {
        const auto* t = static_cast<const fb::XNNFullyConnected*>(body);
        EF_RETURN_IF_ERROR(Id(t->input1_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->filter_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->bias_id(), true, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->output_id(), false, n.outputs));
        n.flags = t->flags();
        break;
      }
      case NodeType::kConv2d:
      case NodeType::kDepthwiseConv2d:
      case NodeType::kConvTranspose2d: {
        const auto* t = static_cast<const fb::_XNNNodeConv*>(body);
        Window(*t, n.window);
        n.window.kernel_h = t->kernel_height();
        n.window.kernel_w = t->kernel_width();
        n.window.stride_h = t->subsampling_height();
        n.window.stride_w = t->subsampling_width();
        n.window.dilation_h = t->dilation_height();
        n.window.dilation_w = t->dilation_width();
        n.window.group_input_channels = t->group_input_channels();
        n.window.group_output_channels = t->group_output_channels();
        n.window.groups = t->groups();
        n.window.adjustment_h = t->adjustment_height();
        n.window.adjustment_w = t->adjustment_width();
        EF_RETURN_IF_ERROR(Id(t->input1_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->filter_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->bias_id(), true, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->output_id(), false, n.outputs));
        n.flags = t->flags();
        break;
      }
      case NodeType::kAvgPooling2d:
      case NodeType::kMaxPooling2d: {
        const auto* t = static_cast<const fb::_XNNPooling2D*>(body);
        Window(*t, n.window);
        n.window.kernel_h = t->pooling_height();
        n.window.kernel_w = t->pooling_width();
        n.window.stride_h = t->stride_height();
        n.window.stride_w = t->stride_width();
        n.window.dilation_h = t->dilation_height();
        n.window.dilation_w = t->dilation_width();
        EF_RETURN_IF_ERROR(InOut(*t, n));
        break;
      }
      case NodeType::kArgMaxPooling2d: {
        const auto* t = static_cast<const fb::XNNArgMaxPooling2d*>(body);
        Window(*t, n.window);
        n.window.kernel_h = t->pooling_height();
        n.window.kernel_w = t->pooling_width();
        n.window.stride_h = t->pooling_height();
        n.window.stride_w = t->pooling_width();
        EF_RETURN_IF_ERROR(Id(t->input_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->output_value_id(), false, n.outputs));
        EF_RETURN_IF_ERROR(Id(t->output_index_id(), false, n.outputs));
        n.flags = t->flags();
        break;
      }
      case NodeType::kStaticTranspose: {
        const auto* t = static_cast<const fb::XNNStaticTranspose*>(body);
        EF_RETURN_IF_ERROR(List(t->perm(), n.list_a));
        EF_CHECK_OR_RETURN(n.list_a.size() == t->num_dims(), Error::kInvalidProgram,
                           "xnnpack payload: transpose num_dims %u, perm of %zu", t->num_dims(),
                           n.list_a.size());
        EF_RETURN_IF_ERROR(InOut(*t, n));
        break;
      }
      case NodeType::kStaticReshape: {
        const auto* t = static_cast<const fb::XNNStaticReshape*>(body);
        EF_RETURN_IF_ERROR(List(t->new_shape(), n.list_a));
        EF_CHECK_OR_RETURN(n.list_a.size() == t->num_dims(), Error::kInvalidProgram,
                           "xnnpack payload: reshape num_dims %u, shape of %zu", t->num_dims(),
                           n.list_a.size());
        EF_RETURN_IF_ERROR(InOut(*t, n));
        break;
      }
      case NodeType::kStaticSlice: {
        const auto* t = static_cast<const fb::XNNStaticSlice*>(body);
        EF_RETURN_IF_ERROR(List(t->offsets(), n.list_a));
        EF_RETURN_IF_ERROR(List(t->sizes(), n.list_b));
        EF_CHECK_OR_RETURN(n.list_a.size() == t->num_dims() && n.list_b.size() == t->num_dims(),
                           Error::kInvalidProgram, "xnnpack payload: slice num_dims %u",
                           t->num_dims());
        EF_RETURN_IF_ERROR(InOut(*t, n));
        break;
      }
      case NodeType::kStaticConstantPad: {
        const auto* t = static_cast<const fb::XNNStaticConstantPad*>(body);
        EF_RETURN_IF_ERROR(List(t->pre_paddings(), n.list_a));
        EF_RETURN_IF_ERROR(List(t->post_paddings(), n.list_b));
        n.scalar = t->padding_value();
        EF_RETURN_IF_ERROR(InOut(*t, n));
        break;
      }
      case NodeType::kStaticResizeBilinear2D: {
        const auto* t = static_cast<const fb::XNNStaticResizeBilinear2D*>(body);
        n.new_height = t->new_height();
        n.new_width = t->new_width();
        EF_RETURN_IF_ERROR(InOut(*t, n));
        break;
      }
      case NodeType::kELU: {
        const auto* t = static_cast<const fb::XNNELU*>(body);
        n.scalar = t->alpha();
        EF_RETURN_IF_ERROR(InOut(*t, n));
        break;
      }
      case NodeType::kLeakyReLU: {
        const auto* t = static_cast<const fb::XNNLeakyReLU*>(body);
        n.scalar = t->negative_slope();
        EF_RETURN_IF_ERROR(InOut(*t, n));
        break;
      }
      case NodeType::kConcatenate2:
      case NodeType::kConcatenate3:
      case NodeType::kConcatenate4:
      case NodeType::kConcatenate5: {
        const auto* t = static_cast<const fb::_XNNCat*>(body);
        const int count =
            n.type == NodeType::kConcatenate5
                ? 5
                : static_cast<int>(n.type) - static_cast<int>(NodeType::kConcatenate2) + 2;
        const uint32_t ids[5] = {t->input1_id(), t->input2_id(), t->input3_id(), t->input4_id(),
                                 t->input5_id()};
        for (int i = 0; i < count; ++i) EF_RETURN_IF_ERROR(Id(ids[i], false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->output_id(), false, n.outputs));
        n.axis = t->axis();
        n.flags = t->flags();
        break;
      }
      case NodeType::kScaledDotProductAttention: {
        const auto* t = static_cast<const fb::XNNScaledDotProductAttention*>(body);
        EF_RETURN_IF_ERROR(Id(t->query_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->key_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->value_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->scale_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->mask_id(), false, n.inputs));
        EF_RETURN_IF_ERROR(Id(t->output_id(), false, n.outputs));
        n.flags = t->flags();
        break;
      }
      case NodeType::kNone:
        EF_FAIL(Error::kInvalidProgram, "xnnpack payload: empty node");
    }
    return Error::kOk;
  }

  const fb::XNNGraph& fb_;
  const PayloadSections& sections_;
  const NamedDataMap* named_data_;
  Graph& graph_;
  std::unordered_map<std::string, size_t> named_index_;
};

}  // namespace

Result<std::unique_ptr<Graph>> DecodeGraph(const void* payload, size_t size,
                                           const NamedDataMap* named_data) {
  EF_ASSIGN_OR_RETURN(const PayloadSections sections, ParsePayload(payload, size));
  EF_CHECK_OR_RETURN(sections.flatbuffer_size >= 8, Error::kInvalidProgram,
                     "xnnpack payload: %zu-byte flatbuffer is too small", sections.flatbuffer_size);
  EF_CHECK_OR_RETURN(flatbuffers::BufferHasIdentifier(sections.flatbuffer, "XN00") ||
                         flatbuffers::BufferHasIdentifier(sections.flatbuffer, "XN01"),
                     Error::kDelegateInvalidCompatibility,
                     "xnnpack payload: flatbuffer identifier '%.4s' is neither XN00 nor XN01",
                     reinterpret_cast<const char*>(sections.flatbuffer) + 4);
  flatbuffers::Verifier::Options options;
  options.max_depth = 16;
  options.max_tables = 4'000'000;
  const AlignedFlatbuffer flatbuffer(sections.flatbuffer, sections.flatbuffer_size);
  flatbuffers::Verifier verifier(flatbuffer.data(), flatbuffer.size(), options);
  EF_CHECK_OR_RETURN(verifier.VerifyBuffer<edgefleet_xnn::XNNGraph>(nullptr),
                     Error::kInvalidProgram, "xnnpack payload: flatbuffer verification failed");
  const auto* fb_graph = edgefleet_xnn::GetXNNGraph(flatbuffer.data());
  auto graph = std::make_unique<Graph>();
  Decoder decoder(*fb_graph, sections, named_data, *graph);
  EF_RETURN_IF_ERROR(decoder.Run());
  EF_RETURN_IF_ERROR(ValidateGraph(*graph));
  return graph;
}

}  // namespace xnnpack
}  // namespace edgefleet

#include "fuzz/xnnpack_payload_mutator.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>

#include "runtime/backends/xnnpack/aligned_flatbuffer.h"
#include "runtime/backends/xnnpack/payload_header.h"
#include "xnnpack_graph_generated.h"

namespace edgefleet {
namespace fuzz {
namespace {

namespace fb = edgefleet_xnn;

// Node types sharing one table layout: a node may change type within its
// group (the object API deletes union members by type).
const std::vector<std::vector<int>>& LayoutGroups() {
  static const std::vector<std::vector<int>> groups = {
      {1, 8, 12, 15, 16, 26, 31, 37},                                                 // _XNNNode2x1
      {3, 4, 6, 17, 18, 19, 22, 23, 24, 27, 28, 30, 40, 41, 42, 43, 44, 45, 46, 47},  // 1x1
      {7, 13, 39},       // _XNNNodeConv
      {11, 14},          // _XNNPooling2D
      {32, 33, 34, 38},  // _XNNCat
  };
  return groups;
}

// Pointers to a node's editable fields.
struct NodeFields {
  std::vector<uint32_t*> ids;     // value ids
  std::vector<uint32_t*> params;  // sizes, strides, axes, flags
  std::vector<std::vector<uint32_t>*> lists;
  std::vector<float*> floats;
};

NodeFields FieldsOf(fb::XNodeT& node) {
  NodeFields f;
  void* body = node.xnode_union.value;
  if (body == nullptr) return f;
  const int type = static_cast<int>(node.xnode_union.type);
  auto group = [&](int g) {
    for (int t : LayoutGroups()[g]) {
      if (t == type) return true;
    }
    return false;
  };
  if (group(0)) {
    auto* t = static_cast<fb::_XNNNode2x1T*>(body);
    f.ids = {&t->input1_id, &t->input2_id, &t->output_id};
    f.params = {&t->flags};
  } else if (group(1)) {
    auto* t = static_cast<fb::_XNNNode1x1T*>(body);
    f.ids = {&t->input_id, &t->output_id};
    f.params = {&t->flags};
  } else if (group(2)) {
    auto* t = static_cast<fb::_XNNNodeConvT*>(body);
    f.ids = {&t->input1_id, &t->filter_id, &t->bias_id, &t->output_id};
    f.params = {&t->padding_top,
                &t->padding_right,
                &t->padding_bottom,
                &t->padding_left,
                &t->kernel_height,
                &t->kernel_width,
                &t->subsampling_height,
                &t->subsampling_width,
                &t->dilation_height,
                &t->dilation_width,
                &t->group_input_channels,
                &t->group_output_channels,
                &t->groups,
                &t->adjustment_height,
                &t->adjustment_width,
                &t->flags};
  } else if (group(3)) {
    auto* t = static_cast<fb::_XNNPooling2DT*>(body);
    f.ids = {&t->input_id, &t->output_id};
    f.params = {&t->padding_top,     &t->padding_right,  &t->padding_bottom, &t->padding_left,
                &t->pooling_height,  &t->pooling_width,  &t->stride_height,  &t->stride_width,
                &t->dilation_height, &t->dilation_width, &t->flags};
  } else if (group(4)) {
    auto* t = static_cast<fb::_XNNCatT*>(body);
    f.ids = {&t->input1_id, &t->input2_id, &t->input3_id,
             &t->input4_id, &t->input5_id, &t->output_id};
    f.params = {&t->axis, &t->flags};
  } else {
    switch (node.xnode_union.type) {
      case fb::XNodeUnion::XNNFullyConnected: {
        auto* t = static_cast<fb::XNNFullyConnectedT*>(body);
        f.ids = {&t->input1_id, &t->filter_id, &t->bias_id, &t->output_id};
        f.params = {&t->flags};
        break;
      }
      case fb::XNodeUnion::XNNStaticTranspose: {
        auto* t = static_cast<fb::XNNStaticTransposeT*>(body);
        f.ids = {&t->input_id, &t->output_id};
        f.params = {&t->num_dims, &t->flags};
        f.lists = {&t->perm};
        break;
      }
      case fb::XNodeUnion::XNNStaticReshape: {
        auto* t = static_cast<fb::XNNStaticReshapeT*>(body);
        f.ids = {&t->input_id, &t->output_id};
        f.params = {&t->num_dims, &t->flags};
        f.lists = {&t->new_shape};
        break;
      }
      case fb::XNodeUnion::XNNStaticSlice: {
        auto* t = static_cast<fb::XNNStaticSliceT*>(body);
        f.ids = {&t->input_id, &t->output_id};
        f.params = {&t->num_dims, &t->flags};
        f.lists = {&t->offsets, &t->sizes};
        break;
      }
      case fb::XNodeUnion::XNNStaticConstantPad: {
        auto* t = static_cast<fb::XNNStaticConstantPadT*>(body);
        f.ids = {&t->input_id, &t->output_id};
        f.params = {&t->flags};
        f.lists = {&t->pre_paddings, &t->post_paddings};
        f.floats = {&t->padding_value};
        break;
      }
      case fb::XNodeUnion::XNNStaticResizeBilinear2D: {
        auto* t = static_cast<fb::XNNStaticResizeBilinear2DT*>(body);
        f.ids = {&t->input_id, &t->output_id};
        f.params = {&t->new_height, &t->new_width, &t->flags};
        break;
      }
      case fb::XNodeUnion::XNNArgMaxPooling2d: {
        auto* t = static_cast<fb::XNNArgMaxPooling2dT*>(body);
        f.ids = {&t->input_id, &t->output_value_id, &t->output_index_id};
        f.params = {&t->padding_top,    &t->padding_right, &t->padding_bottom, &t->padding_left,
                    &t->pooling_height, &t->pooling_width, &t->flags};
        break;
      }
      case fb::XNodeUnion::XNNELU: {
        auto* t = static_cast<fb::XNNELUT*>(body);
        f.ids = {&t->input_id, &t->output_id};
        f.params = {&t->flags};
        f.floats = {&t->alpha};
        break;
      }
      case fb::XNodeUnion::XNNLeakyReLU: {
        auto* t = static_cast<fb::XNNLeakyReLUT*>(body);
        f.ids = {&t->input_id, &t->output_id};
        f.params = {&t->flags};
        f.floats = {&t->negative_slope};
        break;
      }
      case fb::XNodeUnion::XNNScaledDotProductAttention: {
        auto* t = static_cast<fb::XNNScaledDotProductAttentionT*>(body);
        f.ids = {&t->query_id, &t->key_id, &t->value_id, &t->scale_id, &t->mask_id, &t->output_id};
        f.params = {&t->flags};
        break;
      }
      default:
        break;
    }
  }
  return f;
}

class Editor {
 public:
  Editor(fb::XNNGraphT& g, MutationRng& rng) : g_(g), rng_(rng) {}

  const char* Edit() {
    switch (rng_() % 10) {
      case 0:
      case 1:
      case 2:
        return EditValue();
      case 3:
        return EditQuant();
      case 4:
      case 5:
      case 6:
        return EditNodeField();
      case 7:
        return EditNodeShape();
      case 8:
        return EditConstantTable();
      default:
        return EditGraph();
    }
  }

 private:
  size_t Pick(size_t n) { return n == 0 ? 0 : rng_() % n; }

  // A uint32 biased towards what matters: existing ids, neighbours of the
  // old value, boundaries and small numbers.
  uint32_t Interesting(uint32_t old) {
    const uint32_t n = static_cast<uint32_t>(g_.xvalues.size());
    switch (rng_() % 9) {
      case 0:
        return static_cast<uint32_t>(Pick(n + 1));
      case 1:
        return old + 1;
      case 2:
        return old - 1;
      case 3:
        return 0;
      case 4:
        return std::numeric_limits<uint32_t>::max();
      case 5:
        return n;
      case 6:
        return old * 2;
      case 7:
        return 1u << (rng_() % 32);
      default:
        return static_cast<uint32_t>(rng_() % 8);
    }
  }

  float InterestingFloat() {
    static const float values[] = {0.0f,
                                   -0.0f,
                                   -1.0f,
                                   1e-30f,
                                   1e30f,
                                   std::numeric_limits<float>::quiet_NaN(),
                                   std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity(),
                                   std::numeric_limits<float>::denorm_min(),
                                   0.5f};
    return values[Pick(sizeof(values) / sizeof(values[0]))];
  }

  fb::XNNTensorValueT* Tensor(size_t i) {
    auto& u = g_.xvalues[i]->xvalue_union;
    if (auto* q = u.AsXNNQuantizedTensorValue()) return q->tensor_value.get();
    return u.AsXNNTensorValue();
  }

  void EditList(std::vector<uint32_t>& list) {
    switch (rng_() % 5) {
      case 0:
        list.push_back(Interesting(0));
        break;
      case 1:
        if (!list.empty()) list.pop_back();
        break;
      case 2:
        if (list.size() >= 2) std::swap(list[Pick(list.size())], list[Pick(list.size())]);
        break;
      default:
        if (!list.empty()) {
          uint32_t& x = list[Pick(list.size())];
          x = Interesting(x);
        }
    }
  }

  const char* EditValue() {
    if (g_.xvalues.empty()) return EditGraph();
    fb::XNNTensorValueT* t = Tensor(Pick(g_.xvalues.size()));
    if (t == nullptr) return "value.none";
    switch (rng_() % 9) {
      case 0:
        t->id_out = Interesting(t->id_out);
        return "value.id_out";
      case 1:
        t->datatype = static_cast<fb::XNNDatatype>(rng_() % 16);
        return "value.datatype";
      case 2:
        EditList(t->dims);
        if (rng_() % 2) t->num_dims = static_cast<uint32_t>(t->dims.size());
        return "value.dims";
      case 3:
        t->num_dims = Interesting(t->num_dims);
        return "value.num_dims";
      case 4:
        t->constant_buffer_idx = Interesting(t->constant_buffer_idx);
        return "value.constant_buffer_idx";
      case 5:
        t->external_id = Interesting(t->external_id);
        return "value.external_id";
      case 6:
        t->flags = static_cast<uint32_t>(rng_() % 4);
        return "value.flags";
      case 7:
        t->dq_datatype = static_cast<fb::XNNDatatype>(rng_() % 16);
        return "value.dq_datatype";
      default: {
        // Move the value to another slot (ids stay): values out of order.
        const size_t a = Pick(g_.xvalues.size()), b = Pick(g_.xvalues.size());
        std::swap(g_.xvalues[a], g_.xvalues[b]);
        return "value.order";
      }
    }
  }

  const char* EditQuant() {
    if (g_.xvalues.empty()) return EditGraph();
    auto& u = g_.xvalues[Pick(g_.xvalues.size())]->xvalue_union;
    auto* q = u.AsXNNQuantizedTensorValue();
    if (q == nullptr) {
      // Quantize a plain value.
      auto* t = u.AsXNNTensorValue();
      if (t == nullptr) return "quant.none";
      auto nq = std::make_unique<fb::XNNQuantizedTensorValueT>();
      nq->tensor_value = std::make_unique<fb::XNNTensorValueT>(*t);
      if (rng_() % 2) {
        fb::PerTensorQuantT p;
        p.scale = rng_() % 2 ? 0.05f : InterestingFloat();
        p.zero_point = static_cast<int32_t>(Interesting(0));
        nq->quant_params.Set(std::move(p));
        nq->tensor_value->datatype = fb::XNNDatatype::xnn_datatype_qint8;
      } else {
        fb::PerChannelQuantT p;
        p.channel_dim = static_cast<int32_t>(rng_() % 4);
        const size_t c =
            t->dims.size() > static_cast<size_t>(p.channel_dim) ? t->dims[p.channel_dim] : 1;
        p.scale.assign(std::min<size_t>(c, 4096), 0.01f);
        nq->quant_params.Set(std::move(p));
        nq->tensor_value->datatype = fb::XNNDatatype::xnn_datatype_qcint8;
      }
      u.Reset();
      u.type = fb::XValueUnion::XNNQuantizedTensorValue;
      u.value = nq.release();
      return "quant.add";
    }
    if (auto* p = q->quant_params.AsPerChannelQuant()) {
      switch (rng_() % 5) {
        case 0:
          p->scale.resize(Interesting(static_cast<uint32_t>(p->scale.size())) % 8192, 0.01f);
          return "quant.scale_count";
        case 1:
          if (!p->scale.empty()) p->scale[Pick(p->scale.size())] = InterestingFloat();
          return "quant.scale";
        case 2:
          p->channel_dim = static_cast<int32_t>(Interesting(p->channel_dim));
          return "quant.channel_dim";
        case 3:
          p->scale.clear();
          p->scale_buffer_idx = Interesting(p->scale_buffer_idx);
          p->num_scales = Interesting(p->num_scales);
          return "quant.scale_buffer";
        default:
          p->num_scales = Interesting(p->num_scales);
          return "quant.num_scales";
      }
    }
    if (auto* p = q->quant_params.AsPerTensorQuant()) {
      if (rng_() % 2) {
        p->scale = InterestingFloat();
        return "quant.tensor_scale";
      }
      p->zero_point = static_cast<int32_t>(Interesting(static_cast<uint32_t>(p->zero_point)));
      return "quant.zero_point";
    }
    if (auto* p = q->quant_params.AsPerTokenDynamicQuant()) {
      p->num_nonbatch_dims = static_cast<int32_t>(Interesting(p->num_nonbatch_dims));
      return "quant.num_nonbatch_dims";
    }
    q->quant_params.Reset();
    return "quant.drop";
  }

  const char* EditNodeField() {
    if (g_.xnodes.empty()) return EditGraph();
    fb::XNodeT& node = *g_.xnodes[Pick(g_.xnodes.size())];
    NodeFields f = FieldsOf(node);
    switch (rng_() % 5) {
      case 0:
      case 1:
        if (!f.ids.empty()) {
          uint32_t& id = *f.ids[Pick(f.ids.size())];
          id = Interesting(id);
          return "node.id";
        }
        [[fallthrough]];
      case 2:
        if (!f.params.empty()) {
          uint32_t& p = *f.params[Pick(f.params.size())];
          p = Interesting(p);
          return "node.param";
        }
        [[fallthrough]];
      case 3:
        if (!f.lists.empty()) {
          EditList(*f.lists[Pick(f.lists.size())]);
          return "node.list";
        }
        [[fallthrough]];
      default:
        if (!f.floats.empty()) {
          *f.floats[Pick(f.floats.size())] = InterestingFloat();
          return "node.float";
        }
        node.output_min_max = std::make_unique<fb::OutputMinMaxT>();
        node.output_min_max->output_min = InterestingFloat();
        node.output_min_max->output_max = InterestingFloat();
        return "node.output_min_max";
    }
  }

  const char* EditNodeShape() {
    if (g_.xnodes.empty()) return EditGraph();
    const size_t i = Pick(g_.xnodes.size());
    switch (rng_() % 4) {
      case 0: {
        const int type = static_cast<int>(g_.xnodes[i]->xnode_union.type);
        for (const std::vector<int>& group : LayoutGroups()) {
          for (int t : group) {
            if (t != type) continue;
            g_.xnodes[i]->xnode_union.type = static_cast<fb::XNodeUnion>(group[Pick(group.size())]);
            return "node.type";
          }
        }
        return "node.type_unchanged";
      }
      case 1:
        std::swap(g_.xnodes[i], g_.xnodes[Pick(g_.xnodes.size())]);
        return "node.swap";
      case 2:
        g_.xnodes.erase(g_.xnodes.begin() + static_cast<std::ptrdiff_t>(i));
        return "node.delete";
      default:
        if (g_.xnodes.size() < 4096) {
          g_.xnodes.insert(g_.xnodes.begin() + static_cast<std::ptrdiff_t>(Pick(g_.xnodes.size())),
                           std::make_unique<fb::XNodeT>(*g_.xnodes[i]));
        }
        return "node.duplicate";
    }
  }

  const char* EditConstantTable() {
    if (g_.constant_data.empty()) return EditGraph();
    fb::ConstantDataOffsetT& c = *g_.constant_data[Pick(g_.constant_data.size())];
    switch (rng_() % 4) {
      case 0:
        c.offset = rng_() % 2 ? std::numeric_limits<uint64_t>::max() : Interesting(0);
        return "constant.offset";
      case 1:
        c.size = rng_() % 2 ? c.size + 1 + rng_() % 64 : Interesting(0);
        return "constant.size";
      case 2:
        if (!c.named_key.empty()) {
          c.named_key[Pick(c.named_key.size())] ^= 1;
        } else {
          c.named_key = "k";
        }
        return "constant.key";
      default:
        c.named_key.clear();
        return "constant.unname";
    }
  }

  const char* EditGraph() {
    switch (rng_() % 4) {
      case 0:
        g_.num_externs = Interesting(g_.num_externs);
        return "graph.num_externs";
      case 1:
        EditList(g_.input_ids);
        return "graph.input_ids";
      case 2:
        EditList(g_.output_ids);
        return "graph.output_ids";
      default:
        if (!g_.xvalues.empty() && g_.xvalues.size() < (1u << 16)) {
          g_.xvalues.push_back(std::make_unique<fb::XValueT>(*g_.xvalues[Pick(g_.xvalues.size())]));
        }
        return "graph.duplicate_value";
    }
  }

  fb::XNNGraphT& g_;
  MutationRng& rng_;
};

// A verified flatbuffer may carry a union type without its table; the
// object API unpacks that as a null member that Pack would dereference.
// Such unions become NONE before editing.
void DropEmptyUnions(fb::XNNGraphT& g) {
  for (auto& node : g.xnodes) {
    if (node != nullptr && node->xnode_union.value == nullptr) node->xnode_union.Reset();
  }
  for (auto& value : g.xvalues) {
    if (value == nullptr) continue;
    auto& u = value->xvalue_union;
    if (u.value == nullptr) {
      u.Reset();
    } else if (auto* q = u.AsXNNQuantizedTensorValue()) {
      if (q->quant_params.value == nullptr) q->quant_params.Reset();
    }
  }
}

void PutLe(std::vector<uint8_t>& b, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

const char* MutatePayloadFields(std::vector<uint8_t>* payload, MutationRng& rng, int num_edits) {
  Result<xnnpack::PayloadSections> s = xnnpack::ParsePayload(payload->data(), payload->size());
  if (!s.ok() || s.get().flatbuffer_size < 8) return nullptr;
  const xnnpack::AlignedFlatbuffer flatbuffer(s.get().flatbuffer, s.get().flatbuffer_size);
  flatbuffers::Verifier verifier(flatbuffer.data(), flatbuffer.size());
  if (!verifier.VerifyBuffer<fb::XNNGraph>(nullptr)) return nullptr;
  char identifier[5] = {};
  std::memcpy(identifier, flatbuffer.data() + 4, 4);
  std::unique_ptr<fb::XNNGraphT> graph = fb::UnPackXNNGraph(flatbuffer.data());
  const std::vector<uint8_t> constants(s.get().constant_data,
                                       s.get().constant_data + s.get().constant_data_size);
  const bool framed = s.get().has_header;
  DropEmptyUnions(*graph);
  Editor editor(*graph, rng);
  const char* name = nullptr;
  for (int i = 0; i < num_edits; ++i) name = editor.Edit();
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(fb::XNNGraph::Pack(builder, graph.get()), identifier);
  const uint8_t* fb_bytes = builder.GetBufferPointer();
  const size_t fb_size = builder.GetSize();
  if (!framed) {
    payload->assign(fb_bytes, fb_bytes + fb_size);
    return name;
  }
  // XH00 header (30 bytes, padded to 32), flatbuffer, constants 16-aligned.
  const size_t fb_off = 32;
  const size_t cd_off = (fb_off + fb_size + 15) / 16 * 16;
  std::vector<uint8_t> out(cd_off + constants.size(), 0);
  std::memcpy(out.data() + 4, "XH00", 4);
  PutLe(out, 8, 30, 2);
  PutLe(out, 10, fb_off, 4);
  PutLe(out, 14, fb_size, 4);
  PutLe(out, 18, cd_off, 4);
  PutLe(out, 22, constants.size(), 8);
  std::memcpy(out.data() + fb_off, fb_bytes, fb_size);
  if (!constants.empty()) std::memcpy(out.data() + cd_off, constants.data(), constants.size());
  *payload = std::move(out);
  return name;
}

}  // namespace fuzz
}  // namespace edgefleet

// The graph the DecodeGraph malformation tests mutate (graph_decoder_test.cc,
// graph_decoder_shapes_test.cc): a small valid XNNPACK graph in flatbuffers
// object form with its constant region, quantization parameter builders,
// and a runner for a list of mutations with the error each must produce.
// Test-only; each TestGraph owns its objects; not thread-safe.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DECODER_TEST_GRAPH_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DECODER_TEST_GRAPH_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/backends/xnnpack/graph_test_util.h"
#include "xnnpack_graph_generated.h"

namespace edgefleet {
namespace xnnpack {
namespace testing {

constexpr uint32_t kNoExtern = 0xFFFFFFFFu;
constexpr uint64_t kNamed = std::numeric_limits<uint64_t>::max();

// A graph in object form plus its constant region; Bytes() frames it.
//
//   v0 input [1,4,4,2] (extern 0)
//   conv2d 3x3 pad 1, filter v1 [3,3,3,2], bias v2 [3]   -> v3 [1,4,4,3]
//   concatenate2 axis 3 (v3, v3)                          -> v5 [1,4,4,6]
//   transpose perm {0,3,1,2}                              -> v6 [1,6,4,4]
//   slice offsets {0,0,0,1} sizes {1,6,4,2}               -> v7 [1,6,4,2]
//   fully connected, filter v8 [5,2], bias v9 [5]         -> v4 [1,6,4,5] (extern 1)
struct TestGraph {
  fb::XNNGraphT g;
  std::vector<uint8_t> constants;

  TestGraph() {
    g.version = "test";
    g.num_externs = 2;
    g.constant_data.push_back(Entry(0, 0));  // index 0 means "not constant"
    AddValue(0, {1, 4, 4, 2}, 0, 0, fb::XNNDatatype::xnn_datatype_fp32, 1);
    AddValue(1, {3, 3, 3, 2}, Constant(3 * 3 * 3 * 2 * 4));
    AddValue(2, {3}, Constant(3 * 4));
    AddValue(3, {1, 4, 4, 3});
    AddValue(4, {1, 6, 4, 5}, 0, 1, fb::XNNDatatype::xnn_datatype_fp32, 2);
    AddValue(5, {1, 4, 4, 6});
    AddValue(6, {1, 6, 4, 4});
    AddValue(7, {1, 6, 4, 2});
    AddValue(8, {5, 2}, Constant(5 * 2 * 4));
    AddValue(9, {5}, Constant(5 * 4));
    g.input_ids = {0};
    g.output_ids = {4};

    auto* conv = new fb::_XNNNodeConvT();
    conv->padding_top = conv->padding_right = conv->padding_bottom = conv->padding_left = 1;
    conv->kernel_height = conv->kernel_width = 3;
    conv->subsampling_height = conv->subsampling_width = 1;
    conv->dilation_height = conv->dilation_width = 1;
    conv->group_input_channels = 2;
    conv->group_output_channels = 3;
    conv->groups = 1;
    conv->input1_id = 0;
    conv->filter_id = 1;
    conv->bias_id = 2;
    conv->output_id = 3;
    AddNode(fb::XNodeUnion::XNNConv2d, conv);

    auto* cat = new fb::_XNNCatT();
    cat->axis = 3;
    cat->input1_id = cat->input2_id = 3;
    cat->output_id = 5;
    AddNode(fb::XNodeUnion::XNNConcatenate2, cat);

    auto* transpose = new fb::XNNStaticTransposeT();
    transpose->num_dims = 4;
    transpose->perm = {0, 3, 1, 2};
    transpose->input_id = 5;
    transpose->output_id = 6;
    AddNode(fb::XNodeUnion::XNNStaticTranspose, transpose);

    auto* slice = new fb::XNNStaticSliceT();
    slice->num_dims = 4;
    slice->offsets = {0, 0, 0, 1};
    slice->sizes = {1, 6, 4, 2};
    slice->input_id = 6;
    slice->output_id = 7;
    AddNode(fb::XNodeUnion::XNNStaticSlice, slice);

    auto* fc = new fb::XNNFullyConnectedT();
    fc->input1_id = 7;
    fc->filter_id = 8;
    fc->bias_id = 9;
    fc->output_id = 4;
    AddNode(fb::XNodeUnion::XNNFullyConnected, fc);
  }

  static std::unique_ptr<fb::ConstantDataOffsetT> Entry(uint64_t offset, uint64_t size) {
    auto e = std::make_unique<fb::ConstantDataOffsetT>();
    e->offset = offset;
    e->size = size;
    return e;
  }

  // Appends `bytes` of constant data (a ramp) and returns its index.
  uint32_t Constant(size_t bytes) {
    const size_t offset = constants.size();
    for (size_t i = 0; i < bytes; ++i) constants.push_back(static_cast<uint8_t>(i));
    constants.resize((constants.size() + 15) / 16 * 16, 0);
    g.constant_data.push_back(Entry(offset, bytes));
    return static_cast<uint32_t>(g.constant_data.size() - 1);
  }

  void AddValue(uint32_t id, std::vector<uint32_t> dims, uint32_t constant = 0,
                uint32_t external = kNoExtern,
                fb::XNNDatatype type = fb::XNNDatatype::xnn_datatype_fp32, uint32_t flags = 0) {
    auto* tv = new fb::XNNTensorValueT();
    tv->datatype = type;
    tv->num_dims = static_cast<uint32_t>(dims.size());
    tv->dims = std::move(dims);
    tv->constant_buffer_idx = constant;
    tv->external_id = external;
    tv->flags = flags;
    tv->id_out = id;
    auto value = std::make_unique<fb::XValueT>();
    value->xvalue_union.type = fb::XValueUnion::XNNTensorValue;
    value->xvalue_union.value = tv;
    g.xvalues.push_back(std::move(value));
  }

  void AddNode(fb::XNodeUnion type, void* body) {
    auto node = std::make_unique<fb::XNodeT>();
    node->xnode_union.type = type;
    node->xnode_union.value = body;
    g.xnodes.push_back(std::move(node));
  }

  // The tensor of value `i` (plain or quantized).
  fb::XNNTensorValueT& Tensor(size_t i) {
    auto& u = g.xvalues[i]->xvalue_union;
    if (auto* q = u.AsXNNQuantizedTensorValue()) return *q->tensor_value;
    return *u.AsXNNTensorValue();
  }

  // Turns value `i` into a quantized value of `type` with `params`.
  void Quantize(size_t i, fb::XNNDatatype type, fb::XNNQuantParamsUnion params) {
    auto q = std::make_unique<fb::XNNQuantizedTensorValueT>();
    q->tensor_value = std::make_unique<fb::XNNTensorValueT>(Tensor(i));
    q->tensor_value->datatype = type;
    q->quant_params = std::move(params);
    g.xvalues[i]->xvalue_union.Reset();
    g.xvalues[i]->xvalue_union.type = fb::XValueUnion::XNNQuantizedTensorValue;
    g.xvalues[i]->xvalue_union.value = q.release();
  }

  template <typename T>
  T& Node(size_t i) {
    return *static_cast<T*>(g.xnodes[i]->xnode_union.value);
  }

  std::vector<uint8_t> Bytes(const char* identifier = "XN01") const {
    return Frame(Pack(g, identifier), constants);
  }
};

inline fb::XNNQuantParamsUnion PerChannel(std::vector<float> scales, int channel_dim) {
  fb::PerChannelQuantT q;
  q.scale = std::move(scales);
  q.channel_dim = channel_dim;
  fb::XNNQuantParamsUnion u;
  u.Set(std::move(q));
  return u;
}

inline fb::XNNQuantParamsUnion PerTensor(float scale, int zero_point) {
  fb::PerTensorQuantT q;
  q.scale = scale;
  q.zero_point = zero_point;
  fb::XNNQuantParamsUnion u;
  u.Set(std::move(q));
  return u;
}

// One mutation of the test graph and the error it must produce.
struct Case {
  const char* what;
  std::function<void(TestGraph&)> mutate;
  Expect want;
};

inline void RunCases(const std::vector<Case>& cases) {
  ExpectDecodes(TestGraph().Bytes(), nullptr, "control");
  for (const Case& c : cases) {
    TestGraph t;
    c.mutate(t);
    ExpectRejected(t.Bytes(), nullptr, c.want, c.what);
  }
}

}  // namespace testing
}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_DECODER_TEST_GRAPH_H_

// DecodeGraph on malformed payloads: each malformation of a hand-built graph
// (flatbuffers object API, the schema's generated header) must be a clean
// error with a message naming the problem, never a crash. Every family of
// cases has a positive control (the unmutated graph decodes), so a failure
// is the mutation's doing. The exporter's real payloads:
// graph_decoder_real_test.cc.

#include "runtime/backends/xnnpack/graph_decoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "runtime/backends/xnnpack/graph_test_util.h"
#include "runtime/backends/xnnpack/payload_header.h"
#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"
#include "xnnpack_graph_generated.h"
#if EF_HAVE_XNNPACK
#include "runtime/backends/xnnpack/delegate.h"
#endif

namespace edgefleet {
namespace xnnpack {
namespace {

namespace fb = edgefleet_xnn;
using testing::Expect;
using testing::ExpectDecodes;
using testing::ExpectRejected;
using testing::Frame;
using testing::MapNamedData;
using testing::Pack;
using testing::PutLe;

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

fb::XNNQuantParamsUnion PerChannel(std::vector<float> scales, int channel_dim) {
  fb::PerChannelQuantT q;
  q.scale = std::move(scales);
  q.channel_dim = channel_dim;
  fb::XNNQuantParamsUnion u;
  u.Set(std::move(q));
  return u;
}

fb::XNNQuantParamsUnion PerTensor(float scale, int zero_point) {
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

void RunCases(const std::vector<Case>& cases) {
  ExpectDecodes(TestGraph().Bytes(), nullptr, "control");
  for (const Case& c : cases) {
    TestGraph t;
    c.mutate(t);
    ExpectRejected(t.Bytes(), nullptr, c.want, c.what);
  }
}

TEST(GraphDecoder, ControlGraphDecodes) {
  TestGraph t;
  const std::vector<uint8_t> bytes = t.Bytes();
  Result<std::unique_ptr<Graph>> g = DecodeGraph(bytes.data(), bytes.size(), nullptr);
  ASSERT_TRUE(g.ok()) << LastErrorDetail();
  EXPECT_EQ(g.get()->values.size(), 10u);
  EXPECT_EQ(g.get()->nodes.size(), 5u);
  EXPECT_EQ(g.get()->input_values, std::vector<uint32_t>{0});
  EXPECT_EQ(g.get()->output_values, std::vector<uint32_t>{4});
  // Constants are copied out of the payload: 216 + 12 + 40 + 20 bytes.
  EXPECT_EQ(g.get()->owned_constant_bytes, 288u);
  EXPECT_EQ(std::memcmp(g.get()->values[8].data, t.constants.data() + 240, 40), 0);
  // The legacy identifier decodes too.
  ExpectDecodes(t.Bytes("XN00"), nullptr, "XN00");
}

// A header may place the flatbuffer at any offset, and inline delegate data
// promises no alignment: the graph must decode the same from every
// misaligned start (flatbuffers reads scalars in place; under UBSan a
// misaligned read is an error, see aligned_flatbuffer.h).
TEST(GraphDecoder, DecodesMisalignedFlatbuffers) {
  const std::vector<uint8_t> good = TestGraph().Bytes();
  Result<std::unique_ptr<Graph>> want = DecodeGraph(good.data(), good.size(), nullptr);
  ASSERT_TRUE(want.ok()) << LastErrorDetail();
  const uint64_t fb_size = good[14] | good[15] << 8 | good[16] << 16 | uint64_t{good[17]} << 24;
  for (size_t shift = 1; shift < 8; ++shift) {
    // The whole payload at an odd address, and the flatbuffer shifted inside it.
    std::vector<uint8_t> storage(good.size() + 16, 0);
    uint8_t* start = storage.data() + shift;
    std::memcpy(start, good.data(), good.size());
    Result<std::unique_ptr<Graph>> g = DecodeGraph(start, good.size(), nullptr);
    ASSERT_TRUE(g.ok()) << "payload at +" << shift << ": " << LastErrorDetail();
    EXPECT_EQ(g.get()->nodes.size(), want.get()->nodes.size());
    EXPECT_EQ(std::memcmp(g.get()->values[8].data, want.get()->values[8].data, 40), 0);

    std::vector<uint8_t> moved = good;
    moved.insert(moved.begin() + 32, shift, 0);
    PutLe(moved, 10, 32 + shift, 4);
    const uint64_t cd_off =
        moved[18] | moved[19] << 8 | moved[20] << 16 | uint64_t{moved[21]} << 24;
    PutLe(moved, 18, cd_off + shift, 4);
    ASSERT_LE(32 + shift + fb_size, cd_off + shift);
    ExpectDecodes(moved, nullptr, "flatbuffer at offset " + std::to_string(32 + shift));
  }
}

TEST(GraphDecoder, RejectsBadFraming) {
  const std::vector<uint8_t> good = TestGraph().Bytes();
  auto with = [&](size_t at, uint64_t v, int bytes) {
    std::vector<uint8_t> b = good;
    PutLe(b, at, v, bytes);
    return b;
  };
  ExpectRejected({good.begin(), good.begin() + 20}, nullptr,
                 {Error::kInvalidProgram, "header truncated"}, "truncated header");
  ExpectRejected(with(10, good.size() + 8, 4), nullptr, {Error::kInvalidProgram, "flatbuffer ["},
                 "flatbuffer offset past the blob");
  ExpectRejected(with(14, good.size(), 4), nullptr, {Error::kInvalidProgram, "flatbuffer ["},
                 "flatbuffer size past the blob");
  ExpectRejected(with(18, good.size() - 4, 4), nullptr, {Error::kInvalidProgram, "constant data ["},
                 "constant offset past the blob");
  ExpectRejected(with(22, uint64_t{1} << 40, 8), nullptr,
                 {Error::kInvalidProgram, "constant data ["}, "constant size past the blob");
  ExpectRejected(with(8, 2, 2), nullptr, {Error::kInvalidProgram, "header length"},
                 "header length below its fields");
  // The flatbuffer cut short: the verifier refuses it.
  ExpectRejected(with(14, 64, 4), nullptr, {Error::kInvalidProgram, "verification failed"},
                 "flatbuffer cut short");
  // A constant region that no longer holds the constants' declared ranges.
  ExpectRejected(with(22, 64, 8), nullptr, {Error::kInvalidProgram, "outside the"},
                 "constant region shrunk");
}

TEST(GraphDecoder, RejectsWrongIdentifier) {
  ExpectRejected(TestGraph().Bytes("XN99"), nullptr,
                 {Error::kDelegateInvalidCompatibility, "neither XN00 nor XN01"}, "XN99");
  ExpectRejected(TestGraph().Bytes("ET12"), nullptr,
                 {Error::kDelegateInvalidCompatibility, "neither XN00 nor XN01"}, "ET12");
}

TEST(GraphDecoder, RejectsBadIds) {
  RunCases({
      {"node input id past the values",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).input1_id = 10; },
       {Error::kInvalidProgram, "refers to value id 10"}},
      {"node output id UINT32_MAX",
       [](TestGraph& t) { t.Node<fb::XNNStaticTransposeT>(2).output_id = 0xFFFFFFFFu; },
       {Error::kInvalidProgram, "refers to value id"}},
      {"missing required operand (filter absent)",
       [](TestGraph& t) { t.Node<fb::XNNFullyConnectedT>(4).filter_id = 0xFFFFFFFFu; },
       {Error::kInvalidProgram, "refers to value id"}},
      {"value id past the values",
       [](TestGraph& t) { t.Tensor(3).id_out = 10; },
       {Error::kInvalidProgram, "value id 10 out of range"}},
      {"duplicate value id",
       [](TestGraph& t) { t.Tensor(7).id_out = 6; },
       {Error::kInvalidProgram, "defined twice"}},
      {"external id >= num_externs",
       [](TestGraph& t) { t.Tensor(4).external_id = 2; },
       {Error::kInvalidProgram, "external id 2 (num_externs 2)"}},
      {"external id used twice",
       [](TestGraph& t) { t.Tensor(4).external_id = 0; },
       {Error::kInvalidProgram, "used twice"}},
      {"external value without input/output flag",
       [](TestGraph& t) { t.Tensor(0).flags = 0; },
       {Error::kInvalidProgram, "neither input nor output"}},
      {"flagged external without an id",
       [](TestGraph& t) { t.Tensor(3).flags = 2; },
       {Error::kInvalidProgram, "without an external id"}},
      {"unknown flags",
       [](TestGraph& t) { t.Tensor(0).flags = 5; },
       {Error::kInvalidProgram, "flags 0x5"}},
      {"num_externs above 4096",
       [](TestGraph& t) { t.g.num_externs = 4097; },
       {Error::kInvalidProgram, "4097 externals"}},
      {"node writes a constant",
       [](TestGraph& t) { t.Node<fb::XNNFullyConnectedT>(4).output_id = 9; },
       {Error::kInvalidProgram, "already defined"}},
      {"node writes the graph input",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).output_id = 0; },
       {Error::kInvalidProgram, "already defined"}},
  });
}

TEST(GraphDecoder, RejectsReadBeforeWrite) {
  RunCases({
      {"transpose before the concatenation that writes its input",
       [](TestGraph& t) { std::swap(t.g.xnodes[1], t.g.xnodes[2]); },
       {Error::kInvalidProgram, "reads value 5 before it is written"}},
      {"node reads its own output",
       [](TestGraph& t) { t.Node<fb::_XNNCatT>(1).input2_id = 5; },
       {Error::kInvalidProgram, "reads value 5 before it is written"}},
      {"output never written",
       [](TestGraph& t) { t.g.xnodes.pop_back(); },
       {Error::kInvalidProgram, "output value 4 is never written"}},
  });
}

TEST(GraphDecoder, RejectsBadValues) {
  RunCases({
      {"rank 7",
       [](TestGraph& t) {
         t.Tensor(3).dims = {1, 1, 1, 1, 4, 4, 3};
         t.Tensor(3).num_dims = 7;
       },
       {Error::kInvalidProgram, "rank <= 6"}},
      {"num_dims disagrees with dims",
       [](TestGraph& t) { t.Tensor(3).num_dims = 3; },
       {Error::kInvalidProgram, "num_dims 3 and 4 dims"}},
      {"too many elements",
       [](TestGraph& t) {
         t.Tensor(3).dims = {65536, 65536, 65536, 3};
       },
       {Error::kInvalidProgram, "too large"}},
      {"non-constant values past 1 GiB (2^38 floats, under the element bound)",
       [](TestGraph& t) {
         t.Tensor(3).dims = {1 << 16, 1 << 16, 1, 64};
       },
       {Error::kInvalidProgram, "non-constant values need more than 1073741824 bytes"}},
      {"datatype 0",
       [](TestGraph& t) { t.Tensor(3).datatype = fb::XNNDatatype(0); },
       {Error::kInvalidProgram, "datatype 0"}},
      {"datatype past the enum",
       [](TestGraph& t) { t.Tensor(3).datatype = fb::XNNDatatype(99); },
       {Error::kInvalidProgram, "datatype 99"}},
      {"4-bit datatype",
       [](TestGraph& t) { t.Tensor(3).datatype = fb::XNNDatatype::xnn_datatype_qcint4; },
       {Error::kNotSupported, "does not support"}},
      {"dynamic quantization to fp16",
       [](TestGraph& t) { t.Tensor(0).dq_datatype = fb::XNNDatatype::xnn_datatype_fp16; },
       {Error::kNotSupported, "dynamic quantization"}},
      {"external constant",
       [](TestGraph& t) { t.Tensor(0).constant_buffer_idx = 1; },
       {Error::kInvalidProgram, "is constant"}},
      {"dynamically quantized constant",
       [](TestGraph& t) { t.Tensor(9).datatype = fb::XNNDatatype::xnn_datatype_qdint8; },
       {Error::kInvalidProgram, "dynamically quantized (qdint8) and constant"}},
  });
}

TEST(GraphDecoder, RejectsBadConstants) {
  RunCases({
      {"constant index past the table",
       [](TestGraph& t) { t.Tensor(1).constant_buffer_idx = 5; },
       {Error::kInvalidProgram, "constant data 5 out of range (5 entries)"}},
      {"constant index UINT32_MAX",
       [](TestGraph& t) { t.Tensor(2).constant_buffer_idx = 0xFFFFFFFFu; },
       {Error::kInvalidProgram, "out of range"}},
      {"constant smaller than its dims",
       [](TestGraph& t) { t.g.constant_data[1]->size = 215; },
       {Error::kInvalidProgram, "has 215 bytes, needs 216"}},
      {"constant dims grown past its bytes",
       [](TestGraph& t) { t.Tensor(9).dims = {6}; },
       {Error::kInvalidProgram, "has 20 bytes, needs 24"}},
      {"constant offset past the region",
       [](TestGraph& t) { t.g.constant_data[2]->offset = 1 << 20; },
       {Error::kInvalidProgram, "outside the"}},
      {"constant offset + size overflows",
       [](TestGraph& t) { t.g.constant_data[2]->offset = kNamed - 4; },
       {Error::kInvalidProgram, "outside the"}},
      {"constant with both key and offset",
       [](TestGraph& t) { t.g.constant_data[2]->named_key = "k"; },
       {Error::kInvalidProgram, "both a key and an offset"}},
      {"constant table missing",
       [](TestGraph& t) { t.g.constant_data.clear(); },
       {Error::kInvalidProgram, "out of range"}},
  });
}

TEST(GraphDecoder, NamedConstants) {
  TestGraph t;
  t.g.constant_data[1]->offset = kNamed;
  t.g.constant_data[1]->named_key = "conv_weight";
  const std::vector<uint8_t> bytes = t.Bytes();
  MapNamedData named;
  named.blobs["conv_weight"] = std::vector<uint8_t>(216, 1);
  ExpectDecodes(bytes, &named, "named control");
  Result<std::unique_ptr<Graph>> g = DecodeGraph(bytes.data(), bytes.size(), &named);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g.get()->values[1].data, named.blobs["conv_weight"].data());

  MapNamedData other;
  other.blobs["something_else"] = std::vector<uint8_t>(216, 1);
  ExpectRejected(bytes, &other, {Error::kInvalidProgram, "'conv_weight' not in the program"},
                 "key not in the map");
  ExpectRejected(bytes, nullptr, {Error::kNotFound, "needs the program's named data"},
                 "no named data at all");
  MapNamedData small;
  small.blobs["conv_weight"] = std::vector<uint8_t>(100, 1);
  ExpectRejected(bytes, &small, {Error::kInvalidProgram, "has 100 bytes, declared 216"},
                 "blob smaller than declared");
  // Declared size matches the blob but not the value's dims.
  TestGraph u;
  u.g.constant_data[1]->offset = kNamed;
  u.g.constant_data[1]->named_key = "conv_weight";
  u.g.constant_data[1]->size = 100;
  ExpectRejected(u.Bytes(), &small, {Error::kInvalidProgram, "has 100 bytes, needs 216"},
                 "blob smaller than the dims");
}

TEST(GraphDecoder, RejectsBadQuantization) {
  auto qc8 = fb::XNNDatatype::xnn_datatype_qcint8;
  auto q8 = fb::XNNDatatype::xnn_datatype_qint8;
  // Controls: per-channel filter along dim 0 (3 output channels), per-tensor input.
  {
    TestGraph t;
    t.Quantize(1, qc8, PerChannel({0.5f, 0.25f, 0.125f}, 0));
    t.Quantize(0, q8, PerTensor(0.1f, -3));
    const std::vector<uint8_t> bytes = t.Bytes();
    Result<std::unique_ptr<Graph>> g = DecodeGraph(bytes.data(), bytes.size(), nullptr);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(g.get()->values[1].quant, QuantKind::kPerChannel);
    EXPECT_EQ(g.get()->values[1].channel_scales, (std::vector<float>{0.5f, 0.25f, 0.125f}));
    EXPECT_EQ(g.get()->values[0].zero_point, -3);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct QCase {
    const char* what;
    size_t value;
    fb::XNNDatatype type;
    fb::XNNQuantParamsUnion params;
    Expect want;
  };
  std::vector<QCase> cases;
  cases.push_back({"2 scales for 3 channels",
                   1,
                   qc8,
                   PerChannel({0.5f, 0.5f}, 0),
                   {Error::kInvalidProgram, "2 scales for 3 channels"}});
  cases.push_back({"4 scales for 3 channels",
                   1,
                   qc8,
                   PerChannel({1, 1, 1, 1}, 0),
                   {Error::kInvalidProgram, "4 scales for 3 channels"}});
  cases.push_back({"no scales",
                   1,
                   qc8,
                   PerChannel({}, 0),
                   {Error::kInvalidProgram, "0 scales for 3 channels"}});
  cases.push_back({"channel dim = rank",
                   1,
                   qc8,
                   PerChannel({1, 1, 1}, 4),
                   {Error::kInvalidProgram, "channel dim 4 (rank 4)"}});
  cases.push_back({"negative channel dim",
                   1,
                   qc8,
                   PerChannel({1, 1, 1}, -1),
                   {Error::kInvalidProgram, "channel dim -1"}});
  cases.push_back({"channel dim whose extent differs",
                   1,
                   qc8,
                   PerChannel({1, 1, 1}, 3),
                   {Error::kInvalidProgram, "3 scales for 2 channels"}});
  cases.push_back({"zero channel scale",
                   1,
                   qc8,
                   PerChannel({0.5f, 0.0f, 0.5f}, 0),
                   {Error::kInvalidProgram, "scale of 0"}});
  cases.push_back({"NaN channel scale",
                   1,
                   qc8,
                   PerChannel({0.5f, nan, 0.5f}, 0),
                   {Error::kInvalidProgram, "scale of nan"}});
  cases.push_back({"negative channel scale",
                   1,
                   qc8,
                   PerChannel({0.5f, -1.0f, 0.5f}, 0),
                   {Error::kInvalidProgram, "scale of -1"}});
  cases.push_back({"per-channel on fp32",
                   1,
                   fb::XNNDatatype::xnn_datatype_fp32,
                   PerChannel({1, 1, 1}, 0),
                   {Error::kInvalidProgram, "per-channel quantization on a"}});
  cases.push_back(
      {"zero tensor scale", 0, q8, PerTensor(0.0f, 0), {Error::kInvalidProgram, "scale 0"}});
  cases.push_back(
      {"NaN tensor scale", 0, q8, PerTensor(nan, 0), {Error::kInvalidProgram, "scale nan"}});
  cases.push_back(
      {"infinite tensor scale", 0, q8, PerTensor(inf, 0), {Error::kInvalidProgram, "scale inf"}});
  cases.push_back({"int8 zero point out of range",
                   0,
                   q8,
                   PerTensor(0.1f, 128),
                   {Error::kInvalidProgram, "zero point 128"}});
  cases.push_back({"uint8 zero point negative",
                   0,
                   fb::XNNDatatype::xnn_datatype_quint8,
                   PerTensor(0.1f, -1),
                   {Error::kInvalidProgram, "zero point -1"}});
  cases.push_back({"per-tensor on fp32",
                   0,
                   fb::XNNDatatype::xnn_datatype_fp32,
                   PerTensor(0.1f, 0),
                   {Error::kInvalidProgram, "per-tensor quantization on a"}});
  cases.push_back({"no params",
                   0,
                   q8,
                   fb::XNNQuantParamsUnion(),
                   {Error::kInvalidProgram, "no quantization params"}});
  for (QCase& c : cases) {
    TestGraph t;
    t.Quantize(c.value, c.type, std::move(c.params));
    ExpectRejected(t.Bytes(), nullptr, c.want, c.what);
  }
}

TEST(GraphDecoder, RejectsShapesThatDoNotMatchTheNode) {
  RunCases({
      {"conv filter kernel differs from kernel_height",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).kernel_height = 2; },
       {Error::kInvalidProgram, "filter shape does not match"}},
      {"conv input channels differ from groups x group_input_channels",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).group_input_channels = 3; },
       {Error::kInvalidProgram, "input has 2 channels, expects 1 x 3"}},
      {"conv zero groups",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).groups = 0; },
       {Error::kInvalidProgram, "0 groups"}},
      {"conv zero stride",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).subsampling_height = 0; },
       {Error::kInvalidProgram, "window does not fit"}},
      {"conv kernel larger than the padded input",
       [](TestGraph& t) {
         auto& c = t.Node<fb::_XNNNodeConvT>(0);
         c.padding_top = c.padding_bottom = 0;
         c.dilation_height = 4;
       },
       {Error::kInvalidProgram, "window does not fit"}},
      {"conv bias of the wrong length",
       [](TestGraph& t) { t.Tensor(2).dims = {2}; },
       {Error::kInvalidProgram, "bias has 2 elements for 3 channels"}},
      {"conv output shape differs from the inferred one",
       [](TestGraph& t) { t.Node<fb::_XNNNodeConvT>(0).padding_top = 0; },
       {Error::kInvalidProgram, "output 3 has the wrong shape"}},
      {"fully connected depth differs from the input",
       [](TestGraph& t) {
         t.Tensor(8).dims = {5, 3};
         t.g.constant_data[3]->size = 60;
       },
       {Error::kInvalidProgram, "input depth 2, filter 3"}},
      {"fully connected 3-D filter",
       [](TestGraph& t) {
         t.Tensor(8).dims = {5, 2, 1};
         t.Tensor(8).num_dims = 3;
       },
       {Error::kInvalidProgram, "needs a 2-D filter"}},
      {"fully connected transposed flag flips the filter",
       [](TestGraph& t) { t.Node<fb::XNNFullyConnectedT>(4).flags = 1; },
       {Error::kInvalidProgram, "input depth 2, filter 5"}},
      {"concatenation axis = rank",
       [](TestGraph& t) { t.Node<fb::_XNNCatT>(1).axis = 4; },
       {Error::kInvalidProgram, "axis 4 of rank 4"}},
      {"concatenation axis 1 gives another shape",
       [](TestGraph& t) { t.Node<fb::_XNNCatT>(1).axis = 1; },
       {Error::kInvalidProgram, "output 5 has the wrong shape"}},
      {"concatenation operands differ off the axis",
       [](TestGraph& t) { t.Node<fb::_XNNCatT>(1).input2_id = 1; },
       {Error::kInvalidProgram, "differ off the axis"}},
      {"transpose perm repeats an axis",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticTransposeT>(2).perm = {0, 3, 3, 2};
       },
       {Error::kInvalidProgram, "not a permutation"}},
      {"transpose perm names axis 4 of 4",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticTransposeT>(2).perm = {0, 3, 1, 4};
       },
       {Error::kInvalidProgram, "not a permutation"}},
      {"transpose perm shorter than the rank",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticTransposeT>(2).perm = {0, 2, 1};
         t.Node<fb::XNNStaticTransposeT>(2).num_dims = 3;
       },
       {Error::kInvalidProgram, "transpose of rank 4, perm of 3"}},
      {"transpose num_dims disagrees with perm",
       [](TestGraph& t) { t.Node<fb::XNNStaticTransposeT>(2).num_dims = 3; },
       {Error::kInvalidProgram, "transpose num_dims 3, perm of 4"}},
      {"transpose perm longer than 6",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticTransposeT>(2).perm = {0, 1, 2, 3, 4, 5, 6};
         t.Node<fb::XNNStaticTransposeT>(2).num_dims = 7;
       },
       {Error::kInvalidProgram, "longer than 6"}},
      {"slice offset past the dim",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticSliceT>(3).offsets = {0, 0, 0, 5};
       },
       {Error::kInvalidProgram, "slice [5, +2) outside dim 3 of 4"}},
      {"slice size past the dim",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticSliceT>(3).sizes = {1, 6, 4, 4};
       },
       {Error::kInvalidProgram, "slice [1, +4) outside dim 3 of 4"}},
      {"slice offset huge (wraps)",
       [](TestGraph& t) {
         t.Node<fb::XNNStaticSliceT>(3).offsets = {0, 0, 0, 0xFFFFFFFFu};
       },
       {Error::kInvalidProgram, "outside dim 3"}},
      {"slice without sizes",
       [](TestGraph& t) { t.Node<fb::XNNStaticSliceT>(3).sizes.clear(); },
       {Error::kInvalidProgram, "node list missing"}},
      {"node of unknown type",
       [](TestGraph& t) { t.g.xnodes[1]->xnode_union.Reset(); },
       {Error::kNotSupported, "node type 0"}},
      {"output range min > max",
       [](TestGraph& t) {
         t.g.xnodes[0]->output_min_max = std::make_unique<fb::OutputMinMaxT>();
         t.g.xnodes[0]->output_min_max->output_min = 1;
         t.g.xnodes[0]->output_min_max->output_max = 0;
       },
       {Error::kInvalidProgram, "output range"}},
  });
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet

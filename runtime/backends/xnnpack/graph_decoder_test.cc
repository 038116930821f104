// DecodeGraph on malformed payloads: each malformation of a hand-built graph
// (flatbuffers object API, the schema's generated header) must be a clean
// error with a message naming the problem, never a crash. Every family of
// cases has a positive control (the unmutated graph decodes), so a failure
// is the mutation's doing. The exporter's real payloads:
// graph_decoder_real_test.cc; quantization and node shapes:
// graph_decoder_shapes_test.cc.

#include "runtime/backends/xnnpack/graph_decoder.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/backends/xnnpack/decoder_test_graph.h"
#include "runtime/backends/xnnpack/graph_test_util.h"
#include "runtime/core/error_detail.h"
#include "xnnpack_graph_generated.h"

namespace edgefleet {
namespace xnnpack {
namespace {

namespace fb = edgefleet_xnn;
using testing::ExpectDecodes;
using testing::ExpectRejected;
using testing::kNamed;
using testing::MapNamedData;
using testing::PutLe;
using testing::RunCases;
using testing::TestGraph;

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

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet

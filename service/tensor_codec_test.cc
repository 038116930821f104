#include "service/tensor_codec.h"

#include <gtest/gtest.h>

#include <cstring>

#include "absl/strings/match.h"

namespace edgefleet {
namespace service {
namespace {

ModelSignature Signature() {
  ModelSignature s;
  s.inputs.push_back({"input_0", ScalarType::kFloat, {1, 2, 3}, false});
  s.outputs.push_back({"output_0", ScalarType::kFloat, {1, 2}, false});
  return s;
}

inference::ModelInferRequest Request(const std::string& datatype, std::vector<int64_t> shape) {
  inference::ModelInferRequest request;
  auto* input = request.add_inputs();
  input->set_name("input_0");
  input->set_datatype(datatype);
  for (int64_t d : shape) input->add_shape(d);
  return request;
}

TEST(TensorCodecTest, RawAndTypedContentsDecode) {
  inference::ModelInferRequest raw = Request("FP32", {1, 2, 3});
  std::string bytes(6 * sizeof(float), '\0');
  const float v = 1.5f;
  memcpy(&bytes[4], &v, sizeof(v));
  raw.add_raw_input_contents(bytes);
  absl::StatusOr<std::vector<TensorData>> decoded = DecodeInputs(raw, Signature());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ((*decoded)[0].bytes.size(), 24u);

  inference::ModelInferRequest typed = Request("FP32", {1, 2, 3});
  for (int i = 0; i < 6; ++i) typed.mutable_inputs(0)->mutable_contents()->add_fp32_contents(i);
  decoded = DecodeInputs(typed, Signature());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  float last;
  memcpy(&last, (*decoded)[0].bytes.data() + 20, sizeof(last));
  EXPECT_EQ(last, 5.0f);
}

void ExpectInvalid(const inference::ModelInferRequest& request, const std::string& words) {
  const absl::Status status = DecodeInputs(request, Signature()).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << words;
  EXPECT_NE(status.message().find(words), std::string::npos) << status;
}

TEST(TensorCodecTest, BadRequestsNameTheProblem) {
  inference::ModelInferRequest wrong_dtype = Request("INT64", {1, 2, 3});
  wrong_dtype.add_raw_input_contents(std::string(48, '\0'));
  ExpectInvalid(wrong_dtype, "expected datatype FP32, got INT64");

  inference::ModelInferRequest wrong_shape = Request("FP32", {1, 3, 2});
  wrong_shape.add_raw_input_contents(std::string(24, '\0'));
  ExpectInvalid(wrong_shape, "expected FP32[1,2,3], got FP32[1,3,2]");

  inference::ModelInferRequest short_bytes = Request("FP32", {1, 2, 3});
  short_bytes.add_raw_input_contents(std::string(23, '\0'));
  ExpectInvalid(short_bytes, "raw contents hold 23 bytes");

  inference::ModelInferRequest few = Request("FP32", {1, 2, 3});
  few.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1);
  ExpectInvalid(few, "contents.fp32_contents holds 1 elements; FP32[1,2,3] needs 6");

  // Typed data in a field the datatype does not use: said so, not "holds 6,
  // needs 6".
  inference::ModelInferRequest wrong_field = Request("FP32", {1, 2, 3});
  for (int i = 0; i < 6; ++i)
    wrong_field.mutable_inputs(0)->mutable_contents()->add_int_contents(i);
  ExpectInvalid(wrong_field,
                "input_0: FP32 data goes in contents.fp32_contents (or raw_input_contents); 6 "
                "elements are in other contents fields");

  inference::ModelInferRequest unknown = Request("FP32", {1, 2, 3});
  unknown.mutable_inputs(0)->set_name("image");
  ExpectInvalid(unknown, "unknown input 'image'");

  inference::ModelInferRequest bad_type = Request("FLOAT99", {1, 2, 3});
  ExpectInvalid(bad_type, "unknown datatype");

  inference::ModelInferRequest missing;
  ExpectInvalid(missing, "input_0: missing");

  inference::ModelInferRequest negative = Request("FP32", {1, -2, 3});
  ExpectInvalid(negative, "expected FP32[1,2,3]");
}

TEST(TensorCodecTest, EncodesRequestedOutputsRaw) {
  TensorData out;
  out.shape = {1, 2};
  out.bytes.assign(8, 1);
  inference::ModelInferRequest request;
  inference::ModelInferResponse response;
  ASSERT_TRUE(EncodeOutputs(request, {out}, &response).ok());
  ASSERT_EQ(response.outputs_size(), 1);
  EXPECT_EQ(response.outputs(0).name(), "output_0");
  EXPECT_EQ(response.outputs(0).datatype(), "FP32");
  EXPECT_EQ(response.raw_output_contents(0).size(), 8u);

  request.add_outputs()->set_name("output_7");
  inference::ModelInferResponse none;
  EXPECT_EQ(EncodeOutputs(request, {out}, &none).code(), absl::StatusCode::kInvalidArgument);
}

// Linear(16, 8) exported with a bounded-dynamic batch of 1..8: the
// dynamic_bound fixture's signature as ModelRepository reads it.
ModelSignature DynamicBatch() {
  ModelSignature s;
  s.inputs.push_back({"input_0", ScalarType::kFloat, {8, 16}, true, {1, 16}});
  return s;
}

TEST(TensorCodecTest, BoundedDynamicInputsCheckEveryDimension) {
  for (const std::vector<int64_t>& good : {std::vector<int64_t>{1, 16}, {4, 16}, {8, 16}}) {
    inference::ModelInferRequest request = Request("FP32", good);
    request.add_raw_input_contents(std::string(good[0] * 16 * sizeof(float), '\0'));
    EXPECT_TRUE(DecodeInputs(request, DynamicBatch()).ok()) << good[0];
  }
  for (const std::vector<int64_t>& bad :
       {std::vector<int64_t>{4, 5}, {0, 16}, {9, 16}, {4, 17}, {4, 16, 1}, {64}}) {
    inference::ModelInferRequest request = Request("FP32", bad);
    int64_t numel = 1;
    for (int64_t d : bad) numel *= d;
    request.add_raw_input_contents(std::string(numel * sizeof(float), '\0'));
    const absl::Status status = DecodeInputs(request, DynamicBatch()).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StartsWith(status.message(), "input_0: expected FP32[1..8,16], got "))
        << status;
  }
  inference::ModelInferRequest four_by_five = Request("FP32", {4, 5});
  four_by_five.add_raw_input_contents(std::string(20 * sizeof(float), '\0'));
  EXPECT_EQ(DecodeInputs(four_by_five, DynamicBatch()).status().message(),
            "input_0: expected FP32[1..8,16], got FP32[4,5]");
}

TEST(TensorCodecTest, RequestedOutputsAreCheckedBeforeAnyStack) {
  inference::ModelInferRequest request = Request("FP32", {1, 2, 3});
  request.add_raw_input_contents(std::string(6 * sizeof(float), '\0'));
  request.add_outputs()->set_name("output_0");
  ASSERT_TRUE(DecodeInputs(request, Signature()).ok());
  request.add_outputs()->set_name("output_7");
  EXPECT_EQ(DecodeInputs(request, Signature()).status().message(),
            "unknown output 'output_7'; the model has one output, output_0");
  request.mutable_outputs(1)->set_name("output_0");
  EXPECT_EQ(DecodeInputs(request, Signature()).status().message(),
            "output 'output_0' requested twice");
}

TEST(TensorCodecTest, UnknownInputNamesTheInputs) {
  inference::ModelInferRequest request = Request("FP32", {1, 2, 3});
  request.mutable_inputs(0)->set_name("x");
  const absl::Status status = DecodeInputs(request, Signature()).status();
  EXPECT_NE(status.message().find("the model takes one input, input_0"), std::string::npos)
      << status;
}

}  // namespace
}  // namespace service
}  // namespace edgefleet

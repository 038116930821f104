// Fuzz target (d): Open Inference Protocol request decoding. The first byte
// picks one of the fixed model signatures below (shaped like the committed
// fixtures: small_cnn, mlp, add, dynamic_bound, a token-id model, and one
// input of every protocol datatype); the rest is a serialized
// inference::ModelInferRequest, parsed and handed to service::DecodeInputs.
//
// Oracles beyond the sanitizers:
//   - a rejected request is INVALID_ARGUMENT, never another code;
//   - an accepted one gives one tensor per signature input, in signature
//     order, whose dtype is the input's, whose shape equals the exported
//     shape (static) or lies within it with the same rank (dynamic), whose
//     byte size is numel x element size, and whose bytes are the request's
//     raw contents when it sent raw contents;
//   - EncodeOutputs of the decoded tensors answers OK or INVALID_ARGUMENT
//     (the request may name outputs), and EncodeOutputs -> a request built
//     from the response -> DecodeInputs gives the same tensors back.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/fuzz_invariant.h"
#include "inference/grpc_service.pb.h"
#include "runtime/core/scalar_type.h"
#include "service/model_repository.h"
#include "service/tensor_codec.h"
#include "service/tensor_data.h"

namespace {

using edgefleet::ScalarType;
using edgefleet::service::ModelSignature;
using edgefleet::service::TensorData;
using edgefleet::service::TensorSpec;

// Requests beyond this are not decoded (the server's default message limit
// is 16 MiB; decoding cost is linear, so small inputs cover the logic).
constexpr size_t kMaxRequestBytes = 1 << 20;

// A static input when `min_shape` is empty; else bounded-dynamic, each
// dimension in [min_shape[d], shape[d]] (as ModelRepository reads them).
TensorSpec Spec(int i, ScalarType dtype, std::vector<int64_t> shape,
                std::vector<int64_t> min_shape = {}) {
  TensorSpec spec;
  spec.name = "input_" + std::to_string(i);
  spec.dtype = dtype;
  spec.dynamic = !min_shape.empty();
  spec.min_shape = spec.dynamic ? std::move(min_shape) : shape;
  spec.shape = std::move(shape);
  return spec;
}

std::vector<ModelSignature> MakeSignatures() {
  std::vector<ModelSignature> s(7);
  s[0].inputs = {Spec(0, ScalarType::kFloat, {1, 3, 16, 16})};  // small_cnn
  s[1].inputs = {Spec(0, ScalarType::kFloat, {4, 16})};         // mlp
  s[2].inputs = {Spec(0, ScalarType::kFloat, {2, 3}), Spec(1, ScalarType::kFloat, {2, 3})};  // add
  s[3].inputs = {Spec(0, ScalarType::kFloat, {8, 16}, {1, 16})};  // dynamic_bound
  s[4].inputs = {Spec(0, ScalarType::kLong, {1, 16}),
                 Spec(1, ScalarType::kLong, {1, 16})};  // token ids + mask
  s[5].inputs = {Spec(0, ScalarType::kBool, {2}),     Spec(1, ScalarType::kChar, {2}),
                 Spec(2, ScalarType::kShort, {2}),    Spec(3, ScalarType::kInt, {2}),
                 Spec(4, ScalarType::kByte, {2}),     Spec(5, ScalarType::kUInt16, {2}),
                 Spec(6, ScalarType::kUInt32, {2}),   Spec(7, ScalarType::kUInt64, {2}),
                 Spec(8, ScalarType::kDouble, {2}),   Spec(9, ScalarType::kHalf, {2}),
                 Spec(10, ScalarType::kBFloat16, {2})};
  s[6].inputs = {Spec(0, ScalarType::kFloat, {}),                   // 0-d
                 Spec(1, ScalarType::kInt, {3, 0, 2}, {0, 0, 1})};  // empty bound
  for (ModelSignature& sig : s) {
    for (size_t i = 0; i < sig.inputs.size(); ++i) {
      TensorSpec out = sig.inputs[i];
      out.name = "output_" + std::to_string(i);
      out.min_shape.clear();
      sig.outputs.push_back(out);
    }
  }
  return s;
}

const std::vector<ModelSignature>& Signatures() {
  static const std::vector<ModelSignature>* signatures =
      new std::vector<ModelSignature>(MakeSignatures());
  return *signatures;
}

void CheckTensor(const TensorSpec& spec, const TensorData& t) {
  EF_FUZZ_INVARIANT(t.dtype == spec.dtype, "%s: dtype %d, signature %d", spec.name.c_str(),
                    static_cast<int>(t.dtype), static_cast<int>(spec.dtype));
  EF_FUZZ_INVARIANT(t.shape.size() == spec.shape.size(), "%s: rank %zu, signature %zu",
                    spec.name.c_str(), t.shape.size(), spec.shape.size());
  for (size_t d = 0; d < t.shape.size(); ++d) {
    if (spec.dynamic) {
      EF_FUZZ_INVARIANT(t.shape[d] >= spec.min_shape[d] && t.shape[d] <= spec.shape[d],
                        "%s: dim %zu is %lld, range [%lld, %lld]", spec.name.c_str(), d,
                        static_cast<long long>(t.shape[d]),
                        static_cast<long long>(spec.min_shape[d]),
                        static_cast<long long>(spec.shape[d]));
    } else {
      EF_FUZZ_INVARIANT(t.shape[d] == spec.shape[d], "%s: dim %zu is %lld, signature %lld",
                        spec.name.c_str(), d, static_cast<long long>(t.shape[d]),
                        static_cast<long long>(spec.shape[d]));
    }
  }
  const int64_t numel = edgefleet::service::ShapeNumel(t.shape);
  EF_FUZZ_INVARIANT(numel >= 0 && numel == t.numel(), "%s: numel %lld", spec.name.c_str(),
                    static_cast<long long>(numel));
  EF_FUZZ_INVARIANT(t.bytes.size() == static_cast<size_t>(numel) * edgefleet::ElementSize(t.dtype),
                    "%s: %zu bytes for numel %lld", spec.name.c_str(), t.bytes.size(),
                    static_cast<long long>(numel));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > kMaxRequestBytes) return 0;
  const std::vector<ModelSignature>& signatures = Signatures();
  const ModelSignature& signature = signatures[data[0] % signatures.size()];
  inference::ModelInferRequest request;
  if (!request.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;

  absl::StatusOr<std::vector<TensorData>> decoded =
      edgefleet::service::DecodeInputs(request, signature);
  static const bool verbose = getenv("EF_REPLAY_VERBOSE") != nullptr;
  if (verbose)
    fprintf(stderr, "  signature %d: %s\n", data[0] % static_cast<int>(signatures.size()),
            decoded.status().ToString().c_str());
  if (!decoded.ok()) {
    EF_FUZZ_INVARIANT(decoded.status().code() == absl::StatusCode::kInvalidArgument,
                      "rejected with %s, not INVALID_ARGUMENT",
                      decoded.status().ToString().c_str());
    EF_FUZZ_INVARIANT(!decoded.status().message().empty(), "rejection without a message");
    return 0;
  }
  const std::vector<TensorData>& tensors = *decoded;
  EF_FUZZ_INVARIANT(tensors.size() == signature.inputs.size(), "%zu tensors for %zu inputs",
                    tensors.size(), signature.inputs.size());
  const bool raw = request.raw_input_contents_size() > 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    CheckTensor(signature.inputs[i], tensors[i]);
    if (!raw) continue;
    // The raw contents of the request input named like signature input i.
    for (int r = 0; r < request.inputs_size(); ++r) {
      if (request.inputs(r).name() != signature.inputs[i].name) continue;
      const std::string& bytes = request.raw_input_contents(r);
      EF_FUZZ_INVARIANT(
          bytes.size() == tensors[i].bytes.size() &&
              (bytes.empty() || memcmp(bytes.data(), tensors[i].bytes.data(), bytes.size()) == 0),
          "%s: decoded bytes differ from the raw contents", signature.inputs[i].name.c_str());
    }
  }

  // The decoded tensors as a model's outputs, with the request's output
  // selection: OK or INVALID_ARGUMENT (an unknown output name).
  inference::ModelInferResponse response;
  absl::Status encoded = edgefleet::service::EncodeOutputs(request, tensors, &response);
  if (!encoded.ok()) {
    EF_FUZZ_INVARIANT(encoded.code() == absl::StatusCode::kInvalidArgument,
                      "EncodeOutputs failed with %s", encoded.ToString().c_str());
  }

  // Round trip with every output: response -> request -> DecodeInputs.
  response.Clear();
  const inference::ModelInferRequest all_outputs;
  encoded = edgefleet::service::EncodeOutputs(all_outputs, tensors, &response);
  EF_FUZZ_INVARIANT(encoded.ok(), "EncodeOutputs of decoded tensors: %s",
                    encoded.ToString().c_str());
  EF_FUZZ_INVARIANT(response.outputs_size() == static_cast<int>(tensors.size()) &&
                        response.raw_output_contents_size() == static_cast<int>(tensors.size()),
                    "%d outputs encoded for %zu tensors", response.outputs_size(), tensors.size());
  inference::ModelInferRequest again;
  for (int j = 0; j < response.outputs_size(); ++j) {
    const auto& out = response.outputs(j);
    auto* in = again.add_inputs();
    in->set_name("input_" + out.name().substr(out.name().find('_') + 1));
    in->set_datatype(out.datatype());
    *in->mutable_shape() = out.shape();
    again.add_raw_input_contents(response.raw_output_contents(j));
  }
  absl::StatusOr<std::vector<TensorData>> round =
      edgefleet::service::DecodeInputs(again, signature);
  EF_FUZZ_INVARIANT(round.ok(), "re-decoding encoded tensors failed: %s",
                    round.status().ToString().c_str());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EF_FUZZ_INVARIANT((*round)[i].dtype == tensors[i].dtype &&
                          (*round)[i].shape == tensors[i].shape &&
                          (*round)[i].bytes == tensors[i].bytes,
                      "input_%zu changed in the encode/decode round trip", i);
  }
  return 0;
}

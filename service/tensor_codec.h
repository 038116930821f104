// Tensor codec: Open Inference Protocol tensors <-> TensorData.
//
// DecodeInputs checks a ModelInferRequest's inputs against the model's
// signature before any byte reaches a stack: every input present once by
// name ("input_0", ...), no unknown ones, the datatype equal to the model's,
// the shape equal (static inputs) or within the exported bound with the
// same rank (dynamic inputs), and the data either raw (exactly numel x
// element size bytes) or typed contents (exactly numel elements of the
// field the datatype uses), never both; every requested output exists and
// is asked for once. Every failure is INVALID_ARGUMENT
// with a message naming the input and what was expected
// ("input_0: expected FP32[1,3,96,96], got FP32[1,3,32,32]").
// EncodeOutputs writes outputs as raw contents. Pure functions; thread-safe.

#ifndef EDGEFLEET_SERVICE_TENSOR_CODEC_H_
#define EDGEFLEET_SERVICE_TENSOR_CODEC_H_

#include <vector>

#include "absl/status/statusor.h"
#include "inference/grpc_service.pb.h"
#include "service/model_repository.h"

namespace edgefleet {
namespace service {

absl::StatusOr<std::vector<TensorData>> DecodeInputs(const inference::ModelInferRequest& request,
                                                     const ModelSignature& signature);

// Appends the outputs `request` asks for (all when it names none) to
// `response`. Errors: INVALID_ARGUMENT for an unknown or repeated requested
// output (DecodeInputs checked them against the signature already).
absl::Status EncodeOutputs(const inference::ModelInferRequest& request,
                           std::vector<TensorData> outputs,
                           inference::ModelInferResponse* response);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_TENSOR_CODEC_H_

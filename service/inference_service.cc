#include "service/inference_service.h"

#include <chrono>
#include <cmath>

#include "service/device_time_model_for.h"
#include "service/stack.h"
#include "service/status_mapping.h"
#include "service/tensor_codec.h"
#include "service/time_model.h"

namespace edgefleet {
namespace service {
namespace {

using Clock = std::chrono::steady_clock;

// Reads an optional string parameter. Errors: INVALID_ARGUMENT if present
// with another type.
absl::Status StringParameter(const inference::ModelInferRequest& request, const std::string& name,
                             std::string* value) {
  auto it = request.parameters().find(name);
  if (it == request.parameters().end()) return absl::OkStatus();
  if (it->second.parameter_choice_case() != inference::InferParameter::kStringParam) {
    return absl::InvalidArgumentError("parameter '" + name + "' must be a string");
  }
  *value = it->second.string_param();
  return absl::OkStatus();
}

absl::Status VersionCheck(const std::string& name, const std::string& version) {
  if (version.empty() || version == "1") return absl::OkStatus();
  return absl::NotFoundError("model '" + name + "' has no version '" + version.substr(0, 32) +
                             "' (only version 1)");
}

void SetParameter(inference::ModelInferResponse* response, const std::string& name,
                  const std::string& value) {
  (*response->mutable_parameters())[name].set_string_param(value);
}

void SetParameter(inference::ModelInferResponse* response, const std::string& name, int64_t value) {
  (*response->mutable_parameters())[name].set_int64_param(value);
}

}  // namespace

InferenceService::InferenceService(const ServiceContext& context, std::string version)
    : context_(context),
      version_(std::move(version)),
      pool_(context.repository, static_cast<size_t>(context.slots->slots())) {}

grpc::Status InferenceService::ServerLive(grpc::ServerContext*, const inference::ServerLiveRequest*,
                                          inference::ServerLiveResponse* response) {
  response->set_live(true);
  return grpc::Status::OK;
}

grpc::Status InferenceService::ServerReady(grpc::ServerContext*,
                                           const inference::ServerReadyRequest*,
                                           inference::ServerReadyResponse* response) {
  response->set_ready(ready_.load());
  return grpc::Status::OK;
}

grpc::Status InferenceService::ModelReady(grpc::ServerContext*,
                                          const inference::ModelReadyRequest* request,
                                          inference::ModelReadyResponse* response) {
  if (absl::Status s = ModelRepository::ValidateName(request->name()); !s.ok()) {
    return ToGrpcStatus(s);
  }
  response->set_ready(ready_.load() && VersionCheck(request->name(), request->version()).ok() &&
                      context_.repository->Signature(request->name()).ok());
  return grpc::Status::OK;
}

grpc::Status InferenceService::ServerMetadata(grpc::ServerContext*,
                                              const inference::ServerMetadataRequest*,
                                              inference::ServerMetadataResponse* response) {
  response->set_name("edgefleet");
  response->set_version(version_);
  return grpc::Status::OK;
}

grpc::Status InferenceService::ModelMetadata(grpc::ServerContext*,
                                             const inference::ModelMetadataRequest* request,
                                             inference::ModelMetadataResponse* response) {
  if (absl::Status s = ModelRepository::ValidateName(request->name()); !s.ok()) {
    return ToGrpcStatus(s);
  }
  if (absl::Status s = VersionCheck(request->name(), request->version()); !s.ok()) {
    return ToGrpcStatus(s);
  }
  absl::StatusOr<ModelSignature> signature = context_.repository->Signature(request->name());
  if (!signature.ok()) return ToGrpcStatus(signature.status());
  response->set_name(request->name());
  response->add_versions("1");
  response->set_platform("executorch_pte");
  auto fill = [](const TensorSpec& spec, inference::ModelMetadataResponse::TensorMetadata* out) {
    out->set_name(spec.name);
    const char* datatype = KserveDatatype(spec.dtype);
    out->set_datatype(datatype != nullptr ? datatype : "BYTES");
    // -1 for each dimension that varies, its size for a fixed one, and the
    // ranges as parameters (inputs and outputs alike: input_bounds.textproto
    // lists both for a dynamic model).
    const bool bounded = spec.min_shape.size() == spec.shape.size();
    std::string min_text, max_text;
    for (size_t d = 0; d < spec.shape.size(); ++d) {
      const bool varies = bounded ? spec.min_shape[d] != spec.shape[d] : spec.dynamic;
      out->add_shape(varies ? -1 : spec.shape[d]);
      if (bounded) {
        min_text += (d > 0 ? "," : "") + std::to_string(spec.min_shape[d]);
        max_text += (d > 0 ? "," : "") + std::to_string(spec.shape[d]);
      }
    }
    if (bounded && spec.dynamic) {
      (*out->mutable_parameters())["min_shape"].set_string_param(min_text);
      (*out->mutable_parameters())["max_shape"].set_string_param(max_text);
    }
  };
  for (const TensorSpec& spec : signature->inputs) fill(spec, response->add_inputs());
  for (const TensorSpec& spec : signature->outputs) fill(spec, response->add_outputs());
  return grpc::Status::OK;
}

grpc::Status InferenceService::ModelInfer(grpc::ServerContext* context,
                                          const inference::ModelInferRequest* request,
                                          inference::ModelInferResponse* response) {
  std::unique_ptr<ComputeSlots::Admission> admission;
  if (absl::Status s =
          context_.slots->TryAdmit(&admission, ComputeSlots::ClientOf(context->peer()));
      !s.ok()) {
    return ToGrpcStatus(s);
  }
  return ToGrpcStatus(Infer(
      *request, [context] { return context->IsCancelled(); }, response));
}

absl::Status InferenceService::Infer(const inference::ModelInferRequest& request,
                                     const std::function<bool()>& cancelled,
                                     inference::ModelInferResponse* response) {
  const std::string& name = request.model_name();
  if (absl::Status s = ModelRepository::ValidateName(name); !s.ok()) return s;
  if (absl::Status s = VersionCheck(name, request.model_version()); !s.ok()) return s;

  // Arm, device class, seed.
  std::string arm_name, class_name = context_.default_device_class;
  if (absl::Status s = StringParameter(request, "arm", &arm_name); !s.ok()) return s;
  if (absl::Status s = StringParameter(request, "device_class", &class_name); !s.ok()) return s;
  v1::Arm arm;
  if (!arm_name.empty()) {
    const v1::Arm* found = context_.arms->Find(arm_name);
    if (found == nullptr)
      return absl::NotFoundError("unknown arm '" + arm_name.substr(0, 64) + "'");
    if (found->model() != name) {
      return absl::InvalidArgumentError("arm '" + arm_name + "' serves model '" + found->model() +
                                        "', not '" + name + "'");
    }
    arm = *found;
  } else {
    arm.set_name(name + ".edgefleet");
    arm.set_stack(v1::STACK_EDGEFLEET);
    arm.set_model(name);
    arm.set_threads(1);
  }
  const v1::DeviceClass* device = context_.device_classes->Find(class_name);
  if (device == nullptr) {
    return absl::NotFoundError("unknown device class '" + class_name.substr(0, 64) + "'");
  }
  if (absl::Status s = ArmRunsOn(arm, *device); !s.ok()) return s;
  uint64_t seed = 0;
  if (auto it = request.parameters().find("seed"); it != request.parameters().end()) {
    if (it->second.parameter_choice_case() != inference::InferParameter::kInt64Param) {
      return absl::InvalidArgumentError("parameter 'seed' must be an int64");
    }
    seed = static_cast<uint64_t>(it->second.int64_param());
  }

  absl::StatusOr<ModelSignature> signature = context_.repository->Signature(name);
  if (!signature.ok()) return signature.status();
  absl::StatusOr<std::vector<TensorData>> inputs = DecodeInputs(request, *signature);
  if (!inputs.ok()) return inputs.status();

  if (absl::Status s = context_.calibrator->EnsureReference(); !s.ok()) return s;
  const CostKey key{arm.stack(), name, arm.kernels()};
  absl::StatusOr<v1::HostCost> cost = context_.calibrator->CostFor(key);
  if (!cost.ok()) return cost.status();
  absl::StatusOr<DeviceTimeModel> time_model =
      DeviceTimeModelFor(context_, *device, name, arm.stack());
  if (!time_model.ok()) return time_model.status();

  absl::StatusOr<ModelPool::Lease> lease = pool_.Take(key);
  if (!lease.ok()) return lease.status();
  absl::StatusOr<std::vector<TensorData>> outputs;
  int64_t host_us = 0;
  {
    std::unique_ptr<ComputeSlots::Slot> slot;
    if (absl::Status s = context_.slots->Acquire(cancelled, &slot); !s.ok()) return s;
    const Clock::time_point start = Clock::now();
    outputs = (*lease)->Run(*inputs);
    host_us = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
  }
  if (!outputs.ok()) return outputs.status();

  // Steady-state inference on a cool device, with the request's noise seed.
  const OsNoise noise(device->os_noise(), seed);
  const int threads = static_cast<int>(std::max(1u, arm.threads()));
  const int64_t device_us = std::max<int64_t>(
      1, std::llround(noise.Apply(
             time_model->ComputeUs(static_cast<double>(cost->inference_us()), threads), 0)));

  response->set_model_name(name);
  response->set_model_version("1");
  response->set_id(request.id());
  if (absl::Status s = EncodeOutputs(request, *std::move(outputs), response); !s.ok()) return s;
  SetParameter(response, "device_inference_us", device_us);
  SetParameter(response, "host_inference_us", host_us);
  SetParameter(response, "device_class", device->name());
  SetParameter(response, "arm", arm.name());
  SetParameter(response, "stack", StackName(arm.stack()));
  if (context_.metrics != nullptr) {
    context_.metrics->RecordInference({arm.name(), StackName(arm.stack()), device->name(), name},
                                      static_cast<double>(device_us) * 1e-6);
  }
  return absl::OkStatus();
}

}  // namespace service
}  // namespace edgefleet

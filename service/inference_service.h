// InferenceService: the Open Inference Protocol (KServe V2) gRPC service,
// inference.GRPCInferenceService, over the emulator.
//
// ModelInfer runs real inference on the caller's tensors in an exclusive
// compute slot and returns the outputs (raw contents) plus the emulated
// timing as response parameters. Request parameters (all optional):
//   "arm"          string  an arm from ListArms serving this model; default:
//                          the edgefleet stack, default kernels, one thread
//   "device_class" string  default: the server's --default_device_class
//   "seed"         int64   seeds the OS noise of the emulated time
// Response parameters: "device_inference_us", "host_inference_us" (int64),
// "device_class", "arm", "stack" (string).
// Model names are checked by ModelRepository::ValidateName before anything
// else (a path-like name is INVALID_ARGUMENT). Tensor checks:
// tensor_codec.h. Overload: RESOURCE_EXHAUSTED at once (compute_slots.h).
//
// Thread-safe (gRPC calls handlers concurrently).

#ifndef EDGEFLEET_SERVICE_INFERENCE_SERVICE_H_
#define EDGEFLEET_SERVICE_INFERENCE_SERVICE_H_

#include <atomic>
#include <functional>

#include "inference/grpc_service.grpc.pb.h"
#include "service/model_pool.h"
#include "service/service_context.h"

namespace edgefleet {
namespace service {

class InferenceService final : public inference::GRPCInferenceService::Service {
 public:
  InferenceService(const ServiceContext& context, std::string version);

  // Readiness as ServerReady reports it (false while draining).
  void set_ready(bool ready) { ready_ = ready; }

  grpc::Status ServerLive(grpc::ServerContext*, const inference::ServerLiveRequest*,
                          inference::ServerLiveResponse* response) override;
  grpc::Status ServerReady(grpc::ServerContext*, const inference::ServerReadyRequest*,
                           inference::ServerReadyResponse* response) override;
  grpc::Status ModelReady(grpc::ServerContext*, const inference::ModelReadyRequest* request,
                          inference::ModelReadyResponse* response) override;
  grpc::Status ServerMetadata(grpc::ServerContext*, const inference::ServerMetadataRequest*,
                              inference::ServerMetadataResponse* response) override;
  grpc::Status ModelMetadata(grpc::ServerContext*, const inference::ModelMetadataRequest* request,
                             inference::ModelMetadataResponse* response) override;
  grpc::Status ModelInfer(grpc::ServerContext*, const inference::ModelInferRequest* request,
                          inference::ModelInferResponse* response) override;

 private:
  absl::Status Infer(const inference::ModelInferRequest& request,
                     const std::function<bool()>& cancelled,
                     inference::ModelInferResponse* response);

  ServiceContext context_;
  const std::string version_;
  ModelPool pool_;
  std::atomic<bool> ready_{true};
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_INFERENCE_SERVICE_H_

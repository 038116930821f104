#include "service/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_builder.h>

#include <thread>

#include "grpc/health/v1/health.pb.h"
#include "service/host_profiler.h"
#include "service/stack.h"
#include "service/transport_security.h"

namespace edgefleet {
namespace service {

const char* ServerVersion() { return EF_VERSION; }

absl::StatusOr<std::unique_ptr<EmulatorParts>> BuildEmulator(const ServerConfig& config) {
  auto parts = std::make_unique<EmulatorParts>();
  absl::StatusOr<std::unique_ptr<ModelRepository>> repository =
      ModelRepository::Open(config.model_repository);
  if (!repository.ok()) return repository.status();
  parts->repository = *std::move(repository);
  absl::StatusOr<std::unique_ptr<DeviceClassRegistry>> classes =
      DeviceClassRegistry::Create(config.device_classes);
  if (!classes.ok()) return classes.status();
  parts->device_classes = *std::move(classes);
  if (parts->device_classes->Find(config.default_device_class) == nullptr) {
    return absl::InvalidArgumentError("--default_device_class '" + config.default_device_class +
                                      "' is not among the device classes in " +
                                      config.device_classes);
  }
  absl::StatusOr<std::unique_ptr<ArmRegistry>> arms =
      ArmRegistry::Create(config.arms, *parts->repository);
  if (!arms.ok()) return arms.status();
  parts->arms = *std::move(arms);

  std::string stacks = "edgefleet";
  if (GetStack(v1::STACK_PYTORCH_MOBILE)->Available().ok()) stacks += ",pytorch-mobile";
  const int slots = config.compute_slots > 0
                        ? config.compute_slots
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  parts->metrics =
      std::make_unique<ServiceMetrics>(ServerVersion(), stacks, slots + config.queue_bound);
  ServiceMetrics* metrics = parts->metrics.get();
  parts->slots = std::make_unique<ComputeSlots>(
      slots, config.queue_bound, config.pin_slots,
      [metrics](int inflight) { metrics->SetInflight(inflight); }, config.max_calls_per_client);

  v1::HostCalibration initial;
  if (!config.calibration.empty() && !config.calibrate_only) {
    absl::StatusOr<v1::HostCalibration> read = HostCalibrationStore::ReadFile(config.calibration);
    if (read.ok()) {
      initial = *std::move(read);
    } else if (read.status().code() != absl::StatusCode::kNotFound) {
      return read.status();
    }
  }
  parts->calibration = std::make_unique<HostCalibrationStore>(initial);
  parts->calibrator = std::make_unique<Calibrator>(
      parts->repository.get(), parts->slots.get(), parts->calibration.get(),
      ReferenceWorkload{config.reference_model, config.reference_mac_ratio},
      config.calibration_samples);

  {
    const std::string host_profile = !config.host_profile.empty()
                                         ? config.host_profile
                                         : DefaultHostProfilePath(config.device_classes);
    // Read only: what the profile lacks is measured once and kept in memory.
    absl::StatusOr<v1::HostProfile> profile = ReadHostProfile(host_profile);
    if (!profile.ok() && (!absl::IsNotFound(profile.status()) || !config.host_profile.empty())) {
      return profile.status();
    }
    parts->device_time = std::make_unique<DeviceTimePredictor>(
        parts->repository.get(), profile.ok() ? *std::move(profile) : v1::HostProfile(), "");
    for (const v1::ModelHostProfile& entry : initial.model_profiles()) {
      parts->device_time->AddMeasured(entry);
    }
  }

  for (const v1::Arm& arm : parts->arms->arms()) {
    for (const v1::DeviceClass& device : parts->device_classes->classes()) {
      parts->metrics->Initialize({arm.name(), StackName(arm.stack()), device.name(), arm.model()});
    }
  }

  ServiceContext& context = parts->context;
  context.repository = parts->repository.get();
  context.device_classes = parts->device_classes.get();
  context.arms = parts->arms.get();
  context.slots = parts->slots.get();
  context.calibration = parts->calibration.get();
  context.calibrator = parts->calibrator.get();
  context.device_time = parts->device_time.get();
  context.metrics = parts->metrics.get();
  context.default_device_class = config.default_device_class;
  context.calibration_file = config.calibration;
  context.max_session_s = config.max_session_s;
  if (!config.admin_token_file.empty()) {
    absl::StatusOr<std::unique_ptr<AdminToken>> token =
        AdminToken::FromFile(config.admin_token_file);
    if (!token.ok()) return token.status();
    parts->admin_token = *std::move(token);
    context.admin_token = parts->admin_token.get();
  }
  return parts;
}

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerConfig& config) {
  std::unique_ptr<Server> server(new Server());
  server->config_ = config;
  absl::StatusOr<std::unique_ptr<EmulatorParts>> parts = BuildEmulator(config);
  if (!parts.ok()) return parts.status();
  server->parts_ = *std::move(parts);
  // Measure the reference now, so the first request does not pay for it.
  if (absl::Status s = server->parts_->calibrator->EnsureReference(); !s.ok()) {
    return absl::Status(s.code(),
                        std::string(s.message()) +
                            "\n  the server times everything against a reference model: give "
                            "--reference_model=NAME for a model in --model_repository=" +
                            config.model_repository +
                            ", or --calibration=FILE with a measured calibration "
                            "(edgefleet-server calibrate writes one)");
  }

  server->inference_ = std::make_unique<InferenceService>(server->parts_->context, ServerVersion());
  server->emulator_ = std::make_unique<EmulatorService>(server->parts_->context);

  grpc::EnableDefaultHealthCheckService(true);
  // gRPC C++'s health service has no descriptor of its own: this links the
  // schema (proto/grpc/health/v1/health.proto) into the generated pool, so
  // server reflection describes grpc.health.v1.Health and grpcurl can call it.
  static_cast<void>(grpc::health::v1::HealthCheckRequest::descriptor());
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      MakeServerCredentials({config.tls_cert, config.tls_key, config.tls_client_ca});
  if (!credentials.ok()) return credentials.status();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(config.address + ":" + std::to_string(config.port), *credentials,
                           &server->grpc_port_);
  // Per connection: at most this many calls at once (HTTP/2 streams).
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, config.max_streams_per_connection);
  builder.SetMaxReceiveMessageSize(config.max_message_bytes);
  builder.SetMaxSendMessageSize(config.max_message_bytes);
  builder.RegisterService(server->inference_.get());
  builder.RegisterService(server->emulator_.get());
  builder.RegisterCallbackGenericService(&server->unimplemented_);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->grpc_port_ == 0) {
    return absl::UnavailableError("cannot listen on " + config.address + ":" +
                                  std::to_string(config.port));
  }
  try {
    server->exposer_ = std::make_unique<prometheus::Exposer>(config.address + ":" +
                                                             std::to_string(config.metrics_port));
  } catch (const std::exception& e) {
    server->server_->Shutdown();
    return absl::UnavailableError("cannot serve metrics on " + config.address + ":" +
                                  std::to_string(config.metrics_port) + ": " + e.what());
  }
  server->exposer_->RegisterCollectable(server->parts_->metrics->registry());
  const std::vector<int> ports = server->exposer_->GetListeningPorts();
  server->metrics_port_ = ports.empty() ? 0 : ports.front();
  return server;
}

void Server::Shutdown() {
  std::call_once(shutdown_once_, [this] {
    inference_->set_ready(false);
    if (auto* health = server_->GetHealthCheckService()) health->SetServingStatus(false);
    // A load balancer polling health sees NOT_SERVING and stops sending new
    // calls while the listener still answers.
    std::this_thread::sleep_for(std::chrono::seconds(config_.shutdown_grace_s));
    // Stops accepting calls; in-flight calls may finish until the deadline,
    // after which they are cancelled.
    server_->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::seconds(config_.drain_timeout_s));
    server_->Wait();
    exposer_.reset();
  });
}

Server::~Server() {
  if (server_ != nullptr) Shutdown();
}

}  // namespace service
}  // namespace edgefleet

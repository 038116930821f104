// Server: builds the emulator from a ServerConfig and serves it: the model
// repository, device classes, arms, compute slots, host calibration,
// metrics, the two gRPC services (with gRPC health checking and reflection)
// and the Prometheus exposer on its own port.
//
// Lifetime: Start() returns a listening server; Shutdown() marks it not
// serving (health and ServerReady), keeps serving for the shutdown grace
// period (so load balancers see NOT_SERVING and drain), then stops accepting
// calls, waits up to the drain timeout for in-flight calls to finish (they
// are cancelled after it, and paced sessions stop at once), then stops. The destructor
// shuts down if needed. Thread-safe: Shutdown() may be called from any
// thread, once.

#ifndef EDGEFLEET_SERVICE_SERVER_H_
#define EDGEFLEET_SERVICE_SERVER_H_

#include <grpcpp/server.h>
#include <prometheus/exposer.h>

#include <chrono>
#include <memory>

#include "absl/status/statusor.h"
#include "service/config.h"
#include "service/emulator_service.h"
#include "service/inference_service.h"
#include "service/service_context.h"
#include "service/unimplemented_methods.h"

namespace edgefleet {
namespace service {

// The server's version string ("0.1.0").
const char* ServerVersion();

// Everything the services share, built from a config (also used by the
// calibrate subcommand, which serves nothing).
struct EmulatorParts {
  std::unique_ptr<ModelRepository> repository;
  std::unique_ptr<DeviceClassRegistry> device_classes;
  std::unique_ptr<ArmRegistry> arms;
  std::unique_ptr<ServiceMetrics> metrics;
  std::unique_ptr<ComputeSlots> slots;
  std::unique_ptr<HostCalibrationStore> calibration;
  std::unique_ptr<Calibrator> calibrator;
  std::unique_ptr<DeviceTimePredictor> device_time;
  std::unique_ptr<AdminToken> admin_token;  // null: none configured
  ServiceContext context;
};
absl::StatusOr<std::unique_ptr<EmulatorParts>> BuildEmulator(const ServerConfig& config);

class Server {
 public:
  // Errors: configuration (INVALID_ARGUMENT / NOT_FOUND naming the file or
  // flag), UNAVAILABLE if a port cannot be bound.
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerConfig& config);
  ~Server();

  int grpc_port() const { return grpc_port_; }
  int metrics_port() const { return metrics_port_; }

  void Shutdown();

 private:
  Server() = default;

  ServerConfig config_;
  std::unique_ptr<EmulatorParts> parts_;
  std::unique_ptr<InferenceService> inference_;
  std::unique_ptr<EmulatorService> emulator_;
  UnimplementedMethods unimplemented_;  // every other method
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int grpc_port_ = 0;
  int metrics_port_ = 0;
  std::once_flag shutdown_once_;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_SERVER_H_

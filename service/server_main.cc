#include "service/server_main.h"

#include <signal.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "service/health_probe.h"
#include "service/predict_main.h"
#include "service/server.h"

namespace edgefleet {
namespace service {
namespace {

int Calibrate(const ServerConfig& config) {
  absl::StatusOr<std::unique_ptr<EmulatorParts>> parts = BuildEmulator(config);
  if (!parts.ok()) {
    fprintf(stderr, "edgefleet-server: %s\n", std::string(parts.status().message()).c_str());
    return 2;
  }
  absl::StatusOr<v1::HostCalibration> calibration = (*parts)->calibrator->Calibrate(
      *(*parts)->arms, *(*parts)->device_classes, config.calibration_samples);
  if (!calibration.ok()) {
    fprintf(stderr, "edgefleet-server: calibration failed: %s\n",
            std::string(calibration.status().message()).c_str());
    return 1;
  }
  // The device-time model's host costs of every arm's program (each stack's
  // own), kept with the calibration so that servers started with it agree
  // on device times.
  std::set<std::pair<std::string, v1::Stack>> models;
  std::set<std::string> ours;  // measured for our runtime's thread scaling too
  for (const v1::Arm& arm : (*parts)->arms->arms()) {
    models.insert({arm.model(), arm.stack()});
    if (arm.stack() == v1::STACK_EDGEFLEET) ours.insert(arm.model());
  }
  if (absl::Status s = (*parts)->device_time->MeasureMissingThreadScaling(ours); !s.ok()) {
    fprintf(stderr, "edgefleet-server: calibration failed: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  absl::StatusOr<std::vector<v1::ModelHostProfile>> profiles =
      (*parts)->device_time->Entries(models);
  if (!profiles.ok()) {
    fprintf(stderr, "edgefleet-server: calibration failed: %s\n",
            std::string(profiles.status().message()).c_str());
    return 1;
  }
  for (const v1::ModelHostProfile& entry : *profiles) *calibration->add_model_profiles() = entry;
  if (absl::Status s = HostCalibrationStore::WriteFile(config.calibration_out, *calibration);
      !s.ok()) {
    fprintf(stderr, "edgefleet-server: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  printf("calibrated %s (%u cores): reference %s %lld us on one core\n",
         calibration->host_cpu().c_str(), calibration->host_cores(),
         calibration->reference_model().c_str(),
         static_cast<long long>(calibration->reference_host_us()));
  for (const v1::HostCost& cost : calibration->costs()) {
    const std::string stack = std::string(StackName(cost.stack())) +
                              (cost.kernels() == v1::KERNELS_XNNPACK    ? "-xnnpack"
                               : cost.kernels() == v1::KERNELS_PORTABLE ? "-portable"
                                                                        : "");
    printf("  %-24s %-24s parse %6lld us  init %6lld us  first %7lld us  steady %7lld us\n",
           cost.model().c_str(), stack.c_str(), static_cast<long long>(cost.parse_us()),
           static_cast<long long>(cost.init_us()),
           static_cast<long long>(cost.first_inference_us()),
           static_cast<long long>(cost.inference_us()));
  }
  for (const v1::ClassFactor& factor : calibration->class_factors()) {
    printf("  slowdown %-16s %8.3f\n", factor.device_class().c_str(), factor.slowdown());
  }
  printf("wrote %s\n", config.calibration_out.c_str());
  return 0;
}

}  // namespace

int ServerMain(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() > 1 && args[1] == "health") {
    return HealthProbeMain(std::vector<std::string>(args.begin() + 2, args.end()));
  }
  if (args.size() >= 2 && (args[1] == "predict" || args[1] == "fit-prior")) {
    const std::vector<std::string> rest(args.begin() + 2, args.end());
    return args[1] == "predict" ? PredictMain(rest) : FitPriorMain(rest);
  }
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      fputs(ServerUsage().c_str(), stdout);
      return 0;
    }
  }
  ServerConfig config;
  if (absl::Status s = ParseServerFlags(args, &config); !s.ok()) {
    fprintf(stderr, "edgefleet-server: %s\n%s", std::string(s.message()).c_str(),
            ServerUsage().c_str());
    return 2;
  }
  if (config.calibrate_only) return Calibrate(config);

  // SIGTERM and SIGINT are taken synchronously by this thread: block them
  // before any other thread exists, so every thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(config);
  if (!server.ok()) {
    fprintf(stderr, "edgefleet-server: %s\n", std::string(server.status().message()).c_str());
    return 2;
  }
  fprintf(stderr, "edgefleet-server %s: gRPC on %s:%d, metrics on %s:%d/metrics\n", ServerVersion(),
          config.address.c_str(), (*server)->grpc_port(), config.address.c_str(),
          (*server)->metrics_port());
  const bool loopback = config.address == "127.0.0.1" || config.address == "localhost" ||
                        config.address == "[::1]" || config.address.rfind("127.", 0) == 0;
  fprintf(
      stderr, "edgefleet-server: gRPC transport %s, Calibrate %s\n",
      config.tls_cert.empty()        ? "plaintext"
      : config.tls_client_ca.empty() ? "TLS"
                                     : "TLS with client certificates",
      config.admin_token_file.empty() ? "open (no --admin_token_file)" : "needs the admin token");
  if (!loopback && (config.tls_cert.empty() || config.admin_token_file.empty())) {
    fprintf(stderr,
            "edgefleet-server: warning: listening beyond loopback without %s (docs/security.md)\n",
            config.tls_cert.empty() ? "TLS" : "an admin token");
  }
  if (!config.port_file.empty()) {
    const std::string temp = config.port_file + ".tmp";
    {
      std::ofstream out(temp);
      out << (*server)->grpc_port() << " " << (*server)->metrics_port() << "\n";
    }
    std::rename(temp.c_str(), config.port_file.c_str());
  }
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  fprintf(stderr,
          "edgefleet-server: %s, health NOT_SERVING for %d s, then draining in-flight calls "
          "(up to %d s)\n",
          signal_number == SIGTERM ? "SIGTERM" : "SIGINT", config.shutdown_grace_s,
          config.drain_timeout_s);
  (*server)->Shutdown();
  fprintf(stderr, "edgefleet-server: stopped\n");
  return 0;
}

}  // namespace service
}  // namespace edgefleet

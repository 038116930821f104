// ServerConfig: edgefleet-server's flags, parsed from --name=value or
// --name value arguments (docs/service.md lists them; a test checks that
// list against ServerUsage()). Plain value type.

#ifndef EDGEFLEET_SERVICE_CONFIG_H_
#define EDGEFLEET_SERVICE_CONFIG_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace edgefleet {
namespace service {

struct ServerConfig {
  std::string model_repository;  // required
  std::string device_classes = "deploy/device_classes";
  std::string arms;         // ArmSet textproto; empty: default arms
  std::string calibration;  // HostCalibration textproto: read if present, written by Calibrate
  // HostProfile of the per-operator-class device-time model (read; what it
  // lacks is measured and kept in memory); empty: device_model/
  // host_profile.textproto beside the (first) device_classes directory.
  std::string host_profile;
  std::string address = "127.0.0.1";
  int port = 8001;          // gRPC; 0 picks a free port
  int metrics_port = 8002;  // Prometheus /metrics; 0 picks a free port
  std::string port_file;    // if set, "<grpc port> <metrics port>\n" is written here
  int compute_slots = 0;    // 0: the host's cores
  int queue_bound = 16;     // requests admitted beyond the compute slots
  int max_message_bytes = 16 << 20;
  std::string default_device_class = "mid_android";
  int calibration_samples = 5;
  std::string reference_model = "mobilenet_v2_035";
  double reference_mac_ratio = 28.197;
  bool pin_slots = true;
  int drain_timeout_s = 30;
  int shutdown_grace_s = 2;      // SIGTERM: health NOT_SERVING this long before closing
  int max_calls_per_client = 0;  // 0: (compute slots + queue_bound + 1) / 2
  int max_session_s = 600;       // wall-clock cap on one session
  // Transport security (docs/security.md): TLS on the gRPC port when cert
  // and key are set; client certificates required and verified against
  // tls_client_ca when set. admin_token_file: the bearer token Calibrate
  // requires; empty: Calibrate is open (the server warns when it listens
  // beyond loopback).
  std::string tls_cert;
  std::string tls_key;
  std::string tls_client_ca;
  std::string admin_token_file;
  int max_streams_per_connection = 64;  // concurrent calls per client connection
  // `calibrate` subcommand: measure, write `calibration_out`, exit.
  bool calibrate_only = false;
  std::string calibration_out;
};

// Parses argv (argv[0] is the program; an optional first word "calibrate"
// selects the subcommand). Errors: INVALID_ARGUMENT naming the flag.
absl::Status ParseServerFlags(const std::vector<std::string>& args, ServerConfig* config);

// One line per flag with its default, for --help.
std::string ServerUsage();

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_CONFIG_H_

#include "service/config.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

#include "service/command_line.h"

namespace edgefleet {
namespace service {
namespace {

absl::Status ParseInt(const std::string& flag, const std::string& text, int lo, int hi, int* out) {
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < lo || value > hi) {
    return absl::InvalidArgumentError("--" + flag + " must be an integer in [" +
                                      std::to_string(lo) + ", " + std::to_string(hi) + "], got '" +
                                      text + "'");
  }
  *out = static_cast<int>(value);
  return absl::OkStatus();
}

absl::Status ParseDouble(const std::string& flag, const std::string& text, double* out) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value > 0)) {
    return absl::InvalidArgumentError("--" + flag + " must be a positive number, got '" + text +
                                      "'");
  }
  *out = value;
  return absl::OkStatus();
}

absl::Status ParseBool(const std::string& flag, const std::string& text, bool* out) {
  if (text == "true" || text == "1") {
    *out = true;
  } else if (text == "false" || text == "0") {
    *out = false;
  } else {
    return absl::InvalidArgumentError("--" + flag + " must be true or false, got '" + text + "'");
  }
  return absl::OkStatus();
}

using Setter = std::function<absl::Status(const std::string& flag, const std::string& value)>;

std::map<std::string, Setter> Setters(ServerConfig* c) {
  auto str = [](std::string* field) -> Setter {
    return [field](const std::string&, const std::string& v) {
      *field = v;
      return absl::OkStatus();
    };
  };
  auto num = [](int* field, int lo, int hi) -> Setter {
    return
        [=](const std::string& f, const std::string& v) { return ParseInt(f, v, lo, hi, field); };
  };
  return {
      {"model_repository", str(&c->model_repository)},
      {"device_classes", str(&c->device_classes)},
      {"arms", str(&c->arms)},
      {"calibration", str(&c->calibration)},
      {"host_profile", str(&c->host_profile)},
      {"out", str(&c->calibration_out)},
      {"address", str(&c->address)},
      {"port", num(&c->port, 0, 65535)},
      {"metrics_port", num(&c->metrics_port, 0, 65535)},
      {"port_file", str(&c->port_file)},
      {"compute_slots", num(&c->compute_slots, 0, 1024)},
      {"queue_bound", num(&c->queue_bound, 0, 100000)},
      {"max_message_bytes", num(&c->max_message_bytes, 1024, 1 << 30)},
      {"default_device_class", str(&c->default_device_class)},
      {"calibration_samples", num(&c->calibration_samples, 1, 100)},
      {"reference_model", str(&c->reference_model)},
      {"reference_mac_ratio",
       [c](const std::string& f, const std::string& v) {
         return ParseDouble(f, v, &c->reference_mac_ratio);
       }},
      {"pin_slots",
       [c](const std::string& f, const std::string& v) { return ParseBool(f, v, &c->pin_slots); }},
      {"drain_timeout_s", num(&c->drain_timeout_s, 0, 3600)},
      {"shutdown_grace_s", num(&c->shutdown_grace_s, 0, 600)},
      {"max_calls_per_client", num(&c->max_calls_per_client, 0, 100000)},
      {"max_session_s", num(&c->max_session_s, 1, 24 * 3600)},
      {"tls_cert", str(&c->tls_cert)},
      {"tls_key", str(&c->tls_key)},
      {"tls_client_ca", str(&c->tls_client_ca)},
      {"admin_token_file", str(&c->admin_token_file)},
      {"max_streams_per_connection", num(&c->max_streams_per_connection, 1, 10000)},
  };
}

}  // namespace

absl::Status ParseServerFlags(const std::vector<std::string>& args, ServerConfig* config) {
  const std::map<std::string, Setter> setters = Setters(config);
  size_t first = 1;
  if (args.size() > 1 && args[1] == "calibrate") {
    config->calibrate_only = true;
    first = 2;
  }
  std::set<std::string> valued;
  for (const auto& [name, setter] : setters) valued.insert(name);
  absl::StatusOr<CommandLine> line = ParseCommandLine(
      std::vector<std::string>(args.begin() + static_cast<long>(std::min(first, args.size())),
                               args.end()),
      valued);
  if (!line.ok()) return line.status();
  for (const auto& [name, value] : line->values) {
    if (absl::Status s = setters.at(name)(name, value); !s.ok()) return s;
  }
  if (config->model_repository.empty()) {
    return absl::InvalidArgumentError("--model_repository is required");
  }
  if (config->calibrate_only && config->calibration_out.empty()) {
    config->calibration_out = config->calibration;
  }
  if (config->calibrate_only && config->calibration_out.empty()) {
    return absl::InvalidArgumentError("calibrate needs --out=FILE (or --calibration=FILE)");
  }
  return absl::OkStatus();
}

std::string ServerUsage() {
  return "usage: edgefleet-server [calibrate] --model_repository=DIR [flags]\n"
         "       edgefleet-server health [health flags]\n"
         "         (gRPC health check; exit 0 when SERVING; docs/service.md)\n"
         "  --model_repository=DIR      models are DIR/<name>/model.pte (+ model_xnnpack.pte,\n"
         "                              model.ptl) (required)\n"
         "  --device_classes=DIR        device class textprotos (deploy/device_classes)\n"
         "  --arms=FILE                 edgefleet.v1.ArmSet textproto (default: 2 arms per model)\n"
         "  --calibration=FILE          host calibration to use (and where Calibrate saves)\n"
         "  --host_profile=FILE         device-time model's host profile (DIR/../device_model/\n"
         "                              host_profile.textproto of --device_classes=DIR)\n"
         "  --out=FILE                  calibrate: where to write (default --calibration)\n"
         "  --address=HOST              listen address (127.0.0.1)\n"
         "  --port=N                    gRPC port, 0 = any free (8001)\n"
         "  --metrics_port=N            Prometheus port, 0 = any free (8002)\n"
         "  --port_file=FILE            write '<grpc port> <metrics port>' once listening\n"
         "  --compute_slots=N           host cores used for measurement, 0 = all (0)\n"
         "  --queue_bound=N             requests admitted beyond the slots (16)\n"
         "  --max_message_bytes=N       largest request (16777216)\n"
         "  --default_device_class=C    for ModelInfer without one (mid_android)\n"
         "  --tls_cert=FILE --tls_key=FILE  TLS on the gRPC port (PEM)\n"
         "  --tls_client_ca=FILE        require client certificates signed by this CA\n"
         "  --admin_token_file=FILE     bearer token required by Calibrate\n"
         "  --max_streams_per_connection=N  concurrent calls per connection (64)\n"
         "  --calibration_samples=N     runs per host-cost measurement (5)\n"
         "  --reference_model=M         calibration reference model (mobilenet_v2_035)\n"
         "  --reference_mac_ratio=X     MobileNetV2-1.0-224 MACs / reference MACs (28.197)\n"
         "  --pin_slots=BOOL            pin measuring threads to cores (true)\n"
         "  --shutdown_grace_s=N        SIGTERM: report NOT_SERVING this long first (2)\n"
         "  --drain_timeout_s=N         SIGTERM: then wait this long for in-flight calls (30)\n"
         "  --max_calls_per_client=N    calls in flight from one client host, 0 = half of\n"
         "                              slots + queue_bound, rounded up (0)\n"
         "  --max_session_s=N           a session stops (outcome CANCELLED) after N s (600)\n"
         "  -h, --help                  this text\n"
         "Flags are --name=value or --name value.\n";
}

}  // namespace service
}  // namespace edgefleet

// Preflight: what `edgefleet-loadtest run` checks before its first session,
// so that a mistake is an error (exit 1) and never a verdict:
//   - every address is HOST:PORT (port 1..65535, IPv6 as [addr]:PORT) or
//     unix:PATH;
//   - every server answers ListDeviceClasses and ListArms within the
//     timeout (an unreachable server fails at once, without retries);
//   - the spec's arms and device classes exist on every server (all the
//     unknown ones are named), and every server can run each arm on each
//     class (ListArms's restrictions, e.g. the pytorch-mobile stack on a
//     bare-metal class; all such pairs are named);
//   - one calibration per experiment: the given one, or else the first
//     server's (GetCalibration, measuring what the spec's arms lack), is
//     handed to every server (SetCalibration), and each must then report
//     the same fingerprint.
// Thread-compatible (one call at a time).

#ifndef EDGEFLEET_LOADTEST_DRIVER_PREFLIGHT_H_
#define EDGEFLEET_LOADTEST_DRIVER_PREFLIGHT_H_

#include <grpcpp/security/credentials.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "edgefleet/v1/calibration.pb.h"
#include "edgefleet/v1/fleet_spec.pb.h"

namespace edgefleet {
namespace loadtest {

// OK, or INVALID_ARGUMENT saying what is wrong with `address`.
absl::Status CheckAddress(const std::string& address);

struct PreflightOptions {
  std::vector<std::string> addresses;
  // As DriverOptions: channel credentials (null: plaintext) and the TLS name.
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  std::string tls_server_name;
  // For the listing calls; GetCalibration may measure, and gets
  // calibration_timeout.
  std::chrono::milliseconds timeout{5000};
  std::chrono::milliseconds calibration_timeout{600000};
  // A calibration to use instead of the first server's.
  std::optional<v1::HostCalibration> calibration;
  // `authorization` metadata of SetCalibration ("Bearer <admin token>"),
  // for servers that require their admin token; empty: none sent.
  std::string authorization;
};

struct PreflightResult {
  std::string calibration_fingerprint;  // what every server now uses
  std::string calibration_source;       // "server HOST:PORT" or "file"
};

// Errors: INVALID_ARGUMENT (bad address), UNAVAILABLE (a server did not
// answer), NOT_FOUND (unknown arms or classes, all named),
// FAILED_PRECONDITION (an arm x class pair a server cannot run, or servers
// disagree on the calibration), UNAUTHENTICATED
// (a server requires an admin token that was not given or does not match).
absl::StatusOr<PreflightResult> Preflight(const v1::FleetSpec& spec,
                                          const PreflightOptions& options);

// Reads a HostCalibration textproto (edgefleet-server calibrate writes one).
absl::StatusOr<v1::HostCalibration> ReadCalibrationFile(const std::string& path);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_DRIVER_PREFLIGHT_H_

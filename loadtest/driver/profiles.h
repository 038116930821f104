// FetchProfiles: the device-time breakdowns behind an A/B report's "what
// explains the difference" section: the Profile RPC (emulator.proto) for
// the spec's arm A and arm B on each of its device classes, asked of one
// server (the first of `run --server`: every server of a run shares its
// calibration, and a server measures each program's operators once).
// Thread-compatible (one call at a time).

#ifndef EDGEFLEET_LOADTEST_DRIVER_PROFILES_H_
#define EDGEFLEET_LOADTEST_DRIVER_PROFILES_H_

#include <grpcpp/security/credentials.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "edgefleet/v1/emulator.pb.h"
#include "edgefleet/v1/fleet_spec.pb.h"

namespace edgefleet {
namespace loadtest {

struct ProfileFetchOptions {
  std::string address;
  std::shared_ptr<grpc::ChannelCredentials> credentials;  // null: plaintext
  std::string tls_server_name;
  // Per call; the first call for a program measures it on the server.
  std::chrono::milliseconds timeout{600000};
};

// One (arm A, arm B) pair of breakdowns per device class of the spec's
// population, in the spec's order. Errors: the RPC's status (NOT_FOUND for
// an unknown arm or class, FAILED_PRECONDITION where the server cannot
// profile the arm's stack, UNAVAILABLE, DEADLINE_EXCEEDED), with the arm
// and class named.
absl::StatusOr<std::vector<std::pair<v1::ProfileResponse, v1::ProfileResponse>>> FetchProfiles(
    const v1::FleetSpec& spec, const ProfileFetchOptions& options);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_DRIVER_PROFILES_H_

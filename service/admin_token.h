// AdminToken: the bearer token that RPCs changing server state require when
// the server is given --admin_token_file: Calibrate (measures and writes the
// calibration file) and SetCalibration (replaces the figures every caller
// gets). Read once at start; compared in constant time (the time taken does
// not depend on where a wrong token differs, nor on the configured token's
// length). Clients (the fleet driver's --admin_token_file) read it the same
// way and send AuthorizationValue().
//
// Immutable after Create(); thread-safe.

#ifndef EDGEFLEET_SERVICE_ADMIN_TOKEN_H_
#define EDGEFLEET_SERVICE_ADMIN_TOKEN_H_

#include <grpcpp/server_context.h>
#include <grpcpp/support/status.h>

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace edgefleet {
namespace service {

class AdminToken {
 public:
  // Longest token accepted, in bytes (file and request alike).
  static constexpr size_t kMaxBytes = 512;

  // Reads the token from `path`: one line of at least 16 printable ASCII
  // characters (a trailing newline is dropped). Errors name the file.
  static absl::StatusOr<std::unique_ptr<AdminToken>> FromFile(const std::string& path);
  static absl::StatusOr<std::unique_ptr<AdminToken>> FromString(std::string token);

  // OK when the call carries `authorization: Bearer <token>`; otherwise
  // UNAUTHENTICATED (missing, malformed or wrong alike, saying which of
  // missing or not matching).
  grpc::Status Authorize(const grpc::ServerContext& context) const;

  // Constant-time equality of `presented` with the token.
  bool Matches(std::string_view presented) const;

  // What a client sends as its `authorization` metadata.
  std::string AuthorizationValue() const { return "Bearer " + token_; }

 private:
  explicit AdminToken(std::string token) : token_(std::move(token)) {}
  std::string token_;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_ADMIN_TOKEN_H_

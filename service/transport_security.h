// Transport security of the gRPC port: TLS from PEM files given by flag
// (server certificate chain and key; optionally a CA bundle whose client
// certificates are then required and verified), for the server and for
// clients (the fleet driver, the health probe). Without files, plaintext.
// Files are read once, when credentials are made; errors name the file.
//
// Stateless functions; thread-safe.

#ifndef EDGEFLEET_SERVICE_TRANSPORT_SECURITY_H_
#define EDGEFLEET_SERVICE_TRANSPORT_SECURITY_H_

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace edgefleet {
namespace service {

struct ServerTlsFiles {
  std::string cert;       // PEM certificate chain; empty: plaintext
  std::string key;        // PEM private key (with cert)
  std::string client_ca;  // PEM CA bundle; set: client certificates required
};

struct ClientTlsFiles {
  std::string ca;    // PEM roots to verify the server; empty: plaintext
  std::string cert;  // PEM client certificate chain (mutual TLS); optional
  std::string key;   // its key (with cert)
};

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsFiles& files);
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ClientTlsFiles& files);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_TRANSPORT_SECURITY_H_

#include "service/transport_security.h"

#include <fstream>
#include <sstream>

#include "absl/status/status.h"

namespace edgefleet {
namespace service {
namespace {

constexpr std::streamoff kMaxPemBytes = 1 << 20;

absl::StatusOr<std::string> ReadPem(const char* flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return absl::NotFoundError(std::string(flag) + ": cannot read " + path);
  const std::streamoff size = in.tellg();
  if (size <= 0 || size > kMaxPemBytes) {
    return absl::InvalidArgumentError(std::string(flag) + ": " + path +
                                      " is empty or larger than 1 MiB");
  }
  in.seekg(0);
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), size);
  if (text.find("-----BEGIN ") == std::string::npos) {
    return absl::InvalidArgumentError(std::string(flag) + ": " + path + " is not PEM");
  }
  return text;
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsFiles& files) {
  if (files.cert.empty() != files.key.empty()) {
    return absl::InvalidArgumentError("--tls_cert and --tls_key go together");
  }
  if (files.cert.empty()) {
    if (!files.client_ca.empty()) {
      return absl::InvalidArgumentError("--tls_client_ca needs --tls_cert and --tls_key");
    }
    return grpc::InsecureServerCredentials();
  }
  absl::StatusOr<std::string> cert = ReadPem("--tls_cert", files.cert);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem("--tls_key", files.key);
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  if (!files.client_ca.empty()) {
    absl::StatusOr<std::string> ca = ReadPem("--tls_client_ca", files.client_ca);
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *std::move(ca);
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  options.pem_key_cert_pairs.push_back({*std::move(key), *std::move(cert)});
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ClientTlsFiles& files) {
  if (files.cert.empty() != files.key.empty()) {
    return absl::InvalidArgumentError("--tls_cert and --tls_key go together");
  }
  if (files.ca.empty()) {
    if (!files.cert.empty()) return absl::InvalidArgumentError("--tls_cert needs --tls_ca");
    return grpc::InsecureChannelCredentials();
  }
  grpc::SslCredentialsOptions options;
  absl::StatusOr<std::string> ca = ReadPem("--tls_ca", files.ca);
  if (!ca.ok()) return ca.status();
  options.pem_root_certs = *std::move(ca);
  if (!files.cert.empty()) {
    absl::StatusOr<std::string> cert = ReadPem("--tls_cert", files.cert);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem("--tls_key", files.key);
    if (!key.ok()) return key.status();
    options.pem_cert_chain = *std::move(cert);
    options.pem_private_key = *std::move(key);
  }
  return grpc::SslCredentials(options);
}

}  // namespace service
}  // namespace edgefleet

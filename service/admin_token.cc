#include "service/admin_token.h"

#include <fstream>
#include <sstream>

#include "absl/status/status.h"

namespace edgefleet {
namespace service {

absl::StatusOr<std::unique_ptr<AdminToken>> AdminToken::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("--admin_token_file: cannot read " + path);
  std::string text(kMaxBytes + 2, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (!text.empty() && text.back() == '\n') text.pop_back();
  absl::StatusOr<std::unique_ptr<AdminToken>> token = FromString(std::move(text));
  if (!token.ok()) {
    return absl::InvalidArgumentError("--admin_token_file " + path + ": " +
                                      std::string(token.status().message()));
  }
  return token;
}

absl::StatusOr<std::unique_ptr<AdminToken>> AdminToken::FromString(std::string token) {
  if (token.size() < 16 || token.size() > kMaxBytes) {
    return absl::InvalidArgumentError("the token must be 16 to " + std::to_string(kMaxBytes) +
                                      " characters on one line");
  }
  for (char c : token) {
    if (c < 0x21 || c > 0x7e) {
      return absl::InvalidArgumentError("the token must be printable ASCII without spaces");
    }
  }
  return std::unique_ptr<AdminToken>(new AdminToken(std::move(token)));
}

bool AdminToken::Matches(std::string_view presented) const {
  // Every byte of the longer of the two is visited whatever they hold; the
  // length difference is folded in rather than returned early.
  const size_t n = std::max(presented.size(), token_.size());
  unsigned char diff = presented.size() == token_.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char a = i < presented.size() ? static_cast<unsigned char>(presented[i]) : 0;
    const unsigned char b = i < token_.size() ? static_cast<unsigned char>(token_[i]) : 0;
    diff = static_cast<unsigned char>(diff | (a ^ b));
  }
  return diff == 0;
}

grpc::Status AdminToken::Authorize(const grpc::ServerContext& context) const {
  constexpr std::string_view kPrefix = "Bearer ";
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "this RPC needs 'authorization: Bearer <admin token>'");
  }
  const std::string_view value(it->second.data(), it->second.size());
  if (value.size() > kPrefix.size() + kMaxBytes || value.substr(0, kPrefix.size()) != kPrefix ||
      !Matches(value.substr(kPrefix.size()))) {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "admin token does not match");
  }
  return grpc::Status::OK;
}

}  // namespace service
}  // namespace edgefleet

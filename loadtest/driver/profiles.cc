#include "loadtest/driver/profiles.h"

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "edgefleet/v1/emulator.grpc.pb.h"

namespace edgefleet {
namespace loadtest {

absl::StatusOr<std::vector<std::pair<v1::ProfileResponse, v1::ProfileResponse>>> FetchProfiles(
    const v1::FleetSpec& spec, const ProfileFetchOptions& options) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  if (!options.tls_server_name.empty()) args.SetSslTargetNameOverride(options.tls_server_name);
  std::unique_ptr<v1::Emulator::Stub> stub = v1::Emulator::NewStub(grpc::CreateCustomChannel(
      options.address,
      options.credentials != nullptr ? options.credentials : grpc::InsecureChannelCredentials(),
      args));
  auto fetch = [&](const std::string& arm,
                   const std::string& device_class) -> absl::StatusOr<v1::ProfileResponse> {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + options.timeout);
    v1::ProfileRequest request;
    request.set_arm(arm);
    request.set_device_class(device_class);
    v1::ProfileResponse response;
    const grpc::Status status = stub->Profile(&context, request, &response);
    if (!status.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                          absl::StrCat("Profile of arm ", arm, " on ", device_class, " at ",
                                       options.address, ": ", status.error_message()));
    }
    return response;
  };
  std::vector<std::pair<v1::ProfileResponse, v1::ProfileResponse>> out;
  for (const v1::ClassShare& share : spec.population()) {
    absl::StatusOr<v1::ProfileResponse> a = fetch(spec.arm_a(), share.device_class());
    if (!a.ok()) return a.status();
    absl::StatusOr<v1::ProfileResponse> b = fetch(spec.arm_b(), share.device_class());
    if (!b.ok()) return b.status();
    out.emplace_back(*std::move(a), *std::move(b));
  }
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet

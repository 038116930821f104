// gRPC stubs for a ServerProcess (test/util/server_process.h): the KServe
// inference service (client-side message limits of 64 MiB) and the
// emulator service, on insecure loopback channels. Header-only helpers of the
// service and fleet-driver integration tests; each call opens a new channel.

#ifndef EDGEFLEET_TEST_SERVICE_SERVICE_STUBS_H_
#define EDGEFLEET_TEST_SERVICE_SERVICE_STUBS_H_

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <memory>

#include "edgefleet/v1/emulator.grpc.pb.h"
#include "inference/grpc_service.grpc.pb.h"
#include "test/util/server_process.h"

namespace edgefleet {
namespace testing {

inline std::unique_ptr<inference::GRPCInferenceService::Stub> InferenceStub(
    const ServerProcess& server) {
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(64 << 20);
  args.SetMaxReceiveMessageSize(64 << 20);
  return inference::GRPCInferenceService::NewStub(
      grpc::CreateCustomChannel(server.address(), grpc::InsecureChannelCredentials(), args));
}

inline std::unique_ptr<v1::Emulator::Stub> EmulatorStub(const ServerProcess& server) {
  return v1::Emulator::NewStub(
      grpc::CreateChannel(server.address(), grpc::InsecureChannelCredentials()));
}

}  // namespace testing
}  // namespace edgefleet

#endif  // EDGEFLEET_TEST_SERVICE_SERVICE_STUBS_H_

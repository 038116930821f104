// UnimplementedMethods: the server's answer to every method it does not
// serve. Without it gRPC answers UNIMPLEMENTED with an empty message, and a
// Triton or KServe client calling an extension (ModelConfig,
// ModelStatistics, RepositoryIndex, ModelStreamInfer, the shared-memory
// RPCs, ...) cannot tell a missing extension from a wrong address.
//
// Registered as the server's generic service, it is called only for methods
// no registered service has; it reads nothing from the call and finishes it
// at once with UNIMPLEMENTED and one line naming the method and what this
// server serves instead. Method names come from the client: the message
// quotes at most 96 printable characters of it.
//
// Thread-safe (stateless).

#ifndef EDGEFLEET_SERVICE_UNIMPLEMENTED_METHODS_H_
#define EDGEFLEET_SERVICE_UNIMPLEMENTED_METHODS_H_

#include <grpcpp/generic/async_generic_service.h>

#include <string>

namespace edgefleet {
namespace service {

// The message for `method` ("/package.Service/Method", as the client sent
// it).
std::string UnimplementedMessage(const std::string& method);

class UnimplementedMethods final : public grpc::CallbackGenericService {
 public:
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override;
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_UNIMPLEMENTED_METHODS_H_

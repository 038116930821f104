#include "service/unimplemented_methods.h"

#include <google/protobuf/descriptor.h>

#include "edgefleet/v1/emulator.pb.h"
#include "inference/grpc_service.pb.h"

namespace edgefleet {
namespace service {
namespace {

// At most 96 characters of a client's text, non-printable ones as '?'.
std::string Printable(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, 96)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return text.size() > 96 ? out + "..." : out;
}

// "A, B and C": the methods of `service`.
std::string MethodList(const google::protobuf::ServiceDescriptor& service) {
  std::string list;
  for (int i = 0; i < service.method_count(); ++i) {
    if (i > 0) list += i + 1 == service.method_count() ? " and " : ", ";
    list += service.method(i)->name();
  }
  return list;
}

}  // namespace

std::string UnimplementedMessage(const std::string& method) {
  const google::protobuf::ServiceDescriptor* services[] = {
      inference::ModelInferRequest::descriptor()->file()->FindServiceByName("GRPCInferenceService"),
      v1::RunSessionRequest::descriptor()->file()->FindServiceByName("Emulator")};
  // "/package.Service/Method".
  const size_t slash = method.find('/', 1);
  const std::string service_name =
      method.size() > 1 && method[0] == '/' && slash != std::string::npos
          ? method.substr(1, slash - 1)
          : "";
  const std::string method_name = slash != std::string::npos ? method.substr(slash + 1) : method;
  for (const google::protobuf::ServiceDescriptor* service : services) {
    if (service == nullptr || service->full_name() != service_name) continue;
    if (service_name == "inference.GRPCInferenceService") {
      return service_name + "/" + Printable(method_name) +
             " is not implemented by edgefleet-server (a Triton or KServe extension it does not "
             "offer); it serves " +
             MethodList(*service) + " (docs/service.md)";
    }
    return service_name + " has no method '" + Printable(method_name) + "'; it has " +
           MethodList(*service) + " (docs/service.md)";
  }
  return "unknown method '" + Printable(method) + "'" +
         "; edgefleet-server serves inference.GRPCInferenceService, edgefleet.v1.Emulator, "
         "grpc.health.v1.Health and server reflection (docs/service.md)";
}

grpc::ServerGenericBidiReactor* UnimplementedMethods::CreateReactor(
    grpc::GenericCallbackServerContext* context) {
  class Reactor final : public grpc::ServerGenericBidiReactor {
   public:
    explicit Reactor(const std::string& method) {
      Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, UnimplementedMessage(method)));
    }
    void OnDone() override { delete this; }
  };
  return new Reactor(context->method());
}

}  // namespace service
}  // namespace edgefleet

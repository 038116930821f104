#include "service/status_mapping.h"

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace service {

absl::StatusCode StatusCodeForError(Error error) {
  switch (error) {
    case Error::kOk:
      return absl::StatusCode::kOk;
    // The caller's request or model is at fault.
    case Error::kInvalidArgument:
    case Error::kInvalidType:
      return absl::StatusCode::kInvalidArgument;
    case Error::kInvalidProgram:
    case Error::kInvalidExternalData:
      // A model file that fails verification: the request named a model
      // that cannot be served as it is.
      return absl::StatusCode::kFailedPrecondition;
    case Error::kNotFound:
      return absl::StatusCode::kNotFound;
    case Error::kAccessFailed:
      return absl::StatusCode::kUnavailable;
    // Valid, but not something this build runs.
    case Error::kNotSupported:
    case Error::kNotImplemented:
    case Error::kOperatorMissing:
    case Error::kDelegateInvalidCompatibility:
      return absl::StatusCode::kUnimplemented;
    case Error::kMemoryAllocationFailed:
    case Error::kOutOfResources:
    case Error::kDelegateMemoryAllocationFailed:
      return absl::StatusCode::kResourceExhausted;
    case Error::kInvalidState:
    case Error::kAlreadyLoaded:
      return absl::StatusCode::kFailedPrecondition;
    // Bugs or broken invariants of the runtime itself.
    case Error::kInternal:
    case Error::kEndOfMethod:
    case Error::kRegistrationExceedingMaxKernels:
    case Error::kRegistrationAlreadyRegistered:
    case Error::kDelegateInvalidHandle:
      return absl::StatusCode::kInternal;
  }
  return absl::StatusCode::kUnknown;
}

absl::Status RuntimeErrorToStatus(Error error, const std::string& context,
                                  const char* detail) {
  if (error == Error::kOk) return absl::OkStatus();
  std::string message = context;
  if (detail != nullptr && detail[0] != '\0') {
    if (!message.empty()) message += ": ";
    message += detail;
  }
  message += " [";
  message += ErrorName(error);
  message += "]";
  return absl::Status(StatusCodeForError(error), message);
}

absl::Status LastRuntimeErrorToStatus(Error error, const std::string& context) {
  return RuntimeErrorToStatus(error, context, LastErrorDetail());
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

}  // namespace service
}  // namespace edgefleet

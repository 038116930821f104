#include "service/status_mapping.h"

#include <atomic>
#include <chrono>
#include <cstdio>

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

absl::Status RuntimeErrorToStatus(Error error, const std::string& context, const char* detail) {
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

absl::Status ForClient(const absl::Status& status) {
  if (status.ok()) return status;
  constexpr size_t kMaxMessage = 512;
  std::string line(status.message().substr(0, status.message().find('\n')));
  const absl::StatusCode code = status.code();
  if (code != absl::StatusCode::kInternal && code != absl::StatusCode::kUnknown &&
      code != absl::StatusCode::kDataLoss) {
    if (line.size() > kMaxMessage) line.resize(kMaxMessage);
    return absl::Status(code, line);
  }
  // Request ids: the process start time (seconds) and a counter, so ids of
  // restarted servers do not repeat.
  static const long long epoch = std::chrono::duration_cast<std::chrono::seconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
  static std::atomic<unsigned long long> counter{0};
  const std::string id = std::to_string(epoch) + "-" + std::to_string(++counter);
  fprintf(stderr, "edgefleet-server: request %s failed: %s\n", id.c_str(),
          std::string(status.message()).c_str());
  std::string what = line.substr(0, line.find(':'));
  if (what.size() > 128) what.resize(128);
  if (what.empty()) what = "internal error";
  return absl::Status(code,
                      what + " (internal error; request id " + id + ", details in the server log)");
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const absl::Status shown = ForClient(status);
  return grpc::Status(static_cast<grpc::StatusCode>(shown.code()), std::string(shown.message()));
}

}  // namespace service
}  // namespace edgefleet

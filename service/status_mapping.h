// Status mapping: the one place where runtime errors become statuses.
//
// Service code carries failures as absl::Status (codes identical to gRPC's)
// and converts to grpc::Status only at the RPC boundary. A runtime
// edgefleet::Error turns into a status here and nowhere else; the mapping is
// table-tested over every value of kAllErrors (status_mapping_test.cc).
// Thread-safe (pure functions).

#ifndef EDGEFLEET_SERVICE_STATUS_MAPPING_H_
#define EDGEFLEET_SERVICE_STATUS_MAPPING_H_

#include <grpcpp/support/status.h>

#include <string>

#include "absl/status/status.h"
#include "runtime/core/error.h"

namespace edgefleet {
namespace service {

// The status code a runtime error maps to (kOk -> OK).
absl::StatusCode StatusCodeForError(Error error);

// A status for `error` with `context` ("loading model mobilenet") and the
// runtime's detail ("operator aten::foo.out is not registered") in the
// message, plus the error's stable name ("[operator_missing]").
// kOk gives OkStatus().
absl::Status RuntimeErrorToStatus(Error error, const std::string& context, const char* detail);

// The same, reading the detail from LastErrorDetail() of this thread.
absl::Status LastRuntimeErrorToStatus(Error error, const std::string& context);

// What a client may see of `status`. Messages are one line: the first line
// of the message, at most 512 characters. A status of code INTERNAL,
// UNKNOWN or DATA_LOSS carries internals (a stack's backtrace, library
// paths, addresses), so its full message is logged to stderr with a fresh
// request id and the client gets only the text before the first ':' of the
// first line ("pytorch-mobile forward failed") plus that id. Thread-safe.
absl::Status ForClient(const absl::Status& status);

// absl::Status -> grpc::Status (same code; the message as ForClient).
grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_STATUS_MAPPING_H_

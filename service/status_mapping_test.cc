#include "service/status_mapping.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace edgefleet {
namespace service {
namespace {

// The expected code of every runtime error. A new Error value fails
// EveryErrorHasAnExpectation until it is added here (and in the switch).
const std::map<Error, absl::StatusCode>& Expectations() {
  static const auto* table = new std::map<Error, absl::StatusCode>{
      {Error::kOk, absl::StatusCode::kOk},
      {Error::kInternal, absl::StatusCode::kInternal},
      {Error::kInvalidState, absl::StatusCode::kFailedPrecondition},
      {Error::kEndOfMethod, absl::StatusCode::kInternal},
      {Error::kAlreadyLoaded, absl::StatusCode::kFailedPrecondition},
      {Error::kNotSupported, absl::StatusCode::kUnimplemented},
      {Error::kNotImplemented, absl::StatusCode::kUnimplemented},
      {Error::kInvalidArgument, absl::StatusCode::kInvalidArgument},
      {Error::kInvalidType, absl::StatusCode::kInvalidArgument},
      {Error::kOperatorMissing, absl::StatusCode::kUnimplemented},
      {Error::kRegistrationExceedingMaxKernels, absl::StatusCode::kInternal},
      {Error::kRegistrationAlreadyRegistered, absl::StatusCode::kInternal},
      {Error::kNotFound, absl::StatusCode::kNotFound},
      {Error::kMemoryAllocationFailed, absl::StatusCode::kResourceExhausted},
      {Error::kAccessFailed, absl::StatusCode::kUnavailable},
      {Error::kInvalidProgram, absl::StatusCode::kFailedPrecondition},
      {Error::kInvalidExternalData, absl::StatusCode::kFailedPrecondition},
      {Error::kOutOfResources, absl::StatusCode::kResourceExhausted},
      {Error::kDelegateInvalidCompatibility, absl::StatusCode::kUnimplemented},
      {Error::kDelegateMemoryAllocationFailed, absl::StatusCode::kResourceExhausted},
      {Error::kDelegateInvalidHandle, absl::StatusCode::kInternal},
  };
  return *table;
}

TEST(StatusMappingTest, EveryErrorHasAnExpectation) {
  std::set<Error> seen;
  for (Error error : kAllErrors) {
    seen.insert(error);
    EXPECT_EQ(Expectations().count(error), 1u) << "no expectation for " << ErrorName(error);
  }
  EXPECT_EQ(seen.size(), Expectations().size());
}

TEST(StatusMappingTest, TableOverEveryError) {
  for (Error error : kAllErrors) {
    SCOPED_TRACE(ErrorName(error));
    EXPECT_EQ(StatusCodeForError(error), Expectations().at(error));
    const absl::Status status = RuntimeErrorToStatus(error, "loading model m", "why");
    EXPECT_EQ(status.code(), Expectations().at(error));
    if (error == Error::kOk) continue;
    // The message names the context, the detail and the error.
    EXPECT_NE(status.message().find("loading model m: why"), std::string::npos);
    EXPECT_NE(status.message().find(std::string("[") + ErrorName(error) + "]"), std::string::npos);
    const grpc::Status grpc_status = ToGrpcStatus(status);
    EXPECT_EQ(static_cast<int>(grpc_status.error_code()), static_cast<int>(status.code()));
    if (status.code() == absl::StatusCode::kInternal) {
      // Internals stay in the server log; the client gets the context and an id.
      EXPECT_EQ(
          grpc_status.error_message().rfind("loading model m (internal error; request id ", 0), 0u)
          << grpc_status.error_message();
      EXPECT_EQ(grpc_status.error_message().find("why"), std::string::npos);
    } else {
      EXPECT_EQ(grpc_status.error_message(), std::string(status.message()));
    }
    // Never OK and never UNKNOWN for a real failure.
    EXPECT_NE(grpc_status.error_code(), grpc::StatusCode::OK);
    EXPECT_NE(grpc_status.error_code(), grpc::StatusCode::UNKNOWN);
  }
}

// What libtorch 1.13's c10::Error::what() looks like for a shape mismatch
// in the lite interpreter (abridged from a real one): message, then the
// C++ backtrace with library paths and addresses.
constexpr char kLibtorchFailure[] =
    "pytorch-mobile forward failed: The following operation failed in the TorchScript "
    "interpreter.\n"
    "Traceback of TorchScript (most recent call last):\n"
    "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x5 and 16x8)\n"
    "Exception raised from meta at /build/pytorch/aten/src/ATen/native/LinearAlgebra.cpp:172 "
    "(most recent call first):\n"
    "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f2a1c3b4567 in "
    "/usr/lib/x86_64-linux-gnu/libc10.so.1.13)\n"
    "frame #1: <unknown function> + 0x1a2b3c4 (0x7f2a1e5f6789 in "
    "/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13)\n";

TEST(StatusMappingTest, InternalDetailsNeverReachTheClient) {
  for (absl::StatusCode code :
       {absl::StatusCode::kInternal, absl::StatusCode::kUnknown, absl::StatusCode::kDataLoss}) {
    const grpc::Status shown = ToGrpcStatus(absl::Status(code, kLibtorchFailure));
    const std::string message = shown.error_message();
    SCOPED_TRACE(message);
    EXPECT_EQ(static_cast<int>(shown.error_code()), static_cast<int>(code));
    EXPECT_EQ(message.rfind("pytorch-mobile forward failed (internal error; request id ", 0), 0u);
    for (const char* leak : {"\n", "/usr/", "/build/", "0x", "frame #", ".so", "Traceback"}) {
      EXPECT_EQ(message.find(leak), std::string::npos) << leak;
    }
  }
  // Two failures get two ids.
  EXPECT_NE(ToGrpcStatus(absl::InternalError("x: y")).error_message(),
            ToGrpcStatus(absl::InternalError("x: y")).error_message());
}

TEST(StatusMappingTest, OtherMessagesKeepTheirFirstLineOnly) {
  const grpc::Status shown = ToGrpcStatus(
      absl::FailedPreconditionError(std::string("bad model: why\nmore") + std::string(2000, 'x')));
  EXPECT_EQ(shown.error_message(), "bad model: why");
  const grpc::Status long_line = ToGrpcStatus(absl::InvalidArgumentError(std::string(2000, 'y')));
  EXPECT_EQ(long_line.error_message().size(), 512u);
}

TEST(StatusMappingTest, EmptyDetailKeepsContext) {
  const absl::Status status = RuntimeErrorToStatus(Error::kNotFound, "model x", "");
  EXPECT_EQ(status.message(), "model x [not_found]");
}

}  // namespace
}  // namespace service
}  // namespace edgefleet

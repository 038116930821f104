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
    EXPECT_NE(status.message().find(std::string("[") + ErrorName(error) + "]"),
              std::string::npos);
    const grpc::Status grpc_status = ToGrpcStatus(status);
    EXPECT_EQ(static_cast<int>(grpc_status.error_code()), static_cast<int>(status.code()));
    EXPECT_EQ(grpc_status.error_message(), std::string(status.message()));
    // Never OK and never UNKNOWN for a real failure.
    EXPECT_NE(grpc_status.error_code(), grpc::StatusCode::OK);
    EXPECT_NE(grpc_status.error_code(), grpc::StatusCode::UNKNOWN);
  }
}

TEST(StatusMappingTest, EmptyDetailKeepsContext) {
  const absl::Status status = RuntimeErrorToStatus(Error::kNotFound, "model x", "");
  EXPECT_EQ(status.message(), "model x [not_found]");
}

}  // namespace
}  // namespace service
}  // namespace edgefleet

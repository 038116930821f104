// Error codes of the EdgeFleet runtime.
//
// The numeric values match the real ExecuTorch runtime's `Error` enum, so a
// status code printed by either runtime means the same thing ("status 0x14" is
// OperatorMissing in both). The human-readable detail of the most recent
// failure on the calling thread is kept by error_detail.h.

#ifndef EDGEFLEET_RUNTIME_CORE_ERROR_H_
#define EDGEFLEET_RUNTIME_CORE_ERROR_H_

#include <cstdint>

namespace edgefleet {

enum class Error : uint32_t {
  // General.
  kOk = 0x00,
  kInternal = 0x01,
  kInvalidState = 0x02,
  kEndOfMethod = 0x03,
  kAlreadyLoaded = 0x04,
  // Usage.
  kNotSupported = 0x10,
  kNotImplemented = 0x11,
  kInvalidArgument = 0x12,
  kInvalidType = 0x13,
  kOperatorMissing = 0x14,
  kRegistrationExceedingMaxKernels = 0x15,
  kRegistrationAlreadyRegistered = 0x16,
  // Resources and data.
  kNotFound = 0x20,
  kMemoryAllocationFailed = 0x21,
  kAccessFailed = 0x22,
  kInvalidProgram = 0x23,
  kInvalidExternalData = 0x24,
  kOutOfResources = 0x25,
  // Delegates.
  kDelegateInvalidCompatibility = 0x30,
  kDelegateMemoryAllocationFailed = 0x31,
  kDelegateInvalidHandle = 0x32,
};

// Every Error value, in declaration order. Used by table tests and by code
// that maps errors to other vocabularies (gRPC status, metric labels).
inline constexpr Error kAllErrors[] = {
    Error::kOk,
    Error::kInternal,
    Error::kInvalidState,
    Error::kEndOfMethod,
    Error::kAlreadyLoaded,
    Error::kNotSupported,
    Error::kNotImplemented,
    Error::kInvalidArgument,
    Error::kInvalidType,
    Error::kOperatorMissing,
    Error::kRegistrationExceedingMaxKernels,
    Error::kRegistrationAlreadyRegistered,
    Error::kNotFound,
    Error::kMemoryAllocationFailed,
    Error::kAccessFailed,
    Error::kInvalidProgram,
    Error::kInvalidExternalData,
    Error::kOutOfResources,
    Error::kDelegateInvalidCompatibility,
    Error::kDelegateMemoryAllocationFailed,
    Error::kDelegateInvalidHandle,
};

// Stable snake_case name of `error` ("operator_missing"), or "unknown".
const char* ErrorName(Error error);

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_CORE_ERROR_H_

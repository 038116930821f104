#include "runtime/core/error.h"

namespace edgefleet {

const char* ErrorName(Error error) {
  switch (error) {
    case Error::kOk:
      return "ok";
    case Error::kInternal:
      return "internal";
    case Error::kInvalidState:
      return "invalid_state";
    case Error::kEndOfMethod:
      return "end_of_method";
    case Error::kAlreadyLoaded:
      return "already_loaded";
    case Error::kNotSupported:
      return "not_supported";
    case Error::kNotImplemented:
      return "not_implemented";
    case Error::kInvalidArgument:
      return "invalid_argument";
    case Error::kInvalidType:
      return "invalid_type";
    case Error::kOperatorMissing:
      return "operator_missing";
    case Error::kRegistrationExceedingMaxKernels:
      return "registration_exceeding_max_kernels";
    case Error::kRegistrationAlreadyRegistered:
      return "registration_already_registered";
    case Error::kNotFound:
      return "not_found";
    case Error::kMemoryAllocationFailed:
      return "memory_allocation_failed";
    case Error::kAccessFailed:
      return "access_failed";
    case Error::kInvalidProgram:
      return "invalid_program";
    case Error::kInvalidExternalData:
      return "invalid_external_data";
    case Error::kOutOfResources:
      return "out_of_resources";
    case Error::kDelegateInvalidCompatibility:
      return "delegate_invalid_compatibility";
    case Error::kDelegateMemoryAllocationFailed:
      return "delegate_memory_allocation_failed";
    case Error::kDelegateInvalidHandle:
      return "delegate_invalid_handle";
  }
  return "unknown";
}

}  // namespace edgefleet

// Method::Delegate: one initialized delegate of a Method, internal to the
// executor (method_load.cc initializes it, method.cc runs and destroys it).
// Plain data in method allocator memory; the Method owns the handle and
// destroys it in its destructor. Thread safety: that of its Method.

#ifndef EDGEFLEET_RUNTIME_EXECUTOR_METHOD_DELEGATE_H_
#define EDGEFLEET_RUNTIME_EXECUTOR_METHOD_DELEGATE_H_

#include "runtime/backends/backend.h"
#include "runtime/executor/method.h"

namespace edgefleet {

struct Method::Delegate {
  const BackendInterface* backend;
  DelegateHandle* handle;
};

}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_EXECUTOR_METHOD_DELEGATE_H_

// MethodThreadpools: one pthreadpool per Method, shared by all of that
// method's XNNPACK delegates (a method runs its delegates one after another,
// so they never compete for it), sized by MethodOptions::num_threads.
//
// A method is identified by its method allocator, which lives exactly as
// long as the method; a pool is released when the last delegate holding it
// is destroyed. Thread-safe (one mutex); the pools themselves are used by
// one thread at a time, like the Method.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_METHOD_THREADPOOL_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_METHOD_THREADPOOL_H_

#include <memory>

#include "runtime/core/result.h"

namespace edgefleet {
namespace xnnpack {

// A pthreadpool_t owned through shared_ptr; get() is null for one thread
// (XNNPACK then runs on the calling thread).
using SharedThreadpool = std::shared_ptr<void>;

// The pool of the method identified by `method_key` with `num_threads`
// threads, created on first use. Errors: kOutOfResources when the threads
// cannot start.
Result<SharedThreadpool> MethodThreadpool(const void* method_key, int num_threads);

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_METHOD_THREADPOOL_H_

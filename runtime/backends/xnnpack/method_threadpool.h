// MethodThreadpools: one pthreadpool per Method, shared by all of that
// method's XNNPACK delegates (a method runs its delegates one after another,
// so they never compete for it), sized by MethodOptions::num_threads.
//
// A method is identified by its method allocator, which lives exactly as
// long as the method. When the last delegate holding a pool is destroyed,
// the pool is parked (its threads asleep) for the next method that asks for
// the same number of threads; at most kMaxParkedThreadpools are parked (the
// oldest is destroyed to make room). Parked pools live until the process
// exits. Starting threads is
// then paid once per process, as in the real runtime, whose pthreadpool is a
// process-wide singleton made before any program loads
// (PrestartThreadpool does that ahead of a timed load).
//
// Thread-safe (one mutex); the pools themselves are used by one thread at a
// time, like the Method. PthreadpoolRunner lends a pool to our own kernels,
// so the delegate's XNNPACK runtimes and its nodes on our kernels share one
// set of threads.

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_METHOD_THREADPOOL_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_METHOD_THREADPOOL_H_

#include <cstddef>
#include <memory>

#include "runtime/core/result.h"
#include "runtime/kernels/optimized/thread_pool.h"

namespace edgefleet {
namespace xnnpack {

// A pthreadpool_t owned through shared_ptr; get() is null for one thread
// (XNNPACK then runs on the calling thread).
using SharedThreadpool = std::shared_ptr<void>;

// How many released pools are kept for reuse (each holds its threads).
inline constexpr size_t kMaxParkedThreadpools = 2;

// The pool of the method identified by `method_key` with `num_threads`
// threads: the method's own if it has one, else a parked pool of that size,
// else a new one. Errors: kOutOfResources when the threads cannot start.
Result<SharedThreadpool> MethodThreadpool(const void* method_key, int num_threads);

// Starts a pool of `num_threads` threads and parks it (no-op for one thread
// or when one of that size is parked already). Errors as MethodThreadpool.
Error PrestartThreadpool(int num_threads);

// Pools parked now (for tests and diagnostics).
size_t ParkedThreadpoolCount();

// Runs the optimized kernels' parallel-for jobs on a pthreadpool (install it
// with optimized::ScopedParallelRunner while the kernels run). Does not own
// the pool; use from one thread at a time.
class PthreadpoolRunner final : public optimized::ParallelRunner {
 public:
  explicit PthreadpoolRunner(void* pthreadpool) : pool_(pthreadpool) {}
  void Run(int64_t num_tasks, TaskFn fn, void* context) override;

 private:
  void* pool_;
};

}  // namespace xnnpack
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_METHOD_THREADPOOL_H_

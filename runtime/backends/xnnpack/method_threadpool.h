// MethodThreadpool: the pthreadpool_t a method's XNNPACK delegates run on,
// backed by this runtime's own ThreadPool (runtime/kernels/optimized/
// thread_pool.h) instead of threads of the system pthreadpool.
//
// XNNPACK runs every parallel operator through pthreadpool's C API
// (pthreadpool_parallelize_1d ... _6d_tile_2d, pthreadpool_get_threads_count).
// This library defines those entry points (method_threadpool.cc); a program
// linking it resolves XNNPACK's calls to them. A handle from MethodThreadpool
// runs the call's items on our pool; any other handle (a pool another library
// created with the system's pthreadpool_create, e.g. libtorch's in the same
// process) is passed on to the system pthreadpool unchanged, and a null
// handle runs on the calling thread, as pthreadpool defines it. Why: the
// system pthreadpool (Debian's, 2021) makes the caller of every parallel
// operator wait until each worker has checked in, even one that found no
// work, and its idle workers spin up to 10^6 pauses; our pool never waits
// for a worker that has not started (docs/threads.md). PTHREADPOOL_FLAG_
// DISABLE_DENORMALS is honoured (flush-to-zero on every thread running the
// call's items, restored after), so results are the bits the system
// pthreadpool gives.
//
// A handle stands for a thread count, not for threads: every method asking
// for n threads gets the same handle, which runs on the kernels' pool when
// that has at least n threads (RegisterOptimizedKernels; one set of threads
// for the kernels and the delegates), else on a pool of n threads of its
// own, started on first use and kept until the process exits (at most one
// per thread count).
//
// Thread-safe: handles may be used from any thread, concurrently; a call
// that finds its pool busy (another method running on another thread)
// runs its items on its own thread (ThreadPool::ParallelFor).

#ifndef EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_METHOD_THREADPOOL_H_
#define EDGEFLEET_RUNTIME_BACKENDS_XNNPACK_METHOD_THREADPOOL_H_

#include "runtime/core/result.h"
#include "runtime/kernels/optimized/thread_pool.h"

namespace edgefleet {
namespace xnnpack {

// The pthreadpool_t for `num_threads` threads (clamped to
// ThreadPool::kMaxThreads): null for one thread (XNNPACK then runs on the
// calling thread). Not owned; valid until the process exits. Errors:
// kOutOfResources when a pool of that size must be started and cannot.
Result<void*> MethodThreadpool(int num_threads);

// The ThreadPool a handle from MethodThreadpool runs on (for tests and
// diagnostics), or null for any other handle.
optimized::ThreadPool* ThreadPoolOf(const void* pthreadpool);

// Runs the optimized kernels' parallel-for jobs on a handle from
// MethodThreadpool (install it with optimized::ScopedParallelRunner while
// the kernels run), so a delegated method's own kernels use the same
// threads and thread count as its XNNPACK operators. Does not own the
// handle; use from one thread at a time.
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

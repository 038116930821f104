// ThreadPool: a fixed set of worker threads that run parallel-for jobs for
// the optimized kernels.
//
// Create(n) starts n - 1 workers; the thread that calls ParallelFor is the
// n-th and runs tasks too. Pinning (ThreadPinning::kWorkers, the default; see
// DefaultThreadPinning): on Linux, when the creating thread may run on at
// least n CPUs, all of one capacity, worker i is pinned to the (i + 2)-th of
// them (the first is left to callers, which are not pinned); never outside
// that set, and a pin the system refuses leaves the worker where it was (its
// creator's set, which is also what every worker keeps with fewer CPUs, e.g.
// under `taskset` to one core, on big.LITTLE CPUs, or with kNone). The real
// runtime's pthreadpool pins nothing. A job is handed out and joined
// through one atomic word, without a lock; workers spin on it for a while
// after a job, then sleep on a condition variable (so back-to-back kernels
// pay neither a lock nor a wake-up). The caller waits only for tasks that
// were claimed, never for a worker that has not started (on an
// oversubscribed host it may not run for a whole time slice): late workers
// find the job closed. Memory is allocated by Create only; ParallelFor
// allocates nothing.
//
// Thread safety: ParallelFor may be called from any thread, concurrently.
// The pool runs one job at a time; a call that finds it busy (another
// Method executing on another thread, or a nested call) runs all its tasks
// on its own thread instead of waiting, so callers never block each other.
// The destructor joins the workers; no job may be running then.
//
// The kernels' pool is a process-wide one started by StartKernelThreadPool()
// (RegisterOptimizedKernels() calls it); it lives until the process exits.

#ifndef EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_THREAD_POOL_H_
#define EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_THREAD_POOL_H_

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>

#include "runtime/core/error.h"
#include "runtime/core/result.h"

namespace edgefleet {
namespace optimized {

// Where a pool's workers run.
enum class ThreadPinning {
  kNone,     // wherever the scheduler puts them (as the real runtime's pthreadpool)
  kWorkers,  // each on a CPU of its own when there are enough (above)
};

// kWorkers, unless the environment variable EDGEFLEET_PIN_THREADS is "0"
// (kNone): lets a benchmark compare both on the same binary.
ThreadPinning DefaultThreadPinning();

// The CPUs `num_workers` workers are pinned to: worker i gets allowed[i + 1]
// (allowed[0] is left to callers), written to cpus[0..num_workers). False,
// and nothing written, when there are fewer than num_workers + 1 allowed
// CPUs, no workers, or the allowed CPUs differ in capacity[] (big.LITTLE:
// a fixed CPU could be a little core the scheduler would not have chosen;
// Linux's cpu_capacity, all equal where the system does not say).
bool PlanWorkerCpus(const int* allowed, const int* capacity, int num_allowed, int num_workers,
                    int* cpus);

class ThreadPool {
 public:
  // Most threads a pool has (workers plus the caller).
  static constexpr int kMaxThreads = 64;

  // Starts num_threads - 1 workers, placed as `pinning` says. Errors:
  // kInvalidArgument unless 1 <= num_threads <= kMaxThreads; kOutOfResources
  // if a thread cannot be started.
  static Result<std::unique_ptr<ThreadPool>> Create(int num_threads,
                                                    ThreadPinning pinning = DefaultThreadPinning());

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool();

  int num_threads() const { return num_workers_ + 1; }

  // Jobs handed to the workers so far (calls that ran inline are not
  // counted): lets tests check that a kernel did split its work.
  uint64_t jobs_started() const { return jobs_started_.load(std::memory_order_relaxed); }

  // Calls fn(task) once for every task in [0, num_tasks), on at most
  // max_threads threads (the caller included), and returns when all calls
  // have returned. Tasks are handed out dynamically: the caller takes them
  // from the front, in increasing order, the workers from the back, so on
  // two threads each keeps the same part of every job (the first and the
  // last rows of an image, layer after layer: the data stays in its core's
  // cache) until they meet.
  template <typename F>
  void ParallelFor(int64_t num_tasks, int max_threads, F&& fn) {
    using Fn = std::remove_reference_t<F>;
    Run(
        num_tasks, max_threads, [](void* f, int64_t task) { (*static_cast<Fn*>(f))(task); },
        const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  using TaskFn = void (*)(void* context, int64_t task);

  explicit ThreadPool(int num_workers) : num_workers_(num_workers) {}
  void Run(int64_t num_tasks, int max_threads, TaskFn fn, void* context);
  // Claims and runs tasks until none is left: first its own share (`slot`:
  // 0 the caller's, i + 1 worker i's) from the front, then the others' from
  // the back.
  void RunTasks(int slot);
  void WorkerLoop(int index);
  static void* WorkerMain(void* arg);

  const int num_workers_;
  pthread_t threads_[kMaxThreads] = {};
  int started_ = 0;

  std::mutex job_mutex_;  // held by the caller whose job is on the pool

  // The job, the workers' view of it and their count in one word, so a
  // hand-off takes no lock: bits 0-6 the workers inside the job, 7-13 the
  // workers it wants, bit 14 set while workers may join, the rest a
  // generation that each job (and stop) increments. A worker joins by
  // incrementing the count of the generation it saw, only while that
  // generation is open and wants it; the caller closes it, then waits for
  // the count to reach 0 before it changes the job's fields below.
  alignas(64) std::atomic<uint64_t> state_{0};

  // The current job, written by the caller before it publishes the
  // generation, read by workers that joined it.
  TaskFn fn_ = nullptr;
  void* context_ = nullptr;
  int threads_in_job_ = 0;  // wanted workers + 1
  // The current job's tasks not yet claimed, a contiguous share per thread
  // ([front, back), front in the low 32 bits), each on a cache line of its
  // own: a thread claims its own share without contention, and a thread
  // runs the same part of every job (the same rows of consecutive layers,
  // still in its cache) unless it finishes first and takes over another's.
  struct alignas(64) Share {
    std::atomic<uint64_t> unclaimed{0};
  };
  Share shares_[kMaxThreads];
  alignas(64) std::atomic<int64_t> done_tasks_{0};

  // Sleeping: a worker that spun in vain waits on wake_, a caller whose
  // workers are slow to leave on left_, both under mutex_. Each announces
  // itself in sleeping_workers_ / caller_sleeping_ before it checks state_
  // for the last time, and the other side checks them after it changes
  // state_ (both sequentially consistent), so it notifies only when
  // someone may be asleep and no wake-up is lost.
  alignas(64) std::atomic<int> sleeping_workers_{0};
  std::atomic<bool> caller_sleeping_{false};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable left_;
  std::atomic<uint64_t> jobs_started_{0};
};

// Starts the kernels' pool with `num_threads` threads (clamped to
// [1, ThreadPool::kMaxThreads]) and DefaultThreadPinning() unless it is
// already started, in which case nothing changes. Thread-safe.
Error StartKernelThreadPool(int num_threads);

// The kernels' pool, or nullptr if none was started.
ThreadPool* KernelThreadPool();

// Runs the kernels' parallel-for jobs on a pool that is not the kernels'
// own. A backend with a thread pool of its own (the XNNPACK delegate's
// pthreadpool) installs one for the calling thread while it runs kernels,
// so a method's work runs on one set of threads instead of two competing
// ones. Implementations must be usable from the installing thread only.
class ParallelRunner {
 public:
  using TaskFn = void (*)(void* context, int64_t task);
  // Calls fn(context, task) once for every task in [0, num_tasks) and
  // returns when all calls have returned.
  virtual void Run(int64_t num_tasks, TaskFn fn, void* context) = 0;

 protected:
  ~ParallelRunner() = default;
};

// Installs `runner` (null: none) for the calling thread until destroyed,
// then restores the previous one.
class ScopedParallelRunner {
 public:
  explicit ScopedParallelRunner(ParallelRunner* runner);
  ~ScopedParallelRunner();
  ScopedParallelRunner(const ScopedParallelRunner&) = delete;
  ScopedParallelRunner& operator=(const ScopedParallelRunner&) = delete;

 private:
  ParallelRunner* previous_;
};

// The calling thread's runner, or nullptr.
ParallelRunner* CurrentParallelRunner();

// Runs every task on the calling thread: ParallelFor installs it around
// each task it hands to a runner, so nested calls stay inline (a runner's
// pool runs one job at a time).
ParallelRunner* InlineParallelRunner();

// Fewest elements a range of a split memory-bound kernel (element-wise ops,
// activations, copies, transposes, reductions) holds: about 2-3 us from L2,
// worth the ~1 us of a job hand-off at two threads (docs/threads.md).
inline constexpr int64_t kMinRangeElements = 8 * 1024;

// Below this many elements a memory-bound kernel (a pooling, a channel
// scale) stays on one thread: handing work out costs more than it saves.
inline constexpr int64_t kMinParallelElements = 2 * kMinRangeElements;

// Items per range (ParallelForRanges' grain) when each item reads
// `elements_per_item` elements (a mean's output, a pooled channel): at
// least `min_items`, and enough that a range reads kMinRangeElements
// elements, so every range is worth its hand-off.
inline int64_t ItemGrain(int64_t min_items, int64_t elements_per_item) {
  const int64_t per = elements_per_item < 1 ? 1 : elements_per_item;
  const int64_t by_elements = (kMinRangeElements + per - 1) / per;
  return by_elements > min_items ? by_elements : min_items;
}

// Whether ParallelFor can use more than the calling thread: a runner is
// installed or the kernels' pool is started.
inline bool ParallelismAvailable() {
  return CurrentParallelRunner() != nullptr || KernelThreadPool() != nullptr;
}

// ParallelFor on the calling thread's runner if one is installed, else on
// the kernels' pool; a plain loop on the calling thread when there is
// neither or max_threads <= 1.
template <typename F>
void ParallelFor(int64_t num_tasks, int max_threads, F&& fn) {
  if (max_threads <= 1 || num_tasks <= 1) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  if (ParallelRunner* runner = CurrentParallelRunner()) {
    runner->Run(
        num_tasks,
        [](void* f, int64_t task) {
          // A ParallelFor nested in a task runs inline, on whichever thread
          // runs the task.
          const ScopedParallelRunner nested(InlineParallelRunner());
          (*static_cast<Fn*>(f))(task);
        },
        const_cast<void*>(static_cast<const void*>(&fn)));
    return;
  }
  ThreadPool* pool = KernelThreadPool();
  if (pool == nullptr) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(t);
    return;
  }
  pool->ParallelFor(num_tasks, max_threads, fn);
}

// Splits [0, total) into contiguous ranges and calls fn(begin, end) for
// each, on up to max_threads threads (ParallelFor). Every range but the
// last holds at least `grain` items, so work below 2 * grain stays on the
// calling thread; there are at most 4 ranges per thread (a thread that
// finds its core busy leaves its later ranges to the others). For kernels
// whose every output element is computed independently of the partition
// (elementwise ops, copies, transposes), results are the same bits at any
// thread count.
template <typename F>
void ParallelForRanges(int64_t total, int64_t grain, int max_threads, F&& fn) {
  if (total <= 0) return;
  if (grain < 1) grain = 1;
  const int64_t threads = max_threads < 1 ? 1 : max_threads;
  const int64_t by_grain = total / grain;
  const int64_t ranges =
      by_grain < 2 || threads == 1 ? 1 : (by_grain < 4 * threads ? by_grain : 4 * threads);
  if (ranges == 1) {
    fn(int64_t{0}, total);
    return;
  }
  const int64_t chunk = (total + ranges - 1) / ranges;
  ParallelFor((total + chunk - 1) / chunk, max_threads, [&](int64_t r) {
    const int64_t begin = r * chunk;
    fn(begin, total - begin < chunk ? total : begin + chunk);
  });
}

}  // namespace optimized
}  // namespace edgefleet

#endif  // EDGEFLEET_RUNTIME_KERNELS_OPTIMIZED_THREAD_POOL_H_

#include "runtime/kernels/optimized/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace optimized {
namespace {

// Pause instructions a waiting thread spins before it sleeps (a worker) or
// yields (the caller): a few microseconds, about one small kernel, so
// workers are still awake for the next instruction's job without taking a
// core from other work for long.
constexpr int kSpinIterations = 2000;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// state_'s fields (thread_pool.h).
constexpr uint64_t kJoinedMask = 0x7f;
constexpr int kWantedShift = 7;
constexpr uint64_t kOpen = uint64_t{1} << 14;
constexpr int kGenerationShift = 15;

inline uint64_t Generation(uint64_t state) { return state >> kGenerationShift; }
inline int Joined(uint64_t state) { return static_cast<int>(state & kJoinedMask); }
inline int Wanted(uint64_t state) {
  return static_cast<int>((state >> kWantedShift) & kJoinedMask);
}

struct WorkerArg {
  ThreadPool* pool;
  int index;
};

#ifdef __linux__
// The kernel's relative capacity of `cpu` (heterogeneous ARM systems), or
// 0 where it does not say (x86; all CPUs then count as equal).
int CpuCapacity(int cpu) {
  char path[64];
  snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu);
  FILE* f = fopen(path, "r");
  if (f == nullptr) return 0;
  int capacity = 0;
  if (fscanf(f, "%d", &capacity) != 1) capacity = 0;
  fclose(f);
  return capacity;
}
#endif

// Pins worker i (`threads[i]`) as PlanWorkerCpus says, within the calling
// thread's allowed CPUs (which respects `taskset`). Linux only; a pin the
// system refuses leaves that worker with its creator's CPUs.
void PinWorkers(const pthread_t* threads, int num_workers) {
#ifdef __linux__
  cpu_set_t allowed;
  if (num_workers < 1 || sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
  int cpus[CPU_SETSIZE];
  int capacity[CPU_SETSIZE];
  int num_allowed = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) {
      capacity[num_allowed] = CpuCapacity(cpu);
      cpus[num_allowed++] = cpu;
    }
  }
  int planned[ThreadPool::kMaxThreads];
  if (!PlanWorkerCpus(cpus, capacity, num_allowed, num_workers, planned)) return;
  for (int i = 0; i < num_workers; ++i) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(planned[i], &one);
    pthread_setaffinity_np(threads[i], sizeof(one), &one);  // refused: left as it was
  }
#else
  (void)threads;
  (void)num_workers;
#endif
}

}  // namespace

ThreadPinning DefaultThreadPinning() {
  const char* value = getenv("EDGEFLEET_PIN_THREADS");
  return value != nullptr && strcmp(value, "0") == 0 ? ThreadPinning::kNone
                                                     : ThreadPinning::kWorkers;
}

bool PlanWorkerCpus(const int* allowed, const int* capacity, int num_allowed, int num_workers,
                    int* cpus) {
  if (num_workers < 1 || num_allowed < num_workers + 1) return false;
  for (int i = 1; i < num_allowed; ++i) {
    if (capacity[i] != capacity[0]) return false;
  }
  for (int i = 0; i < num_workers; ++i) cpus[i] = allowed[i + 1];
  return true;
}

Result<std::unique_ptr<ThreadPool>> ThreadPool::Create(int num_threads, ThreadPinning pinning) {
  EF_CHECK_OR_RETURN(num_threads >= 1 && num_threads <= kMaxThreads, Error::kInvalidArgument,
                     "thread pool size %d is not in [1, %d]", num_threads, kMaxThreads);
  std::unique_ptr<ThreadPool> pool(new (std::nothrow) ThreadPool(num_threads - 1));
  EF_CHECK_OR_RETURN(pool != nullptr, Error::kMemoryAllocationFailed,
                     "cannot allocate a thread pool");
  for (int i = 0; i < pool->num_workers_; ++i) {
    // Each worker takes ownership of its argument.
    WorkerArg* arg = new (std::nothrow) WorkerArg{pool.get(), i};
    EF_CHECK_OR_RETURN(arg != nullptr, Error::kMemoryAllocationFailed,
                       "cannot allocate a thread pool");
    if (pthread_create(&pool->threads_[i], nullptr, &ThreadPool::WorkerMain, arg) != 0) {
      delete arg;
      EF_FAIL(Error::kOutOfResources, "cannot start thread %d of %d", i + 1, num_threads);
    }
    pool->started_ = i + 1;
  }
  if (pinning == ThreadPinning::kWorkers) PinWorkers(pool->threads_, pool->num_workers_);
  return pool;
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_relaxed);
  // A new generation, closed: waiting workers see it and find stop_.
  state_.fetch_add(uint64_t{1} << kGenerationShift, std::memory_order_seq_cst);
  { std::lock_guard<std::mutex> lock(mutex_); }
  wake_.notify_all();
  for (int i = 0; i < started_; ++i) pthread_join(threads_[i], nullptr);
}

void* ThreadPool::WorkerMain(void* raw) {
  const WorkerArg arg = *static_cast<WorkerArg*>(raw);
  delete static_cast<WorkerArg*>(raw);
  arg.pool->WorkerLoop(arg.index);
  return nullptr;
}

namespace {

// Claims the first (or last) task of `unclaimed`'s [front, back) into
// *task; false when it is empty.
bool Claim(std::atomic<uint64_t>& unclaimed, bool from_back, int64_t* task) {
  uint64_t range = unclaimed.load(std::memory_order_relaxed);
  do {
    const uint64_t front = range & 0xffffffffu, back = range >> 32;
    if (front >= back) return false;
    *task = static_cast<int64_t>(from_back ? back - 1 : front);
  } while (!unclaimed.compare_exchange_weak(
      range, from_back ? range - (uint64_t{1} << 32) : range + 1, std::memory_order_relaxed));
  return true;
}

}  // namespace

void ThreadPool::RunTasks(int slot) {
  const int threads = threads_in_job_;
  int64_t done = 0;
  int64_t task;
  for (int i = 0; i < threads; ++i) {
    Share& share = shares_[(slot + i) % threads];
    while (Claim(share.unclaimed, /*from_back=*/i > 0, &task)) {
      fn_(context_, task);
      ++done;
    }
  }
  if (done > 0) done_tasks_.fetch_add(done, std::memory_order_acq_rel);
}

void ThreadPool::WorkerLoop(int index) {
  uint64_t seen = 0;  // the last generation this worker looked at
  for (;;) {
    uint64_t state = state_.load(std::memory_order_acquire);
    for (int spin = 0; spin < kSpinIterations && Generation(state) == seen; ++spin) {
      CpuRelax();
      state = state_.load(std::memory_order_acquire);
    }
    if (Generation(state) == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      sleeping_workers_.fetch_add(1, std::memory_order_seq_cst);
      wake_.wait(lock, [&] {
        state = state_.load(std::memory_order_seq_cst);
        return Generation(state) != seen;
      });
      sleeping_workers_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (stop_.load(std::memory_order_relaxed)) return;
    seen = Generation(state);
    // Join the job unless it closed, moved on or does not want this worker
    // (a late worker: the caller never waits for one that did not join).
    bool joined = false;
    while ((state & kOpen) != 0 && Generation(state) == seen && index < Wanted(state)) {
      if (state_.compare_exchange_weak(state, state + 1, std::memory_order_acquire,
                                       std::memory_order_acquire)) {
        joined = true;
        break;
      }
    }
    if (!joined) continue;
    RunTasks(index + 1);
    state_.fetch_sub(1, std::memory_order_seq_cst);
    if (caller_sleeping_.load(std::memory_order_seq_cst)) {
      { std::lock_guard<std::mutex> lock(mutex_); }
      left_.notify_all();
    }
  }
}

void ThreadPool::Run(int64_t num_tasks, int max_threads, TaskFn fn, void* context) {
  // A job holds at most 2^32 - 1 tasks (a share's halves); more (no
  // kernel comes near) run on the calling thread.
  constexpr int64_t kMaxJobTasks = 0xffffffff;
  const int64_t threads = std::min<int64_t>({max_threads, num_workers_ + 1, num_tasks});
  if (threads <= 1 || num_tasks > kMaxJobTasks || !job_mutex_.try_lock()) {
    for (int64_t t = 0; t < num_tasks; ++t) fn(context, t);
    return;
  }
  jobs_started_.fetch_add(1, std::memory_order_relaxed);
  // No worker is inside the pool's last job (Run waited for that), so the
  // job's fields are the caller's until it publishes the generation.
  fn_ = fn;
  context_ = context;
  threads_in_job_ = static_cast<int>(threads);
  for (int64_t s = 0; s < threads; ++s) {
    const uint64_t front = static_cast<uint64_t>(num_tasks * s / threads);
    const uint64_t back = static_cast<uint64_t>(num_tasks * (s + 1) / threads);
    shares_[s].unclaimed.store(back << 32 | front, std::memory_order_relaxed);
  }
  done_tasks_.store(0, std::memory_order_relaxed);
  const uint64_t generation = Generation(state_.load(std::memory_order_relaxed)) + 1;
  state_.store(
      generation << kGenerationShift | kOpen | static_cast<uint64_t>(threads - 1) << kWantedShift,
      std::memory_order_seq_cst);
  if (sleeping_workers_.load(std::memory_order_seq_cst) > 0) {
    {
      // A worker between its last look at state_ and its wait holds the
      // mutex: taking it here orders the notify after that wait began.
      std::lock_guard<std::mutex> lock(mutex_);
    }
    wake_.notify_all();
  }
  RunTasks(/*slot=*/0);
  // Tasks other threads claimed: wait for them (spin, then yield the core,
  // which a preempted worker may need).
  for (int spin = 0; done_tasks_.load(std::memory_order_acquire) != num_tasks; ++spin) {
    if (spin < kSpinIterations) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
  // Close the job; workers that joined leave once they find no task
  // (spin, then sleep: a sleep and its wake-up cost more than a short job).
  uint64_t state = state_.fetch_and(~kOpen, std::memory_order_acq_rel) & ~kOpen;
  for (int spin = 0; spin < kSpinIterations && Joined(state) != 0; ++spin) {
    CpuRelax();
    state = state_.load(std::memory_order_acquire);
  }
  if (Joined(state) != 0) {
    std::unique_lock<std::mutex> lock(mutex_);
    caller_sleeping_.store(true, std::memory_order_seq_cst);
    left_.wait(lock, [&] { return Joined(state_.load(std::memory_order_seq_cst)) == 0; });
    caller_sleeping_.store(false, std::memory_order_relaxed);
  }
  job_mutex_.unlock();
}

namespace {
std::mutex g_kernel_pool_mutex;
std::atomic<ThreadPool*> g_kernel_pool{nullptr};
}  // namespace

Error StartKernelThreadPool(int num_threads) {
  std::lock_guard<std::mutex> lock(g_kernel_pool_mutex);
  if (g_kernel_pool.load(std::memory_order_acquire) != nullptr) {
    return Error::kOk;
  }
  num_threads = std::clamp(num_threads, 1, ThreadPool::kMaxThreads);
  EF_ASSIGN_OR_RETURN(std::unique_ptr<ThreadPool> pool, ThreadPool::Create(num_threads));
  // Lives until the process exits (kernels may run until then).
  g_kernel_pool.store(pool.release(), std::memory_order_release);
  return Error::kOk;
}

ThreadPool* KernelThreadPool() { return g_kernel_pool.load(std::memory_order_acquire); }

namespace {
thread_local ParallelRunner* t_runner = nullptr;

class InlineRunner final : public ParallelRunner {
 public:
  void Run(int64_t num_tasks, TaskFn fn, void* context) override {
    for (int64_t t = 0; t < num_tasks; ++t) fn(context, t);
  }
};
}  // namespace

ScopedParallelRunner::ScopedParallelRunner(ParallelRunner* runner) : previous_(t_runner) {
  t_runner = runner;
}

ScopedParallelRunner::~ScopedParallelRunner() { t_runner = previous_; }

ParallelRunner* CurrentParallelRunner() { return t_runner; }

ParallelRunner* InlineParallelRunner() {
  static InlineRunner runner;
  return &runner;
}

}  // namespace optimized
}  // namespace edgefleet

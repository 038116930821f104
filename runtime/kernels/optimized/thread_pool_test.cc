// ThreadPool: every task runs exactly once, concurrent and nested callers
// never block each other, sizes are bounded. Plus kernel registration:
// optimized kernels are chosen where Supports() accepts, portable ones
// elsewhere, and kPortableOnly forces portable.

#include "runtime/kernels/optimized/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/kernel_registry.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/optimized/test_util.h"
#include "runtime/kernels/portable/register_portable_kernels.h"

namespace edgefleet {
namespace optimized {
namespace {

TEST(ThreadPoolTest, RunsEveryTaskOnce) {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(4);
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ((*pool)->num_threads(), 4);
  for (int64_t tasks : {0, 1, 3, 4, 100, 1000}) {
    for (int max_threads : {1, 2, 4, 64}) {
      std::vector<std::atomic<int>> runs(tasks);
      (*pool)->ParallelFor(tasks, max_threads, [&](int64_t t) { ++runs[t]; });
      for (int64_t t = 0; t < tasks; ++t) ASSERT_EQ(runs[t].load(), 1) << t;
    }
  }
}

// Each thread starts at its own contiguous share of the job: the caller at
// task 0, worker i at share i + 1's first task. Every task waits until all
// three threads have started one (or 10 s), so no thread can finish its
// share and take another's before the others claim their first task.
TEST(ThreadPoolTest, EachThreadStartsWithItsOwnShare) {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(3);
  ASSERT_TRUE(pool.ok());
  std::mutex mutex;
  std::vector<std::pair<std::thread::id, int64_t>> first;  // per thread, its first task
  std::atomic<int> started{0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  (*pool)->ParallelFor(9, 3, [&](int64_t task) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      const std::thread::id self = std::this_thread::get_id();
      if (std::none_of(first.begin(), first.end(),
                       [&](const auto& f) { return f.first == self; })) {
        first.emplace_back(self, task);
        ++started;
      }
    }
    while (started.load() < 3 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  });
  std::vector<int64_t> tasks;
  for (const auto& f : first) tasks.push_back(f.second);
  std::sort(tasks.begin(), tasks.end());
  EXPECT_EQ(tasks, (std::vector<int64_t>{0, 3, 6}));
}

// A runner installed for the thread takes ParallelFor's jobs (nested calls
// run inline), and the previous one is back when its scope ends.
TEST(ThreadPoolTest, ScopedRunnerTakesTheJobs) {
  class CountingRunner final : public ParallelRunner {
   public:
    int jobs = 0;
    void Run(int64_t num_tasks, TaskFn fn, void* context) override {
      ++jobs;
      for (int64_t t = num_tasks - 1; t >= 0; --t) fn(context, t);
    }
  } outer, inner;
  std::vector<int> runs(10, 0);
  int nested = 0;
  {
    const ScopedParallelRunner a(&outer);
    {
      const ScopedParallelRunner b(&inner);
      ParallelFor(10, 4, [&](int64_t t) {
        ++runs[t];
        EXPECT_EQ(CurrentParallelRunner(), InlineParallelRunner());
        ParallelFor(3, 4, [&](int64_t) { ++nested; });
      });
    }
    EXPECT_EQ(CurrentParallelRunner(), &outer);
    ParallelFor(5, 1, [&](int64_t t) { ++runs[t]; });  // one thread: no job
  }
  EXPECT_EQ(CurrentParallelRunner(), nullptr);
  EXPECT_EQ(inner.jobs, 1);
  EXPECT_EQ(outer.jobs, 0);
  EXPECT_EQ(nested, 30);
  EXPECT_EQ(runs, (std::vector<int>{2, 2, 2, 2, 2, 1, 1, 1, 1, 1}));
}

TEST(ThreadPoolTest, ConcurrentAndNestedCallers) {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(3);
  ASSERT_TRUE(pool.ok());
  std::atomic<int64_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 200; ++round) {
        (*pool)->ParallelFor(8, 3, [&](int64_t) {
          // A nested call finds the pool busy and runs inline.
          (*pool)->ParallelFor(2, 3, [&](int64_t) { ++total; });
        });
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), 4 * 200 * 8 * 2);
}

// What a worker reports from inside a task: its affinity mask and the CPU
// it ran on.
struct WorkerPlace {
  cpu_set_t mask;
  int cpu = -1;
};

// Every worker's place, read from inside a job of one task per thread (each
// task waits, at most 5 s on a loaded host, until every worker has taken
// one). Fails the test if a worker never ran.
std::vector<WorkerPlace> WorkerPlaces(ThreadPool& pool) {
  const size_t workers = static_cast<size_t>(pool.num_threads() - 1);
  std::vector<WorkerPlace> places(workers);
  std::mutex mu;
  std::vector<pthread_t> seen;  // workers that have reported, in slot order
  std::atomic<size_t> reported{0};
  const pthread_t caller = pthread_self();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  pool.ParallelFor(pool.num_threads(), pool.num_threads(), [&](int64_t) {
    // A worker reports in its first task only (one whose first task ended
    // may take the caller's, e.g. with a single worker).
    if (!pthread_equal(pthread_self(), caller)) {
      std::lock_guard<std::mutex> lock(mu);
      const bool first = std::none_of(seen.begin(), seen.end(), [](pthread_t t) {
        return pthread_equal(t, pthread_self()) != 0;
      });
      if (first && seen.size() < workers) {
        WorkerPlace& place = places[seen.size()];
        CPU_ZERO(&place.mask);
        EXPECT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(place.mask), &place.mask), 0);
        place.cpu = sched_getcpu();
        seen.push_back(pthread_self());
        reported.store(seen.size());
      }
    }
    while (reported.load() < workers && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  });
  EXPECT_EQ(reported.load(), workers) << "a worker never ran a task";
  places.resize(reported.load());
  return places;
}

TEST(ThreadPoolTest, PlanGivesEachWorkerTheNextAllowedCpu) {
  const int allowed[] = {2, 5, 7, 8};
  const int equal[] = {0, 0, 0, 0};
  int cpus[3] = {-1, -1, -1};
  ASSERT_TRUE(PlanWorkerCpus(allowed, equal, 4, 3, cpus));
  EXPECT_EQ(cpus[0], 5);
  EXPECT_EQ(cpus[1], 7);
  EXPECT_EQ(cpus[2], 8);
  int two[2] = {-1, -1};
  const int big[] = {1024, 1024, 1024, 1024};
  ASSERT_TRUE(PlanWorkerCpus(allowed, big, 4, 2, two));
  EXPECT_EQ(two[0], 5);
  EXPECT_EQ(two[1], 7);
  // Too few CPUs (the caller keeps the first), no workers, or CPUs of
  // different capacities (big.LITTLE): nothing.
  const int mixed[] = {1024, 1024, 446, 446};
  EXPECT_FALSE(PlanWorkerCpus(allowed, equal, 3, 3, cpus));
  EXPECT_FALSE(PlanWorkerCpus(allowed, equal, 1, 1, cpus));
  EXPECT_FALSE(PlanWorkerCpus(allowed, equal, 4, 0, cpus));
  EXPECT_FALSE(PlanWorkerCpus(allowed, mixed, 4, 1, cpus));
  EXPECT_EQ(cpus[0], 5);  // untouched
}

TEST(ThreadPoolTest, WorkersArePinnedToDistinctAllowedCpus) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  const int threads = std::min(CPU_COUNT(&allowed), 4);
  if (threads < 2) GTEST_SKIP() << "one CPU: nothing is pinned";
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(threads, ThreadPinning::kWorkers);
  ASSERT_TRUE(pool.ok());
  int first_allowed = 0;
  while (!CPU_ISSET(first_allowed, &allowed)) ++first_allowed;
  cpu_set_t seen;
  CPU_ZERO(&seen);
  for (const WorkerPlace& place : WorkerPlaces(**pool)) {
    ASSERT_EQ(CPU_COUNT(&place.mask), 1);
    int cpu = 0;
    while (!CPU_ISSET(cpu, &place.mask)) ++cpu;
    EXPECT_TRUE(CPU_ISSET(cpu, &allowed)) << cpu;
    EXPECT_NE(cpu, first_allowed) << "the first allowed CPU is the caller's";
    EXPECT_FALSE(CPU_ISSET(cpu, &seen)) << "two workers on CPU " << cpu;
    CPU_SET(cpu, &seen);
    EXPECT_EQ(place.cpu, cpu);
  }
}

// Workers keep the creating thread's CPUs: with pinning off, and with
// pinning on but fewer CPUs than threads (here a one-CPU mask, as under
// `taskset -c N`); the pool still runs every task.
TEST(ThreadPoolTest, WorkersKeepTheCreatorsCpusWhenNotPinned) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  int last_allowed = CPU_SETSIZE - 1;
  while (!CPU_ISSET(last_allowed, &allowed)) --last_allowed;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(last_allowed, &one);
  const struct Case {
    ThreadPinning pinning;
    const cpu_set_t* creator;
  } cases[] = {{ThreadPinning::kNone, &allowed}, {ThreadPinning::kWorkers, &one}};
  for (const Case& c : cases) {
    std::thread creator([&] {
      // This thread only: the test process keeps its CPUs.
      ASSERT_EQ(sched_setaffinity(0, sizeof(*c.creator), c.creator), 0);
      // Two threads: kWorkers would pin the worker whenever two CPUs are allowed.
      Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(2, c.pinning);
      ASSERT_TRUE(pool.ok());
      for (const WorkerPlace& place : WorkerPlaces(**pool)) {
        EXPECT_TRUE(CPU_EQUAL(&place.mask, c.creator));
        EXPECT_TRUE(CPU_ISSET(place.cpu, c.creator)) << place.cpu;
      }
      std::atomic<int> runs{0};
      (*pool)->ParallelFor(100, 2, [&](int64_t) { ++runs; });
      EXPECT_EQ(runs.load(), 100);
    });
    creator.join();
  }
}

TEST(ThreadPoolTest, SizeIsBounded) {
  EXPECT_EQ(ThreadPool::Create(0).error(), Error::kInvalidArgument);
  EXPECT_EQ(ThreadPool::Create(ThreadPool::kMaxThreads + 1).error(), Error::kInvalidArgument);
  Result<std::unique_ptr<ThreadPool>> single = ThreadPool::Create(1);
  ASSERT_TRUE(single.ok());
  int64_t sum = 0;  // one thread: no synchronization needed
  (*single)->ParallelFor(10, 8, [&](int64_t t) { sum += t; });
  EXPECT_EQ(sum, 45);
}

TEST(ThreadPoolTest, KernelPoolStartsOnce) {
  ASSERT_EQ(StartKernelThreadPool(3), Error::kOk);
  ThreadPool* pool = KernelThreadPool();
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(StartKernelThreadPool(9), Error::kOk);
  EXPECT_EQ(KernelThreadPool(), pool);
  std::atomic<int> runs{0};
  ParallelFor(50, 8, [&](int64_t) { ++runs; });
  EXPECT_EQ(runs.load(), 50);
}

TEST(RegistrationTest, OptimizedWhereSupportedElsePortable) {
  ASSERT_EQ(RegisterPortableKernels(), Error::kOk);
  ASSERT_EQ(RegisterOptimizedKernels(), Error::kOk);
  EXPECT_EQ(RegisterOptimizedKernels(), Error::kOk);  // idempotent
  testing::RandomTensor a({2, 3}, 401), b({3, 4}, 402);
  testing::TestTensor<float> out({2, 4});
  std::vector<EValue*> args = {a.t.ev(), b.t.ev(), out.ev(), out.ev()};
  const Span<EValue* const> span(args.data(), args.size());
  const Kernel* k = ResolveKernel("aten::mm.out", span, KernelPreference::kOptimizedFirst);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->variant, KernelVariant::kOptimized);
  k = ResolveKernel("aten::mm.out", span, KernelPreference::kPortableOnly);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->variant, KernelVariant::kPortable);
  testing::TestTensor<double> da({2, 3}), db({3, 4}), dout({2, 4});
  std::vector<EValue*> dargs = {da.ev(), db.ev(), dout.ev(), dout.ev()};
  k = ResolveKernel("aten::mm.out", Span<EValue* const>(dargs.data(), dargs.size()),
                    KernelPreference::kOptimizedFirst);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->variant, KernelVariant::kPortable);
}

}  // namespace
}  // namespace optimized
}  // namespace edgefleet

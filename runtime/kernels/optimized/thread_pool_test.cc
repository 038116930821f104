// ThreadPool: every task runs exactly once, concurrent and nested callers
// never block each other, sizes are bounded. Plus kernel registration:
// optimized kernels are chosen where Supports() accepts, portable ones
// elsewhere, and kPortableOnly forces portable.

#include "runtime/kernels/optimized/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
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

TEST(ThreadPoolTest, WorkersArePinnedToTheirOwnCpu) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  if (CPU_COUNT(&allowed) < 2) GTEST_SKIP() << "one CPU: nothing is pinned";
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::Create(2);
  ASSERT_TRUE(pool.ok());
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> worker_cpus{0};  // CPUs in a worker's affinity mask
  std::atomic<int> worker_cpu{-1};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  // Task 0 waits (at most 5 s, for a loaded host) until the worker ran one.
  (*pool)->ParallelFor(64, 2, [&](int64_t t) {
    if (std::this_thread::get_id() != caller) {
      cpu_set_t mine;
      if (pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c) {
          if (CPU_ISSET(c, &mine)) worker_cpu = c;
        }
        worker_cpus = CPU_COUNT(&mine);
      }
    }
    while (t == 0 && worker_cpus == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  });
  ASSERT_NE(worker_cpus.load(), 0) << "the worker never ran a task";
  EXPECT_EQ(worker_cpus.load(), 1);
  int first_allowed = 0;
  while (!CPU_ISSET(first_allowed, &allowed)) ++first_allowed;
  EXPECT_NE(worker_cpu.load(), first_allowed) << "the first allowed CPU is the caller's";
  EXPECT_TRUE(CPU_ISSET(worker_cpu.load(), &allowed));
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

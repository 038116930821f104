// MethodThreadpool: a method's delegates share its pool; a released pool is
// parked (a bounded number of them) and the next method of that size takes
// it instead of starting threads, as does a pool started ahead of a load.
// PthreadpoolRunner: while installed, the optimized kernels' ParallelFor runs
// on the method's pthreadpool (every task once, spread over its threads),
// never on the kernels' own pool; a ParallelFor nested in a task runs
// inline; the previous runner comes back when the scope ends.

#include "runtime/backends/xnnpack/method_threadpool.h"

#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "runtime/kernels/optimized/thread_pool.h"

namespace edgefleet {
namespace xnnpack {
namespace {

TEST(PthreadpoolRunner, KernelsRunOnTheMethodPool) {
  ASSERT_EQ(optimized::StartKernelThreadPool(2), Error::kOk);
  const optimized::ThreadPool* kernel_pool = optimized::KernelThreadPool();
  ASSERT_NE(kernel_pool, nullptr);
  const int key = 0;
  Result<SharedThreadpool> pool = MethodThreadpool(&key, 2);
  ASSERT_TRUE(pool.ok());
  ASSERT_NE(pool.get().get(), nullptr);

  const uint64_t kernel_jobs = kernel_pool->jobs_started();
  PthreadpoolRunner runner(pool.get().get());
  constexpr int64_t kTasks = 2000;
  std::vector<std::atomic<int>> runs(kTasks);
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::atomic<int64_t> nested{0};
  {
    const optimized::ScopedParallelRunner scoped(&runner);
    EXPECT_EQ(optimized::CurrentParallelRunner(), &runner);
    EXPECT_TRUE(optimized::ParallelismAvailable());
    optimized::ParallelFor(kTasks, 2, [&](int64_t t) {
      ++runs[t];
      {
        std::lock_guard<std::mutex> lock(mu);
        threads.insert(std::this_thread::get_id());
      }
      // The first task waits (at most 5 s, for a loaded host) until the
      // pool's other thread has taken a task, so both must show up.
      if (t == 0) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (std::chrono::steady_clock::now() < deadline) {
          {
            std::lock_guard<std::mutex> lock(mu);
            if (threads.size() >= 2) break;
          }
          std::this_thread::yield();
        }
      }
      if (t % 500 == 0) {
        // Nested: inline on this thread (on the caller, a nested call on
        // the same pthreadpool would wait for itself).
        const std::thread::id self = std::this_thread::get_id();
        optimized::ParallelFor(8, 2, [&](int64_t) {
          EXPECT_EQ(std::this_thread::get_id(), self);
          ++nested;
        });
      }
    });
  }
  for (int64_t t = 0; t < kTasks; ++t) ASSERT_EQ(runs[t].load(), 1) << t;
  EXPECT_EQ(nested.load(), 4 * 8);
  EXPECT_EQ(kernel_pool->jobs_started(), kernel_jobs) << "a task went to the kernels' own pool";
  EXPECT_EQ(threads.size(), 2u) << "the method pool's two threads should share the tasks";
  EXPECT_EQ(optimized::CurrentParallelRunner(), nullptr);
}

TEST(MethodThreadpool, AReleasedPoolGoesToTheNextMethod) {
  const int a = 0, b = 0, c = 0;
  void* released;
  {
    Result<SharedThreadpool> pool = MethodThreadpool(&a, 3);
    ASSERT_TRUE(pool.ok());
    Result<SharedThreadpool> again = MethodThreadpool(&a, 3);  // the method's other delegate
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->get(), pool->get());
    Result<SharedThreadpool> other = MethodThreadpool(&b, 3);  // another method: its own
    ASSERT_TRUE(other.ok());
    EXPECT_NE(other->get(), pool->get());
    released = other->get();
    pool->reset();
    again->reset();  // a's pool parked now, then b's
  }
  const size_t parked = ParkedThreadpoolCount();
  EXPECT_GE(parked, 1u);
  EXPECT_LE(parked, kMaxParkedThreadpools);
  Result<SharedThreadpool> next = MethodThreadpool(&c, 3);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(ParkedThreadpoolCount(), parked - 1);
  EXPECT_EQ(pthreadpool_get_threads_count(static_cast<pthreadpool_t>(next->get())), 3u);
  EXPECT_EQ(next->get(), released) << "the most recently parked pool of that size goes first";
}

TEST(MethodThreadpool, AStartedPoolGoesToTheNextMethod) {
  ASSERT_EQ(PrestartThreadpool(5), Error::kOk);
  const size_t parked = ParkedThreadpoolCount();
  ASSERT_EQ(PrestartThreadpool(5), Error::kOk);  // one of that size is parked already
  EXPECT_EQ(ParkedThreadpoolCount(), parked);
  const int key = 0;
  Result<SharedThreadpool> pool = MethodThreadpool(&key, 5);
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ(pthreadpool_get_threads_count(static_cast<pthreadpool_t>(pool->get())), 5u);
  EXPECT_EQ(ParkedThreadpoolCount(), parked - 1);
  EXPECT_EQ(PrestartThreadpool(1), Error::kOk);  // one thread: no pool
  EXPECT_EQ(ParkedThreadpoolCount(), parked - 1);
}

TEST(MethodThreadpool, ParkingIsBounded) {
  const int keys[kMaxParkedThreadpools + 2] = {};
  {
    std::vector<SharedThreadpool> pools;
    for (const int& key : keys) {
      Result<SharedThreadpool> pool = MethodThreadpool(&key, 2);
      ASSERT_TRUE(pool.ok());
      pools.push_back(*pool);
    }
  }
  EXPECT_EQ(ParkedThreadpoolCount(), kMaxParkedThreadpools);
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet

// MethodThreadpool and the pthreadpool entry points it defines: every
// parallelize variant XNNPACK calls visits each item (tile) of its index
// space exactly once with the tile sizes pthreadpool.h defines — on our
// handles (threads sharing the items), on a null handle (the calling thread)
// and on a pool the system pthreadpool created (passed on to it);
// PTHREADPOOL_FLAG_DISABLE_DENORMALS flushes denormals inside the call and
// leaves the caller's floating-point mode as it was; a handle runs on a pool
// with at least its thread count (the kernels' pool when that is big
// enough), and a lowered program run at two threads sends XNNPACK's
// operators there. PthreadpoolRunner: while installed, the optimized kernels'
// ParallelFor runs on the handle's pool (every task once, spread over its
// threads); a ParallelFor nested in a task runs inline.

#include "runtime/backends/xnnpack/method_threadpool.h"

#include <gtest/gtest.h>
#include <pthreadpool.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/core/error_detail.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/module/host_tensor.h"
#include "runtime/module/module.h"

namespace edgefleet {
namespace xnnpack {
namespace {

using Call = std::vector<size_t>;  // one call's arguments after the context

// Records every call the pool makes, from any thread.
struct Recorder {
  std::mutex mu;
  std::map<Call, int> calls;
  std::set<std::thread::id> threads;
  void Add(Call c) {
    std::lock_guard<std::mutex> lock(mu);
    ++calls[c];
    threads.insert(std::this_thread::get_id());
  }
};

// Every call the index space (ranges; tiles where tiled, 0 where not)
// must produce: untiled dims give their index, tiled dims their start, and
// the tiled dims' sizes follow in order (pthreadpool.h's argument order).
std::map<Call, int> Expected(const std::vector<size_t>& ranges, const std::vector<size_t>& tiles) {
  std::map<Call, int> out;
  std::function<void(size_t, Call, Call)> walk = [&](size_t d, Call starts, Call sizes) {
    if (d == ranges.size()) {
      Call c = starts;
      c.insert(c.end(), sizes.begin(), sizes.end());
      ++out[c];
      return;
    }
    const size_t step = tiles[d] == 0 ? 1 : tiles[d];
    for (size_t s = 0; s < ranges[d]; s += step) {
      Call st = starts, sz = sizes;
      st.push_back(s);
      if (tiles[d] != 0) sz.push_back(ranges[d] - s < step ? ranges[d] - s : step);
      walk(d + 1, st, sz);
    }
  };
  walk(0, {}, {});
  return out;
}

Recorder& R(void* context) { return *static_cast<Recorder*>(context); }

// The calls `run` makes a Recorder receive, checked against Expected.
template <typename Run>
std::map<Call, int> CheckCalls(const std::vector<size_t>& ranges, const std::vector<size_t>& tiles,
                               const Run& run) {
  Recorder r;
  run(&r);
  EXPECT_EQ(r.calls, Expected(ranges, tiles));
  return r.calls;
}

using S = size_t;

// Runs every variant on `pool` and checks its calls; with `empty`, also a
// call with an empty range (the system pthreadpool asserts on those).
void CheckEveryVariant(pthreadpool_t p, const char* what, bool empty = true) {
  SCOPED_TRACE(what);
  const uint32_t f = 0;
  CheckCalls({37}, {0}, [&](Recorder* r) {
    pthreadpool_parallelize_1d(
        p, [](void* c, S i) { R(c).Add({i}); }, r, 37, f);
  });
  const auto tiled = CheckCalls({37}, {8}, [&](Recorder* r) {
    pthreadpool_parallelize_1d_tile_1d(
        p,
        [](void* c, S i, S n) {
          R(c).Add({i, n});
        },
        r, 37, 8, f);
  });
  EXPECT_EQ(tiled.count({32, 5}), 1u) << "the last tile holds the 5 left";
  CheckCalls({5, 7}, {0, 0}, [&](Recorder* r) {
    pthreadpool_parallelize_2d(
        p,
        [](void* c, S i, S j) {
          R(c).Add({i, j});
        },
        r, 5, 7, f);
  });
  CheckCalls({5, 7}, {0, 3}, [&](Recorder* r) {
    pthreadpool_parallelize_2d_tile_1d(
        p,
        [](void* c, S i, S j, S n) {
          R(c).Add({i, j, n});
        },
        r, 5, 7, 3, f);
  });
  const auto tiles2 = CheckCalls({5, 7}, {2, 3}, [&](Recorder* r) {
    pthreadpool_parallelize_2d_tile_2d(
        p,
        [](void* c, S i, S j, S a, S b) {
          R(c).Add({i, j, a, b});
        },
        r, 5, 7, 2, 3, f);
  });
  EXPECT_EQ(tiles2.size(), 9u);
  EXPECT_EQ(tiles2.count({4, 6, 1, 1}), 1u);
  CheckCalls({2, 3, 4}, {0, 0, 0}, [&](Recorder* r) {
    pthreadpool_parallelize_3d(
        p,
        [](void* c, S i, S j, S k) {
          R(c).Add({i, j, k});
        },
        r, 2, 3, 4, f);
  });
  CheckCalls({3, 5, 9}, {0, 2, 4}, [&](Recorder* r) {
    pthreadpool_parallelize_3d_tile_2d(
        p,
        [](void* c, S i, S j, S k, S a, S b) {
          R(c).Add({i, j, k, a, b});
        },
        r, 3, 5, 9, 2, 4, f);
  });
  CheckCalls({2, 3, 1, 5}, {0, 0, 0, 0}, [&](Recorder* r) {
    pthreadpool_parallelize_4d(
        p,
        [](void* c, S i, S j, S k, S l) {
          R(c).Add({i, j, k, l});
        },
        r, 2, 3, 1, 5, f);
  });
  CheckCalls({2, 3, 7, 6}, {0, 0, 3, 4}, [&](Recorder* r) {
    pthreadpool_parallelize_4d_tile_2d(
        p,
        [](void* c, S i, S j, S k, S l, S a, S b) {
          R(c).Add({i, j, k, l, a, b});
        },
        r, 2, 3, 7, 6, 3, 4, f);
  });
  CheckCalls({2, 1, 3, 2, 4}, {0, 0, 0, 0, 0}, [&](Recorder* r) {
    pthreadpool_parallelize_5d(
        p,
        [](void* c, S i, S j, S k, S l, S m) {
          R(c).Add({i, j, k, l, m});
        },
        r, 2, 1, 3, 2, 4, f);
  });
  CheckCalls({2, 2, 3, 5, 7}, {0, 0, 0, 2, 3}, [&](Recorder* r) {
    pthreadpool_parallelize_5d_tile_2d(
        p,
        [](void* c, S i, S j, S k, S l, S m, S a, S b) {
          R(c).Add({i, j, k, l, m, a, b});
        },
        r, 2, 2, 3, 5, 7, 2, 3, f);
  });
  CheckCalls({2, 1, 2, 3, 5, 4}, {0, 0, 0, 0, 2, 3}, [&](Recorder* r) {
    pthreadpool_parallelize_6d_tile_2d(
        p,
        [](void* c, S i, S j, S k, S l, S m, S n, S a, S b) {
          R(c).Add({i, j, k, l, m, n, a, b});
        },
        r, 2, 1, 2, 3, 5, 4, 2, 3, f);
  });
  if (empty) {  // an empty range: no call
    CheckCalls({0, 7}, {2, 3}, [&](Recorder* r) {
      pthreadpool_parallelize_2d_tile_2d(
          p,
          [](void* c, S i, S j, S, S) {
            R(c).Add({i, j});
          },
          r, 0, 7, 2, 3, f);
    });
  }
}

TEST(MethodThreadpool, OneThreadIsTheCallingThread) {
  Result<void*> pool = MethodThreadpool(1);
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ(*pool, nullptr);
  EXPECT_EQ(pthreadpool_get_threads_count(nullptr), 1u);
  CheckEveryVariant(nullptr, "null handle");
}

TEST(MethodThreadpool, OurHandlesCoverEveryItemOnce) {
  for (const int threads : {2, 3}) {
    Result<void*> pool = MethodThreadpool(threads);
    ASSERT_TRUE(pool.ok());
    ASSERT_NE(*pool, nullptr);
    EXPECT_EQ(MethodThreadpool(threads).get(), *pool) << "one handle per thread count";
    auto* p = static_cast<pthreadpool_t>(*pool);
    EXPECT_EQ(pthreadpool_get_threads_count(p), static_cast<size_t>(threads));
    optimized::ThreadPool* runs_on = ThreadPoolOf(*pool);
    ASSERT_NE(runs_on, nullptr);
    EXPECT_GE(runs_on->num_threads(), threads);
    const uint64_t jobs = runs_on->jobs_started();
    CheckEveryVariant(p, threads == 2 ? "our 2-thread handle" : "our 3-thread handle");
    EXPECT_GT(runs_on->jobs_started(), jobs) << "the calls should have gone to our pool";
  }
}

TEST(MethodThreadpool, OtherPoolsGoToTheSystemPthreadpool) {
  pthreadpool_t system = pthreadpool_create(2);
  ASSERT_NE(system, nullptr);
  EXPECT_EQ(ThreadPoolOf(system), nullptr);
  EXPECT_EQ(pthreadpool_get_threads_count(system), 2u) << "the system pool's own answer";
  CheckEveryVariant(system, "system pthreadpool", /*empty=*/false);
  pthreadpool_destroy(system);
}

TEST(MethodThreadpool, AHandleRunsOnAPoolWithItsThreadCount) {
  // 7 threads: a count no other test asks for, so this call picks its pool.
  ASSERT_EQ(optimized::StartKernelThreadPool(2), Error::kOk);
  optimized::ThreadPool* kernels = optimized::KernelThreadPool();
  ASSERT_NE(kernels, nullptr);
  Result<void*> pool = MethodThreadpool(7);
  ASSERT_TRUE(pool.ok());
  optimized::ThreadPool* runs_on = ThreadPoolOf(*pool);
  ASSERT_NE(runs_on, nullptr);
  if (kernels->num_threads() >= 7) {
    EXPECT_EQ(runs_on, kernels) << "the kernels' pool is big enough: one set of threads";
  } else {
    EXPECT_NE(runs_on, kernels);
    EXPECT_EQ(runs_on->num_threads(), 7);
  }
  EXPECT_EQ(MethodThreadpool(1000).get(),
            MethodThreadpool(optimized::ThreadPool::kMaxThreads).get())
      << "clamped";
}

TEST(MethodThreadpool, XnnpackOperatorsOfALoweredProgramRunOnIt) {
  ASSERT_EQ(RegisterPortableKernels(), Error::kOk);  // the program's ops outside the delegate
  ASSERT_EQ(RegisterXnnpackBackend(), Error::kOk);
  Module::Options options;
  options.method.num_threads = 2;
  // Portable kernels: every delegated node on XNNPACK, none on our dense kernels.
  options.method.kernels = KernelPreference::kPortableOnly;
  Result<std::unique_ptr<Module>> module =
      Module::Load(EF_SOURCE_DIR "/test/fixtures/mobilenet_v2_035/model_xnnpack.pte", options);
  ASSERT_TRUE(module.ok()) << LastErrorDetail();
  Result<Method*> method = (*module)->LoadMethod("forward");
  ASSERT_TRUE(method.ok()) << LastErrorDetail();
  optimized::ThreadPool* pool = ThreadPoolOf(*MethodThreadpool(2));
  ASSERT_NE(pool, nullptr);
  Result<TensorInfo> info = (*method)->meta().input_tensor_info(0);
  ASSERT_TRUE(info.ok());
  Result<std::unique_ptr<HostTensor>> input = HostTensor::Create(info->dtype, info->sizes);
  ASSERT_TRUE(input.ok());
  ASSERT_EQ((*method)->SetInput(0, (*input)->value()), Error::kOk) << LastErrorDetail();
  const uint64_t jobs = pool->jobs_started();
  ASSERT_EQ((*method)->Execute(), Error::kOk) << LastErrorDetail();
  EXPECT_GT(pool->jobs_started(), jobs) << "XNNPACK's operators should run on our pool";
}

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
TEST(MethodThreadpool, DisableDenormalsFlushesInsideTheCallOnly) {
  Result<void*> pool = MethodThreadpool(2);
  ASSERT_TRUE(pool.ok());
  struct Job {
    volatile float a = 1e-30f, b = 1e-10f;  // product 1e-40: a denormal
    std::atomic<int> zero{0}, nonzero{0};
  };
  const auto task = [](void* c, size_t) {
    Job& j = *static_cast<Job*>(c);
    const float product = j.a * j.b;
    ++(product == 0.0f ? j.zero : j.nonzero);
  };
  for (void* p : {static_cast<void*>(nullptr), *pool}) {
    Job flushed, kept;
    pthreadpool_parallelize_1d(static_cast<pthreadpool_t>(p), task, &flushed, 64,
                               PTHREADPOOL_FLAG_DISABLE_DENORMALS);
    EXPECT_EQ(flushed.zero.load(), 64) << "denormal results flushed to zero";
    pthreadpool_parallelize_1d(static_cast<pthreadpool_t>(p), task, &kept, 64, 0);
    EXPECT_EQ(kept.nonzero.load(), 64) << "without the flag denormals stay";
    const volatile float a = 1e-30f, b = 1e-10f;
    EXPECT_NE(a * b, 0.0f) << "the caller's mode is restored";
  }
}
#endif

TEST(PthreadpoolRunner, KernelsRunOnTheHandlesPool) {
  Result<void*> pool = MethodThreadpool(2);
  ASSERT_TRUE(pool.ok());
  ASSERT_NE(*pool, nullptr);
  optimized::ThreadPool* runs_on = ThreadPoolOf(*pool);
  ASSERT_NE(runs_on, nullptr);
  const uint64_t jobs = runs_on->jobs_started();
  PthreadpoolRunner runner(*pool);
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
      // A task waits (at most 5 s, for a loaded host) until both of the
      // pool's threads have taken a task, so both must show up: whichever
      // thread claims work first holds it there, and the other takes the
      // rest (either may be first, and either end of the tasks).
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
      while (std::chrono::steady_clock::now() < deadline) {
        {
          std::lock_guard<std::mutex> lock(mu);
          if (threads.size() >= 2) break;
        }
        std::this_thread::yield();
      }
      if (t % 500 == 0) {
        // Nested: inline on this thread.
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
  EXPECT_GT(runs_on->jobs_started(), jobs);
  EXPECT_EQ(threads.size(), 2u) << "the pool's two threads should share the tasks";
  EXPECT_EQ(optimized::CurrentParallelRunner(), nullptr);
}

}  // namespace
}  // namespace xnnpack
}  // namespace edgefleet

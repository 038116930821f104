#include "runtime/backends/xnnpack/method_threadpool.h"

#include <dlfcn.h>
#include <pthreadpool.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace xnnpack {
namespace {

using optimized::ThreadPool;

// One handle per thread count; a handle's address is its identity (and
// tells its thread count), so telling ours from a system pthreadpool never
// reads memory the handle points to.
struct Handle {
  std::atomic<ThreadPool*> pool{nullptr};
};
Handle g_handles[ThreadPool::kMaxThreads + 1];
std::mutex g_start_mutex;  // serializes choosing / starting a handle's pool

// The thread count of one of our handles, or 0 for any other pointer.
int ThreadsOf(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  const auto first = reinterpret_cast<uintptr_t>(&g_handles[0]);
  const auto end = reinterpret_cast<uintptr_t>(&g_handles[ThreadPool::kMaxThreads + 1]);
  if (a < first || a >= end || (a - first) % sizeof(Handle) != 0) return 0;
  return static_cast<int>((a - first) / sizeof(Handle));
}

// Flush-to-zero and denormals-are-zero on this thread while alive, when
// `flags` asks for PTHREADPOOL_FLAG_DISABLE_DENORMALS (what the system
// pthreadpool does on every thread of the call).
class DenormalsOff {
 public:
  explicit DenormalsOff(uint32_t flags) : on_((flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) != 0) {
    if (!on_) return;
#if defined(__x86_64__) || defined(__i386__)
    saved_ = _mm_getcsr();
    _mm_setcsr(saved_ | 0x8040u);  // FTZ (bit 15) | DAZ (bit 6)
#elif defined(__aarch64__)
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(saved_));
    __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_ | (uint64_t{1} << 24)));  // FZ
#endif
  }
  ~DenormalsOff() {
    if (!on_) return;
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(saved_);
#elif defined(__aarch64__)
    __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_));
#endif
  }
  DenormalsOff(const DenormalsOff&) = delete;
  DenormalsOff& operator=(const DenormalsOff&) = delete;

 private:
  const bool on_;
#if defined(__aarch64__)
  uint64_t saved_ = 0;
#else
  unsigned saved_ = 0;
#endif
};

// The index space of one parallelize call: dims dimensions of range[d]
// items, tiled by tile[d] (1 where the dimension is not tiled). An item is
// one tile: start[d] = index * tile[d], size[d] = min(tile, range - start).
struct Space {
  int dims = 0;
  size_t range[6] = {};
  size_t tile[6] = {1, 1, 1, 1, 1, 1};
};

// Calls call(start, size) once for every item of `space`, on the handle's
// threads: items in contiguous chunks (at most four per thread, handed out
// dynamically, so a thread that finds its core busy leaves its later
// chunks to the others).
template <typename Call>
void Parallelize(const void* handle, uint32_t flags, const Space& space, const Call& call) {
  size_t count[6], tile[6];
  size_t total = 1;
  for (int d = 0; d < space.dims; ++d) {
    if (space.range[d] == 0) return;
    tile[d] = std::max<size_t>(space.tile[d], 1);
    count[d] = (space.range[d] + tile[d] - 1) / tile[d];
    total *= count[d];
  }
  const int dims = space.dims;
  const auto run = [&](size_t begin, size_t end) {
    const DenormalsOff denormals(flags);
    size_t index[6], start[6], size[6];
    size_t rest = begin;
    for (int d = dims - 1; d >= 0; --d) {
      index[d] = rest % count[d];
      rest /= count[d];
    }
    for (size_t item = begin; item < end; ++item) {
      for (int d = 0; d < dims; ++d) {
        start[d] = index[d] * tile[d];
        size[d] = std::min(tile[d], space.range[d] - start[d]);
      }
      call(start, size);
      for (int d = dims - 1; d >= 0 && ++index[d] == count[d]; --d) index[d] = 0;  // next item
    }
  };
  const int threads = ThreadsOf(handle);
  ThreadPool* pool =
      threads > 1 ? g_handles[threads].pool.load(std::memory_order_acquire) : nullptr;
  if (pool == nullptr || total == 1) {
    run(0, total);
    return;
  }
  const size_t chunks = std::min<size_t>(total, 4 * static_cast<size_t>(threads));
  const size_t chunk = (total + chunks - 1) / chunks;
  pool->ParallelFor(static_cast<int64_t>((total + chunk - 1) / chunk), threads, [&](int64_t c) {
    const size_t begin = static_cast<size_t>(c) * chunk;
    run(begin, std::min(total, begin + chunk));
  });
}

// The type of the system pthreadpool entry point taking these arguments
// after the pool (pthreadpool.h also declares C++ overloads of the names,
// so the type cannot come from the name).
template <typename... Args>
auto EntryPointType(Args...) -> void (*)(pthreadpool_t, Args...);

// The system pthreadpool's definition of `name` (the next one after ours in
// the dynamic linker's search order), or null when none is loaded.
template <typename Fn>
Fn System(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

}  // namespace

Result<void*> MethodThreadpool(int num_threads) {
  if (num_threads <= 1) return nullptr;
  num_threads = std::min(num_threads, ThreadPool::kMaxThreads);
  Handle& handle = g_handles[num_threads];
  if (handle.pool.load(std::memory_order_acquire) == nullptr) {
    std::lock_guard<std::mutex> lock(g_start_mutex);
    if (handle.pool.load(std::memory_order_relaxed) == nullptr) {
      ThreadPool* pool = optimized::KernelThreadPool();
      if (pool == nullptr || pool->num_threads() < num_threads) {
        Result<std::unique_ptr<ThreadPool>> own = ThreadPool::Create(num_threads);
        EF_CHECK_OR_RETURN(own.ok(), Error::kOutOfResources, "xnnpack: cannot start %d threads",
                           num_threads);
        pool = own->release();  // lives until the process exits, like the kernels' pool
      }
      handle.pool.store(pool, std::memory_order_release);
    }
  }
  return static_cast<void*>(&handle);
}

ThreadPool* ThreadPoolOf(const void* pthreadpool) {
  const int threads = ThreadsOf(pthreadpool);
  return threads > 1 ? g_handles[threads].pool.load(std::memory_order_acquire) : nullptr;
}

void PthreadpoolRunner::Run(int64_t num_tasks, TaskFn fn, void* context) {
  Space space;
  space.dims = 1;
  space.range[0] = static_cast<size_t>(num_tasks);
  Parallelize(pool_, 0, space, [&](const size_t* start, const size_t*) {
    fn(context, static_cast<int64_t>(start[0]));
  });
}

}  // namespace xnnpack
}  // namespace edgefleet

// The pthreadpool entry points XNNPACK calls (pthreadpool.h has their
// contracts). Ours for our handles and a null handle; the system's for the
// others.

using edgefleet::xnnpack::Parallelize;
using edgefleet::xnnpack::Space;
using edgefleet::xnnpack::System;
using edgefleet::xnnpack::ThreadsOf;

// Our handles and null run here; others go to the system pthreadpool.
#define EF_FORWARD_FOREIGN(name, ...)                                       \
  do {                                                                      \
    if (threadpool != nullptr && ThreadsOf(threadpool) == 0) {              \
      using Fn = decltype(edgefleet::xnnpack::EntryPointType(__VA_ARGS__)); \
      static const Fn system = System<Fn>(#name);                           \
      if (system != nullptr) return system(threadpool, __VA_ARGS__);        \
    }                                                                       \
  } while (false)

extern "C" {

size_t pthreadpool_get_threads_count(pthreadpool_t threadpool) {
  if (threadpool == nullptr) return 1;
  if (const int threads = ThreadsOf(threadpool); threads != 0) {
    return static_cast<size_t>(threads);
  }
  using Fn = size_t (*)(pthreadpool_t);
  static const Fn system = System<Fn>("pthreadpool_get_threads_count");
  return system != nullptr ? system(threadpool) : 1;
}

void pthreadpool_parallelize_1d(pthreadpool_t threadpool, pthreadpool_task_1d_t function,
                                void* context, size_t range, uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_1d, function, context, range, flags);
  const Space space{1, {range}};
  Parallelize(threadpool, flags, space,
              [&](const size_t* s, const size_t*) { function(context, s[0]); });
}

void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t threadpool,
                                        pthreadpool_task_1d_tile_1d_t function, void* context,
                                        size_t range, size_t tile, uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_1d_tile_1d, function, context, range, tile, flags);
  const Space space{1, {range}, {tile}};
  Parallelize(threadpool, flags, space,
              [&](const size_t* s, const size_t* n) { function(context, s[0], n[0]); });
}

void pthreadpool_parallelize_2d(pthreadpool_t threadpool, pthreadpool_task_2d_t function,
                                void* context, size_t range_i, size_t range_j, uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_2d, function, context, range_i, range_j, flags);
  const Space space{2, {range_i, range_j}};
  Parallelize(threadpool, flags, space,
              [&](const size_t* s, const size_t*) { function(context, s[0], s[1]); });
}

void pthreadpool_parallelize_2d_tile_1d(pthreadpool_t threadpool,
                                        pthreadpool_task_2d_tile_1d_t function, void* context,
                                        size_t range_i, size_t range_j, size_t tile_j,
                                        uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_2d_tile_1d, function, context, range_i, range_j,
                     tile_j, flags);
  const Space space{2, {range_i, range_j}, {1, tile_j}};
  Parallelize(threadpool, flags, space,
              [&](const size_t* s, const size_t* n) { function(context, s[0], s[1], n[1]); });
}

void pthreadpool_parallelize_2d_tile_2d(pthreadpool_t threadpool,
                                        pthreadpool_task_2d_tile_2d_t function, void* context,
                                        size_t range_i, size_t range_j, size_t tile_i,
                                        size_t tile_j, uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_2d_tile_2d, function, context, range_i, range_j,
                     tile_i, tile_j, flags);
  const Space space{2, {range_i, range_j}, {tile_i, tile_j}};
  Parallelize(threadpool, flags, space,
              [&](const size_t* s, const size_t* n) { function(context, s[0], s[1], n[0], n[1]); });
}

void pthreadpool_parallelize_3d(pthreadpool_t threadpool, pthreadpool_task_3d_t function,
                                void* context, size_t range_i, size_t range_j, size_t range_k,
                                uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_3d, function, context, range_i, range_j, range_k,
                     flags);
  const Space space{3, {range_i, range_j, range_k}};
  Parallelize(threadpool, flags, space,
              [&](const size_t* s, const size_t*) { function(context, s[0], s[1], s[2]); });
}

void pthreadpool_parallelize_3d_tile_2d(pthreadpool_t threadpool,
                                        pthreadpool_task_3d_tile_2d_t function, void* context,
                                        size_t range_i, size_t range_j, size_t range_k,
                                        size_t tile_j, size_t tile_k, uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_3d_tile_2d, function, context, range_i, range_j,
                     range_k, tile_j, tile_k, flags);
  const Space space{3, {range_i, range_j, range_k}, {1, tile_j, tile_k}};
  Parallelize(threadpool, flags, space, [&](const size_t* s, const size_t* n) {
    function(context, s[0], s[1], s[2], n[1], n[2]);
  });
}

void pthreadpool_parallelize_4d(pthreadpool_t threadpool, pthreadpool_task_4d_t function,
                                void* context, size_t range_i, size_t range_j, size_t range_k,
                                size_t range_l, uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_4d, function, context, range_i, range_j, range_k,
                     range_l, flags);
  const Space space{4, {range_i, range_j, range_k, range_l}};
  Parallelize(threadpool, flags, space,
              [&](const size_t* s, const size_t*) { function(context, s[0], s[1], s[2], s[3]); });
}

void pthreadpool_parallelize_4d_tile_2d(pthreadpool_t threadpool,
                                        pthreadpool_task_4d_tile_2d_t function, void* context,
                                        size_t range_i, size_t range_j, size_t range_k,
                                        size_t range_l, size_t tile_k, size_t tile_l,
                                        uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_4d_tile_2d, function, context, range_i, range_j,
                     range_k, range_l, tile_k, tile_l, flags);
  const Space space{4, {range_i, range_j, range_k, range_l}, {1, 1, tile_k, tile_l}};
  Parallelize(threadpool, flags, space, [&](const size_t* s, const size_t* n) {
    function(context, s[0], s[1], s[2], s[3], n[2], n[3]);
  });
}

void pthreadpool_parallelize_5d(pthreadpool_t threadpool, pthreadpool_task_5d_t function,
                                void* context, size_t range_i, size_t range_j, size_t range_k,
                                size_t range_l, size_t range_m, uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_5d, function, context, range_i, range_j, range_k,
                     range_l, range_m, flags);
  const Space space{5, {range_i, range_j, range_k, range_l, range_m}};
  Parallelize(threadpool, flags, space, [&](const size_t* s, const size_t*) {
    function(context, s[0], s[1], s[2], s[3], s[4]);
  });
}

void pthreadpool_parallelize_5d_tile_2d(pthreadpool_t threadpool,
                                        pthreadpool_task_5d_tile_2d_t function, void* context,
                                        size_t range_i, size_t range_j, size_t range_k,
                                        size_t range_l, size_t range_m, size_t tile_l,
                                        size_t tile_m, uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_5d_tile_2d, function, context, range_i, range_j,
                     range_k, range_l, range_m, tile_l, tile_m, flags);
  const Space space{5, {range_i, range_j, range_k, range_l, range_m}, {1, 1, 1, tile_l, tile_m}};
  Parallelize(threadpool, flags, space, [&](const size_t* s, const size_t* n) {
    function(context, s[0], s[1], s[2], s[3], s[4], n[3], n[4]);
  });
}

void pthreadpool_parallelize_6d_tile_2d(pthreadpool_t threadpool,
                                        pthreadpool_task_6d_tile_2d_t function, void* context,
                                        size_t range_i, size_t range_j, size_t range_k,
                                        size_t range_l, size_t range_m, size_t range_n,
                                        size_t tile_m, size_t tile_n, uint32_t flags) {
  EF_FORWARD_FOREIGN(pthreadpool_parallelize_6d_tile_2d, function, context, range_i, range_j,
                     range_k, range_l, range_m, range_n, tile_m, tile_n, flags);
  const Space space{
      6, {range_i, range_j, range_k, range_l, range_m, range_n}, {1, 1, 1, 1, tile_m, tile_n}};
  Parallelize(threadpool, flags, space, [&](const size_t* s, const size_t* n) {
    function(context, s[0], s[1], s[2], s[3], s[4], s[5], n[4], n[5]);
  });
}

}  // extern "C"

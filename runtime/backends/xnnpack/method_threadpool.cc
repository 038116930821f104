#include "runtime/backends/xnnpack/method_threadpool.h"

#include <pthreadpool.h>

#include <map>
#include <mutex>
#include <utility>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace xnnpack {

Result<SharedThreadpool> MethodThreadpool(const void* method_key, int num_threads) {
  if (num_threads <= 1) return SharedThreadpool();
  static std::mutex mu;
  static std::map<std::pair<const void*, int>, std::weak_ptr<void>> pools;
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = pools.begin(); it != pools.end();) {  // forget released pools
    it = it->second.expired() ? pools.erase(it) : std::next(it);
  }
  std::weak_ptr<void>& slot = pools[{method_key, num_threads}];
  if (SharedThreadpool pool = slot.lock()) return pool;
  pthreadpool_t raw = pthreadpool_create(static_cast<size_t>(num_threads));
  EF_CHECK_OR_RETURN(raw != nullptr, Error::kOutOfResources, "xnnpack: cannot start %d threads",
                     num_threads);
  SharedThreadpool pool(raw, [](void* p) { pthreadpool_destroy(static_cast<pthreadpool_t>(p)); });
  slot = pool;
  return pool;
}

void PthreadpoolRunner::Run(int64_t num_tasks, TaskFn fn, void* context) {
  struct Job {
    TaskFn fn;
    void* context;
  } job{fn, context};
  pthreadpool_parallelize_1d(
      static_cast<pthreadpool_t>(pool_),
      [](void* j, size_t task) {
        const Job& job = *static_cast<const Job*>(j);
        job.fn(job.context, static_cast<int64_t>(task));
      },
      &job, static_cast<size_t>(num_tasks), 0);
}

}  // namespace xnnpack
}  // namespace edgefleet

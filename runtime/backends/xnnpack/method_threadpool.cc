#include "runtime/backends/xnnpack/method_threadpool.h"

#include <pthreadpool.h>

#include <deque>
#include <map>
#include <mutex>
#include <utility>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace xnnpack {
namespace {

// The process's pools: each method's (weakly, by method and size) and the
// parked ones. Never destroyed: pools may be released during static
// destruction, and parked threads simply end with the process.
struct Registry {
  std::mutex mu;
  std::map<std::pair<const void*, int>, std::weak_ptr<void>> by_method;
  std::deque<std::pair<int, pthreadpool_t>> parked;  // (threads, pool), oldest first
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

// Parks `pool`, making room by taking out the oldest parked pool when the
// list is full; returns that one (to be destroyed outside the lock) or null.
// Requires r.mu.
pthreadpool_t Park(Registry& r, int num_threads, pthreadpool_t pool) {
  pthreadpool_t evicted = nullptr;
  if (r.parked.size() >= kMaxParkedThreadpools) {
    evicted = r.parked.front().second;
    r.parked.pop_front();
  }
  r.parked.emplace_back(num_threads, pool);
  return evicted;
}

// Deleter of a method's pool.
void Release(int num_threads, pthreadpool_t pool) {
  Registry& r = GetRegistry();
  pthreadpool_t evicted;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    evicted = Park(r, num_threads, pool);
  }
  if (evicted != nullptr) pthreadpool_destroy(evicted);
}

// The most recently parked pool of `num_threads` taken out of the list, or
// a new one; null when the threads cannot start. Requires r.mu.
pthreadpool_t TakeOrCreate(Registry& r, int num_threads) {
  for (auto it = r.parked.rbegin(); it != r.parked.rend(); ++it) {
    if (it->first == num_threads) {
      pthreadpool_t pool = it->second;
      r.parked.erase(std::next(it).base());
      return pool;
    }
  }
  return pthreadpool_create(static_cast<size_t>(num_threads));
}

}  // namespace

Result<SharedThreadpool> MethodThreadpool(const void* method_key, int num_threads) {
  if (num_threads <= 1) return SharedThreadpool();
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (auto it = r.by_method.begin(); it != r.by_method.end();) {  // forget released pools
    it = it->second.expired() ? r.by_method.erase(it) : std::next(it);
  }
  std::weak_ptr<void>& slot = r.by_method[{method_key, num_threads}];
  if (SharedThreadpool pool = slot.lock()) return pool;
  pthreadpool_t raw = TakeOrCreate(r, num_threads);
  EF_CHECK_OR_RETURN(raw != nullptr, Error::kOutOfResources, "xnnpack: cannot start %d threads",
                     num_threads);
  SharedThreadpool pool(
      raw, [num_threads](void* p) { Release(num_threads, static_cast<pthreadpool_t>(p)); });
  slot = pool;
  return pool;
}

Error PrestartThreadpool(int num_threads) {
  if (num_threads <= 1) return Error::kOk;
  Registry& r = GetRegistry();
  pthreadpool_t evicted;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    for (const auto& [threads, pool] : r.parked) {
      if (threads == num_threads) return Error::kOk;
    }
    pthreadpool_t raw = pthreadpool_create(static_cast<size_t>(num_threads));
    EF_CHECK_OR_RETURN(raw != nullptr, Error::kOutOfResources, "xnnpack: cannot start %d threads",
                       num_threads);
    evicted = Park(r, num_threads, raw);
  }
  if (evicted != nullptr) pthreadpool_destroy(evicted);
  return Error::kOk;
}

size_t ParkedThreadpoolCount() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.parked.size();
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

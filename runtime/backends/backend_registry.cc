#include "runtime/backends/backend_registry.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace {

struct Entry {
  const char* id;
  const BackendInterface* backend;
};

Entry g_backends[kMaxRegisteredBackends];
std::atomic<int> g_num_backends{0};
std::mutex g_mutex;

}  // namespace

Error RegisterBackend(const char* id, const BackendInterface* backend) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const int n = g_num_backends.load(std::memory_order_relaxed);
  EF_CHECK_OR_RETURN(FindBackend(id) == nullptr, Error::kRegistrationAlreadyRegistered,
                     "backend %s is already registered", id);
  EF_CHECK_OR_RETURN(n < kMaxRegisteredBackends, Error::kRegistrationExceedingMaxKernels,
                     "backend table full (%d entries)", kMaxRegisteredBackends);
  g_backends[n] = {id, backend};
  g_num_backends.store(n + 1, std::memory_order_release);
  return Error::kOk;
}

const BackendInterface* FindBackend(const char* id) {
  const int n = g_num_backends.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) {
    if (strcmp(g_backends[i].id, id) == 0) return g_backends[i].backend;
  }
  return nullptr;
}

}  // namespace edgefleet

#include "runtime/kernels/plan_pass.h"

#include <atomic>
#include <cstring>
#include <mutex>

#include "runtime/core/error_detail.h"

namespace edgefleet {
namespace {

PlanPass g_passes[kMaxRegisteredPlanPasses];
std::atomic<int> g_num_passes{0};
std::mutex g_register_mutex;

}  // namespace

Error RegisterPlanPasses(Span<const PlanPass> passes) {
  std::lock_guard<std::mutex> lock(g_register_mutex);
  const int count = g_num_passes.load(std::memory_order_relaxed);
  EF_CHECK_OR_RETURN(passes.size() <= static_cast<size_t>(kMaxRegisteredPlanPasses - count),
                     Error::kRegistrationExceedingMaxKernels,
                     "registering %zu plan passes would exceed the table of %d", passes.size(),
                     kMaxRegisteredPlanPasses);
  for (size_t i = 0; i < passes.size(); ++i) {
    for (int j = 0; j < count + static_cast<int>(i); ++j) {
      const char* other = j < count ? g_passes[j].name : passes[j - count].name;
      EF_CHECK_OR_RETURN(strcmp(other, passes[i].name) != 0, Error::kRegistrationAlreadyRegistered,
                         "plan pass %s is already registered", passes[i].name);
    }
  }
  for (size_t i = 0; i < passes.size(); ++i) g_passes[count + i] = passes[i];
  g_num_passes.store(count + static_cast<int>(passes.size()), std::memory_order_release);
  return Error::kOk;
}

int NumRegisteredPlanPasses() { return g_num_passes.load(std::memory_order_acquire); }

const PlanPass& RegisteredPlanPass(int i) { return g_passes[i]; }

}  // namespace edgefleet

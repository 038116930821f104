#include "service/host_thread_scaling.h"

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>

#include "runtime/executor/method.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/optimized/thread_pool.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/module/method_inputs.h"
#include "runtime/module/module.h"
#include "runtime/platform/clock.h"
#include "service/status_mapping.h"

namespace edgefleet {
namespace service {
namespace {

constexpr const char* kMethod = "forward";

int AllowedCpus() {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return 1;
  return CPU_COUNT(&allowed);
}

// The non-delegated kernels' parallel-for jobs on a pool of our own.
class PoolRunner final : public optimized::ParallelRunner {
 public:
  explicit PoolRunner(optimized::ThreadPool* pool) : pool_(pool) {}
  void Run(int64_t num_tasks, TaskFn fn, void* context) override {
    pool_->ParallelFor(num_tasks, pool_->num_threads(), [&](int64_t t) { fn(context, t); });
  }

 private:
  optimized::ThreadPool* pool_;
};

// One loaded method with its inputs.
struct Loaded {
  std::unique_ptr<Module> module;
  Method* method = nullptr;
  MethodInputs inputs;
};

absl::StatusOr<Loaded> Load(const std::string& model, const std::string& path, v1::Kernels kernels,
                            int threads) {
  Module::Options options;
  options.load_mode = Module::LoadMode::kMmap;
  options.method.num_threads = threads;
  options.method.kernels = kernels == v1::KERNELS_PORTABLE ? KernelPreference::kPortableOnly
                                                           : KernelPreference::kOptimizedFirst;
  Result<std::unique_ptr<Module>> module = Module::Load(path, options);
  if (!module.ok()) return LastRuntimeErrorToStatus(module.error(), "loading " + model);
  Result<Method*> method = (*module)->LoadMethod(kMethod);
  if (!method.ok()) return LastRuntimeErrorToStatus(method.error(), "loading " + model);
  Result<MethodInputs> inputs = MethodInputs::Random((*method)->meta(), /*seed=*/1);
  if (!inputs.ok()) return LastRuntimeErrorToStatus(inputs.error(), "inputs of " + model);
  return Loaded{std::move(*module), *method, std::move(*inputs)};
}

// Wall-clock nanoseconds of one execute.
absl::StatusOr<uint64_t> TimeExecute(const std::string& model, Loaded& loaded) {
  if (Error e = loaded.inputs.Apply(*loaded.method); e != Error::kOk) {
    return LastRuntimeErrorToStatus(e, "inputs of " + model);
  }
  const uint64_t start = MonotonicNanos();
  const Error e = loaded.method->Execute();
  const uint64_t elapsed = MonotonicNanos() - start;
  if (e != Error::kOk) return LastRuntimeErrorToStatus(e, "executing " + model);
  return elapsed;
}

}  // namespace

double ThreadScaling::Speedup() const {
  return one_thread_us > 0 && two_thread_us > 0 ? one_thread_us / two_thread_us : 0;
}

absl::StatusOr<ThreadScaling> MeasureThreadScaling(const std::string& model,
                                                   const std::string& path, v1::Kernels kernels,
                                                   int warmup, int runs) {
  if (AllowedCpus() < 2) {
    return absl::FailedPreconditionError("this process may use fewer than two CPUs");
  }
  if (RegisterPortableKernels() != Error::kOk || RegisterOptimizedKernels(1) != Error::kOk) {
    return absl::InternalError("registering kernels failed");
  }
  Result<std::unique_ptr<optimized::ThreadPool>> pool = optimized::ThreadPool::Create(2);
  if (!pool.ok()) return LastRuntimeErrorToStatus(pool.error(), "starting two threads");
  PoolRunner runner(pool->get());
  const optimized::ScopedParallelRunner scoped(&runner);

  absl::StatusOr<Loaded> arms[2] = {Load(model, path, kernels, 1), Load(model, path, kernels, 2)};
  for (const absl::StatusOr<Loaded>& arm : arms) {
    if (!arm.ok()) return arm.status();
  }
  uint64_t fastest[2] = {std::numeric_limits<uint64_t>::max(),
                         std::numeric_limits<uint64_t>::max()};
  for (int i = 0; i < std::max(0, warmup) + std::max(1, runs); ++i) {
    for (int a = 0; a < 2; ++a) {  // alternating: both see the same host
      absl::StatusOr<uint64_t> nanos = TimeExecute(model, *arms[a]);
      if (!nanos.ok()) return nanos.status();
      if (i >= warmup) fastest[a] = std::min(fastest[a], *nanos);
    }
  }
  return ThreadScaling{static_cast<double>(fastest[0]) / 1e3,
                       static_cast<double>(fastest[1]) / 1e3};
}

void SetThreadScaling(const ThreadScaling& scaling, v1::ModelHostProfile* entry) {
  entry->set_one_thread_wall_us(scaling.one_thread_us);
  entry->set_two_thread_wall_us(scaling.two_thread_us);
  entry->set_two_thread_speedup(scaling.Speedup());
}

double RuntimeSerialShare(double two_thread_speedup) {
  if (!(two_thread_speedup > 0)) return 0;
  return std::clamp(2 / two_thread_speedup - 1, 0.0, 1.0);
}

}  // namespace service
}  // namespace edgefleet

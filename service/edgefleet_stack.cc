#include "service/edgefleet_stack.h"

#include <chrono>

#include "runtime/backends/xnnpack/xnnpack_backend.h"
#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/module/method_io.h"
#include "runtime/module/module.h"
#include "service/status_mapping.h"

namespace edgefleet {
namespace service {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MicrosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
}

constexpr const char* kMethod = "forward";

class EdgefleetModel final : public LoadedModel {
 public:
  EdgefleetModel(std::unique_ptr<Module> module, Method* method, const LoadFacts& facts)
      : module_(std::move(module)), method_(method) {
    facts_ = facts;
  }

  absl::StatusOr<std::vector<TensorData>> Run(const std::vector<TensorData>& inputs) override {
    if (inputs.size() != method_->num_inputs()) {
      return absl::InvalidArgumentError("model takes " + std::to_string(method_->num_inputs()) +
                                        " inputs, got " + std::to_string(inputs.size()));
    }
    // Each input and output is copied once here: an input into the method's
    // planned arena (or, unplanned, into a tensor the binder keeps alive
    // through Execute), an output into its TensorData.
    InputBinder binder;
    std::vector<int32_t> sizes;
    for (size_t i = 0; i < inputs.size(); ++i) {
      sizes.assign(inputs[i].shape.begin(), inputs[i].shape.end());
      const Error set =
          binder.Bind(*method_, i, inputs[i].dtype, Span<const int32_t>(sizes.data(), sizes.size()),
                      Span<const uint8_t>(inputs[i].bytes.data(), inputs[i].bytes.size()));
      if (set != Error::kOk) return LastRuntimeErrorToStatus(set, "input " + std::to_string(i));
    }
    const Error executed = method_->Execute();
    if (executed != Error::kOk) return LastRuntimeErrorToStatus(executed, "execute");
    std::vector<TensorData> outputs;
    for (size_t j = 0; j < method_->num_outputs(); ++j) {
      const EValue& value = method_->output(j);
      if (!value.is_tensor()) continue;  // scalars are not served
      const Tensor& t = value.to_tensor();
      TensorData out;
      out.dtype = t.dtype();
      out.shape.assign(t.sizes().begin(), t.sizes().end());
      out.bytes.resize(t.nbytes());
      const Error copied = CopyToContiguous(t, Span<uint8_t>(out.bytes.data(), out.bytes.size()));
      if (copied != Error::kOk) {
        return LastRuntimeErrorToStatus(copied, "output " + std::to_string(j));
      }
      outputs.push_back(std::move(out));
    }
    return outputs;
  }

  uint64_t peak_memory_bytes() const override {
    const Module::MemoryUse use = module_->memory_use(kMethod);
    return use.total();
  }

 private:
  std::unique_ptr<Module> module_;
  Method* method_;  // owned by module_
};

}  // namespace

namespace {

// Portable kernels, plus the optimized ones (single-threaded: each compute
// slot is one host core).
Error RegisterKernelsOnce() {
  const Error portable = RegisterPortableKernels();
  if (portable != Error::kOk) return portable;
  const Error optimized = RegisterOptimizedKernels(/*max_threads=*/1);
  if (optimized != Error::kOk) return optimized;
  return RegisterXnnpackBackend();
}

}  // namespace

EdgefleetStack::EdgefleetStack() { (void)RegisterKernelsOnce(); }

absl::Status EdgefleetStack::Available() const {
  const Error registered = RegisterKernelsOnce();
  return RuntimeErrorToStatus(registered, "registering kernels", "");
}

absl::StatusOr<std::unique_ptr<LoadedModel>> EdgefleetStack::Load(const std::string& path,
                                                                  const StackOptions& options) {
  if (absl::Status available = Available(); !available.ok()) return available;
  Module::Options module_options;
  module_options.load_mode = Module::LoadMode::kMmap;
  module_options.method.num_threads = 1;  // one host core per compute slot
  module_options.method.kernels = options.kernels == v1::KERNELS_PORTABLE
                                      ? KernelPreference::kPortableOnly
                                      : KernelPreference::kOptimizedFirst;
  LoadFacts facts;
  const Clock::time_point start = Clock::now();
  Result<std::unique_ptr<Module>> module = Module::Load(path, module_options);
  if (!module.ok()) return LastRuntimeErrorToStatus(module.error(), "loading program");
  facts.host_parse_us = MicrosSince(start);
  const Clock::time_point init_start = Clock::now();
  Result<Method*> method = (*module)->LoadMethod(kMethod);
  if (!method.ok()) return LastRuntimeErrorToStatus(method.error(), "loading method forward");
  facts.host_init_us = MicrosSince(init_start);
  facts.bytes_read = (*module)->bytes_read();
  const Module::MemoryUse use = (*module)->memory_use(kMethod);
  facts.memory_bytes = use.total();
  return std::unique_ptr<LoadedModel>(new EdgefleetModel(std::move(*module), *method, facts));
}

}  // namespace service
}  // namespace edgefleet

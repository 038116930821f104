#include "service/edgefleet_stack.h"

#include <chrono>
#include <cstring>

#include "runtime/kernels/optimized/register_optimized_kernels.h"
#include "runtime/kernels/portable/register_portable_kernels.h"
#include "runtime/module/module.h"
#include "runtime/tools/host_tensor.h"
#include "runtime/backends/xnnpack/xnnpack_backend.h"
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
    // Host tensors must outlive Execute (unplanned inputs are aliased).
    std::vector<std::unique_ptr<tools::HostTensor>> hosts;
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::vector<int32_t> sizes;
      for (int64_t d : inputs[i].shape) sizes.push_back(static_cast<int32_t>(d));
      Result<std::unique_ptr<tools::HostTensor>> host = tools::HostTensor::Create(
          inputs[i].dtype, Span<const int32_t>(sizes.data(), sizes.size()));
      if (!host.ok()) {
        return LastRuntimeErrorToStatus(host.error(), "input " + std::to_string(i));
      }
      if (!inputs[i].bytes.empty()) {
        memcpy((*host)->tensor().mutable_data(), inputs[i].bytes.data(), inputs[i].bytes.size());
      }
      const Error set = method_->SetInput(i, (*host)->value());
      if (set != Error::kOk) return LastRuntimeErrorToStatus(set, "input " + std::to_string(i));
      hosts.push_back(std::move(*host));
    }
    const Error executed = method_->Execute();
    if (executed != Error::kOk) return LastRuntimeErrorToStatus(executed, "execute");
    std::vector<TensorData> outputs;
    for (size_t j = 0; j < method_->num_outputs(); ++j) {
      const EValue& value = method_->output(j);
      if (!value.is_tensor()) continue;  // scalars are not served
      Result<std::unique_ptr<tools::HostTensor>> copy =
          tools::HostTensor::CopyOf(value.to_tensor());
      if (!copy.ok()) return LastRuntimeErrorToStatus(copy.error(), "output " + std::to_string(j));
      const Tensor& t = (*copy)->tensor();
      TensorData out;
      out.dtype = t.dtype();
      for (int32_t d : t.sizes()) out.shape.push_back(d);
      const uint8_t* data = static_cast<const uint8_t*>(t.data());
      out.bytes.assign(data, data + t.nbytes());
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

#include "service/calibrator.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "service/stack.h"

namespace edgefleet {
namespace service {
namespace {

using Clock = std::chrono::steady_clock;

int64_t Median(std::vector<int64_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::string HostCpuName() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

}  // namespace

Calibrator::Calibrator(ModelRepository* repository, ComputeSlots* slots,
                       HostCalibrationStore* store, ReferenceWorkload reference, int samples)
    : repository_(repository),
      slots_(slots),
      store_(store),
      reference_(std::move(reference)),
      samples_(std::max(1, samples)) {}

absl::StatusOr<v1::HostCost> Calibrator::MeasureCost(const CostKey& key, int samples) {
  samples = std::max(1, samples);
  Stack* stack = GetStack(key.stack);
  if (stack == nullptr) return absl::InvalidArgumentError("unknown stack");
  if (absl::Status s = stack->Available(); !s.ok()) return s;
  absl::StatusOr<ModelFile> file = repository_->OpenModel(key.model, key.stack, key.kernels);
  if (!file.ok()) return file.status();
  absl::StatusOr<ModelSignature> signature = repository_->Signature(key.model);
  if (!signature.ok()) return signature.status();
  const std::vector<TensorData> inputs = SeededInputs(signature->inputs, /*seed=*/0);
  StackOptions options;
  options.kernels = key.kernels;

  std::vector<int64_t> parse, init, first, steady;
  std::unique_ptr<LoadedModel> model;
  for (int i = 0; i < samples; ++i) {
    ComputeSlots::Slot slot = slots_->Acquire();
    model.reset();
    absl::StatusOr<std::unique_ptr<LoadedModel>> loaded = stack->Load(file->path(), options);
    if (!loaded.ok()) return loaded.status();
    model = *std::move(loaded);
    parse.push_back(model->load_facts().host_parse_us);
    init.push_back(model->load_facts().host_init_us);
    const Clock::time_point start = Clock::now();
    absl::StatusOr<std::vector<TensorData>> out = model->Run(inputs);
    if (!out.ok()) return out.status();
    first.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
  }
  for (int i = 0; i < 4 * samples; ++i) {
    ComputeSlots::Slot slot = slots_->Acquire();
    const Clock::time_point start = Clock::now();
    absl::StatusOr<std::vector<TensorData>> out = model->Run(inputs);
    if (!out.ok()) return out.status();
    steady.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
  }
  v1::HostCost cost;
  cost.set_stack(key.stack);
  cost.set_model(key.model);
  cost.set_kernels(key.kernels);
  cost.set_parse_us(Median(parse));
  cost.set_init_us(Median(init));
  cost.set_first_inference_us(std::max<int64_t>(1, Median(first)));
  cost.set_inference_us(std::max<int64_t>(1, Median(steady)));
  cost.set_samples(static_cast<uint32_t>(samples));
  return cost;
}

absl::StatusOr<v1::HostCost> Calibrator::CostFor(const CostKey& key) {
  if (std::optional<v1::HostCost> cost = store_->Find(key)) return *cost;
  MutexLock lock(&measure_mu_);
  if (std::optional<v1::HostCost> cost = store_->Find(key)) return *cost;
  absl::StatusOr<v1::HostCost> cost = MeasureCost(key, samples_);
  if (cost.ok()) store_->Put(*cost);
  return cost;
}

absl::Status Calibrator::EnsureReference() {
  if (store_->has_reference()) return absl::OkStatus();
  absl::StatusOr<v1::HostCost> cost =
      CostFor({v1::STACK_EDGEFLEET, reference_.model, v1::KERNELS_DEFAULT});
  if (!cost.ok()) {
    return absl::FailedPreconditionError("cannot measure the reference model '" + reference_.model +
                                         "': " + std::string(cost.status().message()));
  }
  store_->SetReference(reference_.model, reference_.mac_ratio, cost->inference_us());
  return absl::OkStatus();
}

absl::StatusOr<v1::HostCalibration> Calibrator::Calibrate(const ArmRegistry& arms,
                                                          const DeviceClassRegistry& classes,
                                                          int samples) {
  if (samples <= 0) samples = samples_;
  MutexLock lock(&measure_mu_);
  v1::HostCalibration calibration;
  calibration.set_host_cpu(HostCpuName());
  calibration.set_host_cores(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<CostKey> keys = {{v1::STACK_EDGEFLEET, reference_.model, v1::KERNELS_DEFAULT}};
  for (const v1::Arm& arm : arms.arms()) {
    const CostKey key{arm.stack(), arm.model(), arm.kernels()};
    const bool seen = std::any_of(keys.begin(), keys.end(), [&](const CostKey& k) {
      return k.stack == key.stack && k.model == key.model && k.kernels == key.kernels;
    });
    if (!seen) keys.push_back(key);
  }
  for (const CostKey& key : keys) {
    absl::StatusOr<v1::HostCost> cost = MeasureCost(key, samples);
    if (!cost.ok()) {
      // A stack this build lacks is skipped (its arms fail at run time).
      if (!GetStack(key.stack)->Available().ok()) {
        continue;
      }
      return absl::Status(cost.status().code(), "calibrating " + key.model + " (" +
                                                    StackName(key.stack) +
                                                    "): " + std::string(cost.status().message()));
    }
    *calibration.add_costs() = *cost;
  }
  calibration.set_reference_model(reference_.model);
  calibration.set_reference_mac_ratio(reference_.mac_ratio);
  calibration.set_reference_host_us(calibration.costs(0).inference_us());
  HostCalibrationStore scratch(calibration);
  for (const v1::DeviceClass& device_class : classes.classes()) {
    absl::StatusOr<double> slowdown = scratch.Slowdown(device_class);
    if (!slowdown.ok()) return slowdown.status();
    v1::ClassFactor* factor = calibration.add_class_factors();
    factor->set_device_class(device_class.name());
    factor->set_slowdown(*slowdown);
  }
  store_->Replace(calibration);
  return calibration;
}

}  // namespace service
}  // namespace edgefleet

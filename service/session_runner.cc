#include "service/session_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "service/device_time_model_for.h"
#include "service/main_thread_model.h"
#include "service/status_mapping.h"
#include "service/time_model.h"

namespace edgefleet {
namespace service {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MicrosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
}

// Sum of output 0 when it is float32 (a cheap cross-arm sanity check).
double Checksum(const std::vector<TensorData>& outputs) {
  if (outputs.empty() || outputs[0].dtype != ScalarType::kFloat) return 0;
  double sum = 0;
  const size_t n = outputs[0].bytes.size() / sizeof(float);
  for (size_t i = 0; i < n; ++i) {
    float v;
    memcpy(&v, outputs[0].bytes.data() + i * sizeof(float), sizeof(v));
    sum += v;
  }
  return sum;
}

// Sleeps until `virtual_us` of the session has passed on the wall clock,
// checking `stop` every 20 ms; false if it stopped early.
bool PaceTo(Clock::time_point wall_start, int64_t virtual_us, const std::function<bool()>& stop) {
  const Clock::time_point until = wall_start + std::chrono::microseconds(virtual_us);
  for (;;) {
    if (stop()) return false;
    const Clock::time_point now = Clock::now();
    if (now >= until) return true;
    std::this_thread::sleep_until(std::min(until, now + std::chrono::milliseconds(20)));
  }
}

// Event numbers of the seeded noise streams within a session.
constexpr uint64_t kParseEvent = 0;
constexpr uint64_t kInitEvent = 1;
constexpr uint64_t kFirstInferenceEvent = 2;

}  // namespace

SessionRunner::SessionRunner(const ServiceContext& context) : context_(context) {}

absl::Status SessionRunner::Validate(const v1::SessionSpec& spec) const {
  if (spec.arm().empty()) return absl::InvalidArgumentError("spec.arm is empty");
  if (context_.arms->Find(spec.arm()) == nullptr) {
    return absl::NotFoundError("unknown arm '" + spec.arm() + "' (ListArms lists them)");
  }
  if (spec.device_class().empty()) return absl::InvalidArgumentError("spec.device_class is empty");
  if (context_.device_classes->Find(spec.device_class()) == nullptr) {
    return absl::NotFoundError("unknown device class '" + spec.device_class() +
                               "' (ListDeviceClasses lists them)");
  }
  if (spec.inferences() > kMaxInferencesPerSession) {
    return absl::InvalidArgumentError("spec.inferences must be <= " +
                                      std::to_string(kMaxInferencesPerSession));
  }
  if (!(spec.inter_arrival_ms() >= 0 && spec.inter_arrival_ms() <= kMaxInterArrivalMs)) {
    return absl::InvalidArgumentError("spec.inter_arrival_ms must be in [0, 3600000]");
  }
  if (!(spec.initial_heat() >= 0 && spec.initial_heat() <= 1)) {
    return absl::InvalidArgumentError("spec.initial_heat must be in [0, 1]");
  }
  if (!v1::IntegrationPolicy_IsValid(spec.integration_policy()) ||
      !v1::Pacing_IsValid(spec.pacing()) || !v1::ExecutionMode_IsValid(spec.execution_mode())) {
    return absl::InvalidArgumentError("spec has an unknown enum value");
  }
  if (spec.pacing() == v1::PACING_WALL_CLOCK &&
      spec.inferences() * std::max(1.0, spec.inter_arrival_ms()) >
          1000.0 * context_.max_session_s) {
    return absl::InvalidArgumentError(
        "a wall-clock paced session must be shorter than the server's --max_session_s of " +
        std::to_string(context_.max_session_s) + " s (inferences x inter_arrival_ms)");
  }
  return absl::OkStatus();
}

absl::StatusOr<SessionRunner::ArmFacts> SessionRunner::SampledFacts(
    const v1::Arm& arm, const v1::SessionSpec& spec, const std::function<bool()>& stop) {
  {
    MutexLock lock(&facts_mu_);
    auto it = facts_.find(arm.name());
    if (it != facts_.end()) return it->second;
  }
  Stack* stack = GetStack(arm.stack());
  absl::StatusOr<ModelFile> file =
      context_.repository->OpenModel(arm.model(), arm.stack(), arm.kernels());
  if (!file.ok()) return file.status();
  absl::StatusOr<ModelSignature> signature = context_.repository->Signature(arm.model());
  if (!signature.ok()) return signature.status();
  ArmFacts facts;
  {
    std::unique_ptr<ComputeSlots::Slot> slot;
    if (absl::Status s = context_.slots->Acquire(stop, &slot); !s.ok()) return s;
    StackOptions options;
    options.kernels = arm.kernels();
    absl::StatusOr<std::unique_ptr<LoadedModel>> model = stack->Load(file->path(), options);
    if (!model.ok()) return model.status();
    const std::vector<TensorData> inputs = SeededInputs(signature->inputs, spec.seed());
    for (int i = 0; i < 2; ++i) {
      absl::StatusOr<std::vector<TensorData>> outputs = (*model)->Run(inputs);
      if (!outputs.ok()) return outputs.status();
      if (i == 0) facts.output_checksum = Checksum(*outputs);
    }
    facts.load = (*model)->load_facts();
    facts.peak_memory_bytes = (*model)->peak_memory_bytes();
  }
  MutexLock lock(&facts_mu_);
  facts_.emplace(arm.name(), facts);
  return facts;
}

absl::StatusOr<v1::SessionResult> SessionRunner::Run(const v1::SessionSpec& spec, uint32_t index,
                                                     const std::function<bool()>& cancelled) {
  if (absl::Status s = Validate(spec); !s.ok()) return s;
  const Clock::time_point run_start = Clock::now();
  bool over_cap = false;
  const std::function<bool()> stop = [&] {
    if (cancelled && cancelled()) return true;
    over_cap = Clock::now() - run_start > std::chrono::seconds(context_.max_session_s);
    return over_cap;
  };
  const v1::Arm& arm = *context_.arms->Find(spec.arm());
  const v1::DeviceClass& device = *context_.device_classes->Find(spec.device_class());
  const v1::IntegrationPolicy policy =
      spec.integration_policy() != v1::INTEGRATION_POLICY_UNSPECIFIED ? spec.integration_policy()
                                                                      : arm.integration_policy();
  const bool real = spec.execution_mode() == v1::EXECUTION_MODE_REAL;

  v1::SessionResult result;
  result.set_session_id(spec.session_id());
  result.set_index(index);
  result.set_arm(arm.name());
  result.set_device_class(device.name());
  result.set_seed(spec.seed());
  result.set_stack(arm.stack());
  result.set_model(arm.model());
  result.set_memory_budget_bytes(device.memory().app_budget_bytes());
  const MetricLabels labels{arm.name(), StackName(arm.stack()), device.name(), arm.model()};
  auto fail = [&](const absl::Status& status) -> absl::StatusOr<v1::SessionResult> {
    const bool cancel = status.code() == absl::StatusCode::kCancelled;
    result.set_outcome(cancel ? v1::SESSION_OUTCOME_CANCELLED : v1::SESSION_OUTCOME_ERROR);
    result.set_error_message(std::string(ForClient(status).message()));
    if (context_.metrics != nullptr) context_.metrics->RecordSession(labels, result);
    return result;
  };
  // Ends the session as cancelled (after `stop` returned true).
  auto stopped = [&]() {
    return fail(absl::CancelledError(
        over_cap ? "stopped: the session ran for the server's --max_session_s of " +
                       std::to_string(context_.max_session_s) + " s"
                 : std::string("cancelled: the caller's deadline passed, the caller went "
                               "away or the server is shutting down")));
  };

  if (absl::Status s = context_.calibrator->EnsureReference(); !s.ok()) return s;
  absl::StatusOr<DeviceTimeModel> time_model =
      DeviceTimeModelFor(context_, device, arm.model(), arm.stack());
  if (!time_model.ok()) return fail(time_model.status());
  if (absl::Status s = ArmRunsOn(arm, device); !s.ok()) return fail(s);
  Stack* stack = GetStack(arm.stack());
  absl::StatusOr<v1::HostCost> cost =
      context_.calibrator->CostFor({arm.stack(), arm.model(), arm.kernels()});
  if (!cost.ok()) return fail(cost.status());
  absl::StatusOr<ModelSignature> signature = context_.repository->Signature(arm.model());
  if (!signature.ok()) return fail(signature.status());

  // The real load (or what an earlier one measured).
  std::unique_ptr<LoadedModel> model;
  LoadFacts facts;
  uint64_t sampled_peak = 0;
  double sampled_checksum = 0;
  v1::HostMeasurement* host = result.mutable_host();
  if (real) {
    absl::StatusOr<ModelFile> file =
        context_.repository->OpenModel(arm.model(), arm.stack(), arm.kernels());
    if (!file.ok()) return fail(file.status());
    std::unique_ptr<ComputeSlots::Slot> slot;
    if (!context_.slots->Acquire(stop, &slot).ok()) return stopped();
    host->set_compute_slot(static_cast<uint32_t>(slot->index()));
    StackOptions options;
    options.kernels = arm.kernels();
    const Clock::time_point start = Clock::now();
    absl::StatusOr<std::unique_ptr<LoadedModel>> loaded = stack->Load(file->path(), options);
    if (!loaded.ok()) return fail(loaded.status());
    host->set_load_us(MicrosSince(start));
    model = *std::move(loaded);
    facts = model->load_facts();
  } else {
    absl::StatusOr<ArmFacts> arm_facts = SampledFacts(arm, spec, stop);
    if (!arm_facts.ok() && stop()) return stopped();
    if (!arm_facts.ok()) return fail(arm_facts.status());
    facts = arm_facts->load;
    sampled_peak = arm_facts->peak_memory_bytes;
    sampled_checksum = arm_facts->output_checksum;
  }

  // Load timing on the virtual clock.
  ThermalState thermal(device.thermal(), spec.initial_heat());
  const OsNoise noise(device.os_noise(), spec.seed());
  const double device_factor = DeviceTimeFactor(
      device.device_variation(), spec.has_device_seed() ? spec.device_seed() : spec.seed());
  result.set_device_time_factor(device_factor);
  const double time_scale = TimeScaleOn(arm, device.name()) * device_factor;
  auto busy_interval = [&](double host_us, int threads, uint64_t event) {
    const double clean = time_model->ComputeUs(host_us, threads) * time_scale / thermal.speed();
    const int64_t us = std::max<int64_t>(1, std::llround(noise.Apply(clean, event)));
    thermal.Busy(static_cast<double>(us));
    return us;
  };
  v1::LoadTiming* load = result.mutable_load();
  load->set_bytes_read(facts.bytes_read);
  load->set_read_us(std::llround(time_model->StorageReadUs(facts.bytes_read)));
  thermal.Idle(static_cast<double>(load->read_us()));
  load->set_parse_us(busy_interval(static_cast<double>(cost->parse_us()), 1, kParseEvent));
  load->set_init_us(
      cost->init_us() > 0 ? busy_interval(static_cast<double>(cost->init_us()), 1, kInitEvent) : 0);
  load->set_total_us(load->read_us() + load->parse_us() + load->init_us());

  const Clock::time_point wall_start = Clock::now();
  const bool paced = spec.pacing() == v1::PACING_WALL_CLOCK;
  if (paced && !PaceTo(wall_start, load->total_us(), stop)) return stopped();

  std::vector<BusyInterval> main_busy;
  if (policy != v1::INTEGRATION_POLICY_BACKGROUND) main_busy.push_back({0, load->total_us()});
  uint64_t peak = real ? facts.memory_bytes : sampled_peak;
  const uint64_t budget = device.memory().app_budget_bytes();
  int64_t clock = load->total_us();
  bool killed = peak > budget;

  // Inferences.
  const std::vector<TensorData> inputs = SeededInputs(signature->inputs, spec.seed());
  const int threads = static_cast<int>(std::max(1u, arm.threads()));
  const int64_t period = std::llround(spec.inter_arrival_ms() * 1000.0);
  const int64_t first_start = clock;
  std::vector<int64_t> host_steady;
  for (uint32_t i = 0; i < spec.inferences() && !killed; ++i) {
    if (stop()) return stopped();
    const int64_t start = std::max(clock, first_start + static_cast<int64_t>(i) * period);
    thermal.Idle(static_cast<double>(start - clock));
    const double host_cost =
        static_cast<double>(i == 0 ? cost->first_inference_us() : cost->inference_us());
    const int64_t latency = busy_interval(host_cost, threads, kFirstInferenceEvent + i);
    if (real) {
      std::unique_ptr<ComputeSlots::Slot> slot;
      if (!context_.slots->Acquire(stop, &slot).ok()) return stopped();
      const Clock::time_point host_start = Clock::now();
      absl::StatusOr<std::vector<TensorData>> outputs = model->Run(inputs);
      if (!outputs.ok()) return fail(outputs.status());
      const int64_t host_us = MicrosSince(host_start);
      if (i == 0) {
        host->set_first_inference_us(host_us);
        result.set_output_checksum(Checksum(*outputs));
      } else {
        host_steady.push_back(host_us);
      }
      peak = std::max(peak, model->peak_memory_bytes());
    } else {
      result.set_output_checksum(sampled_checksum);
    }
    result.add_latency_us(latency);
    if (i == 0) result.set_first_inference_us(latency);
    if (policy == v1::INTEGRATION_POLICY_MAIN_THREAD_ALL) {
      main_busy.push_back({start, start + latency});
    }
    clock = start + latency;
    killed = peak > budget;
    if (paced && !PaceTo(wall_start, clock, stop)) return stopped();
  }
  if (!host_steady.empty()) {
    std::nth_element(host_steady.begin(), host_steady.begin() + host_steady.size() / 2,
                     host_steady.end());
    host->set_median_inference_us(host_steady[host_steady.size() / 2]);
  }

  result.set_outcome(killed ? v1::SESSION_OUTCOME_OOM_KILLED : v1::SESSION_OUTCOME_OK);
  if (killed) {
    result.set_error_message("killed: peak memory " + std::to_string(peak) +
                             " bytes exceeds the app budget of " + std::to_string(budget) +
                             " bytes of device class " + device.name());
  }
  result.set_peak_memory_bytes(peak);
  result.set_duration_us(clock);
  result.set_final_heat(thermal.heat());
  const MainThreadReport report = SimulateMainThread(main_busy, clock, device);
  result.set_anr_count(report.anr_count);
  result.set_slow_frames(report.slow_frames);
  result.set_frozen_frames(report.frozen_frames);
  result.set_total_frames(report.total_frames);
  result.set_max_input_delay_us(report.max_input_delay_us);
  if (context_.metrics != nullptr) context_.metrics->RecordSession(labels, result);
  return result;
}

}  // namespace service
}  // namespace edgefleet

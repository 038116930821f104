#include "service/device_time_predictor.h"

#include <algorithm>
#include <cstdio>

#include "service/host_profiler.h"
#include "service/host_thread_scaling.h"

namespace edgefleet {
namespace service {

double ModelOnDevice::PredictMs(int threads) const {
  return service::PredictMs(factors, cost, cpu, threads, runtime_serial);
}

DeviceTimePredictor::DeviceTimePredictor(const ModelRepository* repository, v1::HostProfile profile,
                                         std::string profile_path)
    : repository_(repository),
      profile_path_(std::move(profile_path)),
      profile_(std::move(profile)),
      measure_scaling_([](const std::string& model, const std::string& path) {
        const ProfileOptions options;
        return MeasureThreadScaling(model, path, v1::KERNELS_DEFAULT, options.warmup, options.runs);
      }) {}

std::string DefaultHostProfilePath(const std::string& device_classes) {
  return device_classes.substr(0, device_classes.find(',')) +
         "/../device_model/host_profile.textproto";
}

absl::StatusOr<std::unique_ptr<DeviceTimePredictor>> DeviceTimePredictor::Open(
    const ModelRepository* repository, const std::string& path) {
  absl::StatusOr<std::unique_ptr<DeviceTimePredictor>> read = OpenReadOnly(repository, path);
  if (!read.ok()) return read.status();
  return std::make_unique<DeviceTimePredictor>(repository, (*read)->profile(), path);
}

absl::StatusOr<std::unique_ptr<DeviceTimePredictor>> DeviceTimePredictor::OpenReadOnly(
    const ModelRepository* repository, const std::string& path) {
  v1::HostProfile profile;  // ridge_flops_per_byte 0: not measured yet
  if (!path.empty()) {
    absl::StatusOr<v1::HostProfile> read = ReadHostProfile(path);
    if (read.ok()) {
      profile = *std::move(read);
    } else if (!absl::IsNotFound(read.status())) {
      return read.status();
    }
  }
  return std::make_unique<DeviceTimePredictor>(repository, std::move(profile), "");
}

absl::StatusOr<std::vector<FitPoint>> DeviceTimePredictor::ClassPoints(
    const v1::DeviceClass& device) {
  std::vector<FitPoint> points;
  for (const v1::CalibrationPoint& p : device.calibration_points()) {
    points.push_back(FitPoint{p.model(), static_cast<int>(p.threads()), p.latency_ms()});
  }
  if (points.empty() && device.reference().mobilenet_v2_latency_ms() > 0) {
    // A class without points: its reference figure (MobileNetV2 1.0, one
    // core) is the one point, as in the single-slowdown model.
    points.push_back(FitPoint{kReferenceModel, 1, device.reference().mobilenet_v2_latency_ms()});
  }
  if (points.empty()) {
    return absl::FailedPreconditionError("device class " + device.name() +
                                         " has no calibration_points and no reference figure");
  }
  return points;
}

absl::StatusOr<const v1::ModelHostProfile*> DeviceTimePredictor::EntryLocked(
    const std::string& model, v1::Stack stack) {
  const std::vector<std::string> available = repository_->ListModels();
  const bool in_repository =
      std::find(available.begin(), available.end(), model) != available.end();
  if (!in_repository && stack == v1::STACK_EDGEFLEET) {
    // A published reference model this repository does not carry.
    for (const v1::ModelHostProfile& m : profile_.models()) {
      if (m.stack() == v1::STACK_EDGEFLEET && m.model() == model &&
          m.kernels() == v1::KERNELS_DEFAULT) {
        return &m;
      }
    }
    return absl::NotFoundError("model " + model +
                               " is neither in the model repository nor in the host profile");
  }
  absl::StatusOr<ModelFile> file = repository_->OpenModel(model, stack);
  if (!file.ok()) return file.status();
  uint64_t bytes = 0;
  std::string digest;
  if (absl::Status s = FileStamp(file->path(), &bytes, &digest); !s.ok()) return s;
  const v1::ModelHostProfile* found =
      FindHostProfile(profile_, stack, model, v1::KERNELS_DEFAULT, bytes, digest);
  if (found != nullptr) return found;
  fprintf(stderr, "edgefleet-server: measuring host profile of %s (%s)\n", model.c_str(),
          v1::Stack_Name(stack).c_str());
  ProfileOptions options;
  options.ridge_flops_per_byte = profile_.ridge_flops_per_byte();
  if (absl::StatusOr<ModelSignature> signature = repository_->Signature(model); signature.ok()) {
    options.inputs = signature->inputs;  // the old stack's .ptl declares none
  }
  absl::StatusOr<v1::ModelHostProfile> measured =
      MeasureHostProfile(model, file->path(), stack, v1::KERNELS_DEFAULT, options);
  if (!measured.ok()) return measured.status();
  // The first model with a measurable compute kernel sets the host's ridge
  // point for every later one.
  if (profile_.ridge_flops_per_byte() <= 0 &&
      measured->ridge_flops_per_byte() != kDefaultRidgeFlopsPerByte) {
    profile_.set_ridge_flops_per_byte(measured->ridge_flops_per_byte());
  }
  // Replace a stale entry of the same model.
  auto* models = profile_.mutable_models();
  for (int i = 0; i < models->size(); ++i) {
    if (models->Get(i).model() == model && models->Get(i).stack() == stack &&
        models->Get(i).kernels() == v1::KERNELS_DEFAULT) {
      models->DeleteSubrange(i, 1);
      break;
    }
  }
  *profile_.add_models() = *measured;
  changed_ = true;
  return &profile_.models(profile_.models_size() - 1);
}

absl::StatusOr<HostCosts> DeviceTimePredictor::Costs(const std::set<std::string>& models) {
  MutexLock lock(&mu_);
  HostCosts costs;
  for (const std::string& model : models) {
    absl::StatusOr<const v1::ModelHostProfile*> entry = EntryLocked(model);
    if (!entry.ok()) return entry.status();
    costs[model] = ModelCostOf(**entry, profile_.prior());
  }
  return costs;
}

absl::StatusOr<std::vector<v1::ModelHostProfile>> DeviceTimePredictor::Entries(
    const std::set<std::pair<std::string, v1::Stack>>& programs) {
  MutexLock lock(&mu_);
  std::vector<v1::ModelHostProfile> out;
  for (const auto& [model, stack] : programs) {
    absl::StatusOr<const v1::ModelHostProfile*> entry = EntryLocked(model, stack);
    if (!entry.ok()) return entry.status();
    out.push_back(**entry);
  }
  return out;
}

absl::Status DeviceTimePredictor::MeasureMissingThreadScaling(const std::set<std::string>& models) {
  MutexLock lock(&mu_);
  const std::vector<std::string> available = repository_->ListModels();
  for (const std::string& model : models) {
    if (std::find(available.begin(), available.end(), model) == available.end()) continue;
    absl::StatusOr<const v1::ModelHostProfile*> entry = EntryLocked(model);
    if (!entry.ok()) return entry.status();
    if ((*entry)->two_thread_speedup() > 0) continue;
    absl::StatusOr<ModelFile> file = repository_->OpenModel(model, v1::STACK_EDGEFLEET);
    if (!file.ok()) return file.status();
    fprintf(stderr, "edgefleet-server: measuring the thread scaling of %s\n", model.c_str());
    absl::StatusOr<ThreadScaling> scaling = measure_scaling_(model, file->path());
    if (absl::IsFailedPrecondition(scaling.status())) return absl::OkStatus();  // one CPU
    if (!scaling.ok()) return scaling.status();
    // An entry of profile_, which this object owns.
    SetThreadScaling(*scaling, const_cast<v1::ModelHostProfile*>(*entry));
    changed_ = true;
  }
  return absl::OkStatus();
}

void DeviceTimePredictor::set_thread_scaling_measurer(ThreadScalingMeasurer measurer) {
  MutexLock lock(&mu_);
  measure_scaling_ = std::move(measurer);
}

void DeviceTimePredictor::AddMeasured(const v1::ModelHostProfile& entry) {
  MutexLock lock(&mu_);
  const v1::ModelHostProfile* found =
      FindHostProfile(profile_, entry.stack(), entry.model(), entry.kernels(), entry.file_bytes(),
                      entry.file_digest());
  if (found == nullptr) {
    *profile_.add_models() = entry;
  } else if (found->two_thread_speedup() <= 0 && entry.two_thread_speedup() > 0) {
    // An entry of profile_, which this object owns.
    auto* kept = const_cast<v1::ModelHostProfile*>(found);
    kept->set_two_thread_speedup(entry.two_thread_speedup());
    kept->set_one_thread_wall_us(entry.one_thread_wall_us());
    kept->set_two_thread_wall_us(entry.two_thread_wall_us());
  }
}

absl::StatusOr<ModelOnDevice> DeviceTimePredictor::For(const v1::DeviceClass& device,
                                                       const std::string& model,
                                                       const std::vector<FitPoint>& given,
                                                       v1::Stack stack) {
  std::vector<FitPoint> points = given;
  if (points.empty()) {
    absl::StatusOr<std::vector<FitPoint>> own = ClassPoints(device);
    if (!own.ok()) return own.status();
    points = *std::move(own);
  }
  std::set<std::string> needed;
  if (stack == v1::STACK_EDGEFLEET) needed.insert(model);
  std::string key = device.name();
  for (const FitPoint& p : points) {
    needed.insert(p.model);
    char text[96];
    snprintf(text, sizeof(text), "|%d=%.17g", p.threads, p.ms);
    key += "|" + p.model + text;
  }
  absl::StatusOr<HostCosts> costs = Costs(needed);
  if (!costs.ok()) return costs.status();
  MutexLock lock(&mu_);
  ModelOnDevice out;
  if (stack != v1::STACK_EDGEFLEET) {
    absl::StatusOr<const v1::ModelHostProfile*> entry = EntryLocked(model, stack);
    if (!entry.ok()) return entry.status();
    out.cost = ModelCostOf(**entry, profile_.prior());  // no offsets: another program
    out.host_total_us = (*entry)->total_us();
  }
  const std::optional<NeighbourOffsets> neighbours =
      ComputeNeighbourOffsets(points, *costs, profile_.prior(), PublishedCosts(profile_));
  if (neighbours.has_value()) *costs = WithNeighbourOffsets(*costs, *neighbours, profile_.prior());
  auto fit = fits_.find(key);
  if (fit == fits_.end()) {
    absl::StatusOr<DeviceFactors> factors = FitDeviceAtLeast(
        points, *costs, profile_.prior(), device.cpu(), device.cpu().parallel_fraction(),
        neighbours.has_value() ? neighbours->deviation_scale : 1.0);
    if (!factors.ok()) {
      return absl::Status(factors.status().code(), "device class " + device.name() + ": " +
                                                       std::string(factors.status().message()));
    }
    fit = fits_.emplace(key, Fit{*factors, neighbours}).first;
  }
  out.factors = fit->second.factors;
  out.neighbours = fit->second.neighbours;
  out.cpu = device.cpu();
  if (stack == v1::STACK_EDGEFLEET) {
    out.cost = costs->at(model);
    for (const v1::ModelHostProfile& m : profile_.models()) {
      if (m.model() == model && m.stack() == v1::STACK_EDGEFLEET &&
          m.file_digest() == out.cost.file_digest) {
        out.host_total_us = m.total_us();
        out.runtime_serial = RuntimeSerialShare(m.two_thread_speedup());
      }
    }
  }
  if (!(out.host_total_us > 0)) {
    return absl::InternalError("host profile of " + model + " has no total time");
  }
  return out;
}

absl::Status DeviceTimePredictor::SaveIfChanged() {
  MutexLock lock(&mu_);
  if (!changed_ || profile_path_.empty()) return absl::OkStatus();
  if (absl::Status s = WriteHostProfile(profile_path_, profile_); !s.ok()) return s;
  changed_ = false;
  return absl::OkStatus();
}

double DeviceTimePredictor::ridge_flops_per_byte() const {
  MutexLock lock(&mu_);
  return profile_.ridge_flops_per_byte();
}

v1::HostProfile DeviceTimePredictor::profile() const {
  MutexLock lock(&mu_);
  return profile_;
}

}  // namespace service
}  // namespace edgefleet

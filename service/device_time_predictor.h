// DeviceTimePredictor: the per-operator-class device-time model
// (device_time_fit.h) as the emulator and `edgefleet-server predict` use it.
//
// It owns a HostProfile (host costs per operator class of each program and
// the population prior; deploy/device_model/host_profile.textproto by
// default) and answers, for a device class and a model of the repository,
// the model's predicted device time: the class's factors are fitted to its
// calibration points (or to given points), the model's host costs come
// from the profile (with the offsets of the published devices that resemble
// the class, neighbour_offsets.h), and what the profile lacks is measured once on this
// host (HostProfiler, the edgefleet stack's program, one thread) and kept,
// so every later answer is the same: emulation stays deterministic.
//
// Host costs of a calibration point's model: the profile's entry measured
// from the repository's file of that name (same size and digest); when the
// repository has no such model, the profile's entry of that name (the
// published reference models need not be in every repository).
//
// Thread-safe: one mutex guards the profile and the caches.

#ifndef EDGEFLEET_SERVICE_DEVICE_TIME_PREDICTOR_H_
#define EDGEFLEET_SERVICE_DEVICE_TIME_PREDICTOR_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/mutex.h"
#include "edgefleet/v1/device_class.pb.h"
#include "edgefleet/v1/host_profile.pb.h"
#include "service/device_time_fit.h"
#include "service/host_thread_scaling.h"
#include "service/model_repository.h"
#include "service/neighbour_offsets.h"

namespace edgefleet {
namespace service {

// The model the classes' `reference` figure is for.
inline constexpr const char* kReferenceModel = "mobilenet_v2";

// The host profile read when none is named: device_model/host_profile.textproto
// beside the first of the comma-separated `device_classes` directories (for
// deploy/device_classes, the committed deploy/device_model/host_profile.textproto).
std::string DefaultHostProfilePath(const std::string& device_classes);

// A fitted class and one model's costs: what a prediction needs.
struct ModelOnDevice {
  DeviceFactors factors;
  // The model offsets of this class: neighbour-weighted when its points
  // allow (neighbour_offsets.h), else the prior's population offsets.
  std::optional<NeighbourOffsets> neighbours;
  ModelCost cost;
  v1::Cpu cpu;
  double host_total_us = 0;  // the model's measured steady-state host time, one thread
  // The share of the program our runtime keeps on one thread, from its
  // two-thread speedup measured on this host (host_thread_scaling.h; 0 when
  // not measured, and for the old stack): a program whose operators stay
  // on one thread scales less on the device too.
  double runtime_serial = 0;

  double PredictMs(int threads) const;
  // Device time of one thread / host time of the same program: the factor
  // that turns the model's host time into device time.
  double DeviceOverHost() const { return PredictMs(1) * 1e3 / host_total_us; }
  // Device speedup of `threads` threads over one.
  double ThreadSpeedup(int threads) const { return PredictMs(1) / PredictMs(threads); }
};

class DeviceTimePredictor {
 public:
  // `repository` must outlive this. `profile_path` may be empty (nothing is
  // written back) or name a file that does not exist yet.
  DeviceTimePredictor(const ModelRepository* repository, v1::HostProfile profile,
                      std::string profile_path);

  // Reads `path` (a missing file is an empty profile). Errors: INVALID_ARGUMENT
  // for a file that is not a HostProfile.
  static absl::StatusOr<std::unique_ptr<DeviceTimePredictor>> Open(
      const ModelRepository* repository, const std::string& path);
  // The same, but `path` is only read: what the profile lacks is measured
  // and kept in memory, never written back (SaveIfChanged is a no-op).
  static absl::StatusOr<std::unique_ptr<DeviceTimePredictor>> OpenReadOnly(
      const ModelRepository* repository, const std::string& path);

  // The class's own calibration points: its calibration_points, else its
  // reference figure as mobilenet_v2@1. Errors: FAILED_PRECONDITION when it
  // has neither.
  static absl::StatusOr<std::vector<FitPoint>> ClassPoints(const v1::DeviceClass& device);

  // `model` run by `stack` on `device` fitted to `points` (empty:
  // ClassPoints). The class's factors are always fitted to the edgefleet
  // stack's profiles of the points' models (the published figures are of
  // other runtimes; the factors are device time over this host's time per
  // operator class); the model's own costs are those of `stack`'s program
  // (the old stack's .ptl measured by pytorch_mobile_profiler.h), so each
  // stack gets its own device/host factor. Offsets learned from published
  // devices belong to the edgefleet programs they were learned with: a .ptl
  // gets none. Fits are cached per (class, points). Errors: NOT_FOUND
  // (model or a point's model unknown, no program of `stack`),
  // INVALID_ARGUMENT (points refused by FitDevice), the profiler's errors
  // when a measurement fails (FAILED_PRECONDITION where the old stack is
  // not available).
  absl::StatusOr<ModelOnDevice> For(const v1::DeviceClass& device, const std::string& model,
                                    const std::vector<FitPoint>& points = {},
                                    v1::Stack stack = v1::STACK_EDGEFLEET) EF_EXCLUDES(mu_);

  // Host costs of `models` (measured now if missing), with the prior's
  // offsets. Errors as For.
  absl::StatusOr<HostCosts> Costs(const std::set<std::string>& models) EF_EXCLUDES(mu_);

  // The profile entries of `programs`, (model, stack) pairs (measured now
  // if missing). Errors as For.
  absl::StatusOr<std::vector<v1::ModelHostProfile>> Entries(
      const std::set<std::pair<std::string, v1::Stack>>& programs) EF_EXCLUDES(mu_);

  // Measures our runtime's thread scaling (host_thread_scaling.h) of each of
  // `models` whose edgefleet-stack entry lacks it (an entry written before
  // it was measured), once, and keeps it in the entry (two_thread_speedup
  // and the two times), leaving the entry's other fields as they are; an
  // entry missing altogether is measured whole first (For). What the
  // calibration runs (`edgefleet-server calibrate`, `predict
  // --measure_thread_scaling`) so that a device class's multi-thread arms
  // scale as this runtime does. Models only the profile knows (not in the
  // repository) are skipped, and so is everything when this process may
  // use one CPU. Errors: as For, and the measurement's.
  absl::Status MeasureMissingThreadScaling(const std::set<std::string>& models) EF_EXCLUDES(mu_);

  // What MeasureMissingThreadScaling measures a program file with; default:
  // MeasureThreadScaling with the default kernels and ProfileOptions' warmup
  // and runs. For tests.
  using ThreadScalingMeasurer = std::function<absl::StatusOr<ThreadScaling>(
      const std::string& model, const std::string& path)>;
  void set_thread_scaling_measurer(ThreadScalingMeasurer measurer) EF_EXCLUDES(mu_);

  // Adds a measurement made elsewhere (a calibration file's) unless the
  // profile has one of the same program; if it has one without the thread
  // scaling and `entry` has it, the scaling is taken into that one.
  void AddMeasured(const v1::ModelHostProfile& entry) EF_EXCLUDES(mu_);

  // Writes the profile to its path if measurements were added since the
  // last save (no-op without a path).
  absl::Status SaveIfChanged() EF_EXCLUDES(mu_);

  v1::HostProfile profile() const EF_EXCLUDES(mu_);
  // The host ridge point the profile's models are classified against (0
  // until a model with a measurable compute kernel sets it).
  double ridge_flops_per_byte() const EF_EXCLUDES(mu_);

 private:
  absl::StatusOr<const v1::ModelHostProfile*> EntryLocked(const std::string& model,
                                                          v1::Stack stack = v1::STACK_EDGEFLEET)
      EF_REQUIRES(mu_);

  const ModelRepository* repository_;
  const std::string profile_path_;
  mutable Mutex mu_;
  v1::HostProfile profile_ EF_GUARDED_BY(mu_);
  bool changed_ EF_GUARDED_BY(mu_) = false;
  ThreadScalingMeasurer measure_scaling_ EF_GUARDED_BY(mu_);
  // (class name + points) -> fitted factors and offsets.
  struct Fit {
    DeviceFactors factors;
    std::optional<NeighbourOffsets> neighbours;
  };
  std::map<std::string, Fit> fits_ EF_GUARDED_BY(mu_);
};

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_DEVICE_TIME_PREDICTOR_H_

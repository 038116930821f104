// The per-operator-class device-time model: predicts a model's latency on a
// device class from this host's per-class costs (host_profiler.h) and the
// class's published calibration points.
//
//   device_us(model, t) = exp(r_m) * sum_c exp(theta_c) * H_c(model) / S_c(t)
//
// H_c is the host time of operator class c (op_classes.h; the overhead
// class is 1 us per executed operator), exp(theta_c) the device's factor
// for that class (device time / host time), and S_c(t) the Amdahl speedup
// of t threads over the class's CPU topology (time_model.h AmdahlSpeedup)
// with the model's parallel fraction p_m, 1 - p_m = (1 - p) * exp(s_m), p the
// device's (1 for the overhead class, which never runs in parallel), times
// 1 - the share our runtime keeps on one thread when it is measured
// (PredictMs's runtime_serial).
// r_m and s_m are the population's offsets of that program
// (DeviceModelPrior.model_offsets, learned by FitPrior from the published
// devices: what the per-class model leaves unexplained for that model on
// every device; DeviceTimePredictor replaces r_m by the mean over the
// published devices that resemble the class, neighbour_offsets.h); a
// program the prior has no offsets for has r_m = s_m = 0, the per-class
// model alone.
//
// FitDevice() fits theta in log space to a device's single-thread points:
// theta_c = a + mu_c + delta_c, with a free scale a, the population prior
// mu (DeviceModelPrior, fitted across published devices by FitPrior) and a
// deviation delta penalized by the prior's sigma, so that three points
// move seven factors only as far as the data demand (Levenberg-Marquardt on
// log residuals). p is fitted to the multi-thread points if there are any,
// else taken from the prior (or the class's parallel_fraction).
//
// Points are refused with INVALID_ARGUMENT when they cannot define a fit:
// none at one thread, a non-positive or non-finite latency, an unknown
// model, two figures for the same (model, threads) more than 10 % apart, a
// multi-thread figure more than 10 % slower than the same model's
// single-thread one, or a fit that still misses a point by more than a
// factor 1.5 (the points contradict each other under this model).
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_SERVICE_DEVICE_TIME_FIT_H_
#define EDGEFLEET_SERVICE_DEVICE_TIME_FIT_H_

#include <array>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "edgefleet/v1/device_class.pb.h"
#include "edgefleet/v1/host_profile.pb.h"
#include "service/op_classes.h"

namespace edgefleet {
namespace service {

using ClassVector = std::array<double, kNumOpClasses>;  // indexed like kOpClasses

struct FitPoint {
  std::string model;
  int threads = 1;
  double ms = 0;
};

struct DeviceFactors {
  ClassVector log_factor{};  // theta_c
  double parallel_fraction = 0;
  double rms_log_error = 0;  // over the points fitted
  int points = 0;
};

// What the model knows of one program: its host microseconds per class and
// the population's offsets for it (0 when the prior has none).
struct ModelCost {
  ModelCost() = default;
  ModelCost(const ClassVector& host) : host_us(host) {}  // NOLINT: implicit on purpose
  ClassVector host_us{};
  std::string file_digest;       // of the program measured (ModelHostProfile)
  double log_offset = 0;         // r_m
  double log_serial_offset = 0;  // s_m
};

// The costs of every model the fit may use, by model name.
using HostCosts = std::map<std::string, ModelCost>;

// A model's population offset from its residuals over the published devices
// (not empty): their median (robust to one device whose runtime treats the
// model very differently), shrunk toward 0 by n / (n + 1) (a model seen on
// few devices gets a small offset).
double ShrunkMedian(std::vector<double> v);

// The cost of a profile entry, with `prior`'s offsets if the prior has them
// for this model and file digest.
ModelCost ModelCostOf(const v1::ModelHostProfile& profile, const v1::DeviceModelPrior& prior);

// Prior log ratios (relative to dense, dense = 0) of `prior`; zeros and the
// given defaults when the prior is empty.
ClassVector PriorLogRatios(const v1::DeviceModelPrior& prior);

// Predicted device milliseconds of a model with `cost`. `runtime_serial`
// (in [0, 1]) is the share of the program's work the emulated runtime
// itself leaves on one thread, measured on the host (host_thread_scaling.h
// RuntimeSerialShare): the parallel fraction becomes p_m * (1 -
// runtime_serial). Fits leave it 0: the published figures are of other
// runtimes, whose scaling p and s_m describe.
double PredictMs(const DeviceFactors& factors, const ModelCost& cost, const v1::Cpu& cpu,
                 int threads, double runtime_serial = 0);

// Fits a device. `default_parallel_fraction` is used without multi-thread
// points. `deviation_scale` multiplies the prior's sigma, the width of the
// penalty on the deviations delta (neighbour_offsets.h chooses it).
// Errors: INVALID_ARGUMENT as above.
absl::StatusOr<DeviceFactors> FitDevice(const std::vector<FitPoint>& points, const HostCosts& costs,
                                        const v1::DeviceModelPrior& prior, const v1::Cpu& cpu,
                                        double default_parallel_fraction,
                                        double deviation_scale = 1);

// One published device for the population prior.
struct PublishedDevice {
  std::string name;
  std::vector<FitPoint> points;  // single- and multi-thread
};

// Fits the population prior: shared class log ratios mu (dense = 0) and a
// free scale per device over every single-thread point, then the median
// over devices of the parallel fraction that fits each device's
// multi-thread points (threads cores of equal speed), and sigma, the rms
// per-device deviation left after the shared fit. Then the model offsets:
// r_m from each model's single-thread residuals of the shared fit, s_m from
// its multi-thread residuals given each device's parallel fraction (both
// the median over devices, shrunk, ModelOffset), and each device's
// single-thread residuals (device_residuals); the offsets in `costs`
// are ignored. Devices need >= 2 single-thread points to count. Errors:
// INVALID_ARGUMENT with fewer than 2 such devices or a model missing from
// `costs`.
absl::StatusOr<v1::DeviceModelPrior> FitPrior(const std::vector<PublishedDevice>& devices,
                                              const HostCosts& costs);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_DEVICE_TIME_FIT_H_

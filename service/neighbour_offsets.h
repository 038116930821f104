// Neighbour-weighted model offsets: the per-model corrections of the
// device-time model (device_time_fit.h, r_m) for one new device, averaged
// over the published devices that resemble it, instead of over all of them.
//
// The population prior keeps each published device's single-thread
// residuals of the shared fit, e_dm = log(published / per-class model)
// (DeviceModelPrior.device_residuals). A new device is known by its
// single-thread calibration points; their residuals under the prior's
// ratios, centered over the calibration models, are its pattern, and so are
// each published device's residuals on the same models, centered. A
// device's speed is the mean over the calibration models of log(published
// / host time under the prior's ratios) (for a published device, its
// fitted scale plus its mean residual on them). A published device d gets
// the weight exp(-(|pattern_d - pattern|^2 + w^2 (speed_d - speed)^2) / h^2)
// (a Gaussian kernel on the calibration models and the speed: devices
// whose runtimes favour the same models, at a similar speed; w = 0 ignores
// the speed), and the new device's offset of model m is the
// weighted mean of e_dm over the devices that have it. This is
// neighbourhood-based matrix completion of the (device x model) residual
// table, as cross-device latency predictors transfer measurements from
// similar devices.
//
// The population offset (the shrunk median of e_dm over the devices, as
// FitPrior makes it) enters that mean as one more neighbour of fixed
// weight lambda > 0, where the devices weigh exp(-distance^2 / h^2)
// without normalization: a new device close to published ones takes their
// residuals, one unlike every published device (all weights near 0) the
// population's, instead of those of whichever device happens to be the
// least far (with equal weights, h infinite, lambda is 0).
//
// The bandwidth h, lambda and w are chosen without the new device: each
// published device with figures for all the calibration models is
// predicted from the others (its other models, after refitting the scale
// to its calibration models) for every triple of a fixed grid
// (kNeighbourBandwidths x kPopulationWeights x kSpeedWeights, and infinite
// h: equal weights), and the triple with the least squared log error is
// used.
//
// The width of the new device's class deviations (FitDevice's
// deviation_scale, a multiple of the prior's sigma) is chosen the same way,
// after h, lambda and w: each eligible published device is fitted to its
// calibration models (its figures: exp(log_scale + e_dm) times the model's
// per-class time under the prior's ratios) with its leave-one-device-out
// offsets, for every scale of kDeviationScales, and the scale whose fits
// predict the devices' other models with the least squared log error is
// used (a device whose points a scale refuses is scored with the next
// wider scale that fits them, as FitDeviceAtLeast fits a new device). The
// offsets already carry what the neighbours say of the device's
// other models; a wide penalty lets three calibration points move the class
// factors further than they can be known.
//
// Applies only when at least two calibration models have residuals in the
// prior (one point has no pattern) and at least two published devices
// have figures for all of them; otherwise NeighbourOffsets returns nothing
// and the prior's population offsets stand.
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_SERVICE_NEIGHBOUR_OFFSETS_H_
#define EDGEFLEET_SERVICE_NEIGHBOUR_OFFSETS_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "edgefleet/v1/device_class.pb.h"
#include "edgefleet/v1/host_profile.pb.h"
#include "service/device_time_fit.h"

namespace edgefleet {
namespace service {

// Candidate bandwidths (log units); 0 stands for infinite (equal weights).
inline constexpr double kNeighbourBandwidths[] = {0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0};

// Candidate population weights lambda (a device at the new device's own
// pattern weighs 1). 0 is not among them: chosen by the same inner
// leave-one-device-out it is picked for most held-out devices, yet it
// predicts the held-out devices of docs/fidelity.md worse (2 more
// predictions off by more than 10 % in 124; docs/fidelity/README.md).
inline constexpr double kPopulationWeights[] = {0.01, 0.03, 0.1, 0.3, 1};

// Candidate weights w of the speed coordinate (log units of speed per log
// unit of pattern), 0 first (the speed ignored).
inline constexpr double kSpeedWeights[] = {0, 0.03, 0.1, 0.3};

// Candidate deviation scales: multiples of the prior's sigma (1 is
// FitDevice's default).
inline constexpr double kDeviationScales[] = {1.0 / 32, 1.0 / 16, 0.125, 0.25, 0.5, 1, 2, 4};

struct NeighbourParams {
  double bandwidth = 0;          // h; 0 = infinite
  double population_weight = 0;  // lambda
  double speed_weight = 0;       // w
};

struct NeighbourOffsets {
  double bandwidth = 0;          // chosen h; 0 = infinite
  double population_weight = 0;  // chosen lambda
  double speed_weight = 0;       // chosen w
  double deviation_scale = 1;    // chosen multiple of the prior's sigma, for FitDevice
  // Model -> log offset r_m for the new device, for every model some
  // published device has a residual for.
  std::map<std::string, double> log_offset;
  // Published device -> its share of the weight; with population_share,
  // the population offsets' share, they sum to 1.
  std::map<std::string, double> weight;
  double population_share = 0;
};

// The offsets for a device with single-thread calibration `points` (other
// points are ignored), `costs` the models' host costs (their own offsets
// are ignored) under `prior`'s ratios. `published` are the host costs of
// the programs the prior's residuals were measured with (PublishedCosts);
// the deviation scale is chosen on the models it has (1 when it has too
// few). nullopt when they do not apply (see above).
std::optional<NeighbourOffsets> ComputeNeighbourOffsets(const std::vector<FitPoint>& points,
                                                        const HostCosts& costs,
                                                        const v1::DeviceModelPrior& prior,
                                                        const HostCosts& published);

// FitDevice with deviation scale `deviation_scale`, or, when the points
// are refused at that width (a fit that misses a point by more than a
// factor 1.5), with the next wider scale of kDeviationScales up to 1 (the
// prior's own width, whose refusal stands) that fits them; the last
// error when none does.
absl::StatusOr<DeviceFactors> FitDeviceAtLeast(const std::vector<FitPoint>& points,
                                               const HostCosts& costs,
                                               const v1::DeviceModelPrior& prior,
                                               const v1::Cpu& cpu, double default_parallel_fraction,
                                               double deviation_scale);

// The costs of `profile`'s edgefleet programs that its prior has offsets
// for with the same file digest (the programs its residuals were measured
// with), by model.
HostCosts PublishedCosts(const v1::HostProfile& profile);

// `costs` with the log offsets of `offsets` for the models the prior has
// population offsets for with the same file digest (the program the
// residuals were measured with); other models keep theirs.
HostCosts WithNeighbourOffsets(const HostCosts& costs, const NeighbourOffsets& offsets,
                               const v1::DeviceModelPrior& prior);

}  // namespace service
}  // namespace edgefleet

#endif  // EDGEFLEET_SERVICE_NEIGHBOUR_OFFSETS_H_

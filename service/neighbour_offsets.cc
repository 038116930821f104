#include "service/neighbour_offsets.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

namespace edgefleet {
namespace service {
namespace {

using Residuals = std::map<std::string, double>;  // model -> e_dm

// A published device: its residuals and its fitted scale.
struct Device {
  Residuals residuals;
  double log_scale = 0;
};

// Published devices with a residual for every model of `cal`.
std::map<std::string, Device> EligibleDevices(const v1::DeviceModelPrior& prior,
                                              const std::vector<std::string>& cal) {
  std::map<std::string, Device> out;
  for (const auto& device : prior.device_residuals()) {
    Device d;
    d.log_scale = device.log_scale();
    for (const auto& residual : device.residuals()) {
      d.residuals[residual.model()] = residual.log_residual();
    }
    bool all = true;
    for (const std::string& m : cal) all = all && d.residuals.count(m) > 0;
    if (all) out[device.device()] = std::move(d);
  }
  return out;
}

// Where a device sits: its residuals on `cal` minus their mean (the
// pattern), and its speed, log_scale + that mean.
struct Coordinates {
  std::vector<double> pattern;
  double speed = 0;
};

Coordinates CoordinatesOf(const Residuals& r, double log_scale,
                          const std::vector<std::string>& cal) {
  Coordinates c;
  double mean = 0;
  for (const std::string& m : cal) c.pattern.push_back(r.at(m)), mean += r.at(m);
  mean /= static_cast<double>(cal.size());
  for (double& v : c.pattern) v -= mean;
  c.speed = log_scale + mean;
  return c;
}

// Kernel weights of `devices` (all but `skip`) for a device at `at`, not
// normalized: exp(-distance^2 / h^2) with distance^2 = |pattern_d -
// pattern|^2 + w^2 (speed_d - speed)^2 (so a device far from every
// published one has weights near 0 and falls back to the population), 1
// each for h = 0.
std::map<std::string, double> Weights(const std::map<std::string, Device>& devices,
                                      const std::vector<std::string>& cal, const Coordinates& at,
                                      const NeighbourParams& params, const std::string& skip) {
  std::map<std::string, double> w;
  for (const auto& [name, d] : devices) {
    if (name == skip) continue;
    const Coordinates c = CoordinatesOf(d.residuals, d.log_scale, cal);
    double s = 0;
    for (size_t i = 0; i < c.pattern.size(); ++i) {
      s += (c.pattern[i] - at.pattern[i]) * (c.pattern[i] - at.pattern[i]);
    }
    const double speed = params.speed_weight * (c.speed - at.speed);
    s += speed * speed;
    w[name] = params.bandwidth > 0 ? std::exp(-s / (params.bandwidth * params.bandwidth)) : 1.0;
  }
  return w;
}

// Per model: (sum_d w_d e_dm + lambda * population_m) / (sum_d w_d + lambda)
// over the weighted devices that have model m, population_m the shrunk
// median of their residuals (what FitPrior makes the population offset).
Residuals WeightedOffsets(const std::map<std::string, Device>& devices,
                          const std::map<std::string, double>& weights, double lambda) {
  std::map<std::string, std::pair<double, double>> sums;  // model -> (sum w e, sum w)
  std::map<std::string, std::vector<double>> of_model;
  for (const auto& [name, w] : weights) {
    for (const auto& [model, e] : devices.at(name).residuals) {
      sums[model].first += w * e;
      sums[model].second += w;
      of_model[model].push_back(e);
    }
  }
  Residuals out;
  for (const auto& [model, s] : sums) {
    const double population = lambda > 0 ? ShrunkMedian(of_model[model]) : 0;
    const double total = s.second + lambda;
    if (total > 0) out[model] = (s.first + lambda * population) / total;
  }
  return out;
}

// Squared log error of predicting every eligible device's non-calibration
// models from the other devices with `params` (the scale refitted to the
// calibration models: the error of model m is (o_m - e_m) minus its mean
// over the calibration models).
double LeaveOneDeviceOutError(const std::map<std::string, Device>& devices,
                              const std::vector<std::string>& cal, const NeighbourParams& params) {
  double total = 0;
  for (const auto& [name, d] : devices) {
    const Residuals& r = d.residuals;
    const Residuals o = WeightedOffsets(
        devices, Weights(devices, cal, CoordinatesOf(r, d.log_scale, cal), params, name),
        params.population_weight);
    double shift = 0;
    for (const std::string& m : cal) shift += o.at(m) - r.at(m);
    shift /= static_cast<double>(cal.size());
    for (const auto& [model, e] : r) {
      if (std::find(cal.begin(), cal.end(), model) != cal.end()) continue;
      auto it = o.find(model);
      if (it == o.end()) continue;
      const double err = (it->second - e) - shift;
      total += err * err;
    }
  }
  return total;
}

// The candidates: every bandwidth with every population weight and speed
// weight (0 first: of candidates that predict equally well, the first is
// kept), and equal weights (h = 0, no population or speed weight).
std::vector<NeighbourParams> Candidates() {
  std::vector<NeighbourParams> out;
  for (double w : kSpeedWeights) {
    for (double h : kNeighbourBandwidths) {
      if (h == 0) {
        if (w == 0) out.push_back({0, 0, 0});
        continue;
      }
      for (double lambda : kPopulationWeights) out.push_back({h, lambda, w});
    }
  }
  return out;
}

}  // namespace

std::optional<NeighbourOffsets> ComputeNeighbourOffsets(const std::vector<FitPoint>& points,
                                                        const HostCosts& costs,
                                                        const v1::DeviceModelPrior& prior) {
  std::set<std::string> known;
  for (const auto& device : prior.device_residuals()) {
    for (const auto& residual : device.residuals()) known.insert(residual.model());
  }
  const ClassVector mu = PriorLogRatios(prior);
  // The new device's residuals under the prior's ratios, with no scale
  // taken out (their mean is its speed).
  std::vector<std::string> cal;
  Residuals own;
  for (const FitPoint& p : points) {
    auto cost = costs.find(p.model);
    if (p.threads != 1 || known.count(p.model) == 0 || cost == costs.end() || own.count(p.model)) {
      continue;
    }
    double us = 0;
    for (int c = 0; c < kNumOpClasses; ++c) us += std::exp(mu[c]) * cost->second.host_us[c];
    if (!(us > 0)) continue;
    own[p.model] = std::log(p.ms / (us / 1e3));
    cal.push_back(p.model);
  }
  if (cal.size() < 2) return std::nullopt;
  const std::map<std::string, Device> devices = EligibleDevices(prior, cal);
  if (devices.size() < 2) return std::nullopt;

  NeighbourOffsets out;
  NeighbourParams chosen;
  double best = std::numeric_limits<double>::infinity();
  for (const NeighbourParams& params : Candidates()) {
    const double e = LeaveOneDeviceOutError(devices, cal, params);
    if (e < best) best = e, chosen = params;
  }
  out.bandwidth = chosen.bandwidth;
  out.population_weight = chosen.population_weight;
  out.speed_weight = chosen.speed_weight;
  const std::map<std::string, double> w =
      Weights(devices, cal, CoordinatesOf(own, 0, cal), chosen, "");
  out.log_offset = WeightedOffsets(devices, w, chosen.population_weight);
  double total = chosen.population_weight;
  for (const auto& [name, v] : w) total += v;
  for (const auto& [name, v] : w) out.weight[name] = v / total;
  out.population_share = chosen.population_weight / total;
  return out;
}

HostCosts WithNeighbourOffsets(const HostCosts& costs, const NeighbourOffsets& offsets,
                               const v1::DeviceModelPrior& prior) {
  HostCosts out = costs;
  for (auto& [model, cost] : out) {
    auto it = offsets.log_offset.find(model);
    if (it == offsets.log_offset.end()) continue;
    for (const auto& population : prior.model_offsets()) {
      if (population.model() == model && population.file_digest() == cost.file_digest) {
        cost.log_offset = it->second;
      }
    }
  }
  return out;
}

}  // namespace service
}  // namespace edgefleet

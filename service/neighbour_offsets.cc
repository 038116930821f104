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

// Published devices with a residual for every model of `cal`.
std::map<std::string, Residuals> EligibleDevices(const v1::DeviceModelPrior& prior,
                                                 const std::vector<std::string>& cal) {
  std::map<std::string, Residuals> out;
  for (const auto& device : prior.device_residuals()) {
    Residuals r;
    for (const auto& residual : device.residuals()) r[residual.model()] = residual.log_residual();
    bool all = true;
    for (const std::string& m : cal) all = all && r.count(m) > 0;
    if (all) out[device.device()] = std::move(r);
  }
  return out;
}

// Values of `r` on `cal`, minus their mean.
std::vector<double> Pattern(const Residuals& r, const std::vector<std::string>& cal) {
  std::vector<double> p;
  double mean = 0;
  for (const std::string& m : cal) p.push_back(r.at(m)), mean += r.at(m);
  mean /= static_cast<double>(cal.size());
  for (double& v : p) v -= mean;
  return p;
}

// Normalized kernel weights of `devices` (all but `skip`) for `pattern`;
// distances are taken relative to the nearest device, so no weight
// underflows to 0 for all.
std::map<std::string, double> Weights(const std::map<std::string, Residuals>& devices,
                                      const std::vector<std::string>& cal,
                                      const std::vector<double>& pattern, double bandwidth,
                                      const std::string& skip) {
  std::map<std::string, double> d2;
  double nearest = std::numeric_limits<double>::infinity();
  for (const auto& [name, r] : devices) {
    if (name == skip) continue;
    const std::vector<double> p = Pattern(r, cal);
    double s = 0;
    for (size_t i = 0; i < p.size(); ++i) s += (p[i] - pattern[i]) * (p[i] - pattern[i]);
    d2[name] = s;
    nearest = std::min(nearest, s);
  }
  std::map<std::string, double> w;
  double total = 0;
  for (const auto& [name, s] : d2) {
    w[name] = bandwidth > 0 ? std::exp(-(s - nearest) / (bandwidth * bandwidth)) : 1.0;
    total += w[name];
  }
  for (auto& [name, v] : w) v /= total;
  return w;
}

// Weighted mean of e_dm over the weighted devices that have model m.
Residuals WeightedOffsets(const std::map<std::string, Residuals>& devices,
                          const std::map<std::string, double>& weights) {
  std::map<std::string, std::pair<double, double>> sums;  // model -> (sum w e, sum w)
  for (const auto& [name, w] : weights) {
    for (const auto& [model, e] : devices.at(name)) {
      sums[model].first += w * e;
      sums[model].second += w;
    }
  }
  Residuals out;
  for (const auto& [model, s] : sums) {
    if (s.second > 0) out[model] = s.first / s.second;
  }
  return out;
}

// Squared log error of predicting every eligible device's non-calibration
// models from the other devices with `bandwidth` (the scale refitted to
// the calibration models: the error of model m is (o_m - e_m) minus its
// mean over the calibration models).
double LeaveOneDeviceOutError(const std::map<std::string, Residuals>& devices,
                              const std::vector<std::string>& cal, double bandwidth) {
  double total = 0;
  for (const auto& [name, r] : devices) {
    const Residuals o =
        WeightedOffsets(devices, Weights(devices, cal, Pattern(r, cal), bandwidth, name));
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

}  // namespace

std::optional<NeighbourOffsets> ComputeNeighbourOffsets(const std::vector<FitPoint>& points,
                                                        const HostCosts& costs,
                                                        const v1::DeviceModelPrior& prior) {
  std::set<std::string> known;
  for (const auto& device : prior.device_residuals()) {
    for (const auto& residual : device.residuals()) known.insert(residual.model());
  }
  const ClassVector mu = PriorLogRatios(prior);
  // The new device's residuals under the prior's ratios (its scale drops
  // out when centered).
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
  const std::map<std::string, Residuals> devices = EligibleDevices(prior, cal);
  if (devices.size() < 2) return std::nullopt;

  NeighbourOffsets out;
  double best = std::numeric_limits<double>::infinity();
  for (double h : kNeighbourBandwidths) {
    const double e = LeaveOneDeviceOutError(devices, cal, h);
    if (e < best) best = e, out.bandwidth = h;
  }
  out.weight = Weights(devices, cal, Pattern(own, cal), out.bandwidth, "");
  out.log_offset = WeightedOffsets(devices, out.weight);
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

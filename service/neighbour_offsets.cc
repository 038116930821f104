#include "service/neighbour_offsets.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <set>
#include <utility>

#include "absl/status/statusor.h"

namespace edgefleet {
namespace service {
namespace {

using Residuals = std::map<std::string, double>;  // model -> e_dm

// The published devices with a residual for every calibration model, in
// name order, and what the inner leave-one-device-out needs of them,
// computed once: their coordinates (the residuals on the calibration
// models minus their mean, the pattern; the speed, log_scale + that mean)
// and their residuals by model index (models in name order).
struct Table {
  std::vector<std::string> names;
  std::vector<std::string> models;
  std::vector<std::vector<double>> pattern;   // [device][calibration model]
  std::vector<double> speed;                  // [device]
  std::vector<double> log_scale;              // [device]
  std::vector<std::vector<double>> residual;  // [device][model]
  std::vector<std::vector<char>> has;         // [device][model]
  std::vector<bool> calibration;              // [model]
  std::vector<size_t> calibration_index;      // model index of each calibration model
};

// The pattern and speed of residuals `r` (a published device: with its
// log_scale; the new device: uncentered residuals, log_scale 0).
void CoordinatesOf(const Residuals& r, double log_scale, const std::vector<std::string>& cal,
                   std::vector<double>* pattern, double* speed) {
  double mean = 0;
  pattern->clear();
  for (const std::string& m : cal) pattern->push_back(r.at(m)), mean += r.at(m);
  mean /= static_cast<double>(cal.size());
  for (double& v : *pattern) v -= mean;
  *speed = log_scale + mean;
}

Table EligibleDevices(const v1::DeviceModelPrior& prior, const std::vector<std::string>& cal) {
  std::map<std::string, std::pair<Residuals, double>> eligible;
  std::set<std::string> models;
  for (const auto& device : prior.device_residuals()) {
    Residuals r;
    for (const auto& residual : device.residuals()) r[residual.model()] = residual.log_residual();
    bool all = true;
    for (const std::string& m : cal) all = all && r.count(m) > 0;
    if (!all) continue;
    for (const auto& [model, e] : r) models.insert(model);
    eligible[device.device()] = {std::move(r), device.log_scale()};
  }
  Table t;
  t.models.assign(models.begin(), models.end());
  for (const std::string& m : t.models) {
    t.calibration.push_back(std::find(cal.begin(), cal.end(), m) != cal.end());
  }
  for (const std::string& m : cal) {
    t.calibration_index.push_back(std::find(t.models.begin(), t.models.end(), m) -
                                  t.models.begin());
  }
  for (const auto& [name, device] : eligible) {
    t.names.push_back(name);
    t.pattern.emplace_back();
    t.speed.push_back(0);
    t.log_scale.push_back(device.second);
    CoordinatesOf(device.first, device.second, cal, &t.pattern.back(), &t.speed.back());
    t.residual.emplace_back(t.models.size(), 0.0);
    t.has.emplace_back(t.models.size(), 0);
    for (size_t k = 0; k < t.models.size(); ++k) {
      auto it = device.first.find(t.models[k]);
      if (it == device.first.end()) continue;
      t.residual.back()[k] = it->second;
      t.has.back()[k] = 1;
    }
  }
  return t;
}

// Squared pattern distance of every device of `t` from `pattern`.
std::vector<double> PatternDistances(const Table& t, const std::vector<double>& pattern) {
  std::vector<double> out;
  for (const std::vector<double>& p : t.pattern) {
    double s = 0;
    for (size_t i = 0; i < p.size(); ++i) s += (p[i] - pattern[i]) * (p[i] - pattern[i]);
    out.push_back(s);
  }
  return out;
}

// Kernel weights of the devices (all but `skip`, which gets -1) for a
// device at squared pattern distances `d2` and speed `speed`, not
// normalized: exp(-(d2 + w^2 (speed_d - speed)^2) / h^2) (so a device far
// from every published one has weights near 0 and falls back to the
// population), 1 each for h = 0.
std::vector<double> Weights(const Table& t, const std::vector<double>& d2, double speed,
                            const NeighbourParams& params, size_t skip) {
  std::vector<double> w(t.names.size(), -1);
  for (size_t j = 0; j < w.size(); ++j) {
    if (j == skip) continue;
    const double ds = params.speed_weight * (t.speed[j] - speed);
    w[j] = params.bandwidth > 0
               ? std::exp(-(d2[j] + ds * ds) / (params.bandwidth * params.bandwidth))
               : 1.0;
  }
  return w;
}

// Per model k, the population offset of the devices but `skip`: the
// shrunk median of their residuals (what FitPrior makes it); NaN when
// none has the model.
std::vector<double> PopulationOffsets(const Table& t, size_t skip) {
  std::vector<double> out;
  for (size_t k = 0; k < t.models.size(); ++k) {
    std::vector<double> e;
    for (size_t j = 0; j < t.names.size(); ++j) {
      if (j != skip && t.has[j][k]) e.push_back(t.residual[j][k]);
    }
    out.push_back(e.empty() ? std::nan("") : ShrunkMedian(e));
  }
  return out;
}

// Per model k: (sum_d w_d e_dk + lambda * population_k) / (sum_d w_d +
// lambda) over the weighted devices (w >= 0) that have model k; NaN when
// none has it.
std::vector<double> WeightedOffsets(const Table& t, const std::vector<double>& w,
                                    const std::vector<double>& population, double lambda) {
  std::vector<double> out(t.models.size(), std::nan(""));
  for (size_t k = 0; k < t.models.size(); ++k) {
    double sum_we = 0, sum_w = 0;
    bool any = false;
    for (size_t j = 0; j < w.size(); ++j) {
      if (w[j] < 0 || !t.has[j][k]) continue;
      sum_we += w[j] * t.residual[j][k];
      sum_w += w[j];
      any = true;
    }
    const double total = sum_w + lambda;
    if (any && total > 0) out[k] = (sum_we + (lambda > 0 ? lambda * population[k] : 0)) / total;
  }
  return out;
}

// Device i's offsets from the other devices with `params`; `d2` its
// squared pattern distances, `population` the population offsets without
// it.
std::vector<double> OffsetsWithout(const Table& t, size_t i, const std::vector<double>& d2,
                                   const std::vector<double>& population,
                                   const NeighbourParams& params) {
  return WeightedOffsets(t, Weights(t, d2, t.speed[i], params, i), population,
                         params.population_weight);
}

// Squared log error of predicting every eligible device's non-calibration
// models from the other devices with `params` (the scale refitted to the
// calibration models: the error of model m is (o_m - e_m) minus its mean
// over the calibration models). `d2[i]` are device i's squared pattern
// distances, `population[i]` the population offsets without it.
double LeaveOneDeviceOutError(const Table& t, const std::vector<std::vector<double>>& d2,
                              const std::vector<std::vector<double>>& population,
                              const NeighbourParams& params) {
  double total = 0;
  for (size_t i = 0; i < t.names.size(); ++i) {
    const std::vector<double> o = OffsetsWithout(t, i, d2[i], population[i], params);
    double shift = 0;
    for (size_t k : t.calibration_index) shift += o[k] - t.residual[i][k];
    shift /= static_cast<double>(t.calibration_index.size());
    for (size_t k = 0; k < t.models.size(); ++k) {
      if (t.calibration[k] || !t.has[i][k] || std::isnan(o[k])) continue;
      const double err = (o[k] - t.residual[i][k]) - shift;
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

// The deviation scale (kDeviationScales) with the least squared log error
// over the eligible devices' non-calibration models, each device fitted by
// FitDevice to its calibration figures with its offsets from the other
// devices under `params` (see the header); 1 when no device can be scored.
// Only models with `published` costs take part; a device whose points every
// scale refuses is left out.
double ChooseDeviationScale(const Table& t, const std::vector<std::vector<double>>& d2,
                            const std::vector<std::vector<double>>& population,
                            const NeighbourParams& params, const HostCosts& published,
                            const v1::DeviceModelPrior& prior) {
  constexpr size_t kScales = std::size(kDeviationScales);
  const ClassVector mu = PriorLogRatios(prior);
  const v1::Cpu one_thread;  // single-thread points: no topology needed
  std::vector<double> total(kScales, 0);
  bool scored = false;
  for (size_t i = 0; i < t.names.size(); ++i) {
    const std::vector<double> o = OffsetsWithout(t, i, d2[i], population[i], params);
    HostCosts costs;
    std::map<std::string, double> figure;  // device i's published ms by model
    for (size_t k = 0; k < t.models.size(); ++k) {
      auto it = published.find(t.models[k]);
      if (!t.has[i][k] || std::isnan(o[k]) || it == published.end()) continue;
      DeviceFactors scale;
      for (int c = 0; c < kNumOpClasses; ++c) scale.log_factor[c] = mu[c] + t.log_scale[i];
      ModelCost cost(it->second.host_us);
      figure[t.models[k]] =
          std::exp(t.residual[i][k]) * PredictMs(scale, cost, one_thread, /*threads=*/1);
      cost.log_offset = o[k];
      costs[t.models[k]] = cost;
    }
    std::vector<FitPoint> points;
    for (size_t k : t.calibration_index) {
      if (figure.count(t.models[k])) points.push_back({t.models[k], 1, figure[t.models[k]]});
    }
    if (points.size() < t.calibration_index.size() || figure.size() == points.size()) continue;
    std::vector<double> error(kScales, 0);
    bool fitted = true;
    for (size_t s = 0; s < kScales && fitted; ++s) {
      absl::StatusOr<DeviceFactors> f =
          FitDeviceAtLeast(points, costs, prior, one_thread, 0, kDeviationScales[s]);
      fitted = f.ok();
      if (!fitted) break;
      for (size_t k = 0; k < t.models.size(); ++k) {
        auto ms = figure.find(t.models[k]);
        if (t.calibration[k] || ms == figure.end()) continue;
        const double e = std::log(PredictMs(*f, costs.at(t.models[k]), one_thread, 1) / ms->second);
        error[s] += e * e;
      }
    }
    if (!fitted) continue;
    for (size_t s = 0; s < kScales; ++s) total[s] += error[s];
    scored = true;
  }
  if (!scored) return 1;
  return kDeviationScales[std::min_element(total.begin(), total.end()) - total.begin()];
}

}  // namespace

std::optional<NeighbourOffsets> ComputeNeighbourOffsets(const std::vector<FitPoint>& points,
                                                        const HostCosts& costs,
                                                        const v1::DeviceModelPrior& prior,
                                                        const HostCosts& published) {
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
  const Table t = EligibleDevices(prior, cal);
  if (t.names.size() < 2) return std::nullopt;

  const size_t none = t.names.size();
  std::vector<std::vector<double>> d2, population;
  for (size_t i = 0; i < t.names.size(); ++i) {
    d2.push_back(PatternDistances(t, t.pattern[i]));
    population.push_back(PopulationOffsets(t, i));
  }
  NeighbourOffsets out;
  NeighbourParams chosen;
  double best = std::numeric_limits<double>::infinity();
  for (const NeighbourParams& params : Candidates()) {
    const double e = LeaveOneDeviceOutError(t, d2, population, params);
    if (e < best) best = e, chosen = params;
  }
  out.bandwidth = chosen.bandwidth;
  out.population_weight = chosen.population_weight;
  out.speed_weight = chosen.speed_weight;
  out.deviation_scale = ChooseDeviationScale(t, d2, population, chosen, published, prior);
  std::vector<double> pattern;
  double speed = 0;
  CoordinatesOf(own, 0, cal, &pattern, &speed);
  const std::vector<double> w = Weights(t, PatternDistances(t, pattern), speed, chosen, none);
  const std::vector<double> o =
      WeightedOffsets(t, w, PopulationOffsets(t, none), chosen.population_weight);
  for (size_t k = 0; k < t.models.size(); ++k) {
    if (!std::isnan(o[k])) out.log_offset[t.models[k]] = o[k];
  }
  double total = chosen.population_weight;
  for (double v : w) total += v;
  for (size_t j = 0; j < w.size(); ++j) out.weight[t.names[j]] = w[j] / total;
  out.population_share = chosen.population_weight / total;
  return out;
}

absl::StatusOr<DeviceFactors> FitDeviceAtLeast(const std::vector<FitPoint>& points,
                                               const HostCosts& costs,
                                               const v1::DeviceModelPrior& prior,
                                               const v1::Cpu& cpu, double default_parallel_fraction,
                                               double deviation_scale) {
  absl::StatusOr<DeviceFactors> fit =
      FitDevice(points, costs, prior, cpu, default_parallel_fraction, deviation_scale);
  for (double wider : kDeviationScales) {
    if (fit.ok() || fit.status().code() != absl::StatusCode::kInvalidArgument) break;
    if (wider > deviation_scale && wider <= 1) {
      fit = FitDevice(points, costs, prior, cpu, default_parallel_fraction, wider);
    }
  }
  return fit;
}

HostCosts PublishedCosts(const v1::HostProfile& profile) {
  HostCosts out;
  for (const v1::DeviceModelPrior::ModelOffset& offset : profile.prior().model_offsets()) {
    for (const v1::ModelHostProfile& m : profile.models()) {
      if (m.stack() == v1::STACK_EDGEFLEET && m.model() == offset.model() &&
          m.file_digest() == offset.file_digest() && out.count(m.model()) == 0) {
        out[m.model()] = ModelCostOf(m, profile.prior());
      }
    }
  }
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

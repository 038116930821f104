#include "service/device_time_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <utility>

#include "service/host_profiler.h"
#include "service/time_model.h"

namespace edgefleet {
namespace service {
namespace {

// Log-space tolerance the points are fitted to (residual scale).
constexpr double kPointSigma = 0.05;
// Prior deviation of a device from the population ratios without a prior.
constexpr double kDefaultPriorSigma = 0.5;
// Weak pull of the population ratios toward 0 (keeps the fit defined when
// two classes move together across every model).
constexpr double kPopulationSigma = 3.0;
// A fit that still misses a point by more than this factor is refused.
constexpr double kMaxFitMiss = 1.5;
// Two figures of one (model, threads) further apart than this contradict.
constexpr double kDuplicateTolerance = 1.10;
constexpr double kMaxParallelFraction = 0.999;
// Model offsets are the median of a model's residuals over the devices
// (robust to one device whose runtime treats the model very differently),
// shrunk toward 0 by n / (n + this) (one model seen on few devices gets a
// small offset).
constexpr double kOffsetShrinkDevices = 1.0;
// Bound of a serial-fraction offset (log): a model's serial fraction is
// within a factor e^3 of the device's.
constexpr double kMaxSerialOffset = 3.0;
constexpr int kOverhead = kNumOpClasses - 1;  // index of OP_CLASS_OVERHEAD in kOpClasses
static_assert(kOpClasses[kOverhead] == v1::OP_CLASS_OVERHEAD, "class order");

using Vector = std::vector<double>;
using ResidualFn = std::function<void(const Vector& x, Vector* r)>;

// Solves a * x = b (n x n, row-major) by Gaussian elimination with partial
// pivoting; false if singular.
bool Solve(std::vector<double> a, Vector b, size_t n, Vector* x) {
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r) {
      if (std::fabs(a[r * n + col]) > std::fabs(a[pivot * n + col])) pivot = r;
    }
    if (std::fabs(a[pivot * n + col]) < 1e-300) return false;
    if (pivot != col) {
      for (size_t k = 0; k < n; ++k) std::swap(a[col * n + k], a[pivot * n + k]);
      std::swap(b[col], b[pivot]);
    }
    for (size_t r = col + 1; r < n; ++r) {
      const double f = a[r * n + col] / a[col * n + col];
      for (size_t k = col; k < n; ++k) a[r * n + k] -= f * a[col * n + k];
      b[r] -= f * b[col];
    }
  }
  x->assign(n, 0);
  for (size_t i = n; i-- > 0;) {
    double s = b[i];
    for (size_t k = i + 1; k < n; ++k) s -= a[i * n + k] * (*x)[k];
    (*x)[i] = s / a[i * n + i];
  }
  return true;
}

double SumSquares(const Vector& r) {
  double s = 0;
  for (double v : r) s += v * v;
  return s;
}

// Levenberg-Marquardt with a forward-difference Jacobian; at most
// `iterations` steps (bounded work whatever the data).
Vector LeastSquares(const ResidualFn& f, Vector x, int iterations = 200) {
  Vector r;
  f(x, &r);
  double cost = SumSquares(r);
  double lambda = 1e-3;
  const size_t n = x.size();
  for (int it = 0; it < iterations; ++it) {
    const size_t m = r.size();
    std::vector<double> jac(m * n);
    for (size_t j = 0; j < n; ++j) {
      Vector xh = x;
      const double h = 1e-6 * std::max(1.0, std::fabs(x[j]));
      xh[j] += h;
      Vector rh;
      f(xh, &rh);
      for (size_t i = 0; i < m; ++i) jac[i * n + j] = (rh[i] - r[i]) / h;
    }
    std::vector<double> jtj(n * n, 0);
    Vector jtr(n, 0);
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        jtr[j] -= jac[i * n + j] * r[i];
        for (size_t k = 0; k < n; ++k) jtj[j * n + k] += jac[i * n + j] * jac[i * n + k];
      }
    }
    bool improved = false;
    for (int tries = 0; tries < 20 && !improved; ++tries) {
      std::vector<double> damped = jtj;
      for (size_t j = 0; j < n; ++j) damped[j * n + j] += lambda * (1.0 + jtj[j * n + j]);
      Vector step;
      if (!Solve(damped, jtr, n, &step)) {
        lambda *= 10;
        continue;
      }
      Vector xn = x;
      for (size_t j = 0; j < n; ++j) xn[j] += step[j];
      Vector rn;
      f(xn, &rn);
      const double cn = SumSquares(rn);
      if (std::isfinite(cn) && cn < cost) {
        // Converged: a nearly undamped step that no longer changes the cost.
        const bool converged = lambda <= 1e-6 && cost - cn < 1e-15 * (1 + cost);
        x = std::move(xn);
        r = std::move(rn);
        cost = cn;
        lambda = std::max(lambda / 10, 1e-12);
        improved = true;
        if (converged) return x;
      } else {
        lambda *= 10;
      }
    }
    if (!improved) break;
  }
  return x;
}

// Minimizes a unimodal-enough f over [lo, hi] by golden-section search.
double GoldenMin(const std::function<double(double)>& f, double lo, double hi) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi;
  double c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < 80; ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - g * (b - a), fc = f(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + g * (b - a), fd = f(d);
    }
  }
  return (a + b) / 2;
}

// The per-class model alone (no offsets), one thread.
double ClassSumMs(const ClassVector& theta, const ClassVector& host_us) {
  double us = 0;
  for (int c = 0; c < kNumOpClasses; ++c) us += std::exp(theta[c]) * host_us[c];
  return us / 1e3;
}

double SingleThreadMs(const ClassVector& theta, const ModelCost& cost) {
  return std::exp(cost.log_offset) * ClassSumMs(theta, cost.host_us);
}

// `costs` without offsets: what FitPrior fits the shared ratios to.
HostCosts WithoutOffsets(const HostCosts& costs) {
  HostCosts out = costs;
  for (auto& [model, cost] : out) cost.log_offset = cost.log_serial_offset = 0;
  return out;
}

v1::Cpu EqualCores(int cores) {
  v1::Cpu cpu;
  v1::CpuCluster* cluster = cpu.add_clusters();
  cluster->set_name("equal");
  cluster->set_cores(static_cast<uint32_t>(std::max(1, cores)));
  cluster->set_relative_speed(1.0);
  return cpu;
}

// The parallel fraction that best fits `multi` given single-thread factors.
double FitParallelFraction(const ClassVector& theta, const std::vector<FitPoint>& multi,
                           const HostCosts& costs, const v1::Cpu* cpu) {
  auto error = [&](double p) {
    DeviceFactors f;
    f.log_factor = theta;
    f.parallel_fraction = p;
    double e = 0;
    for (const FitPoint& point : multi) {
      const v1::Cpu topology = cpu != nullptr ? *cpu : EqualCores(point.threads);
      const double d =
          std::log(PredictMs(f, costs.at(point.model), topology, point.threads) / point.ms);
      e += d * d;
    }
    return e;
  };
  return GoldenMin(error, 0.0, kMaxParallelFraction);
}

std::string PointName(const FitPoint& p) { return p.model + "@" + std::to_string(p.threads); }

absl::Status CheckPoints(const std::vector<FitPoint>& points, const HostCosts& costs) {
  std::map<std::pair<std::string, int>, double> seen;
  for (const FitPoint& p : points) {
    if (p.threads < 1) {
      return absl::InvalidArgumentError("calibration point " + PointName(p) +
                                        ": threads must be >= 1");
    }
    if (!(p.ms > 0) || !std::isfinite(p.ms)) {
      return absl::InvalidArgumentError("calibration point " + PointName(p) +
                                        ": latency must be a positive number of ms");
    }
    if (costs.find(p.model) == costs.end()) {
      return absl::InvalidArgumentError("calibration point " + PointName(p) + ": model " + p.model +
                                        " has no host profile");
    }
    auto [it, inserted] = seen.emplace(std::make_pair(p.model, p.threads), p.ms);
    if (!inserted &&
        std::max(it->second, p.ms) > kDuplicateTolerance * std::min(it->second, p.ms)) {
      return absl::InvalidArgumentError("contradictory calibration points: " + PointName(p) +
                                        " is given as both " + std::to_string(it->second) +
                                        " ms and " + std::to_string(p.ms) + " ms");
    }
  }
  for (const FitPoint& p : points) {
    auto single = seen.find({p.model, 1});
    if (p.threads > 1 && single != seen.end() && p.ms > kDuplicateTolerance * single->second) {
      return absl::InvalidArgumentError("contradictory calibration points: " + PointName(p) +
                                        " = " + std::to_string(p.ms) + " ms is slower than " +
                                        p.model + "@1 = " + std::to_string(single->second) + " ms");
    }
  }
  return absl::OkStatus();
}

}  // namespace

double ShrunkMedian(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return median * static_cast<double>(n) / (static_cast<double>(n) + kOffsetShrinkDevices);
}

ModelCost ModelCostOf(const v1::ModelHostProfile& profile, const v1::DeviceModelPrior& prior) {
  ModelCost cost;
  for (int c = 0; c < kNumOpClasses; ++c) cost.host_us[c] = ClassHostUs(profile, kOpClasses[c]);
  cost.file_digest = profile.file_digest();
  for (const v1::DeviceModelPrior::ModelOffset& offset : prior.model_offsets()) {
    if (offset.model() == profile.model() && offset.file_digest() == profile.file_digest()) {
      cost.log_offset = offset.log_offset();
      cost.log_serial_offset = offset.log_serial_offset();
    }
  }
  return cost;
}

ClassVector PriorLogRatios(const v1::DeviceModelPrior& prior) {
  ClassVector mu{};
  for (const auto& ratio : prior.ratios()) {
    const int c = OpClassIndex(ratio.op_class());
    if (c >= 0) mu[c] = ratio.log_ratio();
  }
  return mu;
}

double PredictMs(const DeviceFactors& factors, const ModelCost& cost, const v1::Cpu& cpu,
                 int threads, double runtime_serial) {
  const double serial =
      std::min(1.0, (1 - factors.parallel_fraction) * std::exp(cost.log_serial_offset));
  const double parallel = (1 - serial) * (1 - std::clamp(runtime_serial, 0.0, 1.0));
  const double speedup = AmdahlSpeedup(cpu, parallel, threads);
  double us = 0;
  for (int c = 0; c < kNumOpClasses; ++c) {
    us += std::exp(factors.log_factor[c]) * cost.host_us[c] / (c == kOverhead ? 1.0 : speedup);
  }
  return std::exp(cost.log_offset) * us / 1e3;
}

absl::StatusOr<DeviceFactors> FitDevice(const std::vector<FitPoint>& points, const HostCosts& costs,
                                        const v1::DeviceModelPrior& prior, const v1::Cpu& cpu,
                                        double default_parallel_fraction, double deviation_scale) {
  if (absl::Status s = CheckPoints(points, costs); !s.ok()) return s;
  std::vector<FitPoint> single, multi;
  for (const FitPoint& p : points) (p.threads == 1 ? single : multi).push_back(p);
  if (single.empty()) {
    return absl::InvalidArgumentError(
        "too few calibration points: at least one single-thread (model@1=ms) point is needed");
  }
  const ClassVector mu = PriorLogRatios(prior);
  const double sigma = (prior.sigma() > 0 ? prior.sigma() : kDefaultPriorSigma) * deviation_scale;
  auto theta_of = [&](const Vector& x) {
    ClassVector theta{};
    for (int c = 0; c < kNumOpClasses; ++c) theta[c] = x[0] + mu[c] + x[1 + c];
    return theta;
  };
  // Start: the prior ratios with the scale that matches the points' mean.
  double log_gap = 0;
  for (const FitPoint& p : single) {
    log_gap += std::log(p.ms / SingleThreadMs(mu, costs.at(p.model)));
  }
  Vector x(1 + kNumOpClasses, 0);
  x[0] = log_gap / static_cast<double>(single.size());
  const ResidualFn residuals = [&](const Vector& v, Vector* r) {
    r->clear();
    const ClassVector theta = theta_of(v);
    for (const FitPoint& p : single) {
      r->push_back(std::log(SingleThreadMs(theta, costs.at(p.model)) / p.ms) / kPointSigma);
    }
    for (int c = 0; c < kNumOpClasses; ++c) r->push_back(v[1 + c] / sigma);
  };
  x = LeastSquares(residuals, x);

  DeviceFactors out;
  out.log_factor = theta_of(x);
  for (const FitPoint& p : single) {
    const double predicted = SingleThreadMs(out.log_factor, costs.at(p.model));
    if (std::max(predicted, p.ms) > kMaxFitMiss * std::min(predicted, p.ms)) {
      return absl::InvalidArgumentError(
          "contradictory calibration points: the best fit still puts " + PointName(p) + " at " +
          std::to_string(predicted) + " ms against the given " + std::to_string(p.ms) +
          " ms (more than a factor " + std::to_string(kMaxFitMiss) + " off)");
    }
  }
  out.parallel_fraction =
      multi.empty()
          ? (prior.parallel_fraction() > 0 ? prior.parallel_fraction() : default_parallel_fraction)
          : FitParallelFraction(out.log_factor, multi, costs, &cpu);
  double sum = 0;
  for (const FitPoint& p : points) {
    const double d = std::log(PredictMs(out, costs.at(p.model), cpu, p.threads) / p.ms);
    sum += d * d;
  }
  out.points = static_cast<int>(points.size());
  out.rms_log_error = std::sqrt(sum / static_cast<double>(points.size()));
  return out;
}

absl::StatusOr<v1::DeviceModelPrior> FitPrior(const std::vector<PublishedDevice>& devices,
                                              const HostCosts& given_costs) {
  const HostCosts costs = WithoutOffsets(given_costs);
  struct Device {
    const PublishedDevice* published;
    std::vector<FitPoint> single, multi;
  };
  std::vector<Device> used;
  for (const PublishedDevice& d : devices) {
    Device device{&d, {}, {}};
    for (const FitPoint& p : d.points) {
      if (costs.find(p.model) == costs.end()) {
        return absl::InvalidArgumentError("device " + d.name + ": model " + p.model +
                                          " has no host profile");
      }
      if (!(p.ms > 0) || p.threads < 1) {
        return absl::InvalidArgumentError("device " + d.name + ": bad point " + PointName(p));
      }
      (p.threads == 1 ? device.single : device.multi).push_back(p);
    }
    if (device.single.size() >= 2) used.push_back(std::move(device));
  }
  if (used.size() < 2) {
    return absl::InvalidArgumentError(
        "too few devices for a prior: need 2 with at least 2 single-thread points each");
  }
  // x = [mu_1 .. mu_4 (mu_0 = dense = 0), a_1 .. a_D].
  const size_t nd = used.size();
  auto theta_of = [&](const Vector& x, size_t d) {
    ClassVector theta{};
    for (int c = 0; c < kNumOpClasses; ++c)
      theta[c] = x[kNumOpClasses - 1 + d] + (c ? x[c - 1] : 0);
    return theta;
  };
  Vector x(kNumOpClasses - 1 + nd, 0);
  for (size_t d = 0; d < nd; ++d) {
    double gap = 0;
    for (const FitPoint& p : used[d].single) {
      gap += std::log(p.ms / SingleThreadMs(ClassVector{}, costs.at(p.model)));
    }
    x[kNumOpClasses - 1 + d] = gap / static_cast<double>(used[d].single.size());
  }
  const ResidualFn residuals = [&](const Vector& v, Vector* r) {
    r->clear();
    for (size_t d = 0; d < nd; ++d) {
      const ClassVector theta = theta_of(v, d);
      for (const FitPoint& p : used[d].single) {
        r->push_back(std::log(SingleThreadMs(theta, costs.at(p.model)) / p.ms) / kPointSigma);
      }
    }
    for (int c = 0; c < kNumOpClasses - 1; ++c) r->push_back(v[c] / kPopulationSigma);
  };
  x = LeastSquares(residuals, x, 400);

  v1::DeviceModelPrior prior;
  for (int c = 0; c < kNumOpClasses; ++c) {
    auto* ratio = prior.add_ratios();
    ratio->set_op_class(kOpClasses[c]);
    ratio->set_log_ratio(c ? x[c - 1] : 0.0);
  }
  double sum = 0;
  size_t n = 0;
  std::vector<double> fractions;
  // Per model: single-thread log residuals over the devices.
  std::map<std::string, Vector> residuals_of;
  std::vector<ClassVector> thetas(nd);
  for (size_t d = 0; d < nd; ++d) {
    thetas[d] = theta_of(x, d);
    v1::DeviceModelPrior::DeviceResiduals* device = prior.add_device_residuals();
    device->set_device(used[d].published->name);
    device->set_log_scale(x[kNumOpClasses - 1 + d]);
    for (const FitPoint& p : used[d].single) {
      const double e = std::log(p.ms / SingleThreadMs(thetas[d], costs.at(p.model)));
      sum += e * e;
      ++n;
      residuals_of[p.model].push_back(e);
      auto* residual = device->add_residuals();
      residual->set_model(p.model);
      residual->set_log_residual(e);
    }
    prior.add_fitted_on(used[d].published->name);
  }
  prior.set_points(static_cast<uint32_t>(n));
  prior.set_rms_log_error(std::sqrt(sum / static_cast<double>(n)));
  // A device's deviation from the shared ratios is of the order of what the
  // shared fit leaves unexplained.
  prior.set_sigma(std::max(0.1, prior.rms_log_error()));

  // Single-thread offsets, then the multi-thread ones given them: each
  // device's parallel fraction from all its multi-thread points, then per
  // point the serial offset that makes it exact.
  HostCosts with_offsets = costs;
  for (const auto& [model, r] : residuals_of) {
    with_offsets.at(model).log_offset = ShrunkMedian(r);
  }
  std::map<std::string, Vector> serial_of;
  for (size_t d = 0; d < nd; ++d) {
    if (used[d].multi.empty()) continue;
    DeviceFactors f;
    f.log_factor = thetas[d];
    f.parallel_fraction = FitParallelFraction(thetas[d], used[d].multi, with_offsets, nullptr);
    fractions.push_back(f.parallel_fraction);
    for (const FitPoint& p : used[d].multi) {
      ModelCost cost = with_offsets.at(p.model);
      const v1::Cpu cores = EqualCores(p.threads);
      const double s = GoldenMin(
          [&](double o) {
            cost.log_serial_offset = o;
            const double e = std::log(PredictMs(f, cost, cores, p.threads) / p.ms);
            return e * e;
          },
          -kMaxSerialOffset, kMaxSerialOffset);
      serial_of[p.model].push_back(s);
    }
  }
  if (!fractions.empty()) {
    std::sort(fractions.begin(), fractions.end());
    prior.set_parallel_fraction(fractions[fractions.size() / 2]);
  }
  for (const auto& [model, r] : residuals_of) {
    v1::DeviceModelPrior::ModelOffset* offset = prior.add_model_offsets();
    offset->set_model(model);
    offset->set_file_digest(costs.at(model).file_digest);
    offset->set_log_offset(with_offsets.at(model).log_offset);
    offset->set_devices(static_cast<uint32_t>(r.size()));
    auto serial = serial_of.find(model);
    if (serial != serial_of.end()) {
      offset->set_log_serial_offset(ShrunkMedian(serial->second));
      offset->set_multi_thread_devices(static_cast<uint32_t>(serial->second.size()));
    }
  }
  return prior;
}

}  // namespace service
}  // namespace edgefleet

#include "service/device_time_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "service/published_latencies.h"
#include "service/time_model.h"

namespace edgefleet {
namespace service {
namespace {

// Eight synthetic models with different class mixes (host us per class).
HostCosts SyntheticCosts() {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  HostCosts costs;
  for (int m = 0; m < 12; ++m) {
    // Host us per class (kOpClasses order): dense, dense 1x1, dense 3x3,
    // memory-bound, elementwise, data movement, overhead (operators x 1 us).
    const double scale[kNumOpClasses] = {20000, 20000, 20000, 8000, 4000, 2000, 1500};
    ClassVector v{};
    for (int c = 0; c < kNumOpClasses; ++c) v[c] = scale[c] * (0.1 + u(rng));
    costs["m" + std::to_string(m)] = v;
  }
  return costs;
}

v1::Cpu Cores(int big, int little, double little_speed) {
  v1::Cpu cpu;
  auto* b = cpu.add_clusters();
  b->set_cores(big);
  b->set_relative_speed(1.0);
  if (little > 0) {
    auto* l = cpu.add_clusters();
    l->set_cores(little);
    l->set_relative_speed(little_speed);
  }
  return cpu;
}

v1::DeviceModelPrior WeakPrior() {
  v1::DeviceModelPrior prior;
  prior.set_sigma(1e4);  // practically unconstrained
  return prior;
}

TEST(DeviceTimeFitTest, RecoversKnownFactorsFromSyntheticPoints) {
  const HostCosts costs = SyntheticCosts();
  DeviceFactors truth;
  truth.log_factor = {std::log(3.0), std::log(1.2), std::log(2.0), std::log(1.5),
                      std::log(0.8), std::log(2.2), std::log(4.0)};
  const v1::Cpu cpu = Cores(4, 0, 1);
  std::vector<FitPoint> points;
  for (const auto& [model, host] : costs) {
    points.push_back({model, 1, PredictMs(truth, host, cpu, 1)});
  }
  absl::StatusOr<DeviceFactors> fit = FitDevice(points, costs, WeakPrior(), cpu, 0.5);
  ASSERT_TRUE(fit.ok()) << fit.status();
  for (int c = 0; c < kNumOpClasses; ++c) {
    EXPECT_NEAR(fit->log_factor[c], truth.log_factor[c], 0.01) << "class " << c;
  }
  EXPECT_LT(fit->rms_log_error, 1e-3);
}

TEST(DeviceTimeFitTest, OnePointScalesThePriorExactly) {
  // With one point the fit moves only the scale: every model keeps the
  // prior's class ratios (here 0: all classes cost the same per host us).
  const HostCosts costs = SyntheticCosts();
  const v1::Cpu cpu = Cores(1, 0, 1);
  absl::StatusOr<DeviceFactors> fit =
      FitDevice({{"m0", 1, 10.0}}, costs, v1::DeviceModelPrior(), cpu, 0.5);
  ASSERT_TRUE(fit.ok()) << fit.status();
  double total0 = 0, total1 = 0;
  for (int c = 0; c < kNumOpClasses; ++c)
    total0 += costs.at("m0").host_us[c], total1 += costs.at("m1").host_us[c];
  EXPECT_NEAR(PredictMs(*fit, costs.at("m0"), cpu, 1), 10.0, 1e-6);
  EXPECT_NEAR(PredictMs(*fit, costs.at("m1"), cpu, 1), 10.0 * total1 / total0, 1e-5);
}

TEST(DeviceTimeFitTest, FitsTheParallelFractionToMultiThreadPoints) {
  const HostCosts costs = SyntheticCosts();
  const v1::Cpu cpu = Cores(2, 6, 0.4);  // big.LITTLE: 4 threads run at LITTLE pace
  DeviceFactors truth;
  for (double& f : truth.log_factor) f = std::log(2.0);
  truth.log_factor[kNumOpClasses - 1] = std::log(3.0);
  truth.parallel_fraction = 0.9;
  std::vector<FitPoint> points;
  for (const auto& [model, host] : costs) {
    points.push_back({model, 1, PredictMs(truth, host, cpu, 1)});
  }
  points.push_back({"m3", 4, PredictMs(truth, costs.at("m3"), cpu, 4)});
  absl::StatusOr<DeviceFactors> fit = FitDevice(points, costs, WeakPrior(), cpu, 0.5);
  ASSERT_TRUE(fit.ok()) << fit.status();
  EXPECT_NEAR(fit->parallel_fraction, 0.9, 1e-3);
  // Without multi-thread points the default is kept.
  points.pop_back();
  fit = FitDevice(points, costs, WeakPrior(), cpu, 0.5);
  ASSERT_TRUE(fit.ok());
  EXPECT_DOUBLE_EQ(fit->parallel_fraction, 0.5);
}

TEST(DeviceTimeFitTest, ThreadModelFollowsTopologyAndKeepsOverheadSerial) {
  const v1::Cpu cpu = Cores(2, 6, 0.4);
  // Hand-computed Amdahl: 2 threads on the 2 big cores, capacity 2;
  // 4 threads reach the LITTLE cores, capacity 4 x 0.4 = 1.6.
  EXPECT_NEAR(AmdahlSpeedup(cpu, 0.9, 2), 1 / (0.1 + 0.9 / 2), 1e-12);
  EXPECT_NEAR(AmdahlSpeedup(cpu, 0.9, 4), 1 / (0.1 + 0.9 / 1.6), 1e-12);
  EXPECT_LT(AmdahlSpeedup(cpu, 0.9, 4), AmdahlSpeedup(cpu, 0.9, 2));
  DeviceFactors f;  // all factors 1
  f.parallel_fraction = 0.9;
  ClassVector host{};
  host.fill(1000);
  host[kNumOpClasses - 1] = 500;  // overhead
  const double parallel = 1000.0 * (kNumOpClasses - 1);
  EXPECT_NEAR(PredictMs(f, host, cpu, 2), (parallel / (1 / (0.1 + 0.9 / 2)) + 500) / 1e3, 1e-9);
}

TEST(DeviceTimeFitTest, RuntimeSerialShareScalesTheParallelFraction) {
  const v1::Cpu cpu = Cores(4, 0, 0);
  DeviceFactors f;  // all factors 1
  f.parallel_fraction = 0.9;
  ClassVector host{};
  host[0] = 1000;  // dense only: no overhead
  // Hand-computed: p = 0.9 x (1 - 0.5) = 0.45 on 4 equal cores.
  EXPECT_NEAR(PredictMs(f, host, cpu, 4, 0.5), 1.0 * (0.55 + 0.45 / 4), 1e-12);
  // 0 changes nothing; a runtime that keeps everything on one thread gains
  // nothing from threads; out-of-range shares are clamped.
  EXPECT_EQ(PredictMs(f, host, cpu, 4, 0.0), PredictMs(f, host, cpu, 4));
  EXPECT_NEAR(PredictMs(f, host, cpu, 4, 1.0), PredictMs(f, host, cpu, 1), 1e-12);
  EXPECT_NEAR(PredictMs(f, host, cpu, 4, 7.0), PredictMs(f, host, cpu, 1), 1e-12);
  EXPECT_EQ(PredictMs(f, host, cpu, 4, -1.0), PredictMs(f, host, cpu, 4));
}

TEST(DeviceTimeFitTest, RefusesTooFewPoints) {
  const HostCosts costs = SyntheticCosts();
  const v1::Cpu cpu = Cores(4, 0, 1);
  absl::StatusOr<DeviceFactors> fit = FitDevice({}, costs, WeakPrior(), cpu, 0.5);
  EXPECT_EQ(fit.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(fit.status().message().find("too few calibration points"), std::string::npos);
  fit = FitDevice({{"m0", 4, 10}}, costs, WeakPrior(), cpu, 0.5);
  EXPECT_NE(fit.status().message().find("single-thread"), std::string::npos) << fit.status();
}

TEST(DeviceTimeFitTest, RefusesContradictoryOrBadPoints) {
  const HostCosts costs = SyntheticCosts();
  const v1::Cpu cpu = Cores(4, 0, 1);
  auto message = [&](const std::vector<FitPoint>& points) {
    absl::StatusOr<DeviceFactors> fit = FitDevice(points, costs, v1::DeviceModelPrior(), cpu, 0.5);
    EXPECT_EQ(fit.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(fit.status().message());
  };
  EXPECT_NE(message({{"m0", 1, 10}, {"m0", 1, 20}}).find("given as both"), std::string::npos);
  EXPECT_NE(message({{"m0", 1, 10}, {"m0", 4, 30}}).find("slower than m0@1"), std::string::npos);
  EXPECT_NE(message({{"nope", 1, 10}}).find("no host profile"), std::string::npos);
  EXPECT_NE(message({{"m0", 1, -1}}).find("positive"), std::string::npos);
  EXPECT_NE(message({{"m0", 1, NAN}}).find("positive"), std::string::npos);
  EXPECT_NE(message({{"m0", 0, 10}}).find("threads"), std::string::npos);
  // Two models with the same host costs cannot take latencies 5x apart.
  HostCosts twins = costs;
  twins["twin"] = costs.at("m0");
  absl::StatusOr<DeviceFactors> fit =
      FitDevice({{"m0", 1, 10}, {"twin", 1, 50}}, twins, v1::DeviceModelPrior(), cpu, 0.5);
  EXPECT_EQ(fit.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(fit.status().message().find("contradictory"), std::string::npos) << fit.status();
}

TEST(DeviceTimeFitTest, PriorRecoversSharedClassRatios) {
  const HostCosts costs = SyntheticCosts();
  const ClassVector mu = {
      0, std::log(0.7), std::log(1.3), std::log(0.5), std::log(1.8), std::log(3.0), std::log(6.0)};
  std::vector<PublishedDevice> devices;
  const v1::Cpu unused = Cores(1, 0, 1);
  for (int d = 0; d < 5; ++d) {
    DeviceFactors f;
    for (int c = 0; c < kNumOpClasses; ++c) f.log_factor[c] = mu[c] + 0.3 * d;
    PublishedDevice device{"d" + std::to_string(d), {}};
    for (const auto& [model, host] : costs) {
      device.points.push_back({model, 1, PredictMs(f, host, unused, 1)});
    }
    devices.push_back(device);
  }
  absl::StatusOr<v1::DeviceModelPrior> prior = FitPrior(devices, costs);
  ASSERT_TRUE(prior.ok()) << prior.status();
  const ClassVector fitted = PriorLogRatios(*prior);
  // Within 5 %: the weak pull of the population ratios toward 0 and the
  // near-collinearity of the classes over 12 models leave a small bias.
  for (int c = 0; c < kNumOpClasses; ++c) EXPECT_NEAR(fitted[c], mu[c], 0.05) << "class " << c;
  EXPECT_LT(prior->rms_log_error(), 1e-3);
  EXPECT_EQ(prior->fitted_on_size(), 5);
  // One device is too few.
  devices.resize(1);
  EXPECT_EQ(FitPrior(devices, costs).status().code(), absl::StatusCode::kInvalidArgument);
}

// Devices whose latencies follow the per-class model with shared ratios
// times a per-model factor the classes do not explain (exp(r_m)), and
// whose multi-thread figures have a per-model serial fraction.
std::vector<PublishedDevice> DevicesWithModelEffects(const HostCosts& costs, int count,
                                                     std::map<std::string, double>* r,
                                                     std::map<std::string, double>* s) {
  const ClassVector mu = {
      0, std::log(0.7), std::log(1.3), std::log(0.5), std::log(1.8), std::log(3.0), std::log(6.0)};
  std::mt19937_64 rng(11);
  std::normal_distribution<double> n(0.0, 1.0);
  for (const auto& [model, cost] : costs) (*r)[model] = 0.15 * n(rng), (*s)[model] = 0.5 * n(rng);
  std::vector<PublishedDevice> devices;
  const v1::Cpu unused = Cores(1, 0, 1);
  for (int d = 0; d < count; ++d) {
    DeviceFactors f;
    for (int c = 0; c < kNumOpClasses; ++c) f.log_factor[c] = mu[c] + 0.3 * d;
    f.parallel_fraction = 0.8 + 0.02 * d;
    PublishedDevice device{"d" + std::to_string(d), {}};
    for (const auto& [model, host] : costs) {
      ModelCost cost = host;
      cost.log_offset = (*r)[model];
      cost.log_serial_offset = (*s)[model];
      device.points.push_back({model, 1, PredictMs(f, cost, unused, 1)});
      device.points.push_back({model, 4, PredictMs(f, cost, Cores(4, 0, 1), 4)});
    }
    devices.push_back(device);
  }
  return devices;
}

TEST(DeviceTimeFitTest, ModelOffsetsTransferToAHeldOutDevice) {
  HostCosts costs = SyntheticCosts();
  std::map<std::string, double> r, s;
  std::vector<PublishedDevice> devices = DevicesWithModelEffects(costs, 7, &r, &s);
  const PublishedDevice held_out = devices.back();
  devices.pop_back();
  for (auto& [model, cost] : costs) cost.file_digest = "digest-" + model;
  absl::StatusOr<v1::DeviceModelPrior> prior = FitPrior(devices, costs);
  ASSERT_TRUE(prior.ok()) << prior.status();
  ASSERT_EQ(prior->model_offsets_size(), static_cast<int>(costs.size()));
  for (const auto& offset : prior->model_offsets()) {
    EXPECT_EQ(offset.file_digest(), "digest-" + offset.model());
    EXPECT_EQ(offset.devices(), 6u);
    EXPECT_EQ(offset.multi_thread_devices(), 6u);
  }
  // The held-out device, calibrated on three single-thread points and one
  // multi-thread point, with and without the offsets.
  // Worst error of the held-out device's single-thread (threads 1) or
  // multi-thread (threads 4) figures.
  auto worst_error = [&](const HostCosts& with, int threads) {
    std::vector<FitPoint> calibration;
    for (const FitPoint& p : held_out.points) {
      if ((p.threads == 1 && (p.model == "m0" || p.model == "m1" || p.model == "m2")) ||
          (p.threads == 4 && p.model == "m0")) {
        calibration.push_back(p);
      }
    }
    const v1::Cpu cpu = Cores(4, 0, 1);
    absl::StatusOr<DeviceFactors> fit = FitDevice(calibration, with, *prior, cpu, 0.5);
    EXPECT_TRUE(fit.ok()) << fit.status();
    double worst = 0;
    for (const FitPoint& p : held_out.points) {
      if (p.threads != threads) continue;
      const double e = std::fabs(PredictMs(*fit, with.at(p.model), cpu, p.threads) / p.ms - 1);
      worst = std::max(worst, e);
    }
    return worst;
  };
  HostCosts with_offsets, without = costs;
  for (const auto& [model, cost] : costs) {
    v1::ModelHostProfile profile;
    profile.set_model(model);
    profile.set_file_digest(cost.file_digest);
    for (int c = 0; c < kNumOpClasses; ++c) {
      auto* k = profile.add_classes();
      k->set_op_class(kOpClasses[c]);
      k->set_host_us(cost.host_us[c]);
    }
    with_offsets[model] = ModelCostOf(profile, *prior);
    // Another file under the same name gets no offsets.
    profile.set_file_digest("other");
    EXPECT_EQ(ModelCostOf(profile, *prior).log_offset, 0);
  }
  // Single thread: the offsets, shrunk by 6/7 and learned next to a shared
  // fit that absorbs part of them, leave a few percent; without them the
  // per-model effects (sd 15 %) stay.
  EXPECT_LT(worst_error(with_offsets, 1), 0.03);
  EXPECT_GT(worst_error(without, 1), 3 * worst_error(with_offsets, 1));
  // Multi-thread: the serial offsets also absorb how the shared fit split
  // each model between the (serial) overhead class and the rest, so they
  // help less, but they help.
  EXPECT_LT(worst_error(with_offsets, 4), worst_error(without, 4));
}

TEST(PublishedLatenciesTest, SplitsQuotedCsvFields) {
  absl::StatusOr<std::vector<std::string>> f =
      SplitCsvLine("OnePlus 7T,\"Snapdragon 855+ (Kryo485, A76-class)\",squeezenet,1,\"a\"\"b\"");
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->size(), 5u);
  EXPECT_EQ((*f)[1], "Snapdragon 855+ (Kryo485, A76-class)");
  EXPECT_EQ((*f)[4], "a\"b");
  EXPECT_FALSE(SplitCsvLine("a,\"open").ok());
}

}  // namespace
}  // namespace service
}  // namespace edgefleet

#include "service/device_time_fit.h"

#include <gtest/gtest.h>

#include <cmath>
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
  for (int c = 0; c < kNumOpClasses; ++c) total0 += costs.at("m0")[c], total1 += costs.at("m1")[c];
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
  const ClassVector mu = {0,           std::log(0.7), std::log(1.3), std::log(0.5),
                          std::log(1.8), std::log(3.0), std::log(6.0)};
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

#include "service/neighbour_offsets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace edgefleet {
namespace service {
namespace {

// Six models, dense class only: under a prior with zero ratios a model's
// per-class time is its host time.
HostCosts Costs() {
  HostCosts costs;
  for (int m = 0; m < 6; ++m) {
    ClassVector host{};
    host[0] = 1000.0 * (m + 1);
    ModelCost cost(host);
    cost.file_digest = "digest" + std::to_string(m);
    costs["m" + std::to_string(m)] = cost;
  }
  return costs;
}

// Two families of published devices whose residuals on every model have
// opposite signs (group a: +pattern, group b: -pattern), with a small
// per-device perturbation.
const double kPattern[6] = {0.20, -0.15, 0.0, 0.30, -0.25, 0.10};

// Adds published device `name` with residuals `e` on m0, m1, ... and
// fitted scale `log_scale`.
void AddDevice(v1::DeviceModelPrior* prior, const std::string& name, const std::vector<double>& e,
               double log_scale = 0) {
  auto* device = prior->add_device_residuals();
  device->set_device(name);
  device->set_log_scale(log_scale);
  for (size_t m = 0; m < e.size(); ++m) {
    auto* r = device->add_residuals();
    r->set_model("m" + std::to_string(m));
    r->set_log_residual(e[m]);
  }
}

v1::DeviceModelPrior TwoFamilies() {
  v1::DeviceModelPrior prior;
  for (int d = 0; d < 8; ++d) {
    const double sign = d < 4 ? 1 : -1;
    std::vector<double> e;
    for (int m = 0; m < 6; ++m) e.push_back(sign * kPattern[m] + 0.01 * ((d * 7 + m * 3) % 5 - 2));
    AddDevice(&prior, (d < 4 ? "a" : "b") + std::to_string(d), e);
  }
  for (int m = 0; m < 6; ++m) {
    auto* offset = prior.add_model_offsets();
    offset->set_model("m" + std::to_string(m));
    offset->set_file_digest("digest" + std::to_string(m));
  }
  return prior;
}

// Calibration points of a device of family `sign` with scale `scale`.
std::vector<FitPoint> Points(double sign, double scale) {
  std::vector<FitPoint> points;
  for (int m = 0; m < 3; ++m) {
    points.push_back({"m" + std::to_string(m), 1, scale * (m + 1) * std::exp(sign * kPattern[m])});
  }
  return points;
}

TEST(NeighbourOffsetsTest, ANewDeviceTakesTheOffsetsOfItsFamily) {
  for (double sign : {1.0, -1.0}) {
    std::optional<NeighbourOffsets> n =
        ComputeNeighbourOffsets(Points(sign, 1), Costs(), TwoFamilies(), Costs());
    ASSERT_TRUE(n.has_value());
    // The bandwidth chosen without the new device separates the families.
    EXPECT_GT(n->bandwidth, 0);
    double family = 0;
    for (const auto& [device, w] : n->weight) family += (device[0] == (sign > 0 ? 'a' : 'b')) * w;
    EXPECT_GT(family, 0.99);
    // Models not calibrated get their family's residuals (+-0.02 noise).
    for (int m = 3; m < 6; ++m) {
      EXPECT_NEAR(n->log_offset.at("m" + std::to_string(m)), sign * kPattern[m], 0.021) << m;
    }
  }
}

// Calibration points with residuals `r` on m0..m2 (scale 1).
std::vector<FitPoint> PointsWith(const double (&r)[3]) {
  std::vector<FitPoint> points;
  for (int m = 0; m < 3; ++m)
    points.push_back({"m" + std::to_string(m), 1, (m + 1) * std::exp(r[m])});
  return points;
}

TEST(NeighbourOffsetsTest, ADeviceUnlikeEveryPublishedOneTakesThePopulationOffsets) {
  // The two families, plus three loners: calibration patterns far from the
  // families and from each other, and residuals on the other models that
  // no other device shares. A device of a family still takes its family's
  // residuals; a device unlike every published one takes the population's
  // (the shrunk median over the devices), not the residuals of the least
  // far one (a loner).
  v1::DeviceModelPrior prior = TwoFamilies();
  AddDevice(&prior, "loner0", {0.8, -0.8, 0.0, 0.05, 0.04, -0.06});
  AddDevice(&prior, "loner1", {-0.8, 0.0, 0.8, -0.04, 0.06, 0.05});
  AddDevice(&prior, "loner2", {0.0, 0.8, -0.8, 0.06, -0.05, 0.04});
  std::map<std::string, std::vector<double>> of_model;
  for (const auto& device : prior.device_residuals()) {
    for (const auto& r : device.residuals()) of_model[r.model()].push_back(r.log_residual());
  }

  std::optional<NeighbourOffsets> family =
      ComputeNeighbourOffsets(Points(1, 2), Costs(), prior, Costs());
  ASSERT_TRUE(family.has_value());
  for (int m = 3; m < 6; ++m) {
    EXPECT_NEAR(family->log_offset.at("m" + std::to_string(m)), kPattern[m], 0.03) << m;
  }

  const double unlike[3] = {0.9, 0.0, -0.9};
  std::optional<NeighbourOffsets> n =
      ComputeNeighbourOffsets(PointsWith(unlike), Costs(), prior, Costs());
  ASSERT_TRUE(n.has_value());
  EXPECT_GT(n->population_share, 0.95);
  for (int m = 3; m < 6; ++m) {
    const std::string model = "m" + std::to_string(m);
    EXPECT_NEAR(n->log_offset.at(model), ShrunkMedian(of_model[model]), 0.01) << m;
  }
}

TEST(NeighbourOffsetsTest, TheSpeedSeparatesFamiliesOfOneCalibrationPattern) {
  // Two families with the same residuals on the calibration models m0..m2
  // and opposite ones on m3..m5, told apart only by their speed: family a
  // runs at scale 1 (log 0), family b 8 times slower (log_scale log 8).
  // The speed weight chosen without the new device is not 0, and a new
  // device takes the offsets of the family of its own speed.
  v1::DeviceModelPrior prior;
  for (int d = 0; d < 8; ++d) {
    const double sign = d < 4 ? 1 : -1;
    std::vector<double> e;
    for (int m = 0; m < 6; ++m) {
      e.push_back((m < 3 ? 1 : sign) * kPattern[m] + 0.01 * ((d * 7 + m * 3) % 5 - 2));
    }
    AddDevice(&prior, (d < 4 ? "a" : "b") + std::to_string(d), e, d < 4 ? 0 : std::log(8.0));
  }
  for (double sign : {1.0, -1.0}) {
    // Points(1, scale): the shared calibration pattern at that scale.
    std::optional<NeighbourOffsets> n =
        ComputeNeighbourOffsets(Points(1, sign > 0 ? 1 : 8), Costs(), prior, Costs());
    ASSERT_TRUE(n.has_value());
    EXPECT_GT(n->speed_weight, 0);
    for (int m = 3; m < 6; ++m) {
      EXPECT_NEAR(n->log_offset.at("m" + std::to_string(m)), sign * kPattern[m], 0.03) << m;
    }
  }
}

TEST(NeighbourOffsetsTest, EqualWeightsWhenTheDevicesShareOnePattern) {
  // Every published device has the same residuals: they are equally near
  // any new device, whatever the bandwidth, and the offsets are the common
  // residuals even for a device of the opposite pattern.
  v1::DeviceModelPrior prior;
  for (int d = 0; d < 4; ++d) {
    AddDevice(&prior, "d" + std::to_string(d), std::vector<double>(kPattern, kPattern + 6));
  }
  std::optional<NeighbourOffsets> n =
      ComputeNeighbourOffsets(Points(-1, 1), Costs(), prior, Costs());
  ASSERT_TRUE(n.has_value());
  for (int m = 0; m < 6; ++m)
    EXPECT_NEAR(n->log_offset.at("m" + std::to_string(m)), kPattern[m], 1e-12);
  for (const auto& [device, w] : n->weight) EXPECT_NEAR(w, 0.25, 1e-12) << device;
}

TEST(NeighbourOffsetsTest, DoNotApplyWithoutAPattern) {
  const HostCosts costs = Costs();
  // One calibration model: nothing to compare devices by.
  EXPECT_FALSE(ComputeNeighbourOffsets({{"m0", 1, 2.0}}, costs, TwoFamilies(), costs).has_value());
  // Multi-thread points are not patterns of the single-thread residuals.
  EXPECT_FALSE(
      ComputeNeighbourOffsets({{"m0", 1, 2.0}, {"m1", 4, 1.0}}, costs, TwoFamilies(), costs)
          .has_value());
  // A prior without device residuals (written before they were kept).
  EXPECT_FALSE(
      ComputeNeighbourOffsets(Points(1, 1), costs, v1::DeviceModelPrior(), costs).has_value());
  // Calibration models no published device has.
  HostCosts extra = costs;
  extra["x"] = extra["m0"];
  extra["y"] = extra["m1"];
  EXPECT_FALSE(ComputeNeighbourOffsets({{"x", 1, 2.0}, {"y", 1, 3.0}}, extra, TwoFamilies(), costs)
                   .has_value());
}

// Six models over two classes (dense and 1x1), m0 mostly 1x1, m5 mostly
// dense: a device's deviation on one class moves the models unequally.
HostCosts MixedCosts() {
  HostCosts costs;
  for (int m = 0; m < 6; ++m) {
    ClassVector host{};
    host[0] = 1000.0 * (m + 1);
    host[1] = 1000.0 * (6 - m);
    costs["m" + std::to_string(m)] = ModelCost(host);
  }
  return costs;
}

// Twelve published devices under zero population ratios and sigma 0.1.
// With `class_deviation`, device d runs the 1x1 class exp(delta_d) times
// the dense one (|delta_d| up to 0.6 = 6 sigma, no two alike) and has no
// other residual; without, its residuals are small model-by-model noise
// (+-0.05) with no class structure.
v1::DeviceModelPrior MixedDevices(bool class_deviation) {
  const HostCosts costs = MixedCosts();
  v1::DeviceModelPrior prior;
  prior.set_sigma(0.1);
  for (int d = 0; d < 12; ++d) {
    const double delta = 0.6 * ((d * 5) % 12 - 5.5) / 5.5;
    std::vector<double> e;
    for (int m = 0; m < 6; ++m) {
      const ClassVector& host = costs.at("m" + std::to_string(m)).host_us;
      e.push_back(class_deviation
                      ? std::log((host[0] + std::exp(delta) * host[1]) / (host[0] + host[1]))
                      : 0.05 * ((d * 7 + m * 3) % 5 - 2) / 2);
    }
    AddDevice(&prior, "d" + std::to_string(d), e);
  }
  return prior;
}

TEST(NeighbourOffsetsTest, TheDeviationScaleFollowsHowFarDevicesDeviateByClass) {
  // Chosen by fitting each published device to its calibration models
  // (m0..m2) and predicting its others: devices that differ by a class
  // factor need a wide penalty (their deviations are 6 prior sigmas), devices
  // whose residuals are noise without class structure a narrow one (a wide
  // one moves the class factors to fit the calibration points' noise).
  const HostCosts costs = MixedCosts();
  std::optional<NeighbourOffsets> wide =
      ComputeNeighbourOffsets(PointsWith({0.1, 0.0, -0.1}), costs, MixedDevices(true), costs);
  ASSERT_TRUE(wide.has_value());
  EXPECT_GE(wide->deviation_scale, 2);
  std::optional<NeighbourOffsets> narrow =
      ComputeNeighbourOffsets(PointsWith({0.1, 0.0, -0.1}), costs, MixedDevices(false), costs);
  ASSERT_TRUE(narrow.has_value());
  EXPECT_LE(narrow->deviation_scale, 0.25);
  // Without the published programs' costs nothing can be scored: the
  // prior's width.
  std::optional<NeighbourOffsets> unscored =
      ComputeNeighbourOffsets(PointsWith({0.1, 0.0, -0.1}), costs, MixedDevices(true), {});
  ASSERT_TRUE(unscored.has_value());
  EXPECT_EQ(unscored->deviation_scale, 1);
}

TEST(NeighbourOffsetsTest, ANarrowScaleThatRefusesThePointsGivesWayToAWiderOne) {
  // A device running the 1x1 class e^1.5 times the dense one: m0 (mostly
  // 1x1) and m5 (mostly dense) are 2.7 times apart where the population
  // ratios put them equal. The narrowest penalty lets only the scale move
  // and misses both points by more than the factor 1.5 FitDevice allows;
  // FitDeviceAtLeast fits them with a wider one, and not past the prior's
  // own width.
  const HostCosts costs = MixedCosts();
  v1::DeviceModelPrior prior;
  prior.set_sigma(0.1);
  std::vector<FitPoint> points;
  for (int m : {0, 5}) {
    const ClassVector& host = costs.at("m" + std::to_string(m)).host_us;
    points.push_back({"m" + std::to_string(m), 1, (host[0] + std::exp(1.5) * host[1]) / 1e3});
  }
  const v1::Cpu cpu;
  EXPECT_FALSE(FitDevice(points, costs, prior, cpu, 0, kDeviationScales[0]).ok());
  absl::StatusOr<DeviceFactors> fit =
      FitDeviceAtLeast(points, costs, prior, cpu, 0, kDeviationScales[0]);
  ASSERT_TRUE(fit.ok()) << fit.status();
  EXPECT_LT(fit->rms_log_error, std::log(1.5));
  EXPECT_GT(fit->log_factor[1] - fit->log_factor[0], 0.1);  // the 1x1 class moved
  // Points no width up to the prior's fits stay refused.
  points[0].ms *= 20;
  EXPECT_FALSE(FitDeviceAtLeast(points, costs, prior, cpu, 0, kDeviationScales[0]).ok());
}

TEST(NeighbourOffsetsTest, OffsetsApplyOnlyToTheProgramsTheyWereLearnedWith) {
  HostCosts costs = Costs();
  costs["m4"].file_digest = "another program";
  costs["m4"].log_offset = 0.5;
  NeighbourOffsets n;
  for (int m = 0; m < 6; ++m) n.log_offset["m" + std::to_string(m)] = -0.1 * m;
  const HostCosts out = WithNeighbourOffsets(costs, n, TwoFamilies());
  EXPECT_DOUBLE_EQ(out.at("m3").log_offset, -0.3);
  EXPECT_DOUBLE_EQ(out.at("m4").log_offset, 0.5);  // its own, not the published program's
  EXPECT_DOUBLE_EQ(out.at("m5").log_offset, -0.5);
}

}  // namespace
}  // namespace service
}  // namespace edgefleet

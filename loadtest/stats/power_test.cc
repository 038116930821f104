#include "loadtest/stats/power.h"

#include <cmath>
#include <fstream>
#include <stdexcept>

#include "gtest/gtest.h"
#include "loadtest/stats/distributions.h"
#include "loadtest/stats/proportion.h"
#include "loadtest/stats/random.h"
#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {
namespace {

nlohmann::json SampleSizes() {
  std::ifstream in(EF_STRATIFIED_REFERENCE);
  if (!in) throw std::runtime_error("cannot open " EF_STRATIFIED_REFERENCE);
  return nlohmann::json::parse(in)["sample_sizes"];
}

TEST(PowerTest, QuantileSampleSizeMatchesScipyClosedForm) {
  for (const auto& r : SampleSizes()["quantile"]) {
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(UnitsPerArmForQuantileChange(r["alpha"], r["power"], r["unit_variance"], r["effect"]),
              r["units_per_arm"].get<int64_t>());
  }
}

TEST(PowerTest, RateSampleSizeMatchesScipyClosedForm) {
  for (const auto& r : SampleSizes()["rate"]) {
    SCOPED_TRACE(r.dump());
    EXPECT_EQ(SessionsForRateBelowCeiling(r["alpha"], r["power"], r["rate"], r["ceiling"]),
              r["sessions"].get<int64_t>());
  }
  EXPECT_EQ(SessionsForRateBelowCeiling(0.05, 0.8, 0.005, 0.0047), -1);
}

// The quantile formula's power, simulated: log-normal units, median of n
// units per arm at the planned n, a 1.96-sigma test with the known SE of
// the median (sqrt(pi/2) sigma / sqrt(n)) detects a +5 % shift ~80 %.
TEST(PowerTest, PlannedSizeGivesNominalPowerInSimulation) {
  const double sigma = 0.3;
  const double s2 = M_PI / 2 * sigma * sigma;  // n Var(log median)
  const int64_t n = UnitsPerArmForQuantileChange(0.05, 0.8, s2, 0.05);
  Xoshiro256 rng(9);
  int detected = 0;
  const int runs = 400;
  std::vector<double> a(n), b(n);
  for (int r = 0; r < runs; ++r) {
    for (int64_t i = 0; i < n; ++i) {
      a[i] = sigma * rng.NextNormal();
      b[i] = std::log(1.05) + sigma * rng.NextNormal();
    }
    std::nth_element(a.begin(), a.begin() + n / 2, a.end());
    std::nth_element(b.begin(), b.begin() + n / 2, b.end());
    const double se = std::sqrt(2 * s2 / n);
    detected += (b[n / 2] - a[n / 2]) / se > NormalQuantile(0.975);
  }
  EXPECT_NEAR(detected / static_cast<double>(runs), 0.8, 0.07);
}

TEST(PowerTest, UnitVarianceRoundTripsThroughTheInterval) {
  const double s2 = 0.2, n = 500;
  const double h = NormalQuantile(0.975) * std::sqrt(2 * s2 / n);
  EXPECT_NEAR(UnitVarianceFromInterval(std::expm1(-h), std::expm1(h), n, 0.95), s2, 1e-12);
}

TEST(PowerTest, UnitsToDecideByHand) {
  // Estimate +1 %, log half-width 0.05 at 400 units, threshold +5 %: the gap
  // is log(1.05) - log(1.01) = 0.038839, so n = 400 (0.05 / 0.038839)^2.
  EXPECT_EQ(UnitsToDecide(0.01, 0.05, 400, 0.05),
            static_cast<int64_t>(std::ceil(400 * std::pow(0.05 / std::log(1.05 / 1.01), 2))));
  EXPECT_EQ(UnitsToDecide(0.05, 0.05, 400, 0.05), -1);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

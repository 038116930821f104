#include "loadtest/stats/cuped.h"

#include <cmath>
#include <fstream>
#include <stdexcept>

#include "gtest/gtest.h"
#include "loadtest/stats/random.h"
#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {
namespace {

const nlohmann::json& CupedReference() {
  static const nlohmann::json* const data = [] {
    std::ifstream in(EF_CUPED_REFERENCE);
    if (!in) throw std::runtime_error("cannot open " EF_CUPED_REFERENCE);
    return new nlohmann::json(nlohmann::json::parse(in));
  }();
  return *data;
}

void ExpectSame(const MeanDifference& got, const nlohmann::json& want, const char* what) {
  const double scale = std::max(1e-12, want["std_error"].get<double>());
  EXPECT_NEAR(got.estimate, want["estimate"].get<double>(), 1e-9 * scale + 1e-12) << what;
  EXPECT_NEAR(got.std_error, want["std_error"].get<double>(), 1e-9 * scale) << what;
  EXPECT_NEAR(got.lower, want["lower"].get<double>(), 1e-8 * scale + 1e-12) << what;
  EXPECT_NEAR(got.upper, want["upper"].get<double>(), 1e-8 * scale + 1e-12) << what;
}

// Every case of cuped_reference.json (numpy least-squares slopes, cluster
// variances by the delta method from numpy covariances of cluster totals and
// sizes, scipy normal quantile; units of their own and in clusters of up to
// 4): the same theta, estimates, standard errors, intervals and variance
// ratio.
TEST(CupedTest, MatchesNumpyReference) {
  const auto& cases = CupedReference()["cases"];
  ASSERT_GE(cases.size(), 9u);
  for (const auto& c : cases) {
    std::vector<CovariateUnit> units;
    for (const auto& u : c["units"]) {
      units.push_back({u["stratum"].get<uint32_t>(), u["arm_b"].get<bool>(), u["y"].get<double>(),
                       u["x"].get<double>(), u["cluster"].get<uint32_t>()});
    }
    const std::vector<double> weights = c["weights"].get<std::vector<double>>();
    const CupedComparison got = CupedCompare(units, weights, c["confidence"].get<double>());
    ASSERT_TRUE(got.valid) << got.note;
    const auto& want = c["expected"];
    ASSERT_EQ(got.theta.size(), want["theta"].size());
    for (size_t s = 0; s < got.theta.size(); ++s) {
      EXPECT_NEAR(got.theta[s], want["theta"][s].get<double>(), 1e-9) << "stratum " << s;
    }
    ExpectSame(got.unadjusted, want["unadjusted"], "unadjusted");
    ExpectSame(got.adjusted, want["adjusted"], "adjusted");
    EXPECT_NEAR(got.variance_ratio, want["variance_ratio"].get<double>(), 1e-9);
  }
}

TEST(CupedTest, TooFewDevicesIsInvalidWithANote) {
  const std::vector<CovariateUnit> units = {
      {0, false, 1.0, 0.1, 0}, {0, false, 2.0, 0.2, 1}, {0, true, 1.5, 0.3, 0}};
  const CupedComparison got = CupedCompare(units, {1.0}, 0.95);
  EXPECT_FALSE(got.valid);
  EXPECT_NE(got.note.find("arm B"), std::string::npos) << got.note;
  // Two sessions of one device are one cluster: still too few.
  std::vector<CovariateUnit> one_device = units;
  one_device.push_back({0, true, 2.5, 0.1, 0});
  EXPECT_FALSE(CupedCompare(one_device, {1.0}, 0.95).valid);
  // A stratum of weight 0 is ignored, however few its units.
  std::vector<CovariateUnit> more = {{0, false, 1.0, 0.1, 0},
                                     {0, false, 2.0, 0.2, 1},
                                     {0, true, 1.5, 0.3, 0},
                                     {0, true, 2.5, 0.1, 1},
                                     {1, true, 9.0, 0.0, 0}};
  EXPECT_TRUE(CupedCompare(more, {1.0, 0.0}, 0.95).valid);
}

// Simulated hashed A/A experiments with a covariate of correlation rho in
// two strata: the adjusted intervals keep their coverage, and the variance
// falls to about 1 - rho^2 of the unadjusted one, as theory says.
TEST(CupedTest, AaCoverageAndVarianceReduction) {
  constexpr int kRuns = 400;
  constexpr int kUnitsPerArm = 60;
  const double rho = 0.8;
  Xoshiro256 rng(MixSeed(20261126, 7));
  int covered = 0, covered_unadjusted = 0;
  double ratio_sum = 0, sq_adj = 0, sq_unadj = 0;
  for (int run = 0; run < kRuns; ++run) {
    std::vector<CovariateUnit> units;
    for (uint32_t s = 0; s < 2; ++s) {
      for (int arm = 0; arm < 2; ++arm) {
        for (int i = 0; i < kUnitsPerArm; ++i) {
          const double x = rng.NextNormal();
          const double y = 10.0 * s + rho * x + std::sqrt(1 - rho * rho) * rng.NextNormal();
          units.push_back({s, arm == 1, y, x, static_cast<uint32_t>(i)});
        }
      }
    }
    const CupedComparison c = CupedCompare(units, {0.7, 0.3}, 0.95);
    ASSERT_TRUE(c.valid);
    covered += c.adjusted.lower <= 0 && c.adjusted.upper >= 0;
    covered_unadjusted += c.unadjusted.lower <= 0 && c.unadjusted.upper >= 0;
    ratio_sum += c.variance_ratio;
    sq_adj += c.adjusted.estimate * c.adjusted.estimate;
    sq_unadj += c.unadjusted.estimate * c.unadjusted.estimate;
  }
  // 95 % of 400: SD 4.4 runs; allow 3.5 SD below, and no gross over-cover.
  EXPECT_GE(covered, 365);
  EXPECT_LE(covered, 395);
  EXPECT_GE(covered_unadjusted, 365);
  // Reported ratio and the realized ratio of the estimates' spread.
  EXPECT_NEAR(ratio_sum / kRuns, 1 - rho * rho, 0.04);
  EXPECT_NEAR(sq_adj / sq_unadj, 1 - rho * rho, 0.12);
}

// A real effect moves the adjusted estimate like the unadjusted one (no
// bias from the adjustment), with a narrower interval.
TEST(CupedTest, EffectIsUnbiasedAndNarrower) {
  Xoshiro256 rng(MixSeed(20261126, 8));
  std::vector<CovariateUnit> units;
  for (int arm = 0; arm < 2; ++arm) {
    for (int i = 0; i < 4000; ++i) {
      const double x = rng.NextNormal();
      units.push_back({0, arm == 1, 0.9 * x + 0.3 * rng.NextNormal() + (arm ? 0.05 : 0.0), x,
                       static_cast<uint32_t>(i)});
    }
  }
  const CupedComparison c = CupedCompare(units, {1.0}, 0.95);
  ASSERT_TRUE(c.valid);
  EXPECT_NEAR(c.adjusted.estimate, 0.05, 3 * c.adjusted.std_error);
  EXPECT_LT(c.adjusted.upper - c.adjusted.lower, 0.5 * (c.unadjusted.upper - c.unadjusted.lower));
  EXPECT_NEAR(c.theta[0], 0.9, 0.02);
}

// Hashed A/A experiments with 4 sessions per device: a device's sessions
// share a level the covariate explains only in part (rho 0.8), so they are
// correlated (intra-device correlation ~0.6 after adjustment). With the
// devices as clusters the adjusted intervals keep their coverage; with
// every session its own cluster (the variance of independent sessions)
// they are too narrow by the design effect 1 + 3 * 0.6 and cover ~75 %.
TEST(CupedTest, DeviceClustersKeepCoverageWithSeveralSessionsPerDevice) {
  constexpr int kRuns = 400;
  constexpr int kDevicesPerArm = 40;
  constexpr int kSessions = 4;
  const double rho = 0.8;
  Xoshiro256 rng(MixSeed(20261126, 9));
  int covered = 0, covered_as_sessions = 0;
  for (int run = 0; run < kRuns; ++run) {
    std::vector<CovariateUnit> clustered, sessions;
    for (int arm = 0; arm < 2; ++arm) {
      for (uint32_t d = 0; d < kDevicesPerArm; ++d) {
        const double x = rng.NextNormal();
        const double level = rho * x + std::sqrt(1 - rho * rho) * rng.NextNormal();
        for (int k = 0; k < kSessions; ++k) {
          const double y = level + 0.5 * rng.NextNormal();
          clustered.push_back({0, arm == 1, y, x, d});
          sessions.push_back({0, arm == 1, y, x, d * kSessions + k});
        }
      }
    }
    const CupedComparison c = CupedCompare(clustered, {1.0}, 0.95);
    const CupedComparison s = CupedCompare(sessions, {1.0}, 0.95);
    ASSERT_TRUE(c.valid && s.valid);
    // Same estimate either way: clusters change only the variance.
    EXPECT_DOUBLE_EQ(c.adjusted.estimate, s.adjusted.estimate);
    covered += c.adjusted.lower <= 0 && c.adjusted.upper >= 0;
    covered_as_sessions += s.adjusted.lower <= 0 && s.adjusted.upper >= 0;
  }
  // 95 % of 400: SD 4.4 runs; 40 clusters per arm undercover a little.
  EXPECT_GE(covered, 360);
  EXPECT_LE(covered, 395);
  EXPECT_LE(covered_as_sessions, 330);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

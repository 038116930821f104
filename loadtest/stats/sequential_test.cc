#include "loadtest/stats/sequential.h"

#include <cmath>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "gtest/gtest.h"
#include "loadtest/stats/distributions.h"
#include "loadtest/stats/random.h"
#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {
namespace {

std::vector<double> EqualFractions(int looks) {
  std::vector<double> t;
  for (int k = 1; k <= looks; ++k) t.push_back(static_cast<double>(k) / looks);
  return t;
}

// Monitors a two-arm experiment of normal observations at `looks` equally
// spaced looks, with a z-interval for the difference of means at look k's
// critical value bounds[k], and stops at the first look whose interval
// excludes 0. Returns the share of runs that ever excluded 0 and the mean
// stopping look.
struct Monitoring {
  double rejected = 0;
  double mean_stop = 0;
};
Monitoring Monitor(int runs, int per_look_n, const std::vector<double>& bounds, double effect,
                   uint64_t seed) {
  const int looks = static_cast<int>(bounds.size());
  int rejected = 0;
  double stops = 0;
  for (int r = 0; r < runs; ++r) {
    Xoshiro256 rng(MixSeed(seed, r));
    double sum_a = 0, sum_b = 0;
    int stop = looks;
    for (int k = 1; k <= looks; ++k) {
      for (int i = 0; i < per_look_n; ++i) {
        sum_a += rng.NextNormal();
        sum_b += effect + rng.NextNormal();
      }
      const double n = static_cast<double>(k) * per_look_n;
      const double diff = sum_b / n - sum_a / n;
      if (std::fabs(diff) > bounds[k - 1] * std::sqrt(2 / n)) {
        ++rejected;
        stop = k;
        break;
      }
    }
    stops += stop;
  }
  return {rejected / static_cast<double>(runs), stops / runs};
}

TEST(SequentialTest, NaivePeekingInflatesTheFalsePositiveRate) {
  const Monitoring naive = Monitor(4000, 40, std::vector<double>(5, NormalQuantile(0.975)), 0, 1);
  EXPECT_GT(naive.rejected, 0.10);  // ~14 % at five looks.
}

// The classic constant-boundary designs, found from ExitProbabilities by
// bisection, against the published constants (Jennison & Turnbull 2000,
// "Group Sequential Methods", Tables 2.1 and 2.3, two-sided alpha = 0.05,
// equal group sizes): Pocock c_k = C_P; O'Brien & Fleming c_k = C_B sqrt(K/k).
TEST(SequentialTest, ExitProbabilitiesGiveThePublishedClassicBoundaries) {
  const double pocock[] = {2.178, 2.289, 2.361, 2.413};
  const double obrien_fleming[] = {1.977, 2.004, 2.024, 2.040};
  for (int looks = 2; looks <= 5; ++looks) {
    SCOPED_TRACE(looks);
    const std::vector<double> t = EqualFractions(looks);
    for (bool obf : {false, true}) {
      double lo = 1.5, hi = 3.5;
      for (int it = 0; it < 50; ++it) {
        const double mid = 0.5 * (lo + hi);
        std::vector<double> bounds;
        for (int k = 1; k <= looks; ++k) {
          bounds.push_back(obf ? mid * std::sqrt(static_cast<double>(looks) / k) : mid);
        }
        const std::vector<double> exits = ExitProbabilities(t, bounds);
        (std::accumulate(exits.begin(), exits.end(), 0.0) > 0.05 ? lo : hi) = mid;
      }
      EXPECT_NEAR(0.5 * (lo + hi), obf ? obrien_fleming[looks - 2] : pocock[looks - 2], 0.0015);
    }
  }
}

TEST(SequentialTest, SpendingBoundaryMatchesScipy) {
  std::ifstream in(EF_SEQUENTIAL_REFERENCE);
  if (!in) throw std::runtime_error("cannot open " EF_SEQUENTIAL_REFERENCE);
  const nlohmann::json ref = nlohmann::json::parse(in);
  ASSERT_GE(ref["cases"].size(), 10u);
  for (const nlohmann::json& c : ref["cases"]) {
    Spending spending;
    ASSERT_TRUE(ParseSpending(c["spending"].get<std::string>(), &spending));
    const auto fractions = c["fractions"].get<std::vector<double>>();
    const auto expected = c["bounds"].get<std::vector<double>>();
    const double alpha = c["alpha"].get<double>();
    SCOPED_TRACE(c.dump());
    const std::vector<double> bounds = SpendingBoundary(spending, alpha, fractions);
    ASSERT_EQ(bounds.size(), expected.size());
    for (size_t k = 0; k < bounds.size(); ++k) {
      EXPECT_NEAR(bounds[k], expected[k], 2e-3) << "look " << k + 1;
    }
    // The error spent at the last look is all of alpha.
    const std::vector<double> exits = ExitProbabilities(fractions, bounds);
    EXPECT_NEAR(std::accumulate(exits.begin(), exits.end(), 0.0), alpha, 1e-6 + 1e-4 * alpha);
  }
}

TEST(SequentialTest, SpendingHoldsTheRateUnderMonitoring) {
  // 20 000 runs: the binomial SD at 5 % is 0.154 %; the rule is exact for
  // normal increments, so the rate must be within 3 SD of 5 % both ways.
  for (Spending spending : {Spending::kObrienFleming, Spending::kPocock}) {
    for (int looks : {5, 20}) {
      SCOPED_TRACE(std::string(SpendingName(spending)) + " " + std::to_string(looks));
      const std::vector<double> bounds = SpendingBoundary(spending, 0.05, EqualFractions(looks));
      const Monitoring m = Monitor(20000, 200 / looks, bounds, 0, 2);
      EXPECT_NEAR(m.rejected, 0.05, 3 * std::sqrt(0.05 * 0.95 / 20000));
    }
  }
}

TEST(SequentialTest, RealEffectStopsEarly) {
  // A clear effect (0.5 SD, 200 observations per arm in 5 looks) is found,
  // earlier with Pocock's spending than with O'Brien-Fleming's.
  const std::vector<double> t = EqualFractions(5);
  const Monitoring pocock = Monitor(1000, 40, SpendingBoundary(Spending::kPocock, 0.05, t), 0.5, 3);
  const Monitoring obf =
      Monitor(1000, 40, SpendingBoundary(Spending::kObrienFleming, 0.05, t), 0.5, 3);
  EXPECT_GT(pocock.rejected, 0.95);
  EXPECT_GT(obf.rejected, 0.95);
  EXPECT_LT(pocock.mean_stop, 2.5);
  EXPECT_LT(pocock.mean_stop, obf.mean_stop);
}

TEST(SequentialTest, LookConfidence) {
  // One look spends everything at once: the fixed-size confidence.
  for (Spending s : {Spending::kObrienFleming, Spending::kPocock}) {
    EXPECT_NEAR(LookConfidence(s, 0.95, {1.0}, 1), 0.95, 1e-9);
  }
  // O'Brien-Fleming: very strict first look, close to 95 % at the last.
  const std::vector<double> t = EqualFractions(3);
  // c_1 = z_0.975 sqrt(3) = 3.395: alpha(1/3) = 2 - 2 Phi(c_1) is all spent.
  EXPECT_NEAR(LookConfidence(Spending::kObrienFleming, 0.95, t, 1),
              1 - 2 * NormalSurvival(NormalQuantile(0.975) * std::sqrt(3.0)), 1e-9);
  const double last = LookConfidence(Spending::kObrienFleming, 0.95, t, 3);
  EXPECT_GT(last, 0.95);
  EXPECT_LT(last, 0.96);
  // A look far too early for its alpha is capped at kMaxBound.
  EXPECT_NEAR(LookConfidence(Spending::kObrienFleming, 0.95, {0.01, 1.0}, 1),
              1 - 2 * NormalSurvival(kMaxBound), 1e-15);
  Spending parsed;
  EXPECT_FALSE(ParseSpending("bonferroni", &parsed));
}

TEST(SequentialTest, LookGroupsAreBalanced) {
  int counts[4] = {0, 0, 0, 0};
  for (uint64_t d = 0; d < 40000; ++d) ++counts[LookOfDevice(7, d, 4)];
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
  EXPECT_EQ(LookOfDevice(7, 123, 1), 0);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

#include "loadtest/stats/verdict.h"

#include <limits>

#include "gtest/gtest.h"

namespace edgefleet {
namespace loadtest {
namespace {

// Clearance interval [lower, upper]; the claim interval is 1.5x as wide.
QuantileEvidence Evidence(double p, double lower, double upper, bool enough = true) {
  const double mid = (lower + upper) / 2, half = (upper - lower) / 2;
  return QuantileEvidence{p, lower, upper, mid - 1.5 * half, mid + 1.5 * half, enough};
}

TEST(VerdictTest, QuantileRule) {
  const double theta = 0.05;
  EXPECT_EQ(DecideQuantileVerdict({Evidence(0.5, 0.09, 0.13), Evidence(0.9, -0.01, 0.03)}, theta),
            Verdict::kRegression);
  EXPECT_EQ(DecideQuantileVerdict({Evidence(0.5, 0.01, 0.04), Evidence(0.9, -0.02, 0.04)}, theta),
            Verdict::kNeutral);
  // A clearance CI reaching past +θ cannot rule out a regression.
  EXPECT_EQ(DecideQuantileVerdict({Evidence(0.5, -0.1, 0.07)}, theta), Verdict::kInconclusive);
  EXPECT_EQ(DecideQuantileVerdict({Evidence(0.5, -0.2, -0.10), Evidence(0.9, -0.03, 0.01)}, theta),
            Verdict::kImprovement);
  // Improvement at p50 does not excuse an open question at p90.
  EXPECT_EQ(DecideQuantileVerdict({Evidence(0.5, -0.2, -0.10), Evidence(0.9, -0.03, 0.09)}, theta),
            Verdict::kInconclusive);
}

TEST(VerdictTest, ClaimsNeedTheWiderInterval) {
  // Clearance [5.5 %, 8 %] is above θ, but the claim interval [4.9 %, 8.6 %]
  // is not: no regression claim, and not cleared either.
  EXPECT_EQ(DecideQuantileVerdict({Evidence(0.5, 0.055, 0.08)}, 0.05), Verdict::kInconclusive);
  // Same for an improvement: cleared, but the claim is not made.
  EXPECT_EQ(DecideQuantileVerdict({Evidence(0.5, -0.08, -0.055)}, 0.05), Verdict::kNeutral);
}

TEST(VerdictTest, MissingEvidenceIsInconclusive) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(DecideQuantileVerdict({Evidence(0.9, -0.01, 0.01, false)}, 0.05),
            Verdict::kInconclusive);
  EXPECT_EQ(DecideQuantileVerdict({Evidence(0.9, nan, nan)}, 0.05), Verdict::kInconclusive);
  // ...but a clear regression elsewhere still wins.
  EXPECT_EQ(DecideQuantileVerdict({Evidence(0.5, 0.2, 0.3), Evidence(0.9, nan, nan)}, 0.05),
            Verdict::kRegression);
}

TEST(VerdictTest, RatesAndGuardrails) {
  EXPECT_EQ(DecideRateVerdict({0.03, 0.015, 0.05}, {0.03, 0.011, 0.06}, 0.01),
            Verdict::kRegression);
  EXPECT_EQ(DecideRateVerdict({0.0, -0.004, 0.004}, {0.0, -0.006, 0.006}, 0.005),
            Verdict::kNeutral);
  EXPECT_EQ(GuardrailVerdict(GuardrailStatus::kBreach), Verdict::kRegression);
  EXPECT_EQ(GuardrailVerdict(GuardrailStatus::kPass), Verdict::kNeutral);
}

TEST(VerdictTest, Bonferroni) {
  EXPECT_DOUBLE_EQ(BonferroniConfidence(0.95, 1), 0.95);
  EXPECT_DOUBLE_EQ(BonferroniConfidence(0.95, 50), 0.999);
  // 95 % -> 99.9 %: z goes from 1.960 to 3.291, each side scaled by 1.679.
  const auto [lo, hi] = RescaleInterval(0.10, 0.08, 0.11, 0.95, 0.999);
  EXPECT_NEAR(lo, 0.10 - 0.02 * 1.67907, 1e-5);
  EXPECT_NEAR(hi, 0.10 + 0.01 * 1.67907, 1e-5);
}

TEST(VerdictTest, SeverityOrder) {
  EXPECT_EQ(WorseVerdict(Verdict::kImprovement, Verdict::kNeutral), Verdict::kImprovement);
  EXPECT_EQ(WorseVerdict(Verdict::kInconclusive, Verdict::kImprovement), Verdict::kInconclusive);
  EXPECT_EQ(WorseVerdict(Verdict::kInconclusive, Verdict::kRegression), Verdict::kRegression);
  EXPECT_STREQ(VerdictName(Verdict::kRegression), "regression");
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

#include "loadtest/report/plan.h"

#include <algorithm>
#include <cmath>

#include "gtest/gtest.h"
#include "loadtest/stats/power.h"
#include "loadtest/testing/synthetic_fleet.h"

namespace edgefleet {
namespace loadtest {
namespace {

PlanOptions Options(const ResultSet& pilot) {
  PlanOptions o;
  o.class_shares = pilot.info().class_shares;
  o.replicates = 600;
  o.threads = 2;
  o.comparisons = 88;
  return o;
}

// The planner applies the closed form to the pilot's variance, and the
// pilot's per-session variance does not depend on the pilot's size (the
// 1/n scaling the plan relies on): a 4x larger pilot gives about the same.
TEST(PlanTest, ClosedFormOnAStablePerSessionVariance) {
  SyntheticFleetOptions small;
  small.devices = 800;
  small.seed = 21;
  SyntheticFleetOptions large = small;
  large.devices = 3200;
  large.seed = 22;
  const ResultSet ps = GenerateSyntheticFleet(small);
  const ResultSet pl = GenerateSyntheticFleet(large);
  const Plan a = PlanExperiment(Aggregate(ps), Options(ps));
  const Plan b = PlanExperiment(Aggregate(pl), Options(pl));
  ASSERT_EQ(a.scopes.size(), b.scopes.size());
  for (size_t i = 0; i < a.scopes.size(); ++i) {
    const ScopePlan& x = a.scopes[i];
    SCOPED_TRACE(x.name);
    // A variance from one 95 % interval is itself noisy (about ±25 % at 200
    // sessions per arm): compare the fleet and the large classes only.
    if (x.pilot_units < 200) continue;
    ASSERT_TRUE(std::isfinite(x.unit_variance));
    EXPECT_NEAR(b.scopes[i].unit_variance / x.unit_variance, 1.0, 0.35);
    EXPECT_EQ(x.clear_sessions, std::max<int64_t>(30, UnitsPerArmForQuantileChange(
                                                          0.05, 0.8, x.unit_variance, 0.05)));
    EXPECT_FALSE(x.detect_is_claim);  // X = θ = 5 %: significance only.
    EXPECT_EQ(x.detect_sessions, x.clear_sessions);
    // Hashed 50/50, one session per device: devices = 2 n / share.
    if (x.name != "overall") {
      EXPECT_EQ(x.clear_devices, static_cast<int64_t>(std::ceil(x.clear_sessions / 0.5 / x.share)));
    }
  }
}

TEST(PlanTest, LargerEffectIsAClaimAndNeedsFewerSessions) {
  SyntheticFleetOptions pilot;
  pilot.devices = 800;
  const ResultSet ps = GenerateSyntheticFleet(pilot);
  PlanOptions o = Options(ps);
  o.effect = 0.15;
  const Plan p = PlanExperiment(Aggregate(ps), o);
  const ScopePlan& overall = p.scopes.front();
  EXPECT_TRUE(overall.detect_is_claim);
  EXPECT_EQ(
      overall.detect_sessions,
      std::max<int64_t>(30, UnitsPerArmForQuantileChange(1 - p.claim_confidence, 0.8,
                                                         overall.unit_variance, 1.15 / 1.05 - 1)));
  EXPECT_NE(RenderPlan(p).find("| overall |"), std::string::npos);
  // ANR: the guardrail plan uses the pilot's rate of B.
  EXPECT_EQ(overall.anr_sessions,
            SessionsForRateBelowCeiling(0.05, 0.8, overall.anr_rate_b, 0.0047));
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

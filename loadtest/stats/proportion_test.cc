#include "loadtest/stats/proportion.h"

#include "gtest/gtest.h"
#include "loadtest/stats/testdata/reference_data.h"

namespace edgefleet {
namespace loadtest {
namespace {

TEST(ProportionTest, WilsonMatchesScipyBinomtest) {
  for (const auto& c : Reference()["wilson"]) {
    const RateInterval r = WilsonInterval(c["events"], c["trials"], c["confidence"]);
    EXPECT_NEAR(r.lower, c["lower"].get<double>(), 1e-12) << c.dump();
    EXPECT_NEAR(r.upper, c["upper"].get<double>(), 1e-12) << c.dump();
  }
}

TEST(ProportionTest, NewcombeMatchesReference) {
  for (const auto& c : Reference()["newcombe"]) {
    const RateInterval a = WilsonInterval(c["a"][0], c["a"][1], 0.95);
    const RateInterval b = WilsonInterval(c["b"][0], c["b"][1], 0.95);
    const RateDifference d = NewcombeDifference(a, b);
    EXPECT_NEAR(d.diff, c["diff"].get<double>(), 1e-15);
    EXPECT_NEAR(d.lower, c["lower"].get<double>(), 1e-12) << c.dump();
    EXPECT_NEAR(d.upper, c["upper"].get<double>(), 1e-12) << c.dump();
  }
}

TEST(ProportionTest, EmptyRateKnowsNothing) {
  const RateInterval r = WilsonInterval(0, 0, 0.95);
  EXPECT_EQ(r.lower, 0.0);
  EXPECT_EQ(r.upper, 1.0);
  EXPECT_EQ(CheckGuardrail(r, r, 0.08), GuardrailStatus::kInconclusive);
}

GuardrailStatus Check(int64_t events, int64_t trials, double ceiling) {
  return CheckGuardrail(WilsonInterval(events, trials, 0.95), WilsonInterval(events, trials, 0.999),
                        ceiling);
}

TEST(ProportionTest, GuardrailThreeWays) {
  // 0 ANRs in 2000 sessions: upper bound ~0.19 % < 0.47 %.
  EXPECT_EQ(Check(0, 2000, 0.0047), GuardrailStatus::kPass);
  // 0 in 200: upper ~1.9 %, cannot show < 0.47 %.
  EXPECT_EQ(Check(0, 200, 0.0047), GuardrailStatus::kInconclusive);
  // 40 in 200 = 20 %: lower ~13 % > 8 % even at 99.9 %.
  EXPECT_EQ(Check(40, 200, 0.08), GuardrailStatus::kBreach);
  // 26 in 200 = 13 %: above 8 % at 95 % (lower ~9 %) but not at 99.9 %.
  EXPECT_GT(WilsonInterval(26, 200, 0.95).lower, 0.08);
  EXPECT_EQ(Check(26, 200, 0.08), GuardrailStatus::kInconclusive);
  EXPECT_STREQ(GuardrailStatusName(GuardrailStatus::kBreach), "breach");
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

#include "loadtest/stats/bootstrap.h"

#include <cmath>

#include "gtest/gtest.h"
#include "loadtest/stats/quantile.h"
#include "loadtest/stats/random.h"
#include "loadtest/stats/testdata/reference_data.h"

namespace edgefleet {
namespace loadtest {
namespace {

ClusteredSample MakeSample(const nlohmann::json& values, const nlohmann::json& units) {
  ClusteredSample s;
  for (size_t i = 0; i < values.size(); ++i) {
    s.Add(values[i].get<double>(), units[i].get<uint32_t>());
  }
  s.Sort();
  return s;
}

// Devices with a persistent speed factor, several observations each: the
// within-unit correlation a per-observation bootstrap would miss.
void AddDevices(uint64_t seed, int units, double scale, ClusteredSample* a, ClusteredSample* b,
                bool paired) {
  Xoshiro256 rng(seed);
  for (int u = 0; u < units; ++u) {
    const double device_a = std::exp(0.3 * rng.NextNormal());
    const double device_b = paired ? device_a : std::exp(0.3 * rng.NextNormal());
    for (int k = 0; k < 5; ++k) {
      a->Add(10000 * device_a * std::exp(0.2 * rng.NextNormal()), u);
      b->Add(10000 * scale * device_b * std::exp(0.2 * rng.NextNormal()), u);
    }
  }
  a->Sort();
  b->Sort();
}

TEST(BootstrapTest, MatchesNumpyClusterBootstrapWithinMonteCarloError) {
  for (const auto& c : Reference()["cluster_bootstrap"]) {
    const bool paired = c["paired"];
    SCOPED_TRACE(paired ? "paired" : "unpaired");
    const ClusteredSample a = MakeSample(c["a"], c["a_units"]);
    const ClusteredSample b = MakeSample(c["b"], c["b_units"]);
    const uint32_t units = c["units"];
    BootstrapOptions options;
    options.replicates = 4000;
    options.paired = paired;
    options.seed = 99;
    options.threads = 2;
    const auto got = CompareQuantiles(a, units, b, units, {0.5, 0.9}, options);
    ASSERT_EQ(got.size(), 2u);
    for (size_t j = 0; j < got.size(); ++j) {
      const auto& want = c["quantiles"][j];
      const double width = want["diff_upper"].get<double>() - want["diff_lower"].get<double>();
      EXPECT_NEAR(got[j].diff_lower, want["diff_lower"].get<double>(), 0.1 * width);
      EXPECT_NEAR(got[j].diff_upper, want["diff_upper"].get<double>(), 0.1 * width);
      const double rel_width = want["rel_upper"].get<double>() - want["rel_lower"].get<double>();
      EXPECT_NEAR(got[j].rel_lower, want["rel_lower"].get<double>(), 0.1 * rel_width);
      EXPECT_NEAR(got[j].rel_upper, want["rel_upper"].get<double>(), 0.1 * rel_width);
      EXPECT_EQ(got[j].a, NearestRank(a.values(), got[j].p));
      EXPECT_EQ(got[j].b, NearestRank(b.values(), got[j].p));
      EXPECT_EQ(got[j].replicates, 4000);
    }
  }
}

TEST(BootstrapTest, DeterministicAndIndependentOfThreadCount) {
  ClusteredSample a, b;
  AddDevices(/*seed=*/3, /*units=*/200, /*scale=*/1.1, &a, &b, /*paired=*/true);
  BootstrapOptions options;
  options.replicates = 500;
  options.seed = 1234;
  options.threads = 1;
  const auto one = CompareQuantiles(a, 200, b, 200, {0.5, 0.9, 0.99}, options);
  options.threads = 3;
  const auto three = CompareQuantiles(a, 200, b, 200, {0.5, 0.9, 0.99}, options);
  ASSERT_EQ(one.size(), three.size());
  for (size_t j = 0; j < one.size(); ++j) {
    EXPECT_EQ(one[j].diff_lower, three[j].diff_lower);
    EXPECT_EQ(one[j].diff_upper, three[j].diff_upper);
    EXPECT_EQ(one[j].rel_lower, three[j].rel_lower);
    EXPECT_EQ(one[j].rel_upper, three[j].rel_upper);
  }
  options.seed = 1235;
  const auto other = CompareQuantiles(a, 200, b, 200, {0.5}, options);
  EXPECT_NE(other[0].diff_lower, one[0].diff_lower);
}

TEST(BootstrapTest, PairingNarrowsTheIntervalOnCorrelatedData) {
  ClusteredSample a, b;
  AddDevices(5, 300, 1.05, &a, &b, /*paired=*/true);
  BootstrapOptions options;
  options.replicates = 1000;
  options.paired = true;
  const auto paired = CompareQuantiles(a, 300, b, 300, {0.5}, options);
  options.paired = false;
  const auto unpaired = CompareQuantiles(a, 300, b, 300, {0.5}, options);
  EXPECT_LT(paired[0].rel_upper - paired[0].rel_lower,
            0.7 * (unpaired[0].rel_upper - unpaired[0].rel_lower));
  EXPECT_GT(paired[0].rel_lower, 0.0);  // A 5 % shift is found.
}

TEST(BootstrapTest, CoversZeroInAaRepetitions) {
  int covered = 0;
  const int runs = 100;
  for (int run = 0; run < runs; ++run) {
    ClusteredSample a, b;
    AddDevices(1000 + run, 100, 1.0, &a, &b, /*paired=*/false);
    BootstrapOptions options;
    options.replicates = 400;
    options.paired = false;
    options.seed = run;
    const auto c = CompareQuantiles(a, 100, b, 100, {0.9}, options);
    covered += c[0].diff_lower <= 0 && 0 <= c[0].diff_upper;
  }
  // Nominal 95 %: P(Binomial(100, 0.95) < 88) < 0.5 %.
  EXPECT_GE(covered, 88);
}

TEST(BootstrapTest, SortIsATotalOrderAndCanBeRepeated) {
  ClusteredSample s;
  s.Add(3, 1);
  s.Add(1, 7);
  s.Add(3, 0);
  s.Sort();
  s.Add(2, 4);
  s.Sort();
  EXPECT_EQ(s.values(), (std::vector<double>{1, 2, 3, 3}));
  EXPECT_EQ(s.units(), (std::vector<uint32_t>{7, 4, 0, 1}));
}

TEST(BootstrapTest, UnitOnlyInOneArmIsHandled) {
  ClusteredSample a, b;
  for (uint32_t u = 0; u < 50; ++u) a.Add(100 + u, u);
  for (uint32_t u = 10; u < 50; ++u) b.Add(110 + u, u);  // 0..9 missing in B.
  a.Sort();
  b.Sort();
  BootstrapOptions options;
  options.replicates = 200;
  const auto c = CompareQuantiles(a, 50, b, 50, {0.5}, options);
  EXPECT_EQ(c[0].replicates, 200);
  EXPECT_EQ(c[0].a, 124);
  EXPECT_EQ(c[0].b, 139);
  EXPECT_LE(c[0].diff_lower, c[0].diff);
  EXPECT_GE(c[0].diff_upper, c[0].diff);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

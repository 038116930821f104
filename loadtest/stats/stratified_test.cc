#include "loadtest/stats/stratified.h"

#include <cmath>
#include <fstream>
#include <stdexcept>

#include "gtest/gtest.h"
#include "loadtest/stats/random.h"
#include "nlohmann/json.hpp"

namespace edgefleet {
namespace loadtest {
namespace {

const nlohmann::json& StratifiedReference() {
  static const nlohmann::json* const data = [] {
    std::ifstream in(EF_STRATIFIED_REFERENCE);
    if (!in) throw std::runtime_error("cannot open " EF_STRATIFIED_REFERENCE);
    return new nlohmann::json(nlohmann::json::parse(in));
  }();
  return *data;
}

ClusteredSample FromJson(const nlohmann::json& stratum) {
  ClusteredSample s;
  const auto& values = stratum["values"];
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t unit =
        stratum.contains("units") ? stratum["units"][i].get<uint32_t>() : static_cast<uint32_t>(i);
    s.Add(values[i].get<double>(), unit);
  }
  s.Sort();
  return s;
}

TEST(StratifiedTest, MixtureQuantileMatchesNumpyMixtureCdf) {
  for (const auto& c : StratifiedReference()["empirical"]) {
    std::vector<ClusteredSample> samples;
    for (const auto& s : c["strata"]) samples.push_back(FromJson(s));
    std::vector<const ClusteredSample*> ptrs;
    for (const auto& s : samples) ptrs.push_back(&s);
    const std::vector<double> weights = c["weights"];
    for (const auto& row : c["quantiles"]) {
      SCOPED_TRACE("strata " + std::to_string(samples.size()) + " p " + row["p"].dump());
      const double p = row["p"];
      EXPECT_EQ(MixtureQuantile(ptrs, weights, p, 0), row["quantile"].get<double>());
      const double smoothed = row["smoothed"];
      EXPECT_NEAR(MixtureQuantile(ptrs, weights, p, kFleetQuantileBandwidth), smoothed,
                  1e-9 * smoothed);
    }
  }
}

// Six lognormal classes of 4000 draws each: the estimate matches numpy's
// empirical mixture quantile, lies within 4 standard errors of the true
// mixture quantile (scipy brentq), and the within-strata bootstrap's
// spread matches the asymptotic standard error.
TEST(StratifiedTest, PopulationMixtureQuantileAndBootstrapSpread) {
  const auto& c = StratifiedReference()["population"];
  std::vector<ClusteredSample> samples, halves_a, halves_b;
  for (const auto& s : c["strata"]) {
    samples.push_back(FromJson(s));
    ClusteredSample a, b;
    const auto& values = s["values"];
    for (uint32_t i = 0; i < values.size(); ++i) {
      if (i % 2 == 0) {
        a.Add(values[i].get<double>(), i / 2);
      } else {
        b.Add(values[i].get<double>(), i / 2);
      }
    }
    a.Sort();
    b.Sort();
    halves_a.push_back(std::move(a));
    halves_b.push_back(std::move(b));
  }
  const std::vector<double> weights = c["weights"];
  std::vector<const ClusteredSample*> ptrs;
  std::vector<Stratum> strata;
  for (size_t i = 0; i < samples.size(); ++i) {
    ptrs.push_back(&samples[i]);
    strata.push_back({&halves_a[i], 2000, &halves_b[i], 2000, weights[i]});
  }
  BootstrapOptions options;
  options.replicates = 1000;
  options.paired = false;
  options.seed = 5;
  options.threads = 2;
  const auto got =
      CompareStratifiedQuantiles(strata, {0.5, 0.9, 0.99}, options, kFleetQuantileBandwidth);
  ASSERT_EQ(got.size(), 3u);
  for (size_t j = 0; j < 3; ++j) {
    const auto& row = c["quantiles"][j];
    SCOPED_TRACE("p " + row["p"].dump());
    const double p = row["p"];
    const double se = row["asymptotic_se"];
    const double estimate = MixtureQuantile(ptrs, weights, p, 0);
    EXPECT_EQ(estimate, row["empirical_quantile"].get<double>());
    EXPECT_NEAR(estimate, row["true_quantile"].get<double>(), 4 * se);
    // The smoothed estimate (what the comparison reports) against numpy and
    // against the smoothed quantile of the true mixture (scipy quad).
    const double smoothed = MixtureQuantile(ptrs, weights, p, kFleetQuantileBandwidth);
    EXPECT_NEAR(smoothed, row["empirical_smoothed"].get<double>(), 1e-9 * smoothed);
    EXPECT_NEAR(smoothed, row["true_smoothed"].get<double>(), 4 * se);
    // Each half has 2000 draws per class: twice the variance.
    const double boot_se = (got[j].a_upper - got[j].a_lower) / (2 * 1.96);
    EXPECT_NEAR(boot_se / (se * std::sqrt(2.0)), 1.0, 0.25);
    EXPECT_EQ(got[j].diff.replicates, 1000);
  }
}

// Two classes with very different latencies, half the population each.
// Hashed A/A where chance gave arm A 60 % slow devices and arm B 40 %:
// the pooled median jumps between the classes' modes, the stratified one
// does not.
TEST(StratifiedTest, ClassImbalanceMovesPooledButNotStratifiedEstimate) {
  Xoshiro256 rng(11);
  ClusteredSample slow_a, slow_b, fast_a, fast_b, pooled_a, pooled_b;
  auto fill = [&](ClusteredSample* s, ClusteredSample* pooled, int units, double median,
                  uint32_t pooled_offset) {
    for (int u = 0; u < units; ++u) {
      const double device = std::exp(0.2 * rng.NextNormal());
      for (int k = 0; k < 10; ++k) {
        const double v = median * device * std::exp(0.1 * rng.NextNormal());
        s->Add(v, u);
        pooled->Add(v, pooled_offset + u);
      }
    }
    s->Sort();
  };
  fill(&slow_a, &pooled_a, 180, 60000, 0);
  fill(&fast_a, &pooled_a, 120, 10000, 180);
  fill(&slow_b, &pooled_b, 120, 60000, 0);
  fill(&fast_b, &pooled_b, 180, 10000, 120);
  pooled_a.Sort();
  pooled_b.Sort();
  BootstrapOptions options;
  options.replicates = 500;
  options.paired = false;
  options.seed = 3;
  const auto pooled = CompareQuantiles(pooled_a, 300, pooled_b, 300, {0.5}, options);
  EXPECT_LT(pooled[0].rel, -0.5);  // B "3x faster" at the pooled median.
  const auto stratified = CompareStratifiedQuantiles(
      {{&slow_a, 180, &slow_b, 120, 0.5}, {&fast_a, 120, &fast_b, 180, 0.5}}, {0.5, 0.9}, options,
      kFleetQuantileBandwidth);
  for (const auto& s : stratified) {
    EXPECT_LT(std::fabs(s.diff.rel), 0.1) << "p " << s.diff.p;
    EXPECT_LE(s.diff.rel_lower, 0) << "p " << s.diff.p;
    EXPECT_GE(s.diff.rel_upper, 0) << "p " << s.diff.p;
  }
}

// A/A coverage: 200 hashed repetitions of three strata with random class
// counts per arm; the 95 % interval of the relative change must contain 0
// in about 95 % of them (binomial 99.9 % band: >= 178).
TEST(StratifiedTest, HashedAACoverageIsNominal) {
  const double medians[3] = {8000, 20000, 50000};
  const double shares[3] = {0.5, 0.3, 0.2};
  int covered_p50 = 0, covered_p90 = 0;
  const int runs = 200;
  for (int run = 0; run < runs; ++run) {
    Xoshiro256 rng(MixSeed(77, run));
    ClusteredSample a[3], b[3];
    uint32_t ua[3] = {0, 0, 0}, ub[3] = {0, 0, 0};
    for (int d = 0; d < 240; ++d) {
      const int c = d % 3;
      const bool on_b = rng.NextDouble() < 0.5;
      ClusteredSample& s = on_b ? b[c] : a[c];
      uint32_t& u = on_b ? ub[c] : ua[c];
      const double device = std::exp(0.3 * rng.NextNormal());
      for (int k = 0; k < 8; ++k) {
        s.Add(medians[c] * device * std::exp(0.15 * rng.NextNormal()), u);
      }
      ++u;
    }
    std::vector<Stratum> strata;
    for (int c = 0; c < 3; ++c) {
      a[c].Sort();
      b[c].Sort();
      strata.push_back({&a[c], ua[c], &b[c], ub[c], shares[c]});
    }
    BootstrapOptions options;
    options.replicates = 400;
    options.paired = false;
    options.seed = MixSeed(5, run);
    const auto got =
        CompareStratifiedQuantiles(strata, {0.5, 0.9}, options, kFleetQuantileBandwidth);
    covered_p50 += got[0].diff.rel_lower <= 0 && got[0].diff.rel_upper >= 0;
    covered_p90 += got[1].diff.rel_lower <= 0 && got[1].diff.rel_upper >= 0;
  }
  EXPECT_GE(covered_p50, 178);
  EXPECT_GE(covered_p90, 178);
  EXPECT_LE(covered_p50, runs);
}

// By hand: values 1..10, window [0.49, 0.51] takes half its mass from 5
// (owning [0.4, 0.5]) and half from 6: 5.5. Two classes 1..100 and
// 1001..1100 at 50/50: p50 falls in the gap; the window takes 99, 100 from
// the fast class and 1001, 1002 from the slow one, each with mass 0.005:
// (199 + 2003) * 0.005 / 0.02 = 550.5, instead of the fast class's maximum.
TEST(StratifiedTest, SmoothedQuantileByHand) {
  ClusteredSample s, fast, slow;
  for (int i = 1; i <= 10; ++i) s.Add(i, i);
  for (int i = 1; i <= 100; ++i) {
    fast.Add(i, i);
    slow.Add(1000 + i, i);
  }
  s.Sort();
  fast.Sort();
  slow.Sort();
  EXPECT_NEAR(MixtureQuantile({&s}, {1.0}, 0.5, 0.01), 5.5, 1e-12);
  EXPECT_NEAR(MixtureQuantile({&fast, &slow}, {1.0, 1.0}, 0.5, 0.01), 550.5, 1e-9);
  EXPECT_EQ(MixtureQuantile({&fast, &slow}, {1.0, 1.0}, 0.5, 0), 100);
  EXPECT_NEAR(FleetQuantileBandwidth(0.99, 0.01), 0.005, 1e-15);
  EXPECT_NEAR(FleetQuantileBandwidth(0.5, 0.01), 0.01, 1e-15);
}

TEST(StratifiedTest, OneStratumEqualsNearestRank) {
  ClusteredSample s;
  for (int i = 0; i < 10; ++i) s.Add(10 - i, i);
  s.Sort();
  EXPECT_EQ(MixtureQuantile({&s}, {3.0}, 0.5, 0), 5);   // rank ceil(5) = 5
  EXPECT_EQ(MixtureQuantile({&s}, {3.0}, 0.51, 0), 6);  // rank ceil(5.1) = 6
  EXPECT_EQ(MixtureQuantile({&s}, {3.0}, 0.9, 0), 9);
  EXPECT_EQ(MixtureQuantile({&s}, {3.0}, 0.99, 0), 10);
  EXPECT_EQ(MixtureQuantile({&s}, {3.0}, 0.05, 0), 1);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

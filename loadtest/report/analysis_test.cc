#include "loadtest/report/analysis.h"

#include <map>
#include <set>

#include "gtest/gtest.h"
#include "loadtest/report/exit_code.h"
#include "loadtest/stats/rank_tests.h"
#include "loadtest/testing/synthetic_fleet.h"

namespace edgefleet {
namespace loadtest {
namespace {

Report AnalyzeFleet(const SyntheticFleetOptions& fleet, const AnalysisOptions& options = {}) {
  return Analyze(Aggregate(GenerateSyntheticFleet(fleet)), options);
}

SyntheticFleetOptions Fleet(uint64_t devices, uint64_t seed) {
  SyntheticFleetOptions o;
  o.devices = devices;
  o.seed = seed;
  return o;
}

TEST(AnalysisTest, ReportStructure) {
  AnalysisOptions options;
  options.bootstrap_replicates = 300;
  const Report r = AnalyzeFleet(Fleet(400, 3), options);
  ASSERT_EQ(r.scopes.size(), 1 + DefaultSyntheticClasses().size());
  EXPECT_EQ(r.scopes[0].name, "overall");
  for (const ScopeReport& s : r.scopes) {
    ASSERT_EQ(s.metrics.size(), static_cast<size_t>(kMetricCount));
    for (int m = 0; m < kMetricCount; ++m) {
      EXPECT_EQ(s.metrics[m].metric, kAllMetrics[m]);
    }
    EXPECT_EQ(s.anr.name, "anr");
    EXPECT_EQ(s.oom.ceiling, -1);
  }
  const MetricReport& steady = r.scopes[0].metrics[static_cast<int>(Metric::kSteadyLatency)];
  // 20 per session, 10 for sessions OOM-killed mid-run, 0 killed loading.
  EXPECT_GT(steady.n_a, 400 * 20 * 0.98);
  EXPECT_LE(steady.n_a, 400 * 20);
  EXPECT_EQ(steady.rank_test, "wilcoxon_signed_rank");
  EXPECT_EQ(steady.replicates, 300);
  ASSERT_EQ(steady.quantiles.size(), 3u);
  EXPECT_EQ(steady.quantiles[1].diff.p, 0.9);
  ASSERT_EQ(steady.sample_counts.size(), 3u);
  EXPECT_EQ(steady.sample_counts[1].needed, 64);
  EXPECT_EQ(steady.sample_counts[2].needed, 662);
  // p99: 8000 latencies satisfy LoadGen's 662, but 400 sessions per arm are
  // fewer independent units than that.
  EXPECT_TRUE(steady.sample_counts[2].a.enough);
  EXPECT_GT(steady.sample_counts[2].units_a, 390);
  EXPECT_LT(steady.sample_counts[2].units_a, 662);
  EXPECT_FALSE(steady.sample_counts[2].Enough());
  EXPECT_TRUE(steady.sample_counts[1].Enough());
  EXPECT_EQ(steady.cdf_a.front().first, 0.0);
  EXPECT_EQ(steady.cdf_a.back().first, 1.0);
  EXPECT_EQ(r.scopes[0].anr.ceiling, 0.0047);
  EXPECT_EQ(r.scopes[1].anr.ceiling, 0.08);
  EXPECT_FALSE(r.scopes[0].srm.mismatch);
  EXPECT_EQ(r.scopes[0].srm.design_effect, 1);  // Paired: no clusters.
  // Every quantile's bootstrap interval brackets its point estimate.
  for (const QuantileRow& q : steady.quantiles) {
    EXPECT_LE(q.diff.rel_lower, q.diff.rel + 1e-12);
    EXPECT_GE(q.diff.rel_upper, q.diff.rel - 1e-12);
    EXPECT_LE(q.a.lower, q.a.estimate);
    EXPECT_GE(q.a.upper, q.a.estimate);
  }
}

TEST(AnalysisTest, HashedDesignUsesMannWhitney) {
  SyntheticFleetOptions fleet = Fleet(400, 4);
  fleet.design = Design::kHashed;
  AnalysisOptions options;
  options.bootstrap_replicates = 200;
  const Report r = AnalyzeFleet(fleet, options);
  EXPECT_EQ(r.scopes[0].metrics[0].rank_test, "mann_whitney_u");
  EXPECT_FALSE(r.scopes[0].srm.mismatch);
}

// The hashed design assigns devices: with 2 sessions per device the session
// counts' sample-ratio statistic is the devices' Pearson chi-square (design
// effect 2), computed here from the records by hand.
TEST(AnalysisTest, HashedSampleRatioCheckCountsDevicesSessionsAsClusters) {
  SyntheticFleetOptions fleet = Fleet(300, 5);
  fleet.design = Design::kHashed;
  fleet.sessions_per_device = 2;
  const ResultSet results = GenerateSyntheticFleet(fleet);
  std::set<uint64_t> devices[2];
  for (const SessionRecord& r : results.records()) {
    devices[static_cast<int>(r.arm)].insert(r.device_id);
  }
  const double a = static_cast<double>(devices[0].size());
  const double b = static_cast<double>(devices[1].size());
  const double expected = (a + b) / 2;
  const double devices_chi_square =
      ((a - expected) * (a - expected) + (b - expected) * (b - expected)) / expected;
  AnalysisOptions options;
  options.bootstrap_replicates = 200;
  const Report r = Analyze(Aggregate(results), options);
  EXPECT_EQ(r.scopes[0].arms[0].sessions, 2 * static_cast<int64_t>(devices[0].size()));
  EXPECT_DOUBLE_EQ(r.scopes[0].srm.design_effect, 2);
  EXPECT_NEAR(r.scopes[0].srm.chi_square, devices_chi_square, 1e-9);
  for (const ScopeReport& s : r.scopes) EXPECT_DOUBLE_EQ(s.srm.design_effect, 2) << s.name;
}

// With several sessions per device the rank tests and the sample counts
// take one value per device: each device's mean load time, computed here
// from the records by hand, into the scipy-checked tests (stats/rank_tests.h).
TEST(AnalysisTest, RankTestsAndSampleCountsTakeOneValuePerDevice) {
  for (Design design : {Design::kHashed, Design::kPaired}) {
    SyntheticFleetOptions fleet = Fleet(120, 6);
    fleet.design = design;
    fleet.sessions_per_device = 3;
    const ResultSet results = GenerateSyntheticFleet(fleet);
    // (arm, device) -> (sum, count) of load times; (device, session) -> the
    // arms' load times for the paired differences.
    std::map<std::pair<int, uint64_t>, std::pair<double, int>> sums;
    std::map<std::pair<uint64_t, uint32_t>, std::map<int, double>> sessions;
    for (const SessionRecord& rec : results.records()) {
      if (!rec.Loaded() || rec.outcome == Outcome::kHarnessError) continue;
      const double v = static_cast<double>(rec.LoadTotalUs());
      auto& s = sums[{static_cast<int>(rec.arm), rec.device_id}];
      s.first += v;
      ++s.second;
      sessions[{rec.device_id, rec.session_index}][static_cast<int>(rec.arm)] = v;
    }
    std::vector<double> means[2];
    for (const auto& [key, s] : sums) means[key.first].push_back(s.first / s.second);
    AnalysisOptions options;
    options.bootstrap_replicates = 200;
    const Report r = Analyze(Aggregate(results), options);
    const MetricReport& load = r.scopes[0].metrics[static_cast<int>(Metric::kLoadTime)];
    RankTestResult want;
    if (design == Design::kHashed) {
      want = MannWhitneyU(means[1], means[0]);
      EXPECT_EQ(want.n, means[0].size() + means[1].size());
      EXPECT_EQ(load.sample_counts[0].units_a, static_cast<int64_t>(means[0].size()));
      EXPECT_EQ(load.sample_counts[0].units_b, static_cast<int64_t>(means[1].size()));
    } else {
      std::map<uint64_t, std::pair<double, int>> diffs;
      for (const auto& [key, arms] : sessions) {
        if (arms.size() < 2) continue;
        auto& d = diffs[key.first];
        d.first += arms.at(1) - arms.at(0);
        ++d.second;
      }
      std::vector<double> d;
      for (const auto& [device, s] : diffs) d.push_back(s.first / s.second);
      want = WilcoxonSignedRank(d);
      EXPECT_EQ(load.sample_counts[0].units_a, static_cast<int64_t>(means[0].size()));
    }
    // Devices, not their 3 sessions.
    EXPECT_GT(load.n_a, 2 * load.sample_counts[0].units_a);
    EXPECT_DOUBLE_EQ(load.rank.statistic, want.statistic);
    EXPECT_DOUBLE_EQ(load.rank.p_value, want.p_value);
    EXPECT_EQ(load.rank.n, want.n);
  }
}

TEST(AnalysisTest, BudgetLowersReplicatesButNotBelowTheFloor) {
  AnalysisOptions options;
  options.bootstrap_replicates = 1000;
  options.bootstrap_budget = 1;  // Forces the floor.
  const Report r = AnalyzeFleet(Fleet(100, 5), options);
  EXPECT_EQ(r.scopes[0].metrics[0].replicates, kMinReplicates);
}

TEST(AnalysisTest, SequentialLookUsesTheSpendingBoundary) {
  AnalysisOptions fixed;
  fixed.bootstrap_replicates = 300;
  AnalysisOptions first = fixed;
  first.look_fractions = {0.5, 1.0};
  first.look = 1;
  const Report f = AnalyzeFleet(Fleet(200, 11), fixed);
  const Report s = AnalyzeFleet(Fleet(200, 11), first);
  EXPECT_EQ(s.looks, 2);
  EXPECT_EQ(s.look, 1);
  EXPECT_EQ(s.overall_confidence, 0.95);
  EXPECT_EQ(s.options.confidence, LookConfidence(Spending::kObrienFleming, 0.95, {0.5, 1.0}, 1));
  EXPECT_GT(s.options.confidence, 0.99);  // c_1 = 2.772 at half the data.
  EXPECT_EQ(s.claim_confidence,
            LookConfidence(Spending::kObrienFleming, f.claim_confidence, {0.5, 1.0}, 1));
  // The same estimate, its interval rescaled from the bootstrap's 99 % to
  // the look's confidence, so wider than the fixed-size 95 % one.
  const QuantileRow& a = f.scopes[1].metrics[2].quantiles[0];
  const QuantileRow& b = s.scopes[1].metrics[2].quantiles[0];
  EXPECT_EQ(a.diff.rel, b.diff.rel);
  EXPECT_LT(b.diff.rel_lower, a.diff.rel_lower);
  EXPECT_GT(b.diff.rel_upper, a.diff.rel_upper);
  EXPECT_LE(b.claim_lower, b.diff.rel_lower);
}

TEST(AnalysisTest, SameSeedSameReport) {
  AnalysisOptions one, two;
  one.bootstrap_replicates = two.bootstrap_replicates = 300;
  one.threads = 1;
  two.threads = 2;
  const Report a = AnalyzeFleet(Fleet(200, 9), one);
  const Report b = AnalyzeFleet(Fleet(200, 9), two);
  const auto& qa = a.scopes[2].metrics[2].quantiles;
  const auto& qb = b.scopes[2].metrics[2].quantiles;
  ASSERT_EQ(qa.size(), qb.size());
  for (size_t i = 0; i < qa.size(); ++i) {
    EXPECT_EQ(qa[i].diff.rel_lower, qb[i].diff.rel_lower);
    EXPECT_EQ(qa[i].diff.rel_upper, qb[i].diff.rel_upper);
  }
}

TEST(AnalysisTest, ExitCodes) {
  EXPECT_EQ(ExitCodeFor(RunStatus::kPass), 0);
  EXPECT_EQ(ExitCodeFor(RunStatus::kRegression), 2);
  EXPECT_EQ(ExitCodeFor(RunStatus::kInconclusive), 3);
  EXPECT_EQ(ExitCodeFor(RunStatus::kInvalid), 4);
  EXPECT_STREQ(RunStatusName(RunStatus::kInvalid), "invalid");
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

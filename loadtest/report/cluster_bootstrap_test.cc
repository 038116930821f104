// The report's bootstrap resamples devices, not sessions: in a hashed
// rollout the device is the unit of randomization, and its sessions share
// its speed. Checked against a closed form on synthetic clustered data
// whose log latency is Y = sd_device D + sd_session S + sd_noise E (standard
// normal D per device, S per session, E per latency): the standard error of
// the median of Y, from the variance of the empirical CDF at the median,
//   Var F(0) = (1/N^2) sum over devices Var(#{Y <= 0} in the device),
// with P(Y1 <= 0, Y2 <= 0) = 1/4 + asin(rho) / (2 pi) for two standard
// bivariate normals of correlation rho (Sheppard), divided by the density
// at the median. The closed form is itself checked by a Monte Carlo of many
// fleets; the per-class and the stratified fleet-wide ("overall") intervals
// of the report must match it, and a session-level bootstrap of the same
// data must fall short of it.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "loadtest/report/analysis.h"
#include "loadtest/stats/bootstrap.h"
#include "loadtest/stats/quantile.h"
#include "loadtest/stats/stratified.h"

namespace edgefleet {
namespace loadtest {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSdDevice = 0.08, kSdSession = 0.03, kSdNoise = 0.05;
constexpr int kDevicesPerArmAndClass = 150;
constexpr int kSessions = 4;    // per device
constexpr int kLatencies = 10;  // per session
constexpr double kMedianUs = 20000;

// Closed-form standard error of the nearest-rank median of Y over `devices`
// devices (log scale; the median of the latencies is exp of it).
double MedianLogStdError(int devices) {
  const double var = kSdDevice * kSdDevice + kSdSession * kSdSession + kSdNoise * kSdNoise;
  const double rho_session = (kSdDevice * kSdDevice + kSdSession * kSdSession) / var;
  const double rho_device = kSdDevice * kSdDevice / var;
  const double m = kSessions, l = kLatencies;
  // Var of a device's count of observations <= the median.
  const double per_device = m * l / 4 + m * l * (l - 1) * std::asin(rho_session) / (2 * kPi) +
                            m * l * (m - 1) * l * std::asin(rho_device) / (2 * kPi);
  const double var_cdf = per_device / (devices * (m * l) * (m * l));
  return std::sqrt(var_cdf) * std::sqrt(var) * std::sqrt(2 * kPi);
}

// Latencies of one arm and class: [device][session][latency].
using Draw = std::vector<std::vector<std::vector<int64_t>>>;

Draw DrawDevices(std::mt19937_64& rng) {
  std::normal_distribution<double> z;
  Draw out(kDevicesPerArmAndClass);
  for (auto& device : out) {
    const double d = kSdDevice * z(rng);
    device.resize(kSessions);
    for (auto& session : device) {
      const double s = kSdSession * z(rng);
      for (int k = 0; k < kLatencies; ++k) {
        session.push_back(std::llround(kMedianUs * std::exp(d + s + kSdNoise * z(rng))));
      }
    }
  }
  return out;
}

// Hashed A/A: classes "c0" and "c1" at 50/50, the same distribution.
struct Fleet {
  Draw draws[2][2];  // [class][arm]
};

Fleet DrawFleet(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Fleet f;
  for (auto& cls : f.draws) {
    for (Draw& arm : cls) arm = DrawDevices(rng);
  }
  return f;
}

ResultSet ToResults(const Fleet& f, uint64_t seed) {
  ExperimentInfo info;
  info.seed = seed;
  info.design = Design::kHashed;
  info.class_shares = {{"c0", 0.5}, {"c1", 0.5}};
  ResultSet rs(info, ShardSpec{});
  uint64_t device_id = 0;
  for (int c = 0; c < 2; ++c) {
    for (int arm = 0; arm < 2; ++arm) {
      for (const auto& device : f.draws[c][arm]) {
        for (size_t s = 0; s < device.size(); ++s) {
          SessionRecord r;
          r.device_id = device_id;
          r.session_index = static_cast<uint32_t>(s);
          r.arm = arm == 0 ? Arm::kA : Arm::kB;
          r.device_class = "c" + std::to_string(c);
          r.load_read_us = 1000;
          r.first_inference_us = device[s][0];
          r.latencies_us = device[s];
          r.peak_memory_bytes = 1 << 20;
          r.total_frames = 10;
          rs.Add(std::move(r));
        }
        ++device_id;
      }
    }
  }
  EXPECT_TRUE(rs.Canonicalize().ok());
  return rs;
}

// A sample of one arm and class, resampling unit = device or = session.
ClusteredSample Sample(const Draw& d, bool by_session) {
  ClusteredSample out;
  for (size_t i = 0; i < d.size(); ++i) {
    for (size_t s = 0; s < d[i].size(); ++s) {
      for (int64_t v : d[i][s]) {
        out.Add(static_cast<double>(v), static_cast<uint32_t>(by_session ? i * kSessions + s : i));
      }
    }
  }
  out.Sort();
  return out;
}

// Standard error of log(1 + relative change) implied by a 95 % interval.
double ImpliedStdError(double lower, double upper) {
  return (std::log1p(upper) - std::log1p(lower)) / (2 * 1.959963984540054);
}

TEST(ClusterBootstrapTest, ClosedFormMatchesMonteCarlo) {
  // The reference itself: the spread of the A/A change of the class median
  // and of the stratified fleet median over 600 fleets.
  std::vector<double> class_changes, fleet_changes;
  for (uint64_t seed = 1; seed <= 600; ++seed) {
    const Fleet f = DrawFleet(seed);
    ClusteredSample s[2][2];
    for (int c = 0; c < 2; ++c) {
      for (int arm = 0; arm < 2; ++arm) s[c][arm] = Sample(f.draws[c][arm], false);
    }
    class_changes.push_back(
        std::log(NearestRank(s[0][1].values(), 0.5) / NearestRank(s[0][0].values(), 0.5)));
    const double a =
        MixtureQuantile({&s[0][0], &s[1][0]}, {0.5, 0.5}, 0.5, kFleetQuantileBandwidth);
    const double b =
        MixtureQuantile({&s[0][1], &s[1][1]}, {0.5, 0.5}, 0.5, kFleetQuantileBandwidth);
    fleet_changes.push_back(std::log(b / a));
  }
  auto sd = [](const std::vector<double>& v) {
    double sum = 0, sq = 0;
    for (double x : v) sum += x, sq += x * x;
    const double mean = sum / v.size();
    return std::sqrt((sq - v.size() * mean * mean) / (v.size() - 1));
  };
  // A/A change of two independent arms: sqrt(2) times one arm's error; the
  // fleet's two classes of equal share halve the variance. 600 fleets give
  // the SD within ~3 % (1 standard error).
  const double class_se = std::sqrt(2.0) * MedianLogStdError(kDevicesPerArmAndClass);
  const double fleet_se = std::sqrt(2.0) * MedianLogStdError(2 * kDevicesPerArmAndClass);
  std::printf("Monte Carlo SD / closed form: class %.3f, fleet %.3f\n",
              sd(class_changes) / class_se, sd(fleet_changes) / fleet_se);
  EXPECT_NEAR(sd(class_changes) / class_se, 1.0, 0.09);
  EXPECT_NEAR(sd(fleet_changes) / fleet_se, 1.0, 0.09);
}

TEST(ClusterBootstrapTest, ReportIntervalsMatchTheClusterStandardError) {
  const double class_se = std::sqrt(2.0) * MedianLogStdError(kDevicesPerArmAndClass);
  const double fleet_se = std::sqrt(2.0) * MedianLogStdError(2 * kDevicesPerArmAndClass);
  constexpr int kFleets = 24;
  double class_ratio = 0, fleet_ratio = 0, session_ratio = 0;
  for (uint64_t seed = 1001; seed < 1001 + kFleets; ++seed) {
    const Fleet f = DrawFleet(seed);
    AnalysisOptions options;
    options.threads = 2;
    options.bootstrap_replicates = 1000;
    const Report r = Analyze(Aggregate(ToResults(f, seed)), options);
    ASSERT_EQ(r.scopes.size(), 3u);
    const int steady = static_cast<int>(Metric::kSteadyLatency);
    const MetricReport& overall = r.scopes[0].metrics[steady];
    ASSERT_EQ(overall.estimator, "stratified") << overall.stratify_note;
    ASSERT_EQ(r.scopes[1].name, "c0");
    const QuantileComparison& fleet = overall.quantiles[0].diff;
    const QuantileComparison& cls = r.scopes[1].metrics[steady].quantiles[0].diff;
    ASSERT_EQ(fleet.p, 0.5);
    ASSERT_EQ(cls.p, 0.5);
    fleet_ratio += ImpliedStdError(fleet.rel_lower, fleet.rel_upper) / fleet_se / kFleets;
    class_ratio += ImpliedStdError(cls.rel_lower, cls.rel_upper) / class_se / kFleets;

    // The same class resampled by session, as the report did before.
    BootstrapOptions bo;
    bo.replicates = 1000;
    bo.paired = false;
    bo.seed = seed;
    bo.threads = 2;
    const uint32_t sessions = kDevicesPerArmAndClass * kSessions;
    const QuantileComparison by_session = CompareQuantiles(
        Sample(f.draws[0][0], true), sessions, Sample(f.draws[0][1], true), sessions, {0.5}, bo)[0];
    session_ratio +=
        ImpliedStdError(by_session.rel_lower, by_session.rel_upper) / class_se / kFleets;
  }
  // Averaged over 24 fleets, the interval's implied standard error is
  // within a few percent of the closed form when the device is resampled;
  // resampling sessions ignores the device's shared speed and gives about
  // 0.55 of it (sqrt of the variance without the between-session terms).
  std::printf("bootstrap SE / closed form: class %.3f, fleet %.3f, class by session %.3f\n",
              class_ratio, fleet_ratio, session_ratio);
  EXPECT_NEAR(class_ratio, 1.0, 0.12);
  EXPECT_NEAR(fleet_ratio, 1.0, 0.12);
  EXPECT_LT(session_ratio, 0.7);
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

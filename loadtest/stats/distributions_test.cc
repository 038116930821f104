#include "loadtest/stats/distributions.h"

#include <cmath>

#include "gtest/gtest.h"
#include "loadtest/stats/testdata/reference_data.h"

namespace edgefleet {
namespace loadtest {
namespace {

const nlohmann::json& Dist() { return Reference()["distributions"]; }

TEST(DistributionsTest, NormalQuantileMatchesScipyNdtri) {
  for (const auto& c : Dist()["normal_quantile"]) {
    const double p = c["p"];
    const double want = c["x"];
    EXPECT_NEAR(NormalQuantile(p), want, 1e-12 * std::max(1.0, std::fabs(want))) << "p=" << p;
  }
}

TEST(DistributionsTest, NormalCdfInvertsQuantile) {
  for (double p : {1e-10, 0.01, 0.3, 0.5, 0.8, 0.999}) {
    EXPECT_NEAR(NormalCdf(NormalQuantile(p)), p, 1e-14 + 1e-12 * p);
  }
  EXPECT_NEAR(NormalSurvival(1.959963984540054), 0.025, 1e-15);
}

TEST(DistributionsTest, BinomialCdfMatchesScipy) {
  for (const auto& c : Dist()["binomial_cdf"]) {
    const double want = c["cdf"];
    EXPECT_NEAR(BinomialCdf(c["k"], c["n"], c["p"]), want, 1e-11 + 1e-9 * want) << c.dump();
  }
  EXPECT_EQ(BinomialCdf(-1, 10, 0.5), 0.0);
  EXPECT_EQ(BinomialCdf(10, 10, 0.5), 1.0);
}

TEST(DistributionsTest, BinomialQuantileMatchesScipyPpf) {
  for (const auto& c : Dist()["binomial_quantile"]) {
    EXPECT_EQ(BinomialQuantile(c["q"], c["n"], c["p"]), c["k"].get<int64_t>()) << c.dump();
  }
}

TEST(DistributionsTest, RegularizedBetaMatchesScipyBetainc) {
  for (const auto& c : Dist()["regularized_beta"]) {
    const double want = c["value"];
    EXPECT_NEAR(RegularizedBeta(c["x"], c["a"], c["b"]), want, 1e-12 + 1e-9 * want) << c.dump();
  }
}

TEST(DistributionsTest, GammaUpperMatchesScipyGammaincc) {
  for (const auto& c : Dist()["gamma_upper"]) {
    const double want = c["value"];
    EXPECT_NEAR(RegularizedGammaUpper(c["a"], c["x"]), want, 1e-13 + 1e-10 * want) << c.dump();
  }
}

TEST(DistributionsTest, ChiSquareSurvivalMatchesScipy) {
  for (const auto& c : Dist()["chi_square_sf"]) {
    const double want = c["sf"];
    EXPECT_NEAR(ChiSquareSurvival(c["x"], c["df"]), want, 1e-13 + 1e-10 * want) << c.dump();
  }
}

}  // namespace
}  // namespace loadtest
}  // namespace edgefleet

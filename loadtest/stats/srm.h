// Sample-ratio mismatch: a chi-square goodness-of-fit test of the observed
// count per arm against the designed split. A mismatch means sessions were
// lost or mis-assigned unevenly, and no metric of the run can be trusted
// (Fabijan et al., "Diagnosing Sample Ratio Mismatch in Online Controlled
// Experiments", KDD 2019). The conventional alarm level is p < 0.001.
//
// When the counted items come in clusters that are assigned together (the
// hashed design assigns devices, and a device's sessions all land on its
// arm), the counts vary more than the multinomial does: with cluster sizes
// m_i the count of an arm has variance q(1 - q) sum m_i^2, not
// q(1 - q) sum m_i. The statistic is then Pearson's chi-square divided by
// the design effect sum m_i^2 / sum m_i (Rao & Scott 1981's first-order
// correction; for two arms it is exactly (S_B - q S)^2 / (q(1 - q) sum m_i^2)).
// Without it a fleet of 2 sessions per device raises the p < 0.001 alarm
// at chi-square > 5.4, i.e. in 2 % of A/A scopes instead of 0.1 %.
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_STATS_SRM_H_
#define EDGEFLEET_LOADTEST_STATS_SRM_H_

#include <cstdint>
#include <vector>

namespace edgefleet {
namespace loadtest {

struct SampleRatioResult {
  double chi_square = 0;  // Pearson's, divided by the design effect.
  double design_effect = 1;
  int degrees_of_freedom = 0;
  double p_value = 1;
  bool mismatch = false;  // p_value < the alarm level.
};

// Tests `observed` counts against `expected_shares` (normalized here; they
// need not sum to 1), Pearson's chi-square divided by `design_effect` (1
// for unclustered counts). With fewer than two categories or no
// observations the result is p = 1, no mismatch.
// REQUIRES: same sizes, every share > 0, design_effect >= 1.
SampleRatioResult SampleRatioCheck(const std::vector<int64_t>& observed,
                                   const std::vector<double>& expected_shares,
                                   double alarm_p = 0.001, double design_effect = 1);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_SRM_H_

// Sample-ratio mismatch: a chi-square goodness-of-fit test of the observed
// count per arm against the designed split. A mismatch means sessions were
// lost or mis-assigned unevenly, and no metric of the run can be trusted
// (Fabijan et al., "Diagnosing Sample Ratio Mismatch in Online Controlled
// Experiments", KDD 2019). The conventional alarm level is p < 0.001.
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_STATS_SRM_H_
#define EDGEFLEET_LOADTEST_STATS_SRM_H_

#include <cstdint>
#include <vector>

namespace edgefleet {
namespace loadtest {

struct SampleRatioResult {
  double chi_square = 0;
  int degrees_of_freedom = 0;
  double p_value = 1;
  bool mismatch = false;  // p_value < the alarm level.
};

// Tests `observed` counts against `expected_shares` (normalized here; they
// need not sum to 1). With fewer than two categories or no observations the
// result is p = 1, no mismatch.
// REQUIRES: same sizes, every share > 0.
SampleRatioResult SampleRatioCheck(const std::vector<int64_t>& observed,
                                   const std::vector<double>& expected_shares,
                                   double alarm_p = 0.001);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_SRM_H_

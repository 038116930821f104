#include "loadtest/stats/srm.h"

#include <cassert>
#include <cstddef>
#include <numeric>

#include "loadtest/stats/distributions.h"

namespace edgefleet {
namespace loadtest {

SampleRatioResult SampleRatioCheck(const std::vector<int64_t>& observed,
                                   const std::vector<double>& expected_shares, double alarm_p,
                                   double design_effect) {
  assert(observed.size() == expected_shares.size());
  assert(design_effect >= 1);
  SampleRatioResult out;
  out.design_effect = design_effect;
  const double total =
      static_cast<double>(std::accumulate(observed.begin(), observed.end(), int64_t{0}));
  const double share_sum = std::accumulate(expected_shares.begin(), expected_shares.end(), 0.0);
  if (observed.size() < 2 || total == 0) return out;
  for (size_t i = 0; i < observed.size(); ++i) {
    assert(expected_shares[i] > 0);
    const double expected = total * expected_shares[i] / share_sum;
    const double delta = static_cast<double>(observed[i]) - expected;
    out.chi_square += delta * delta / expected;
  }
  out.chi_square /= design_effect;
  out.degrees_of_freedom = static_cast<int>(observed.size()) - 1;
  out.p_value = ChiSquareSurvival(out.chi_square, out.degrees_of_freedom);
  out.mismatch = out.p_value < alarm_p;
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet

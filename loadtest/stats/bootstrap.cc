#include "loadtest/stats/bootstrap.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "loadtest/stats/quantile.h"
#include "loadtest/stats/replicates.h"

namespace edgefleet {
namespace loadtest {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Observations per unit, for the replicate's total weight.
std::vector<uint32_t> CountPerUnit(const ClusteredSample& s, uint32_t units) {
  std::vector<uint32_t> counts(units, 0);
  for (uint32_t u : s.units()) ++counts[u];
  return counts;
}

long long TotalWeight(const std::vector<uint32_t>& counts, const uint8_t* w) {
  long long total = 0;
  for (size_t u = 0; u < counts.size(); ++u) {
    total += static_cast<long long>(w[u]) * counts[u];
  }
  return total;
}

// Weighted nearest-rank quantiles of `s` for ascending `ps`, written to
// out[j]. Quantiles below the median walk up from the smallest value, the
// rest walk down from the largest, so p90 and p99 touch only the top tail.
void WeightedQuantiles(const ClusteredSample& s, const uint8_t* w, long long total,
                       const std::vector<double>& ps, double* out) {
  const std::vector<double>& values = s.values();
  const std::vector<uint32_t>& units = s.units();
  const size_t n = values.size();
  size_t split = 0;
  while (split < ps.size() && ps[split] < 0.5) ++split;
  // Upward walk: smallest i with cum(i) >= target.
  size_t i = 0;
  long long cum = 0;
  for (size_t j = 0; j < split; ++j) {
    const long long target = NearestRankOf(total, ps[j]);
    while (cum + w[units[i]] < target) cum += w[units[i++]];
    out[j] = values[i];
  }
  // Downward walk: with S(j) the weight at or above j, the answer is the
  // first j from the top with S(j) > total - target.
  size_t k = n - 1;
  long long suffix = 0;
  for (size_t j = ps.size(); j-- > split;) {
    const long long bound = total - NearestRankOf(total, ps[j]);
    while (suffix + w[units[k]] <= bound) suffix += w[units[k--]];
    out[j] = values[k];
  }
}

}  // namespace

void ClusteredSample::Sort() {
  for (size_t i = 0; i < values_.size(); ++i) {
    pending_.emplace_back(values_[i], units_[i]);
  }
  std::sort(pending_.begin(), pending_.end());
  values_.clear();
  units_.clear();
  values_.reserve(pending_.size());
  units_.reserve(pending_.size());
  for (const auto& [value, unit] : pending_) {
    values_.push_back(value);
    units_.push_back(unit);
  }
  pending_.clear();
  pending_.shrink_to_fit();
}

std::vector<QuantileComparison> CompareQuantiles(const ClusteredSample& a, uint32_t units_a,
                                                 const ClusteredSample& b, uint32_t units_b,
                                                 const std::vector<double>& quantiles,
                                                 const BootstrapOptions& options) {
  assert(!a.empty() && !b.empty());
  assert(!options.paired || units_a == units_b);
  std::vector<double> ps = quantiles;
  std::sort(ps.begin(), ps.end());
  const size_t q = ps.size();

  const std::vector<uint32_t> counts_a = CountPerUnit(a, units_a);
  const std::vector<uint32_t> counts_b = CountPerUnit(b, units_b);
  const Replicates reps = RunReplicates(
      options, units_a, units_b, q,
      [&](const uint8_t* wa, const uint8_t* wb, double* qa, double* qb, std::vector<double>*) {
        const long long total_a = TotalWeight(counts_a, wa);
        const long long total_b = TotalWeight(counts_b, wb);
        if (total_a == 0 || total_b == 0) return false;
        WeightedQuantiles(a, wa, total_a, ps, qa);
        WeightedQuantiles(b, wb, total_b, ps, qb);
        return true;
      });

  std::vector<QuantileComparison> out(q);
  for (size_t j = 0; j < q; ++j) {
    QuantileComparison& c = out[j];
    c.p = ps[j];
    c.a = NearestRank(a.values(), c.p);
    c.b = NearestRank(b.values(), c.p);
    c.diff = c.b - c.a;
    c.rel = c.a != 0 ? c.b / c.a - 1.0 : kNaN;
    SummarizeReplicates(reps, j, options.confidence, &c, nullptr, nullptr);
  }
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet

#include "loadtest/stats/stratified.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <tuple>

#include "loadtest/stats/quantile.h"
#include "loadtest/stats/replicates.h"

namespace edgefleet {
namespace loadtest {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Slack on cumulative masses: sums of many doubles in different orders must
// not move a quantile that sits exactly on a step of F.
constexpr double kSlack = 1e-9;

// One arm's strata merged into one ascending sequence. Units are renumbered
// globally: stratum s owns units [offset[s], offset[s] + units[s]).
struct MergedArm {
  std::vector<double> values;
  std::vector<uint32_t> units;    // Global unit of each value.
  std::vector<uint32_t> stratum;  // Stratum of each unit (global index).
  std::vector<uint32_t> counts;   // Observations per global unit.
  size_t strata = 0;
};

MergedArm Merge(const std::vector<const ClusteredSample*>& samples,
                const std::vector<uint32_t>& units) {
  MergedArm m;
  m.strata = samples.size();
  std::vector<std::pair<double, uint32_t>> all;
  uint32_t offset = 0;
  for (size_t s = 0; s < samples.size(); ++s) {
    const ClusteredSample& x = *samples[s];
    for (size_t i = 0; i < x.size(); ++i) {
      all.emplace_back(x.values()[i], offset + x.units()[i]);
    }
    m.stratum.insert(m.stratum.end(), units[s], static_cast<uint32_t>(s));
    offset += units[s];
  }
  std::sort(all.begin(), all.end());
  m.counts.assign(offset, 0);
  m.values.reserve(all.size());
  m.units.reserve(all.size());
  for (const auto& [value, unit] : all) {
    m.values.push_back(value);
    m.units.push_back(unit);
    ++m.counts[unit];
  }
  return m;
}

// Mixture quantiles of `m` for ascending `ps` with unit weights `w` (nullptr
// for all ones) and stratum shares `shares`; false when a stratum has no
// weight. Quantiles below the median walk up from the smallest value, the
// rest down from the largest.
bool MixtureQuantiles(const MergedArm& m, const uint8_t* w, const std::vector<double>& shares,
                      const std::vector<double>& ps, double bandwidth, double* out,
                      std::vector<double>* unit_mass) {
  std::vector<double> totals(m.strata, 0.0);
  for (size_t u = 0; u < m.counts.size(); ++u) {
    totals[m.stratum[u]] += (w ? w[u] : 1.0) * m.counts[u];
  }
  for (double t : totals) {
    if (t <= 0) return false;
  }
  unit_mass->resize(m.counts.size());
  for (size_t u = 0; u < m.counts.size(); ++u) {
    (*unit_mass)[u] = shares[m.stratum[u]] * (w ? w[u] : 1.0) / totals[m.stratum[u]];
  }
  const std::vector<double>& mass = *unit_mass;
  const size_t n = m.values.size();
  if (bandwidth > 0) {
    // Mean of the quantile function over [p - h, p + h]: each observation
    // owns the probability interval its mass spans, and contributes its
    // value times the overlap. Walk from the nearer end.
    for (size_t j = 0; j < ps.size(); ++j) {
      const double h = FleetQuantileBandwidth(ps[j], bandwidth);
      const double lo = ps[j] - h, hi = ps[j] + h;
      double sum = 0;
      if (ps[j] < 0.5) {
        double below = 0;  // Mass of the observations before i.
        for (size_t i = 0; i < n && below < hi; ++i) {
          const double top = below + mass[m.units[i]];
          const double overlap = std::min(top, hi) - std::max(below, lo);
          if (overlap > 0) sum += overlap * m.values[i];
          below = top;
        }
      } else {
        double above = 0;  // Mass of the observations after k.
        for (size_t k = n; k-- > 0 && 1 - above > lo;) {
          const double top = 1 - above, bottom = top - mass[m.units[k]];
          const double overlap = std::min(top, hi) - std::max(bottom, lo);
          if (overlap > 0) sum += overlap * m.values[k];
          above += mass[m.units[k]];
        }
      }
      out[j] = sum / (2 * h);
    }
    return true;
  }
  size_t split = 0;
  while (split < ps.size() && ps[split] < 0.5) ++split;
  size_t i = 0;
  double cum = 0;
  for (size_t j = 0; j < split; ++j) {
    // Smallest i with F(x_i) = cum(i) >= p.
    while (i + 1 < n && cum + mass[m.units[i]] < ps[j] - kSlack) {
      cum += mass[m.units[i++]];
    }
    out[j] = m.values[i];
  }
  // F(x_i) = 1 - S(i + 1), S(j) the mass at indices >= j: the answer is the
  // smallest i with S(i + 1) <= 1 - p.
  size_t k = n - 1;
  double suffix = 0;
  for (size_t j = ps.size(); j-- > split;) {
    const double bound = 1.0 - ps[j] + kSlack;
    while (k > 0 && suffix + mass[m.units[k]] <= bound) {
      suffix += mass[m.units[k--]];
    }
    out[j] = m.values[k];
  }
  return true;
}

std::vector<double> Normalized(std::vector<double> w) {
  double total = 0;
  for (double x : w) total += x;
  for (double& x : w) x /= total;
  return w;
}

}  // namespace

double FleetQuantileBandwidth(double p, double bandwidth) {
  return std::min({bandwidth, p / 2, (1 - p) / 2});
}

double MixtureQuantile(const std::vector<const ClusteredSample*>& samples,
                       const std::vector<double>& weights, double p, double bandwidth) {
  assert(!samples.empty() && samples.size() == weights.size());
  std::vector<uint32_t> units;
  for (const ClusteredSample* s : samples) {
    uint32_t max_unit = 0;
    for (uint32_t u : s->units()) max_unit = std::max(max_unit, u);
    units.push_back(max_unit + 1);
  }
  const MergedArm m = Merge(samples, units);
  double q = kNaN;
  std::vector<double> scratch;
  MixtureQuantiles(m, nullptr, Normalized(weights), {p}, bandwidth, &q, &scratch);
  return q;
}

std::vector<StratifiedComparison> CompareStratifiedQuantiles(const std::vector<Stratum>& strata,
                                                             const std::vector<double>& quantiles,
                                                             const BootstrapOptions& options,
                                                             double bandwidth) {
  assert(!strata.empty());
  std::vector<const ClusteredSample*> sa, sb;
  std::vector<uint32_t> ua, ub;
  std::vector<double> w;
  for (const Stratum& s : strata) {
    assert(s.a && s.b && !s.a->empty() && !s.b->empty() && s.weight > 0);
    assert(!options.paired || s.units_a == s.units_b);
    sa.push_back(s.a);
    sb.push_back(s.b);
    ua.push_back(s.units_a);
    ub.push_back(s.units_b);
    w.push_back(s.weight);
  }
  const std::vector<double> shares = Normalized(w);
  const MergedArm ma = Merge(sa, ua);
  const MergedArm mb = Merge(sb, ub);
  std::vector<double> ps = quantiles;
  std::sort(ps.begin(), ps.end());
  const size_t q = ps.size();

  std::vector<double> point_a(q), point_b(q), scratch;
  MixtureQuantiles(ma, nullptr, shares, ps, bandwidth, point_a.data(), &scratch);
  MixtureQuantiles(mb, nullptr, shares, ps, bandwidth, point_b.data(), &scratch);

  const Replicates reps = RunReplicates(
      options, ma.counts.size(), mb.counts.size(), q,
      [&](const uint8_t* wa, const uint8_t* wb, double* qa, double* qb, std::vector<double>* mass) {
        return MixtureQuantiles(ma, wa, shares, ps, bandwidth, qa, mass) &&
               MixtureQuantiles(mb, wb, shares, ps, bandwidth, qb, mass);
      });

  std::vector<StratifiedComparison> out(q);
  for (size_t j = 0; j < q; ++j) {
    StratifiedComparison& s = out[j];
    QuantileComparison& c = s.diff;
    c.p = ps[j];
    c.a = point_a[j];
    c.b = point_b[j];
    c.diff = c.b - c.a;
    c.rel = c.a != 0 ? c.b / c.a - 1.0 : kNaN;
    std::pair<double, double> a, b;
    SummarizeReplicates(reps, j, options.confidence, &c, &a, &b);
    std::tie(s.a_lower, s.a_upper) = a;
    std::tie(s.b_lower, s.b_upper) = b;
  }
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet

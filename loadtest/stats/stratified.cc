#include "loadtest/stats/stratified.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <thread>

#include "loadtest/stats/quantile.h"
#include "loadtest/stats/random.h"

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
bool MixtureQuantiles(const MergedArm& m, const uint8_t* w,
                      const std::vector<double>& shares,
                      const std::vector<double>& ps, double bandwidth,
                      double* out, std::vector<double>* unit_mass) {
  std::vector<double> totals(m.strata, 0.0);
  for (size_t u = 0; u < m.counts.size(); ++u) {
    totals[m.stratum[u]] += (w ? w[u] : 1.0) * m.counts[u];
  }
  for (double t : totals) {
    if (t <= 0) return false;
  }
  unit_mass->resize(m.counts.size());
  for (size_t u = 0; u < m.counts.size(); ++u) {
    (*unit_mass)[u] = shares[m.stratum[u]] * (w ? w[u] : 1.0) /
                      totals[m.stratum[u]];
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

std::pair<double, double> PercentileInterval(std::vector<double>& v,
                                             double confidence) {
  v.erase(std::remove_if(v.begin(), v.end(),
                         [](double x) { return !std::isfinite(x); }),
          v.end());
  if (v.empty()) return {kNaN, kNaN};
  std::sort(v.begin(), v.end());
  const double alpha = 1.0 - confidence;
  return {NearestRank(v, alpha / 2.0), NearestRank(v, 1.0 - alpha / 2.0)};
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
                       const std::vector<double>& weights, double p,
                       double bandwidth) {
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

std::vector<StratifiedComparison> CompareStratifiedQuantiles(
    const std::vector<Stratum>& strata, const std::vector<double>& quantiles,
    const BootstrapOptions& options, double bandwidth) {
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
  const int reps = options.replicates;

  std::vector<double> point_a(q), point_b(q), scratch;
  MixtureQuantiles(ma, nullptr, shares, ps, bandwidth, point_a.data(), &scratch);
  MixtureQuantiles(mb, nullptr, shares, ps, bandwidth, point_b.data(), &scratch);

  std::vector<double> rep_a(static_cast<size_t>(reps) * q, kNaN);
  std::vector<double> rep_b(static_cast<size_t>(reps) * q, kNaN);
  const PoissonOneSampler poisson;
  const size_t units_a = ma.counts.size();
  const size_t units_b = mb.counts.size();
  auto run = [&](int first, int step) {
    std::vector<uint8_t> weights_a(units_a);
    std::vector<uint8_t> weights_b(options.paired ? 0 : units_b);
    std::vector<double> qa(q), qb(q), mass;
    for (int r = first; r < reps; r += step) {
      Xoshiro256 rng(MixSeed(options.seed, static_cast<uint64_t>(r)));
      poisson.Fill(rng, weights_a.data(), units_a);
      const uint8_t* wb = weights_a.data();
      if (!options.paired) {
        poisson.Fill(rng, weights_b.data(), units_b);
        wb = weights_b.data();
      }
      if (!MixtureQuantiles(ma, weights_a.data(), shares, ps, bandwidth,
                            qa.data(), &mass) ||
          !MixtureQuantiles(mb, wb, shares, ps, bandwidth, qb.data(), &mass)) {
        continue;
      }
      std::copy(qa.begin(), qa.end(), rep_a.begin() + r * q);
      std::copy(qb.begin(), qb.end(), rep_b.begin() + r * q);
    }
  };
  const int threads = std::max(1, std::min(options.threads, reps));
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(run, t, threads);
  run(0, threads);
  for (auto& worker : workers) worker.join();

  std::vector<StratifiedComparison> out(q);
  std::vector<double> diffs, rels, as, bs;
  for (size_t j = 0; j < q; ++j) {
    StratifiedComparison& s = out[j];
    QuantileComparison& c = s.diff;
    c.p = ps[j];
    c.a = point_a[j];
    c.b = point_b[j];
    c.diff = c.b - c.a;
    c.rel = c.a != 0 ? c.b / c.a - 1.0 : kNaN;
    diffs.clear();
    rels.clear();
    as.clear();
    bs.clear();
    for (int r = 0; r < reps; ++r) {
      const double x = rep_a[r * q + j];
      const double y = rep_b[r * q + j];
      if (std::isnan(x) || std::isnan(y)) continue;
      as.push_back(x);
      bs.push_back(y);
      diffs.push_back(y - x);
      rels.push_back(x != 0 ? y / x - 1.0 : kNaN);
    }
    c.replicates = static_cast<int>(diffs.size());
    std::tie(c.diff_lower, c.diff_upper) =
        PercentileInterval(diffs, options.confidence);
    std::tie(c.rel_lower, c.rel_upper) =
        PercentileInterval(rels, options.confidence);
    std::tie(s.a_lower, s.a_upper) = PercentileInterval(as, options.confidence);
    std::tie(s.b_lower, s.b_upper) = PercentileInterval(bs, options.confidence);
  }
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet

#include "loadtest/stats/rank_tests.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

#include "loadtest/stats/distributions.h"

namespace edgefleet {
namespace loadtest {
namespace {

struct Ranks {
  std::vector<double> rank;  // Average rank of each input, 1-based.
  double tie_term = 0;       // Sum over tie groups of t^3 - t.
  bool has_ties = false;
};

Ranks AverageRanks(const std::vector<double>& v) {
  const size_t n = v.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t i, size_t j) { return v[i] < v[j]; });
  Ranks out;
  out.rank.resize(n);
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && v[order[j]] == v[order[i]]) ++j;
    const double average = 0.5 * static_cast<double>(i + 1 + j);
    for (size_t k = i; k < j; ++k) out.rank[order[k]] = average;
    const double t = static_cast<double>(j - i);
    if (j - i > 1) out.has_ties = true;
    out.tie_term += t * t * t - t;
    i = j;
  }
  return out;
}

// Null distribution of W+ for n untied ranks: counts of subsets of {1..n}
// by sum, as probabilities.
std::vector<double> SignedRankDistribution(size_t n) {
  const size_t max_sum = n * (n + 1) / 2;
  std::vector<double> counts(max_sum + 1, 0.0);
  counts[0] = 1.0;
  for (size_t r = 1; r <= n; ++r) {
    for (size_t s = max_sum; s >= r; --s) counts[s] += counts[s - r];
  }
  const double total = std::ldexp(1.0, static_cast<int>(n));
  for (double& c : counts) c /= total;
  return counts;
}

// Null distribution of U for sample sizes m and n without ties:
// f(i, j, u) = f(i - 1, j, u - j) + f(i, j - 1, u), kept one row at a time.
std::vector<double> MannWhitneyDistribution(size_t m, size_t n) {
  std::vector<std::vector<double>> prev(n + 1, std::vector<double>{1.0});
  for (size_t i = 1; i <= m; ++i) {
    std::vector<std::vector<double>> row(n + 1);
    row[0] = {1.0};
    for (size_t j = 1; j <= n; ++j) {
      std::vector<double>& f = row[j];
      f.assign(i * j + 1, 0.0);
      for (size_t u = 0; u < prev[j].size(); ++u) f[u + j] += prev[j][u];
      for (size_t u = 0; u < row[j - 1].size(); ++u) f[u] += row[j - 1][u];
    }
    prev = std::move(row);
  }
  std::vector<double> pmf = prev[n];
  const double total = std::accumulate(pmf.begin(), pmf.end(), 0.0);
  for (double& p : pmf) p /= total;
  return pmf;
}

double SumRange(const std::vector<double>& pmf, long lo, long hi) {
  lo = std::max(lo, 0L);
  hi = std::min(hi, static_cast<long>(pmf.size()) - 1);
  double sum = 0;
  for (long k = lo; k <= hi; ++k) sum += pmf[k];
  return sum;
}

}  // namespace

RankTestResult WilcoxonSignedRank(const std::vector<double>& differences, RankTestMethod method) {
  std::vector<double> d;
  for (double x : differences) {
    if (x != 0) d.push_back(x);
  }
  RankTestResult out;
  out.n = d.size();
  const bool had_zeros = d.size() != differences.size();
  if (d.empty()) {
    out.z = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  std::vector<double> magnitude(d.size());
  for (size_t i = 0; i < d.size(); ++i) magnitude[i] = std::fabs(d[i]);
  const Ranks ranks = AverageRanks(magnitude);
  double r_plus = 0, r_minus = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    (d[i] > 0 ? r_plus : r_minus) += ranks.rank[i];
  }
  out.statistic = std::min(r_plus, r_minus);
  out.rank_sum = r_plus;
  out.effect = (r_plus - r_minus) / (r_plus + r_minus);
  const double n = static_cast<double>(d.size());
  if (method == RankTestMethod::kAuto) {
    method = (!ranks.has_ties && !had_zeros && d.size() <= 50) ? RankTestMethod::kExact
                                                               : RankTestMethod::kNormal;
  }
  out.method = method;
  if (method == RankTestMethod::kExact) {
    const std::vector<double> pmf = SignedRankDistribution(d.size());
    const double cdf = SumRange(pmf, 0, static_cast<long>(std::ceil(r_plus)));
    const double sf =
        SumRange(pmf, static_cast<long>(std::floor(r_plus)), static_cast<long>(pmf.size()) - 1);
    out.z = std::numeric_limits<double>::quiet_NaN();
    out.p_value = std::min(1.0, 2.0 * std::min(cdf, sf));
    return out;
  }
  const double mean = n * (n + 1) / 4;
  const double se = std::sqrt((n * (n + 1) * (2 * n + 1) - ranks.tie_term / 2) / 24);
  double z = (r_plus - mean) / se;
  if (z != 0) z -= std::copysign(0.5 / se, z);
  out.z = z;
  out.p_value = std::min(1.0, 2.0 * NormalSurvival(std::fabs(z)));
  return out;
}

RankTestResult MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y,
                            RankTestMethod method) {
  assert(!x.empty() && !y.empty());
  std::vector<double> all(x);
  all.insert(all.end(), y.begin(), y.end());
  const Ranks ranks = AverageRanks(all);
  const double n1 = static_cast<double>(x.size());
  const double n2 = static_cast<double>(y.size());
  double r1 = 0;
  for (size_t i = 0; i < x.size(); ++i) r1 += ranks.rank[i];
  const double u1 = r1 - n1 * (n1 + 1) / 2;
  const double u2 = n1 * n2 - u1;
  const double u = std::max(u1, u2);
  RankTestResult out;
  out.statistic = u1;
  out.rank_sum = u1;
  out.n = x.size() + y.size();
  out.effect = u1 / (n1 * n2);
  if (method == RankTestMethod::kAuto) {
    method = (!ranks.has_ties && std::min(x.size(), y.size()) <= 8) ? RankTestMethod::kExact
                                                                    : RankTestMethod::kNormal;
  }
  out.method = method;
  if (method == RankTestMethod::kExact) {
    const std::vector<double> pmf = MannWhitneyDistribution(x.size(), y.size());
    const double sf = SumRange(pmf, static_cast<long>(u), static_cast<long>(pmf.size()) - 1);
    out.z = std::numeric_limits<double>::quiet_NaN();
    out.p_value = std::min(1.0, 2.0 * sf);
    return out;
  }
  const double n = n1 + n2;
  const double sigma = std::sqrt(n1 * n2 / 12 * ((n + 1) - ranks.tie_term / (n * (n - 1))));
  const double z = (u - n1 * n2 / 2 - 0.5) / sigma;
  out.z = z;
  out.p_value = std::min(1.0, 2.0 * NormalSurvival(z));
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet

#include "loadtest/stats/quantile.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "loadtest/stats/distributions.h"

namespace edgefleet {
namespace loadtest {

long long NearestRankOf(long long total, double p) {
  assert(total > 0);
  // p * total is within an ulp of the exact product; shave a relative 1e-12
  // so that an exact integer product (0.29 * 100 == 29) is not pushed up a
  // rank by rounding noise.
  const double scaled = p * static_cast<double>(total) * (1.0 - 1e-12);
  const long long rank = static_cast<long long>(std::ceil(scaled));
  return std::clamp(rank, 1LL, total);
}

size_t NearestRankIndex(size_t n, double p) {
  return static_cast<size_t>(NearestRankOf(static_cast<long long>(n), p) - 1);
}

double NearestRank(const std::vector<double>& sorted, double p) {
  assert(!sorted.empty());
  return sorted[NearestRankIndex(sorted.size(), p)];
}

QuantileInterval OrderStatisticInterval(const std::vector<double>& sorted, double p,
                                        double confidence) {
  assert(!sorted.empty());
  const int64_t n = static_cast<int64_t>(sorted.size());
  const double alpha = 1.0 - confidence;
  QuantileInterval out;
  out.p = p;
  out.estimate = NearestRank(sorted, p);
  // B = #{x_i <= true quantile} ~ Binomial(n, p).
  //   x_(l) <= q  <=>  B >= l        x_(u) >= q  <=>  B <= u - 1
  // l: smallest with F(l) >= alpha/2, so F(l - 1) < alpha/2.
  // u - 1: smallest with F(u - 1) >= 1 - alpha/2.
  const int64_t l = BinomialQuantile(alpha / 2.0, n, p);
  const int64_t u = BinomialQuantile(1.0 - alpha / 2.0, n, p) + 1;
  out.lower_rank = static_cast<size_t>(l);
  out.upper_rank = static_cast<size_t>(std::min(u, n + 1));
  out.lower = l >= 1 ? sorted[l - 1] : -std::numeric_limits<double>::infinity();
  out.upper = u <= n ? sorted[u - 1] : std::numeric_limits<double>::infinity();
  out.coverage = BinomialCdf(u - 1, n, p) - BinomialCdf(l - 1, n, p);
  return out;
}

}  // namespace loadtest
}  // namespace edgefleet

#include "loadtest/stats/replicates.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <tuple>

#include "loadtest/stats/quantile.h"
#include "loadtest/stats/random.h"

namespace edgefleet {
namespace loadtest {

Replicates RunReplicates(const BootstrapOptions& options, size_t units_a, size_t units_b, size_t q,
                         const ReplicateQuantilesFn& quantiles) {
  const int reps = options.replicates;
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  Replicates out;
  out.q = q;
  out.a.assign(static_cast<size_t>(reps) * q, kNaN);
  out.b.assign(static_cast<size_t>(reps) * q, kNaN);
  const PoissonOneSampler poisson;
  auto run = [&](int first, int step) {
    std::vector<uint8_t> weights_a(units_a);
    std::vector<uint8_t> weights_b(options.paired ? 0 : units_b);
    std::vector<double> qa(q), qb(q), scratch;
    for (int r = first; r < reps; r += step) {
      Xoshiro256 rng(MixSeed(options.seed, static_cast<uint64_t>(r)));
      poisson.Fill(rng, weights_a.data(), units_a);
      const uint8_t* wb = weights_a.data();
      if (!options.paired) {
        poisson.Fill(rng, weights_b.data(), units_b);
        wb = weights_b.data();
      }
      if (!quantiles(weights_a.data(), wb, qa.data(), qb.data(), &scratch)) {
        continue;
      }
      std::copy(qa.begin(), qa.end(), out.a.begin() + r * q);
      std::copy(qb.begin(), qb.end(), out.b.begin() + r * q);
    }
  };
  const int threads = std::max(1, std::min(options.threads, reps));
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(run, t, threads);
  run(0, threads);
  for (auto& worker : workers) worker.join();
  return out;
}

std::pair<double, double> PercentileInterval(std::vector<double>& v, double confidence) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    return {kNaN, kNaN};
  }
  std::sort(v.begin(), v.end());
  const double alpha = 1.0 - confidence;
  return {NearestRank(v, alpha / 2.0), NearestRank(v, 1.0 - alpha / 2.0)};
}

void SummarizeReplicates(const Replicates& r, size_t j, double confidence, QuantileComparison* c,
                         std::pair<double, double>* a, std::pair<double, double>* b) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> diffs, rels, as, bs;
  const size_t reps = r.q == 0 ? 0 : r.a.size() / r.q;
  for (size_t i = 0; i < reps; ++i) {
    const double x = r.a[i * r.q + j];
    const double y = r.b[i * r.q + j];
    if (std::isnan(x) || std::isnan(y)) continue;
    as.push_back(x);
    bs.push_back(y);
    diffs.push_back(y - x);
    rels.push_back(x != 0 ? y / x - 1.0 : kNaN);
  }
  c->replicates = static_cast<int>(diffs.size());
  std::tie(c->diff_lower, c->diff_upper) = PercentileInterval(diffs, confidence);
  std::tie(c->rel_lower, c->rel_upper) = PercentileInterval(rels, confidence);
  if (a != nullptr) *a = PercentileInterval(as, confidence);
  if (b != nullptr) *b = PercentileInterval(bs, confidence);
}

}  // namespace loadtest
}  // namespace edgefleet

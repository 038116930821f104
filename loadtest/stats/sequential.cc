#include "loadtest/stats/sequential.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "loadtest/stats/distributions.h"
#include "loadtest/stats/random.h"

namespace edgefleet {
namespace loadtest {
namespace {

// The density of the score S_k = Z_k sqrt(t_k) on the continuation region
// of the looks so far, carried from look to look on a uniform grid with
// Simpson weights (values stored as weight x density, so an integral is a
// plain sum).
class Recursion {
 public:
  explicit Recursion(const std::vector<double>& fractions) : t_(fractions) {
    double sigma = std::sqrt(t_[0]);
    for (size_t k = 1; k < t_.size(); ++k) {
      sigma = std::min(sigma, std::sqrt(t_[k] - t_[k - 1]));
    }
    step_ = sigma / 16;
  }

  // P(continued through the previous looks, |Z_k| >= c at look k).
  double Exit(double c) const {
    if (k_ == 0) return 2 * NormalSurvival(c);
    const double b = c * std::sqrt(t_[k_]);
    const double sd = std::sqrt(t_[k_] - t_[k_ - 1]);
    double p = 0;
    for (size_t i = 0; i < s_.size(); ++i) {
      p += g_[i] * (NormalSurvival((b - s_[i]) / sd) + NormalSurvival((b + s_[i]) / sd));
    }
    return p;
  }

  // Moves to the next look with bound c at the current one.
  void Advance(double c) {
    constexpr double kTail = 9;  // Density beyond 9 SD is below 1e-18.
    const double b = std::min(c * std::sqrt(t_[k_]), kTail * std::sqrt(t_[k_]));
    const int half = std::max(1, static_cast<int>(std::ceil(b / step_)));
    const int n = 2 * half + 1;
    const double h = b / half;
    std::vector<double> s(n), g(n);
    for (int j = 0; j < n; ++j) s[j] = -b + j * h;
    if (k_ == 0) {
      const double sd = std::sqrt(t_[0]);
      for (int j = 0; j < n; ++j) g[j] = std::exp(-0.5 * Square(s[j] / sd)) / sd;
    } else {
      // Convolution with the increment's N(0, t_k - t_{k-1}), truncated at
      // kTail SD around each target point (both grids are uniform).
      const double sd = std::sqrt(t_[k_] - t_[k_ - 1]);
      const double old_h = s_.size() > 1 ? s_[1] - s_[0] : 1;
      for (int j = 0; j < n; ++j) {
        const double lo = s[j] - kTail * sd, hi = s[j] + kTail * sd;
        size_t i = lo <= s_.front() ? 0 : static_cast<size_t>((lo - s_.front()) / old_h);
        double f = 0;
        for (; i < s_.size() && s_[i] <= hi; ++i) {
          f += g_[i] * std::exp(-0.5 * Square((s[j] - s_[i]) / sd));
        }
        g[j] = f / sd;
      }
    }
    constexpr double kInvSqrt2Pi = 0.3989422804014327;
    for (int j = 0; j < n; ++j) {
      const double simpson = (j == 0 || j == n - 1) ? 1 : (j % 2 ? 4 : 2);
      g[j] *= kInvSqrt2Pi * simpson * h / 3;
    }
    s_ = std::move(s);
    g_ = std::move(g);
    ++k_;
  }

 private:
  static double Square(double x) { return x * x; }

  std::vector<double> t_;
  double step_ = 0;
  size_t k_ = 0;
  std::vector<double> s_, g_;
};

[[maybe_unused]] bool ValidFractions(const std::vector<double>& t) {
  if (t.empty() || !(t[0] > 0) || t.back() > 1) return false;
  for (size_t k = 1; k < t.size(); ++k) {
    if (!(t[k] > t[k - 1])) return false;
  }
  return true;
}

}  // namespace

const char* SpendingName(Spending spending) {
  switch (spending) {
    case Spending::kObrienFleming:
      return "obrien-fleming";
    case Spending::kPocock:
      return "pocock";
  }
  return "unknown";
}

bool ParseSpending(std::string_view name, Spending* spending) {
  for (Spending s : {Spending::kObrienFleming, Spending::kPocock}) {
    if (name == SpendingName(s)) {
      *spending = s;
      return true;
    }
  }
  return false;
}

double SpentAlpha(Spending spending, double alpha, double t) {
  assert(alpha > 0 && alpha < 1 && t >= 0 && t <= 1);
  if (t <= 0) return 0;
  switch (spending) {
    case Spending::kObrienFleming:
      return 2 * NormalSurvival(NormalQuantile(1 - alpha / 2) / std::sqrt(t));
    case Spending::kPocock:
      return alpha * std::log(1 + (std::exp(1.0) - 1) * t);
  }
  return 0;
}

std::vector<double> ExitProbabilities(const std::vector<double>& fractions,
                                      const std::vector<double>& bounds) {
  assert(ValidFractions(fractions) && bounds.size() == fractions.size());
  Recursion r(fractions);
  std::vector<double> exits;
  for (size_t k = 0; k < bounds.size(); ++k) {
    exits.push_back(r.Exit(bounds[k]));
    if (k + 1 < bounds.size()) r.Advance(bounds[k]);
  }
  return exits;
}

std::vector<double> SpendingBoundary(Spending spending, double alpha,
                                     const std::vector<double>& fractions) {
  assert(ValidFractions(fractions) && alpha > 0 && alpha < 1);
  Recursion r(fractions);
  std::vector<double> bounds;
  double spent = 0;
  for (size_t k = 0; k < fractions.size(); ++k) {
    const double total = SpentAlpha(spending, alpha, fractions[k]);
    const double target = total - spent;
    double c = kMaxBound;
    if (r.Exit(kMaxBound) < target) {
      // Exit(c) falls as c grows: bisect for Exit(c) == target.
      double lo = 0, hi = kMaxBound;
      for (int it = 0; it < 60 && hi - lo > 1e-10; ++it) {
        const double mid = 0.5 * (lo + hi);
        (r.Exit(mid) > target ? lo : hi) = mid;
      }
      c = 0.5 * (lo + hi);
    }
    bounds.push_back(c);
    spent = total;
    if (k + 1 < fractions.size()) r.Advance(c);
  }
  return bounds;
}

double LookConfidence(Spending spending, double confidence, const std::vector<double>& fractions,
                      int look) {
  assert(look >= 1 && look <= static_cast<int>(fractions.size()));
  const std::vector<double> prefix(fractions.begin(), fractions.begin() + look);
  // The boundary of look k depends only on the looks up to k.
  const double c = SpendingBoundary(spending, 1 - confidence, prefix).back();
  return 1 - 2 * NormalSurvival(c);
}

int LookOfDevice(uint64_t seed, uint64_t device_id, int looks) {
  // A stream of its own: independent of the arm assignment's hash, so look
  // groups are not correlated with arms.
  constexpr uint64_t kLookStream = 0x6c6f6f6b73ull;  // "looks"
  const uint64_t h = MixSeed(MixSeed(seed, kLookStream), device_id);
  const double u = static_cast<double>(h >> 11) * 0x1.0p-53;
  return static_cast<int>(u * looks);
}

}  // namespace loadtest
}  // namespace edgefleet

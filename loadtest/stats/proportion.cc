#include "loadtest/stats/proportion.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "loadtest/stats/distributions.h"

namespace edgefleet {
namespace loadtest {

RateInterval WilsonInterval(int64_t events, int64_t trials, double confidence) {
  assert(events >= 0 && events <= trials);
  RateInterval out;
  out.events = events;
  out.trials = trials;
  if (trials == 0) return out;
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(events) / n;
  const double z = NormalQuantile(0.5 + confidence / 2.0);
  const double z2 = z * z;
  const double center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  out.rate = p;
  out.lower = std::max(0.0, center - half);
  out.upper = std::min(1.0, center + half);
  // At the edges the bound is exact; keep rounding noise out of it.
  if (events == 0) out.lower = 0.0;
  if (events == trials) out.upper = 1.0;
  return out;
}

RateDifference NewcombeDifference(const RateInterval& a, const RateInterval& b) {
  RateDifference out;
  out.diff = b.rate - a.rate;
  out.lower = out.diff - std::sqrt((b.rate - b.lower) * (b.rate - b.lower) +
                                   (a.upper - a.rate) * (a.upper - a.rate));
  out.upper = out.diff + std::sqrt((b.upper - b.rate) * (b.upper - b.rate) +
                                   (a.rate - a.lower) * (a.rate - a.lower));
  return out;
}

const char* GuardrailStatusName(GuardrailStatus status) {
  switch (status) {
    case GuardrailStatus::kPass:
      return "pass";
    case GuardrailStatus::kBreach:
      return "breach";
    case GuardrailStatus::kInconclusive:
      return "inconclusive";
  }
  return "unknown";
}

GuardrailStatus CheckGuardrail(const RateInterval& clearance, const RateInterval& claim,
                               double ceiling) {
  if (claim.trials == 0) return GuardrailStatus::kInconclusive;
  if (claim.lower > ceiling) return GuardrailStatus::kBreach;
  if (clearance.upper <= ceiling) return GuardrailStatus::kPass;
  return GuardrailStatus::kInconclusive;
}

}  // namespace loadtest
}  // namespace edgefleet

#include "loadtest/stats/verdict.h"

#include <cassert>
#include <cmath>

#include "loadtest/stats/distributions.h"

namespace edgefleet {
namespace loadtest {
namespace {

int Severity(Verdict v) {
  switch (v) {
    case Verdict::kNeutral:
      return 0;
    case Verdict::kImprovement:
      return 1;
    case Verdict::kInconclusive:
      return 2;
    case Verdict::kRegression:
      return 3;
  }
  return 3;
}

// One comparison: [clear_*] at the report's confidence, [claim_*] at the
// Bonferroni confidence, both bounding B's change against A.
Verdict DecideOne(double clear_upper, double claim_lower, double claim_upper, double margin) {
  if (claim_lower > margin) return Verdict::kRegression;
  if (!(clear_upper <= margin)) return Verdict::kInconclusive;
  if (claim_upper < -margin) return Verdict::kImprovement;
  return Verdict::kNeutral;
}

}  // namespace

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kNeutral:
      return "neutral";
    case Verdict::kImprovement:
      return "improvement";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kRegression:
      return "regression";
  }
  return "unknown";
}

Verdict WorseVerdict(Verdict a, Verdict b) { return Severity(a) >= Severity(b) ? a : b; }

double BonferroniConfidence(double confidence, int comparisons) {
  assert(comparisons >= 1);
  return 1.0 - (1.0 - confidence) / comparisons;
}

std::pair<double, double> RescaleInterval(double estimate, double lower, double upper, double from,
                                          double to) {
  const double factor = NormalQuantile(0.5 + to / 2.0) / NormalQuantile(0.5 + from / 2.0);
  return {estimate - factor * (estimate - lower), estimate + factor * (upper - estimate)};
}

Verdict DecideQuantileVerdict(const std::vector<QuantileEvidence>& evidence, double min_effect) {
  Verdict verdict = Verdict::kNeutral;
  bool improved = false;
  for (const QuantileEvidence& e : evidence) {
    if (!e.enough_samples || std::isnan(e.claim_lower) || std::isnan(e.claim_upper) ||
        std::isnan(e.clear_upper)) {
      verdict = WorseVerdict(verdict, Verdict::kInconclusive);
      continue;
    }
    const Verdict v = DecideOne(e.clear_upper, e.claim_lower, e.claim_upper, min_effect);
    if (v == Verdict::kImprovement) {
      improved = true;
    } else {
      verdict = WorseVerdict(verdict, v);
    }
  }
  if (verdict == Verdict::kNeutral && improved) return Verdict::kImprovement;
  return verdict;
}

Verdict DecideRateVerdict(const RateDifference& clearance, const RateDifference& claim,
                          double margin) {
  return DecideOne(clearance.upper, claim.lower, claim.upper, margin);
}

Verdict GuardrailVerdict(GuardrailStatus status) {
  switch (status) {
    case GuardrailStatus::kPass:
      return Verdict::kNeutral;
    case GuardrailStatus::kBreach:
      return Verdict::kRegression;
    case GuardrailStatus::kInconclusive:
      return Verdict::kInconclusive;
  }
  return Verdict::kInconclusive;
}

}  // namespace loadtest
}  // namespace edgefleet

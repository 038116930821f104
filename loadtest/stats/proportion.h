// Rates of events per session (ANR rate, OOM-kill rate): Wilson score
// intervals, Newcombe's interval for the difference of two rates, and
// guardrail checks against a fixed ceiling.
//
// Wilson (1927): the set of p whose score test does not reject x successes in
// n trials; unlike the Wald interval it behaves at x = 0, which is the common
// case for ANRs. Newcombe (1998, method 10) combines the two arms' Wilson
// intervals into one for p_b - p_a.
//
// A guardrail (e.g. Android vitals' user-perceived ANR rate: 0.47 % of daily
// sessions overall, 8 % on any device model) is:
//   breach        the claim interval's lower bound > ceiling,
//   pass          the clearance interval's upper bound <= ceiling,
//   inconclusive  otherwise (the sample cannot tell).
// The claim interval is the Wilson interval at the report's Bonferroni
// confidence, the clearance interval at its ordinary confidence (verdict.h).
//
// Pure functions; thread-safe.

#ifndef EDGEFLEET_LOADTEST_STATS_PROPORTION_H_
#define EDGEFLEET_LOADTEST_STATS_PROPORTION_H_

#include <cstdint>

namespace edgefleet {
namespace loadtest {

struct RateInterval {
  int64_t events = 0;
  int64_t trials = 0;
  double rate = 0;   // events / trials; 0 when trials == 0.
  double lower = 0;  // [0, 1] when trials == 0: nothing is known.
  double upper = 1;
};

// Wilson score interval at two-sided `confidence`.
// REQUIRES: 0 <= events <= trials, 0 < confidence < 1.
RateInterval WilsonInterval(int64_t events, int64_t trials, double confidence);

struct RateDifference {
  double diff = 0;  // rate_b - rate_a.
  double lower = -1;
  double upper = 1;
};

// Newcombe's hybrid score interval for b.rate - a.rate.
RateDifference NewcombeDifference(const RateInterval& a, const RateInterval& b);

enum class GuardrailStatus { kPass, kBreach, kInconclusive };

const char* GuardrailStatusName(GuardrailStatus status);

GuardrailStatus CheckGuardrail(const RateInterval& clearance, const RateInterval& claim,
                               double ceiling);

}  // namespace loadtest
}  // namespace edgefleet

#endif  // EDGEFLEET_LOADTEST_STATS_PROPORTION_H_
